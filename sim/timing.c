/*
 * timing.c - [system] timing = overlap: misses that overlap.
 *
 * The caches are the same in both timings: every access is served in trace
 * order by the rules of sim/hier.c, and the latency blocking charges it
 * ("cost": the latency of the level that served it, and so on, rule
 * "Timing" there) is its latency here too. Overlap only decides when each
 * access starts. Times are kept in thousandths of a cycle (base_cpi may be
 * fractional); each core has its own clock.
 *
 * Instructions
 *   Every ifetch or nofetch record opens the core's next instruction; the
 *   data accesses that follow belong to it. A nofetch repeat (CT_F_REPEAT:
 *   one more iteration of a rep-string instruction) opens one too, though
 *   cachet does not count it as an instruction (sim/hier.c, "Timing"): each
 *   iteration is executed again and its accesses do not wait for those of
 *   the iterations before. A core whose trace has had no instruction record
 *   yet (a data-only din trace) takes each data access as an instruction of
 *   its own. Below, "instruction" means these.
 *   Instruction n is dispatched at
 *     D(1) = 0,  D(n) = max(D(n-1) + base_cpi, R(n - window))
 *   (R(m) = 0 for m < 1) and retires at
 *     R(n) = max(R(n-1), D(n), the completion of each of its accesses):
 *   it enters the window when the instruction `window` places older has
 *   retired, and instructions retire in order.
 *
 * Accesses
 *   The accesses of one instruction run one after the other (its fetch
 *   before its data; the trace does not say whether its data accesses
 *   depend on each other: they are taken as dependent). Access a of
 *   instruction n issues at
 *     I(a) = max(D(n), C(previous access of n), C(the core's previous
 *               load) when a is marked dependent, the MSHR wait below)
 *   and completes at
 *     C(a) = max(I(a) + cost(a), the fill it merges with, below).
 *   The trace carries no data dependences: accesses of different
 *   instructions are independent unless the trace marks one dependent on
 *   the previous load (CT_F_DEPENDENT: gen:chase's loads); a pointer chase
 *   in another trace overlaps as if its addresses were known (window = 1
 *   models it in order). A software prefetch takes no time and waits for
 *   nothing; an uncached access and a cache operation wait for their turn
 *   like any access and take no MSHR.
 *
 * MSHRs
 *   Every level on a core's paths has `mshrs` entries for that core (a
 *   shared level too: each core has its own, because each core's clock
 *   runs on its own and trace order across cores is not time order, so one
 *   file shared by clocks that disagree would stall on entries of another
 *   core's future). A demand request that misses at a level and fetches
 *   (sim/hier.c: a write that allocates without a fetch, or does not
 *   allocate, takes none) holds an entry there from I(a) to C(a). An access
 *   issues only when every level it misses at has a free entry at I(a): a
 *   full file moves I(a) to the earliest release among its entries (the
 *   misses of one access at one level needing more entries than there are
 *   share them). At most 32 misses of one access are held.
 *
 * Merges and late prefetches
 *   An access that reaches a level where its block (of the first byte) is
 *   held by an entry released after I(a) waits for that release: C(a) is at
 *   least the release. The levels looked at are those of its path from its
 *   first level down to the first where it did not miss. A hardware
 *   prefetch (sim/hier.c, "Hardware prefetch") sent while access a was
 *   served is issued at I(a) (or the earliest release of a full file at its
 *   level, without delaying the core) and holds an entry until it arrives,
 *   cost(fetch) later. A demand access that waits for a prefetch's entry
 *   counts it in the level's prefetch_late (once per prefetch).
 *
 * Cycles
 *   A core's cycles = max(R(last), D(last) + base_cpi), rounded up to a
 *   whole cycle, the first instruction dispatched at 0 (or at the last
 *   statistics reset). The whole run's cycles are the sum of its cores',
 *   CPI = cycles / instructions as in blocking. AMAT stays the hierarchy's
 *   average latency per access (the figure blocking reports: cost, not
 *   C - I); overlap changes how much of it the cores wait for.
 *
 * With window = 1 and base_cpi = 0 each access issues when the one before
 * completes, so cycles are blocking's, whatever mshrs say, except for
 * hardware prefetches: blocking takes every prefetch to complete before
 * the next access; here one still in flight makes the demand wait (late).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "timing.h"

#define MILLI 1000u
#define MAX_MISSES 32

typedef struct mshr {
    uint64_t block;
    uint64_t release;  /* free from this time on */
    int prefetch;      /* held by a hardware prefetch not yet waited for */
} mshr;

