/*
 * opt.c - Belady's OPT (replacement = opt): the victim is the line whose
 * next use lies furthest ahead; and the files of next uses it reads.
 *
 * Rules
 *   Arrivals. A level's stream is the sequence of requests that look its
 *   tags up for a block and, when the block is there, tell the policy of a
 *   use: every request reaching the level (a demand access from the trace
 *   of any kind, a page-walk read, a fetch for a level above, a write-back,
 *   write-through or non-allocating write from above, a hardware prefetch of
 *   a level above), a fetch for a level above looking at an exclusive level
 *   (a hit moves the line up), a victim arriving at an exclusive level, and
 *   a zero or allocate operation at a first level. A request split at line
 *   boundaries arrives once per line. Maintenance (clean, invalidate, the
 *   periodic flush) and back-invalidations drop or clean lines without a
 *   use: they are not arrivals (the record holds some invalidations: below).
 *   Next use. Arrival i of the stream (counted from 0) has as next use the
 *   position of the next arrival of the same block, or "never" when there
 *   is none or the block is invalidated first. Writes, write-backs and
 *   prefetches from above are uses like reads: each is a hit or a miss of
 *   the level. A line keeps the next use of the arrival that last hit or
 *   filled it.
 *   Invalidations looked at ahead: an invalidate or clean+invalidate cache
 *   operation on a range at the level (the record holds each block of the
 *   range, or the range itself when it has more lines than the level). An
 *   invalidation of every line (CT_OP_ALL, [system] flush_every)
 *   is not recorded: it would change no choice, every line whose next use
 *   lies beyond it being further than any line used before it.
 *   Back-invalidations (from an inclusive level below a first level) are not
 *   known ahead: they depend on the level below, which the policy changes.
 *   Victim. Of the lines of a full set, the one whose next use is largest
 *   ("never" above all), the lowest way on a tie. A miss always fills (no
 *   bypass), as with every other policy.
 *   Exactness. The stream comes from a first pass over the same trace and
 *   window (cachet run does both passes). It equals the stream of the
 *   second pass when nothing the level holds changes what reaches it, so
 *   ct_sim_create refuses an opt level with a prefetcher of its own (what
 *   it asks for depends on its hits), with an opt level above it (whose
 *   own next uses the first pass does not have yet), with a level above it
 *   and an inclusive level at or below it (back-invalidations would change
 *   the levels above), with miss classification (its shadow has no next
 *   uses), and under compat = drcachesim. With these rules, when every
 *   write allocates and no back-invalidation reaches the level, it has the
 *   fewest misses any policy can have at its geometry (Belady's MIN; the tests check it against every other
 *   policy on the corpus).
 *   Files. The first pass writes the level's blocks in arrival order, 8
 *   bytes each, to a file created exclusively (mkstemp) in the directory it
 *   is given and unlinked at once: it lives while the process holds it open
 *   and nothing is left behind however the process ends (SIGINT, SIGKILL).
 *   The backward pass reads it from the end in chunks of CT_OPT_CHUNK
 *   arrivals, with a map (sim/map.h) from block to the position of its
 *   latest arrival seen so far, which is the next use of the arrival before
 *   it ("never" once an invalidation of the block is seen; a range is
 *   applied to every block the map holds); each chunk of next uses is
 *   written at the same place of a second such file, and the first file is
 *   cut back to the chunks not read yet.
 *   The second pass reads the next uses forward, one chunk at a time.
 *   Disk: 8 bytes per entry (an arrival, a block invalidated, either end of
 *   a range invalidated) of each opt level at most (plus a chunk).
 *   Memory: 512 KiB of buffer per opt level; during the backward pass the
 *   map holds one entry per distinct block of the stream (16-byte slots at
 *   most 3/4 full: 21 to 43 bytes per block).
 *   Without a pass attached (CT_OPT_NONE) every next use is "never" and the
 *   victim is the lowest way: ct_sim_run refuses such a model.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../map.h"
#include "../policy.h"
#include "opt.h"

static void *opt_create(uint64_t sets, uint32_t ways, uint64_t seed)
{
    ct_opt *o = calloc(1, sizeof *o + sets * ways * sizeof o->next[0]);

    (void)seed;
    if (!o)
        return NULL;
    o->ways = ways;
    o->fd = -1;
    o->cur = CT_OPT_NEVER;
    return o;
}

static void opt_destroy(void *st)
{
    ct_opt *o = st;
    if (!o)
        return;
    if (o->fd >= 0)
        close(o->fd);
    free(o->buf);
    free(o);
}

/* A hit and a fill both give the line the current arrival's next use. */
static void opt_use(void *st, uint64_t set, uint32_t way)
{
    ct_opt *o = st;
    o->next[set * o->ways + way] = o->cur;
}

