/*
 * cli_out.c - output files: how every file a command writes is opened,
 * written and put in place.
 *
 * The rules (the one statement of them; tests/cli/outputs.sh pins each):
 *
 *  1. "-" is stdout.
 *  2. A name is followed through symbolic links (40 at most): the link's
 *     target is written and the link stays a link. A dangling link makes its
 *     target.
 *  3. A name that is (after the links) a regular file, or nothing yet, is
 *     never written in place: the output goes to a temporary file created
 *     exclusively beside it (NAME.tmp.XXXXXX, with O_CREAT | O_EXCL |
 *     O_NOFOLLOW, a random suffix, mode 0666 less the umask, so that nothing
 *     planted under that name is followed or reused), renamed over NAME when
 *     complete and removed when the command fails or is stopped by SIGINT or
 *     SIGTERM. NAME therefore holds either its old content or the whole new
 *     output, never a part; only SIGKILL (or a crash) leaves a NAME.tmp.*.
 *  4. Anything else - a character or block device, a FIFO, a socket, and any
 *     name whose links pass through /dev/ or /proc/ (/dev/stdout, /dev/fd/N)
 *     - is opened as it is (O_WRONLY | O_APPEND, no creation) and written
 *     directly: it is never replaced, renamed or removed. A directory is
 *     refused.
 *  5. Every write, flush and close is checked; a failure ends the command
 *     with "NAME: write error: REASON" and exit status 2, and stdout is held
 *     to the same rule (cli_stdout_close, called once by main).
 *  6. Two outputs of one command may not be the same file, nor an output one
 *     of its inputs (cli_out_distinct): a usage error, before any work.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAX_LINKS 40

static int under_dev_or_proc(const char *p)
{
    return strncmp(p, "/dev/", 5) == 0 || strncmp(p, "/proc/", 6) == 0;
}

/* Follow `path` through its symbolic links into out (size n). Returns 0 with
 * *direct set when the chain passes through /dev/ or /proc/, or -1 with
 * errno (ELOOP, ENAMETOOLONG, or lstat's and readlink's). */
static int resolve(const char *path, char *out, size_t n, int *direct)
{
    char link[PATH_MAX];
    struct stat sb;

    if (strlen(path) >= n)
        return errno = ENAMETOOLONG, -1;
    strcpy(out, path);
    *direct = under_dev_or_proc(out);
    for (int i = 0;; i++) {
        ssize_t len;
        if (lstat(out, &sb) != 0)
            return errno == ENOENT ? 0 : -1; /* nothing there yet: made here */
        if (!S_ISLNK(sb.st_mode))
            return 0;
        if (i == MAX_LINKS)
            return errno = ELOOP, -1;
        len = readlink(out, link, sizeof link - 1);
        if (len < 0)
            return -1;
        link[len] = '\0';
        if (link[0] == '/') {
            if ((size_t)len >= n)
                return errno = ENAMETOOLONG, -1;
            strcpy(out, link);
        } else { /* relative to the link's directory */
            char *slash = strrchr(out, '/');
            size_t dir = slash ? (size_t)(slash - out) + 1 : 0;
            if (dir + (size_t)len >= n)
                return errno = ENAMETOOLONG, -1;
            memcpy(out + dir, link, (size_t)len + 1);
        }
        if (under_dev_or_proc(out))
            *direct = 1;
    }
}

/* Create target.tmp.XXXXXX exclusively; the name in tmp. */
static int create_temporary(const char *target, char *tmp, size_t n)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned counter;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^
                 (uint64_t)ts.tv_sec;
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        uint64_t r;
        int fd;
        x += 0x9E3779B97F4A7C15ull + counter++;
        r = x;
        r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
        r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
        r ^= r >> 31;
        for (int k = 0; k < 6; k++, r /= 62)
            suffix[k] = digits[r % 62];
        suffix[6] = '\0';
        if ((size_t)snprintf(tmp, n, "%s.tmp.%s", target, suffix) >= n)
            return errno = ENAMETOOLONG, -1;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return errno = EEXIST, -1;
}

static int out_write(void *ctx, const char *data, size_t len)
{
    cli_out *o = ctx;
    errno = 0;
    if (fwrite(data, 1, len, o->f) == len)
        return 0;
    if (!o->werr)
        o->werr = errno ? errno : EIO;
    return -1;
}

int cli_out_failed(cli_out *o, ct_error *err)
{
    if (!o->w.failed && !o->werr && !(o->f && ferror(o->f)))
        return 0;
    ct_error_set(err, CT_E_IO, "%s: write error: %s", o->is_stdout ? "stdout" : o->path,
                 strerror(o->werr ? o->werr : EIO));
    return 1;
}