typedef struct core_clock {
    uint64_t n;          /* instructions opened */
    uint64_t d;          /* dispatch of the current one */
    uint64_t ready;      /* its next access issues no earlier */
    uint64_t r_cur;      /* its retire time so far */
    uint64_t r_prev;     /* retire time of the one before */
    uint64_t load_done;  /* completion of the latest load */
    uint64_t base;       /* time of the last reset */
    int seen_instr;      /* an instruction record has come */
    uint64_t *ring;      /* R(m) at m % window for the last window instructions */
    mshr *m;             /* its MSHR files, per level id at off[lv] */
    uint64_t busy_until[CT_LV_COUNT]; /* latest release in each file */
} core_clock;

typedef struct ct_timing ct_timing;

struct ct_timing {
    ct_sim *s;
    uint32_t cores;
    uint32_t window;
    uint64_t base_cpi;                /* thousandths of a cycle */
    uint32_t mshrs[CT_LV_COUNT];
    uint32_t off[CT_LV_COUNT];
    uint32_t nmshr;                   /* entries per core */
    core_clock *c;
    uint32_t nmiss, npf;              /* what the access being served did */
    struct { int li; uint64_t block; } miss[MAX_MISSES];
    struct { int li; uint64_t block; uint64_t latency; } pf[MAX_MISSES];
};

int ct_timing_base_cpi_parse(const char *text, uint64_t *milli, char *why, size_t whyn)
{
    uint64_t v = 0, frac = 0;
    int digits = 0, fdigits = 0;
    const char *p = text;

    for (; *p >= '0' && *p <= '9' && digits < 5; p++, digits++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (*p == '.' && digits)
        for (p++; *p >= '0' && *p <= '9' && fdigits < 3; p++, fdigits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
    if (!digits || *p || (text[digits] == '.' && !fdigits) || v > 1000 ||
        (v == 1000 && frac)) {
        snprintf(why, whyn,
                 "cycles per instruction from 0 to 1000 with at most 3 decimals (as 0.25), "
                 "not \"%s\"", text);
        return -1;
    }
    for (; fdigits < 3; fdigits++)
        frac *= 10;
    if (milli)
        *milli = v * MILLI + frac;
    return 0;
}

int ct_timing_base_cpi_check(const char *text, char *why, size_t whyn)
{
    return ct_timing_base_cpi_parse(text, NULL, why, whyn);
}

int ct_timing_create(ct_timing **out, ct_sim *s, const ct_config *cfg, ct_error *err)
{
    const char *path = cfg->path[0] ? cfg->path : "configuration";
    ct_timing *t;
    char why[160];
    uint64_t cpi;

    *out = NULL;
    if (ct_timing_base_cpi_parse(cfg->base_cpi, &cpi, why, sizeof why) != 0)
        return ct_error_set(err, CT_E_CONFIG, "%s: [system] base_cpi: %s", path, why);
    if (cfg->compat == CT_COMPAT_DRCACHESIM)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] timing = overlap: compat = drcachesim counts no "
                            "time; use timing = blocking", path);
    if (s->xl)
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: [system] timing = overlap does not model translation; "
                            "remove the TLB and walk sections or use timing = blocking", path);
    for (size_t li = 0; li < s->nlv; li++)
        if (s->lv[li].sb_valid)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: [%s] timing = overlap does not model sub-blocks or "
                                "DineroIV fetch policies; use timing = blocking", path,
                                s->lv[li].name);
    t = calloc(1, sizeof *t);
    if (!t)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    t->s = s;
    t->cores = s->cores;
    t->window = cfg->window;
    t->base_cpi = cpi;
    for (int lv = 0; lv < CT_LV_COUNT; lv++) {
        t->mshrs[lv] = ct_config_level_present(cfg, lv) ? cfg->cache[lv].mshrs : 0;
        t->off[lv] = t->nmshr;
        t->nmshr += t->mshrs[lv];
    }
    t->c = calloc(s->cores, sizeof *t->c);
    if (!t->c) {
        free(t);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (uint32_t core = 0; core < s->cores; core++) {
        core_clock *c = &t->c[core];
        c->ring = calloc(t->window, sizeof *c->ring);
        c->m = calloc(t->nmshr ? t->nmshr : 1, sizeof *c->m);
        if (!c->ring || !c->m) {
            ct_timing_free(t);
            return ct_error_set(err, CT_E_NOMEM,
                                "out of memory for the window of %u instructions of %u cores",
                                cfg->window, s->cores);
        }
        for (uint32_t i = 0; i < t->nmshr; i++)
            c->m[i].block = CT_TAG_INVALID;
    }
    *out = t;
    return CT_OK;
}

