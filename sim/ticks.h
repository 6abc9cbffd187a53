/*
 * ticks.h - the clock of event matching (internal; used by validate.c and
 * infer.c).
 *
 * A tick is one new trace timestamp: the CT_MK_TIMESTAMP markers of the
 * stream count them, whatever the unit of the trace. A side record (an
 * event) has the tick of the latest marker of its own timestamp. Markers
 * and events that apply before the same access arrive in two arrays; since
 * a marker starts a new timestamp, an event of the timestamp before it was
 * written before it and is taken first.
 */
#ifndef CT_TICKS_H
#define CT_TICKS_H

#include <stdint.h>

#include "cachet/access.h"

#define CT_TICK_MEMORY 64  /* timestamps remembered for placing side records */

typedef struct ct_ticks {
    uint64_t tick;         /* ticks so far */
    uint64_t time;         /* timestamp of the latest marker */
    uint64_t recent_time[CT_TICK_MEMORY], recent_tick[CT_TICK_MEMORY];
    uint32_t n;            /* markers seen */
} ct_ticks;

/* A timestamp marker arrived. */
static inline void ct_ticks_mark(ct_ticks *k, uint64_t time)
{
    k->tick++;
    k->time = time;
    k->recent_time[k->n % CT_TICK_MEMORY] = time;
    k->recent_tick[k->n % CT_TICK_MEMORY] = k->tick;
    k->n++;
}

/* The tick of the latest marker of `time` (the current tick when none of
 * the remembered ones has it). */
static inline uint64_t ct_ticks_of(const ct_ticks *k, uint64_t time)
{
    for (uint32_t i = 0; i < k->n && i < CT_TICK_MEMORY; i++) {
        uint32_t slot = (k->n - 1 - i) % CT_TICK_MEMORY;
        if (k->recent_time[slot] == time)
            return k->recent_tick[slot];
    }
    return k->tick;
}

/* Both a marker and an event apply before the same access: 1 when the
 * event goes first. */
static inline int ct_ticks_event_first(const ct_ticks *k, const ct_marker *m, const ct_event *ev)
{
    return k->n && ev->time == k->time && m->time != k->time;
}

#endif