int cli_out_open(cli_out *o, const char *path, ct_error *err)
{
    struct stat sb;
    int direct = 0, fd;

    memset(o, 0, sizeof *o);
    snprintf(o->path, sizeof o->path, "%s", path);
    o->w.write = out_write;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = 1;
        o->w.ctx = o;
        return CT_OK;
    }
    if (resolve(path, o->target, sizeof o->target, &direct) != 0)
        return ct_error_set(err, CT_E_IO, "%s: cannot create: %s", path, strerror(errno));
    if (stat(o->target, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return ct_error_set(err, CT_E_IO, "%s: cannot create: Is a directory", path);
        if (!S_ISREG(sb.st_mode))
            direct = 1;
    }
    if (direct) {
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
            return ct_error_set(err, CT_E_IO, "%s: cannot open: %s", path, strerror(errno));
        o->direct = 1;
    } else {
        fd = create_temporary(o->target, o->tmp, sizeof o->tmp);
        if (fd < 0)
            return ct_error_set(err, CT_E_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        if (!o->direct)
            unlink(o->tmp);
        return ct_error_set(err, CT_E_IO, "%s: cannot create: %s", path, strerror(e));
    }
    o->w.ctx = o;
    return CT_OK;
}

int cli_out_commit(cli_out *o, ct_error *err)
{
    int bad = o->w.failed || ferror(o->f);
    int e = bad ? (o->werr ? o->werr : EIO) : 0;

    if (o->is_stdout) {
        if (fflush(stdout) != 0 || bad)
            return ct_error_set(err, CT_E_IO, "stdout: write error: %s",
                                strerror(e ? e : errno ? errno : EIO));
        return CT_OK;
    }
    errno = 0;
    if (fflush(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (bad) {
        if (!o->direct)
            unlink(o->tmp);
        return ct_error_set(err, CT_E_IO, "%s: write error: %s", o->path, strerror(e ? e : EIO));
    }
    if (!o->direct && rename(o->tmp, o->target) != 0) {
        e = errno;
        unlink(o->tmp);
        return ct_error_set(err, CT_E_IO, "%s: cannot rename into place: %s", o->path,
                            strerror(e));
    }
    return CT_OK;
}

int cli_out_publish(cli_out *o, ct_error *err)
{
    errno = 0;
    if (fflush(o->f) != 0 || o->w.failed || ferror(o->f))
        return ct_error_set(err, CT_E_IO, "%s: write error: %s", o->is_stdout ? "stdout" : o->path,
                            strerror(o->werr ? o->werr : errno ? errno : EIO));
    if (o->is_stdout || o->direct)
        return CT_OK;
    if (rename(o->tmp, o->target) != 0)
        return ct_error_set(err, CT_E_IO, "%s: cannot rename into place: %s", o->path,
                            strerror(errno));
    o->direct = 1; /* from now on the file itself, under its name */
    return CT_OK;
}

void cli_out_abort(cli_out *o)
{
    if (!o->f || o->is_stdout)
        return;
    fclose(o->f);
    o->f = NULL;
    if (!o->direct)
        unlink(o->tmp);
}

int cli_stdout_close(int status)
{
    int bad = ferror(stdout);
    errno = 0;
    if (fflush(stdout) != 0)
        bad = 1;
    if (bad) {
        cli_error("stdout: write error: %s", strerror(errno ? errno : EIO));
        return status == EXIT_OK ? EXIT_INPUT : status;
    }
    return status;
}

/* What identifies a file for rule 6: its device and inode when it exists
 * and is a regular file, else its name after the links. 0 when the name
 * needs no check (stdout, devices, FIFOs). */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    char name[PATH_MAX];
} file_id;

static int identify(const char *path, file_id *id)
{
    struct stat sb;
    int direct = 0;

    memset(id, 0, sizeof *id);
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            return 0;
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
        return 1;
    }
    if (resolve(path, id->name, sizeof id->name, &direct) != 0 || direct)
        return 0;
    /* not there yet: its directory's real name and its own */
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(id->name, '/'), *base = slash ? slash + 1 : id->name;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - id->name) + 1 : 1,
             slash ? id->name : ".");
    size_t lr, lb = strlen(base);
    if (realpath(dir, real) != NULL && (lr = strlen(real)) + lb + 2 < sizeof id->name) {
        memmove(id->name + lr + 1, base, lb + 1);
        memcpy(id->name, real, lr);
        id->name[lr] = '/';
    }
    return 1;
}

static int same_file(const file_id *a, const file_id *b)
{
    if (a->name[0] || b->name[0])
        return a->name[0] && b->name[0] && strcmp(a->name, b->name) == 0;
    return a->dev == b->dev && a->ino == b->ino;
}

int cli_out_distinct(const char *const *outs, int nouts, char *const *ins, int nins)
{
    static file_id a, b; /* large: kept off the stack */

    for (int i = 0; i < nouts; i++) {
        if (!outs[i] || !identify(outs[i], &a))
            continue;
        for (int j = i + 1; j < nouts; j++)
            if (outs[j] && identify(outs[j], &b) && same_file(&a, &b)) {
                cli_error("%s and %s are the same file: give each output its own name",
                          outs[i], outs[j]);
                return -1;
            }
        for (int j = 0; j < nins; j++)
            if (identify(ins[j], &b) && same_file(&a, &b)) {
                cli_error("%s is both an input and an output: write the output elsewhere",
                          outs[i]);
                return -1;
            }
    }
    return 0;
}