static void opt_inval(void *st, uint64_t set, uint32_t way)
{
    ct_opt *o = st;
    o->next[set * o->ways + way] = 0;
}

static uint32_t opt_victim(void *st, uint64_t set)
{
    const ct_opt *o = st;
    const uint64_t *n = &o->next[set * o->ways];
    uint32_t best = 0;

    for (uint32_t w = 1; w < o->ways; w++)
        if (n[w] > n[best])
            best = w;
    return best;
}

const ct_policy_ops ct_policy_opt = {
    .name = "opt",
    .help = "Belady's optimum: the line used again furthest ahead (two passes over "
            "trace files; cachet run only)",
    .create = opt_create, .destroy = opt_destroy,
    .hit = opt_use, .fill = opt_use, .inval = opt_inval,
    .victim = opt_victim,
    .rehit_idempotent = 0,
};

/* Record the first failure's reason; returns -1. */
static int fail(ct_opt *o, const char *fmt, ...)
{
    if (!o->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(o->msg, sizeof o->msg, fmt, ap);
        va_end(ap);
        o->failed = 1;
    }
    return -1;
}

/* A new file in dir, created exclusively and unlinked at once; -1 on
 * failure (errno set). */
static int temp_file(const char *dir)
{
    char path[4096];
    int fd;

    if (snprintf(path, sizeof path, "%s/cachet-opt-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkstemp(path);
    if (fd >= 0)
        (void)unlink(path);
    return fd;
}

/* Move n bytes between p and the file at offset at (pwrite when out is
 * set, else pread), retrying short counts. 0, or -1 with errno (0: the file
 * ended first). */
static int file_io(int fd, void *p, size_t n, off_t at, int out)
{
    char *c = p;
    errno = 0;
    while (n) {
        const ssize_t k = out ? pwrite(fd, c, n, at) : pread(fd, c, n, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
        at += k;
    }
    return 0;
}

void ct_opt_turn(ct_opt *o)
{
    const size_t w = sizeof o->buf[0];

    if (o->mode == CT_OPT_RECORD) {
        if (!o->failed &&
            file_io(o->fd, o->buf, (size_t)o->at * w, (off_t)(o->done * w), 1) != 0)
            (void)fail(o, "writing the arrivals of the first pass: %s", strerror(errno));
        o->done += o->at;
        o->at = 0;
        return;
    }
    /* replay: the next chunk of next uses */
    o->done += o->fill;
    o->at = o->fill = 0;
    if (o->done >= o->total) {
        (void)fail(o, "the second pass saw more arrivals than the first (%llu): did the "
                   "trace change between the passes?", (unsigned long long)o->total);
        return;
    }
    o->fill = o->total - o->done < CT_OPT_CHUNK ? (uint32_t)(o->total - o->done) : CT_OPT_CHUNK;
    if (!o->failed &&
        file_io(o->fd, o->buf, (size_t)o->fill * w, (off_t)(o->done * w), 0) != 0) {
        (void)fail(o, "reading next uses: %s", errno ? strerror(errno) : "short file");
        o->fill = 0;
    }
}

int ct_opt_record(ct_opt *o, const char *dir)
{
    o->failed = 0;
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (!o->buf && !(o->buf = malloc(CT_OPT_CHUNK * sizeof *o->buf)))
        return fail(o, "out of memory");
    if ((o->fd = temp_file(dir)) < 0)
        return fail(o, "creating a temporary file in %s: %s", dir, strerror(errno));
    o->mode = CT_OPT_RECORD;
    o->at = o->fill = 0;
    o->done = 0;
    return 0;
}

/* Every block of [b0, b1] the map holds is invalidated before its next use. */
static void kill_range(ct_map *m, uint64_t b0, uint64_t b1)
{
    for (uint64_t h = 0; m->slot && h <= m->mask; h++)
        if (m->slot[h].key != CT_MAP_EMPTY && m->slot[h].key >= b0 && m->slot[h].key <= b1)
            m->slot[h].val = CT_OPT_NEVER;
}

int ct_opt_replay(ct_opt *to, ct_opt *from, const char *dir)
{
    const size_t w = sizeof(uint64_t);
    uint64_t total, end, range_end = 0;
    int in_range = 0;  /* the last block of a range is seen, its first not yet */
    uint64_t *blocks = NULL, *nexts = NULL;
    ct_map seen = {0};
    int out = -1;

    if (to != from)
        to->failed = 0;
    if (from->mode != CT_OPT_RECORD)
        return fail(to, "no first pass was recorded");
    ct_opt_turn(from);  /* the last, partial chunk */
    if (from->failed)
        return fail(to, "%s", from->msg);
    total = from->done;
    blocks = malloc(CT_OPT_CHUNK * w);
    nexts = malloc(CT_OPT_CHUNK * w);
    if (!blocks || !nexts) {
        fail(to, "out of memory");
        goto done;
    }
    if ((out = temp_file(dir)) < 0) {
        fail(to, "creating a temporary file in %s: %s", dir, strerror(errno));
        goto done;
    }
    for (end = total; end > 0;) {
        const uint64_t start = end > CT_OPT_CHUNK ? end - CT_OPT_CHUNK : 0;
        const size_t n = (size_t)(end - start);
        if (file_io(from->fd, blocks, n * w, (off_t)(start * w), 0) != 0) {
            fail(to, "reading the arrivals of the first pass: %s",
                 errno ? strerror(errno) : "short file");
            goto done;
        }
        for (size_t i = n; i-- > 0;) {
            const uint64_t e = blocks[i], b = e & CT_OPT_BLOCK;
            int added;
            uint64_t *v;
            if (UNLIKELY(e != b)) {  /* an invalidation (backwards: a range's last block first) */
                nexts[i] = CT_OPT_NEVER;
                if ((e & ~CT_OPT_BLOCK) == CT_OPT_KILL_RANGE) {
                    if (in_range)
                        kill_range(&seen, b, range_end);
                    range_end = b;
                    in_range = !in_range;
                    continue;
                }
            }
            v = ct_map_put(&seen, b, &added);
            if (!v) {
                fail(to, "out of memory (the map of next uses holds every distinct line)");
                goto done;
            }
            if (e != b) {
                *v = CT_OPT_NEVER;
                continue;
            }
            nexts[i] = added ? CT_OPT_NEVER : *v;
            *v = start + i;
        }
        if (file_io(out, nexts, n * w, (off_t)(start * w), 1) != 0) {
            fail(to, "writing next uses: %s", strerror(errno));
            goto done;
        }
        /* what is read is not needed again */
        if (ftruncate(from->fd, (off_t)(start * w)) != 0) {
            fail(to, "cutting back the file of arrivals: %s", strerror(errno));
            goto done;
        }
        end = start;
    }
    if (from->fd >= 0)
        close(from->fd);
    from->fd = -1;
    from->mode = CT_OPT_NONE;
    if (to->fd >= 0)
        close(to->fd);
    to->fd = out;
    out = -1;
    if (!to->buf && !(to->buf = malloc(CT_OPT_CHUNK * w))) {
        fail(to, "out of memory");
        goto done;
    }
    to->mode = CT_OPT_REPLAY;
    to->total = total;
    to->done = to->at = to->fill = 0;
    to->cur = CT_OPT_NEVER;
    if (total > 0) {
        /* the first chunk (ct_opt_turn adds fill to done when it is used up) */
        to->fill = total < CT_OPT_CHUNK ? (uint32_t)total : CT_OPT_CHUNK;
        if (file_io(to->fd, to->buf, (size_t)to->fill * w, 0, 0) != 0)
            fail(to, "reading next uses: %s", errno ? strerror(errno) : "short file");
    }
done:
    if (out >= 0)
        close(out);
    ct_map_free(&seen);
    free(blocks);
    free(nexts);
    return to->failed ? -1 : 0;
}
