/*
 * opt.h - replacement = opt: Belady's policy and its stream of next uses
 * (internal; the rules are at the top of sim/policy/opt.c).
 *
 * The policy state of an opt level is a ct_opt. The hierarchy tells it of
 * every arrival of a block at the level (ct_opt_arrive) before the lookup;
 * in a first pass the arrival is written down, in the second the arrival's
 * next use is read and given to the line the lookup hits or fills.
 */
#ifndef CT_POLICY_OPT_H
#define CT_POLICY_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "../compiler.h"

#define CT_OPT_NEVER UINT64_MAX  /* the next use of a block never used again */

/* Entries of the first pass's record other than arrivals (a block number
 * has at most 62 bits: lines have 4 bytes or more): the invalidation of
 * one block, and of a range of blocks (two entries: its first block, then
 * its last). */
#define CT_OPT_KILL (2ull << 62)
#define CT_OPT_KILL_RANGE (3ull << 62)
#define CT_OPT_BLOCK (~(3ull << 62))

enum ct_opt_mode {
    CT_OPT_NONE = 0,   /* no pass attached: every next use is "never" */
    CT_OPT_RECORD,     /* first pass: arrivals are written down */
    CT_OPT_REPLAY      /* second pass: next uses are read in step */
};

typedef struct ct_opt {
    uint32_t ways;
    int mode;                 /* enum ct_opt_mode */
    uint64_t cur;             /* the next use of the arrival being served */
    uint64_t *buf;            /* CT_OPT_CHUNK blocks (record) or next uses (replay) */
    uint32_t at, fill;        /* position in buf, entries in buf */
    int fd;                   /* record: the arrivals; replay: the next uses; -1: none */
    uint64_t done;            /* arrivals before buf (whole chunks) */
    uint64_t total;           /* replay: the arrivals the first pass recorded */
    int failed;               /* a file operation or a count failed: msg says which */
    char msg[160];
    uint64_t next[];          /* per line, set-major: the next use it was given */
} ct_opt;

/* Entries per chunk of the files (buffers, backward pass). */
#define CT_OPT_CHUNK (1u << 16)

/* Refill or flush buf (opt.c); the slow half of ct_opt_arrive. */
void ct_opt_turn(ct_opt *o);

/* An arrival of block at the level (rule "Arrivals"). */
FORCE_INLINE void ct_opt_arrive(ct_opt *o, uint64_t block)
{
    if (o->mode == CT_OPT_RECORD) {
        o->buf[o->at++] = block;
        if (UNLIKELY(o->at == CT_OPT_CHUNK))
            ct_opt_turn(o);
    } else if (o->mode == CT_OPT_REPLAY) {
        if (UNLIKELY(o->at == o->fill))
            ct_opt_turn(o);
        o->cur = o->at < o->fill ? o->buf[o->at++] : CT_OPT_NEVER;
    }
}

/* An invalidation by a cache operation at the level: of block b alone, or of
 * the blocks [b0, b1] when the range holds more lines than the level (rule
 * "Next use"). It takes a place in the stream as an arrival does. */
FORCE_INLINE void ct_opt_kill(ct_opt *o, uint64_t b0, uint64_t b1)
{
    if (b0 == b1) {
        ct_opt_arrive(o, CT_OPT_KILL | b0);
    } else {
        ct_opt_arrive(o, CT_OPT_KILL_RANGE | b0);
        ct_opt_arrive(o, CT_OPT_KILL_RANGE | b1);
    }
}

/* First pass: write the arrivals to a new file in directory dir (rule
 * "Files"). 0, or -1 with the reason in o->msg. */
int ct_opt_record(ct_opt *o, const char *dir);

/* The backward pass over from's recorded arrivals: to reads their next uses
 * in its pass (to and from may be the same state). from's file is consumed.
 * 0, or -1 with the reason in to->msg. */
int ct_opt_replay(ct_opt *to, ct_opt *from, const char *dir);

/* Arrivals recorded (record) or read (replay) so far. */
static inline uint64_t ct_opt_position(const ct_opt *o)
{
    return o->done + o->at;
}

#endif