void ct_timing_free(ct_timing *t)
{
    if (!t)
        return;
    for (uint32_t core = 0; t->c && core < t->cores; core++) {
        free(t->c[core].ring);
        free(t->c[core].m);
    }
    free(t->c);
    free(t);
}

void ct_timing_miss(ct_timing *t, int li, uint64_t block)
{
    if (t->nmiss < MAX_MISSES) {
        t->miss[t->nmiss].li = li;
        t->miss[t->nmiss++].block = block;
    }
}

void ct_timing_prefetch(ct_timing *t, int li, uint64_t block, uint32_t latency)
{
    if (t->npf < MAX_MISSES) {
        t->pf[t->npf].li = li;
        t->pf[t->npf].block = block;
        t->pf[t->npf++].latency = (uint64_t)latency * MILLI;
    }
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The time a core has reached: max(R(last), D(last) + base_cpi). */
static uint64_t now(const ct_timing *t, const core_clock *c)
{
    if (!c->n)
        return c->base;
    return max64(max64(c->r_prev, c->r_cur), c->d + t->base_cpi);
}

/* Open the core's next instruction (rule "Instructions"). */
static void open_instr(ct_timing *t, core_clock *c)
{
    uint64_t d;

    if (c->n) {
        c->r_prev = max64(c->r_prev, c->r_cur);
        c->ring[(c->n - 1) % t->window] = c->r_prev;
    }
    c->n++;
    d = c->n == 1 ? c->base : c->d + t->base_cpi;
    if (c->n > t->window)
        d = max64(d, c->ring[c->n % t->window]);  /* R(n - window) */
    c->d = c->ready = c->r_cur = d;
}

/* Entries of file lv held at time at. */
static uint32_t held(const ct_timing *t, const core_clock *c, int lv, uint64_t at)
{
    const mshr *m = c->m + t->off[lv];
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->mshrs[lv]; i++)
        n += m[i].release > at;
    return n;
}

/* The earliest release after `at` in file lv. */
static uint64_t first_release(const ct_timing *t, const core_clock *c, int lv, uint64_t at)
{
    const mshr *m = c->m + t->off[lv];
    uint64_t r = UINT64_MAX;
    for (uint32_t i = 0; i < t->mshrs[lv]; i++)
        if (m[i].release > at && m[i].release < r)
            r = m[i].release;
    return r;
}

/* Issue time no earlier than `at` when every file the access misses in has
 * room for its misses there (rule "MSHRs"). */
static uint64_t mshr_wait(const ct_timing *t, const core_clock *c, uint64_t at)
{
    uint32_t need[CT_LV_COUNT] = {0};
    int moved;

    for (uint32_t i = 0; i < t->nmiss; i++)
        need[t->s->lv[t->miss[i].li].lv]++;
    do {
        moved = 0;
        for (int lv = 0; lv < CT_LV_COUNT; lv++) {
            const uint32_t want = need[lv] < t->mshrs[lv] ? need[lv] : t->mshrs[lv];
            while (want && t->mshrs[lv] - held(t, c, lv, at) < want) {
                at = first_release(t, c, lv, at);
                moved = 1;
            }
        }
    } while (moved);
    return at;
}

/* The entry of file lv to take at time at: a free one, else the one
 * released first. */
