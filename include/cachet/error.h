/*
 * cachet/error.h - error codes and the error record every fallible call fills.
 *
 * Every public call that can fail returns 0 (CT_OK) or one of the negative
 * codes below, and, when the caller passes a ct_error, writes a one-line
 * message into it that names the input (file, archive member), the position
 * (line and column for text, byte offset and record index for binary) and the
 * reason. The library never prints and never exits: the caller decides what
 * to do with the message.
 */
#ifndef CACHET_ERROR_H
#define CACHET_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ct_status {
    CT_OK = 0,
    CT_E_NOMEM = -1,       /* an allocation failed */
    CT_E_IO = -2,          /* a file could not be opened, read or written */
    CT_E_FORMAT = -3,      /* malformed trace input */
    CT_E_CONFIG = -4,      /* bad configuration (unknown key, bad value, geometry) */
    CT_E_USAGE = -5,       /* a call or option used wrongly */
    CT_E_UNSUPPORTED = -6, /* well-formed input that cachet does not handle */
    CT_E_LIMIT = -7,       /* a configured limit was reached (e.g. max errors) */
    CT_E_INTERNAL = -8,    /* a broken invariant: a bug in cachet */
    CT_E_INTERRUPTED = -9  /* stopped on request (signal) */
};

#define CT_ERRMSG_MAX 768

/* The detail of one failure. Zero-initialise, pass by pointer; the callee
 * fills it only on failure. */
typedef struct ct_error {
    int code;                  /* one of enum ct_status */
    char msg[CT_ERRMSG_MAX];   /* "where: reason", never ends in a newline */
} ct_error;

/* Short fixed text for a status code ("malformed input", ...). */
const char *ct_strerror(int code);

/* Fill err (if not NULL) with code and a printf-style message; returns code so
 * that callers can write `return ct_error_set(err, CT_E_IO, "...")`. */
int ct_error_set(ct_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Put "prefix: " in front of the message already in err (used to add context
 * such as the file name as an error travels up). */
void ct_error_prefix(ct_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
