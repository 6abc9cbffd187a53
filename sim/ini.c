/*
 * ini.c - the one reader of INI lines, for configurations and sweep files.
 *
 * Rules (each line of the file, blanks being spaces, tabs and CR):
 *  - A line is at most CT_INI_LINE_MAX - 2 characters and holds no NUL byte.
 *    Lines end at LF (a CR before it is a blank); a CR inside a line is
 *    "CR-only line endings", and a UTF-8 byte-order mark opening the file is
 *    refused with that name: errors, not guesses.
 *  - Empty, all blanks, or a comment (first non-blank ';' or '#'): skipped.
 *  - "[name]": a section header. Blanks around the name are dropped; after
 *    the ']' only blanks and a comment may follow; the name may not be
 *    empty.
 *  - "key = value": the key is the text before the first '=', without the
 *    blanks around it, and may not be empty. The value is the rest of the
 *    line without blanks around it, ending before a comment: a ';' or '#'
 *    that opens the value or follows a blank. So "size = 4K ; note" is 4K,
 *    and "name = a;b" and "name = a#1" keep their ';' and '#'.
 *  - A value that opens with a quote (" or ') ends at the same quote; the
 *    quotes are dropped and ';' and '#' inside them are text. After the
 *    closing quote only blanks and a comment may follow.
 *  - Section names (at most 127 characters) and keys come out in lower case
 *    (they match without case); values as written. A key belongs to the
 *    last section header above it ("" before the first).
 *  - Anything else is a syntax error: "PATH:LINE: syntax error: expected
 *    [section]" (a line opening with '[') or "... expected key = value".
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "config_internal.h"

static FILE *open_ini(const char *path, ct_error *err)
{
    struct stat sb;
    FILE *f = fopen(path, "r");
    if (!f) {
        ct_error_set(err, CT_E_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        ct_error_set(err, CT_E_IO, "%s: is a directory, not an INI file", path);
        return NULL;
    }
    return f;
}

int ct_ini_begin(ct_ini *r, const char *path, ct_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = open_ini(path, err);
    return r->f ? CT_OK : err->code;
}

void ct_ini_end(ct_ini *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static char *skip_blanks(char *s)
{
    while (blank(*s))
        s++;
    return s;
}

/* Whether s (after blanks) is empty or a comment. */
static int rest_is_empty(char *s)
{
    s = skip_blanks(s);
    return !*s || *s == ';' || *s == '#';
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* Cut trailing blanks of s, which starts at or before end. */
static void cut_blanks(char *s, char *end)
{
    while (end > s && blank(end[-1]))
        end--;
    *end = '\0';
}

static int syntax(ct_ini *r, int section, ct_error *err)
{
    return ct_error_set(err, CT_E_CONFIG, "%s:%u: syntax error: expected %s", r->path,
                        r->lineno, section ? "[section]" : "key = value");
}

/* The value after '=' at v, in place: 0, or -1 when it breaks the rules. */
static int value_of(char *v, char **out)
{
    v = skip_blanks(v);
    if (*v == '"' || *v == '\'') {
        char *close = strchr(v + 1, *v);
        if (!close || !rest_is_empty(close + 1))
            return -1;
        *close = '\0';
        *out = v + 1;
        return 0;
    }
    for (char *c = v; *c; c++)
        if ((*c == ';' || *c == '#') && (c == v || blank(c[-1]))) {
            *c = '\0';
            break;
        }
    cut_blanks(v, v + strlen(v));
    *out = v;
    return 0;
}

int ct_ini_next(ct_ini *r, ct_error *err)
{
    for (long at = ftell(r->f); fgets(r->line, sizeof r->line, r->f); at = ftell(r->f)) {
        char *p, *eq;
        long got = at < 0 ? -1 : ftell(r->f) - at;

        r->lineno++;
        if (got >= 0 && strlen(r->line) != (size_t)got) /* fgets read past a NUL */
            return ct_error_set(err, CT_E_CONFIG, "%s:%u: a NUL byte: not a text file",
                                r->path, r->lineno);
        if (!strchr(r->line, '\n') && !feof(r->f))
            return ct_error_set(err, CT_E_CONFIG, "%s:%u: line longer than %d characters",
                                r->path, r->lineno, CT_INI_LINE_MAX - 2);
        if (r->lineno == 1 && memcmp(r->line, "\xef\xbb\xbf", 3) == 0)
            return ct_error_set(err, CT_E_CONFIG, "%s: UTF-8 byte-order mark at byte 0 (cachet "
                                "reads plain ASCII text: save the file without it)", r->path);
        for (const char *cr = strchr(r->line, '\r'); cr; cr = strchr(cr + 1, '\r'))
            if (cr[1] != '\n' && cr[1] != '\0')
                return ct_error_set(err, CT_E_CONFIG, "%s:%u: CR-only line endings (a carriage "
                                    "return inside the line): convert them to LF", r->path,
                                    r->lineno);
        p = skip_blanks(r->line);
        if (rest_is_empty(p))
            continue;
        if (*p == '[') {
            char *close = strchr(p, ']'), *name = skip_blanks(p + 1);
            if (!close || !rest_is_empty(close + 1) || close <= name)
                return syntax(r, 1, err);
            cut_blanks(name, close);
            if (!*name)
                return syntax(r, 1, err);
            if (strlen(name) >= sizeof r->section)
                return ct_error_set(err, CT_E_CONFIG, "%s:%u: section name longer than %zu "
                                    "characters", r->path, r->lineno, sizeof r->section - 1);
            lower(name);
            strcpy(r->section, name);
            r->key = r->value = NULL;
            return CT_INI_SECTION;
        }
        eq = strchr(p, '=');
        if (!eq || eq == p)
            return syntax(r, 0, err);
        *eq = '\0';
        cut_blanks(p, eq);
        if (value_of(eq + 1, &r->value) != 0)
            return syntax(r, 0, err);
        lower(p);
        r->key = p;
        return CT_INI_KEY;
    }
    if (ferror(r->f))
        return ct_error_set(err, CT_E_IO, "%s: read error", r->path);
    return CT_INI_DONE;
}