static mshr *take(const ct_timing *t, core_clock *c, int lv, uint64_t at)
{
    mshr *m = c->m + t->off[lv], *best = m;
    for (uint32_t i = 0; i < t->mshrs[lv]; i++) {
        if (m[i].release <= at)
            return &m[i];
        if (m[i].release < best->release)
            best = &m[i];
    }
    return best;
}

/* The latest release of an entry holding the access's block along its
 * path at time at, counting late prefetches (rule "Merges"). */
static uint64_t merge_wait(ct_timing *t, core_clock *c, const ct_access *a, uint64_t at)
{
    const ct_sim *s = t->s;
    const int instr = a->kind == CT_IFETCH;
    const uint64_t addr = (s->use_paddr && (a->flags & CT_F_PADDR)) ? a->paddr : a->vaddr;
    uint64_t until = 0;
    int li = instr ? s->first_i[a->core] : s->first_d[a->core];

    while (li >= 0) {
        ct_level *L = &s->lv[li];
        const int lv = L->lv;
        const uint64_t block = addr >> L->c.line_bits;
        int missed = 0;
        if (c->busy_until[lv] > at) {
            mshr *m = c->m + t->off[lv];
            for (uint32_t i = 0; i < t->mshrs[lv]; i++)
                if (m[i].block == block && m[i].release > at) {
                    until = max64(until, m[i].release);
                    if (m[i].prefetch) {
                        m[i].prefetch = 0;
                        L->st.prefetch_late++;
                    }
                }
        }
        if (until)
            break;
        for (uint32_t i = 0; i < t->nmiss && !missed; i++)
            missed = t->miss[i].li == li;
        if (!missed)
            break;
        li = L->next;
    }
    return until;
}

/* Hold an entry of file lv for block from `at` to release. */
static void hold(const ct_timing *t, core_clock *c, int lv, uint64_t block, uint64_t at,
                 uint64_t release, int prefetch)
{
    mshr *m = take(t, c, lv, at);
    m->block = block;
    m->release = release;
    m->prefetch = prefetch;
    c->busy_until[lv] = max64(c->busy_until[lv], release);
}

void ct_timing_access(ct_timing *t, const ct_access *a, uint64_t cost)
{
    core_clock *c = &t->c[a->core];
    const int kind = a->kind;
    uint64_t issue, done, until;

    if (kind == CT_NOFETCH || kind == CT_IFETCH) {
        open_instr(t, c);
        c->seen_instr = 1;
    } else if (!c->seen_instr) {
        open_instr(t, c);
    }
    if (kind == CT_NOFETCH || kind == CT_PREFETCH) {
        t->nmiss = t->npf = 0;
        return;
    }
    issue = c->ready;
    if ((a->flags & CT_F_DEPENDENT) && c->load_done > issue)
        issue = c->load_done;
    if (t->nmiss)
        issue = mshr_wait(t, c, issue);
    done = issue + cost * MILLI;
    if (kind != CT_CACHEOP && (until = merge_wait(t, c, a, issue)) > done)
        done = until;
    for (uint32_t i = 0; i < t->nmiss; i++)
        hold(t, c, t->s->lv[t->miss[i].li].lv, t->miss[i].block, issue, done, 0);
    for (uint32_t i = 0; i < t->npf; i++) {
        const int lv = t->s->lv[t->pf[i].li].lv;
        uint64_t at = issue;
        if (held(t, c, lv, at) >= t->mshrs[lv])
            at = first_release(t, c, lv, at);
        hold(t, c, lv, t->pf[i].block, at, at + t->pf[i].latency, 1);
    }
    t->nmiss = t->npf = 0;
    c->ready = done;
    c->r_cur = max64(c->r_cur, done);
    if (kind == CT_LOAD)
        c->load_done = done;
}

uint64_t ct_timing_cycles(const ct_timing *t, uint32_t core)
{
    const core_clock *c = &t->c[core];
    return (now(t, c) - c->base + MILLI - 1) / MILLI;
}

void ct_timing_reset(ct_timing *t)
{
    for (uint32_t core = 0; core < t->cores; core++)
        t->c[core].base = now(t, &t->c[core]);
}
