/*
 * fuzz_files.h - where the parser targets write the file a unit is read
 * from: in memory where there is a tmpfs (a unit writes its file), one
 * file per process and name.
 */
#ifndef CACHET_FUZZ_FILES_H
#define CACHET_FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The path of this process's file `name` (e.g. "sweep.ini"), in buf. */
static inline const char *fuzz_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/cachet-fuzz-%ld-%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             (long)getpid(), name);
    return buf;
}

/* Write data to path; a unit that cannot be written stops the run. */
static inline void fuzz_write(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

#endif
