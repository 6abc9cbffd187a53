/*
 * error.c - status texts and the error record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cachet/error.h"

const char *ct_strerror(int code)
{
    switch (code) {
    case CT_OK: return "success";
    case CT_E_NOMEM: return "out of memory";
    case CT_E_IO: return "input/output error";
    case CT_E_FORMAT: return "malformed input";
    case CT_E_CONFIG: return "bad configuration";
    case CT_E_USAGE: return "usage error";
    case CT_E_UNSUPPORTED: return "unsupported input";
    case CT_E_LIMIT: return "limit reached";
    case CT_E_INTERNAL: return "internal error";
    case CT_E_INTERRUPTED: return "interrupted";
    default: return "unknown error";
    }
}

int ct_error_set(ct_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void ct_error_prefix(ct_error *err, const char *fmt, ...)
{
    char head[CT_ERRMSG_MAX], old[CT_ERRMSG_MAX];
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    {
        size_t hn = strlen(head), on = strlen(old);
        if (hn > sizeof err->msg - 3)
            hn = sizeof err->msg - 3;
        memcpy(err->msg, head, hn);
        memcpy(err->msg + hn, ": ", 2);
        if (on > sizeof err->msg - hn - 3)
            on = sizeof err->msg - hn - 3;
        memcpy(err->msg + hn + 2, old, on);
        err->msg[hn + 2 + on] = '\0';
    }
}
