/*
 * infer.c - cache geometry from the CACHE lines of a trace.
 *
 * Evidence
 *   Per structure: the distinct (LINE id, line address) pairs of its CACHE
 *   events (the first MAX_PAIRS of them), and for every fill (ALLOC, FILL)
 *   the trace accesses within `window` ticks (sim/ticks.h) at or above the
 *   line address: the nearest of them is taken as the one
 *   that caused the fill. An access's physical address is used when the
 *   trace gives one (CACHE lines name physical lines).
 *
 * Line size
 *   Upper bound: the largest power of two dividing every line address (the
 *   addresses are line-aligned), at most 4096. Lower bound: over all fills,
 *   the smallest power of two above the offset of the causing access (fills
 *   whose access lies beyond the upper bound are not evidence: another
 *   access caused them). The size reported is the upper bound; it is
 *   determined when the bounds meet.
 *
 * Sets and ways
 *   LINE = set * assoc + way, set = (address / line) mod sets, the relation
 *   the Fast Models example shows (formats.md 3.5). For assoc 1..64, the
 *   power-of-two set counts from the smallest above every LINE / assoc up
 *   to 2^24 that satisfy every pair are kept (they are contiguous: a pair
 *   that fails at some count fails at every larger one). The smallest
 *   fitting assoc is chosen, with its smallest set count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachet/config.h"
#include "cachet/trace.h"
#include "cachet/validate.h"
#include "map.h"
#include "ticks.h"

#define MAX_PAIRS (1u << 20)
#define MAX_LINE 4096u
#define LOG_MAX_LINE 12
#define RECENT 4096u
#define MAX_SETS_LOG 24
#define MAX_ASSOC 64

typedef struct ipair {
    uint64_t line, addr;
    uint32_t next;            /* the pair before it of the same address + 1, 0: none */
} ipair;

typedef struct istruct {
    ct_infer_structure pub;
    char *name;
    ipair *pairs;             /* the distinct pairs, in order of arrival; room for cap */
    uint32_t cap, npairs;
    ct_map by_addr;           /* line address -> its newest pair + 1 */
    uint64_t addr_or;         /* OR of every line address */
    uint64_t lb_hist[LOG_MAX_LINE + 2]; /* fills by log2 of their lower bound */
} istruct;

typedef struct ifill {
    uint32_t vs;
    uint64_t addr, tick, min_off;
} ifill;

typedef struct recent {
    uint64_t addr, tick;
} recent;

struct ct_inference {
    istruct *vs;
    size_t nvs, capvs;
    int32_t *ref_vs;
    size_t nref_vs;
    uint64_t window;
    ct_ticks clock;
    recent ring[RECENT];
    uint32_t rhead, rn;
    ifill *fills;
    size_t nfills, capfills, fhead;
    int nomem;
};

/* ---- collecting ------------------------------------------------------------ */

static int struct_of(ct_inference *inf, const ct_trace *t, uint16_t sid)
{
    const ct_trace_info *ti = ct_trace_get_info(t);
    istruct *s;

    if (sid >= inf->nref_vs) {
        size_t n = (size_t)sid + 16;
        int32_t *m = realloc(inf->ref_vs, n * sizeof *m);
        if (!m)
            return -1;
        for (size_t k = inf->nref_vs; k < n; k++)
            m[k] = -1;
        inf->ref_vs = m;
        inf->nref_vs = n;
    }
    if (inf->ref_vs[sid] >= 0)
        return inf->ref_vs[sid];
    if (sid >= ti->nstructures)
        return -1;
    if (inf->nvs == inf->capvs) {
        size_t cap = inf->capvs ? inf->capvs * 2 : 8;
        istruct *v = realloc(inf->vs, cap * sizeof *v);
        if (!v)
            return -1;
        inf->vs = v;
        inf->capvs = cap;
    }
    s = &inf->vs[inf->nvs];
    memset(s, 0, sizeof *s);
    s->name = strdup(ti->structures[sid]);
    if (!s->name)
        return -1;
    s->pub.name = s->name;
    inf->ref_vs[sid] = (int32_t)inf->nvs;
    return (int)inf->nvs++;
}

static int add_pair(istruct *s, uint64_t line, uint64_t addr)
{
    uint64_t *head;
    int added;

    if (s->npairs >= MAX_PAIRS)
        return 0;
    if (!(head = ct_map_put(&s->by_addr, addr, &added)))
        return -1;
    for (uint64_t i = *head; i; i = s->pairs[i - 1].next)
        if (s->pairs[i - 1].line == line)
            return 0;
    if (s->npairs == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        ipair *p = realloc(s->pairs, cap * sizeof *p);
        if (!p)
            return -1;
        s->pairs = p;
        s->cap = cap;
    }
    s->pairs[s->npairs] = (ipair){.line = line, .addr = addr, .next = (uint32_t)*head};
    *head = ++s->npairs;
    s->addr_or |= addr;
    return 0;
}

static void consider(ifill *f, uint64_t addr)
{
    if (addr >= f->addr && addr - f->addr < MAX_LINE && addr - f->addr < f->min_off)
        f->min_off = addr - f->addr;
}

/* Fills whose window has passed become evidence. */
static void settle(ct_inference *inf, int all)
{
    while (inf->fhead < inf->nfills) {
        ifill *f = &inf->fills[inf->fhead];
        istruct *s;
        if (!all && f->tick + inf->window + 1 >= inf->clock.tick)
            break;
        s = &inf->vs[f->vs];
        if (f->min_off != UINT64_MAX) {
            int k = 0;
            while ((1ull << k) <= f->min_off)
                k++;
            s->lb_hist[k]++;
        }
        inf->fhead++;
    }
    if (inf->fhead == inf->nfills)
        inf->fhead = inf->nfills = 0;
}

static void on_access(ct_inference *inf, const ct_access *a)
{
    uint64_t addr = (a->flags & CT_F_PADDR) ? a->paddr : a->vaddr;
    recent *r;
    if (a->kind == CT_CACHEOP || a->kind == CT_NOFETCH || (a->flags & CT_F_NOADDR))
        return;
    for (size_t i = inf->fhead; i < inf->nfills; i++)
        consider(&inf->fills[i], addr);
    r = &inf->ring[(inf->rhead + inf->rn) % RECENT];
    if (inf->rn == RECENT)
        inf->rhead = (inf->rhead + 1) % RECENT;
    else
        inf->rn++;
    r->addr = addr;
    r->tick = inf->clock.tick;
}

static int on_event(ct_inference *inf, const ct_trace *t, const ct_event *ev)
{
    int i;
    istruct *s;
    if (ev->type != CT_EV_CACHE)
        return 0;
    if ((i = struct_of(inf, t, ev->structure)) < 0)
        return -1;
    s = &inf->vs[i];
    s->pub.events++;
    if (add_pair(s, ev->line, ev->addr) < 0)
        return -1;
    if (ev->op == CT_EVOP_ALLOC || ev->op == CT_EVOP_FILL) {
        ifill *f;
        s->pub.alloc_events++;
        if (inf->nfills == inf->capfills) {
            size_t cap = inf->capfills ? inf->capfills * 2 : 64;
            ifill *v = realloc(inf->fills, cap * sizeof *v);
            if (!v)
                return -1;
            inf->fills = v;
            inf->capfills = cap;
        }
        f = &inf->fills[inf->nfills++];
        f->vs = (uint32_t)i;
        f->addr = ev->addr;
        f->tick = ct_ticks_of(&inf->clock, ev->time);
        f->min_off = UINT64_MAX;
        for (uint32_t k = 0; k < inf->rn; k++) {
            const recent *r = &inf->ring[(inf->rhead + k) % RECENT];
            if (r->tick + inf->window >= f->tick && r->tick <= f->tick + inf->window)
                consider(f, r->addr);
        }
    }
    return 0;
}

static void on_tick(ct_inference *inf, uint64_t time)
{
    ct_ticks_mark(&inf->clock, time);
    while (inf->rn && inf->ring[inf->rhead].tick + inf->window + 1 < inf->clock.tick) {
        inf->rhead = (inf->rhead + 1) % RECENT;
        inf->rn--;
    }
    settle(inf, 0);
}

/* ---- solving ------------------------------------------------------------------ */

static void solve(istruct *s)
{
    ct_infer_structure *p = &s->pub;
    uint32_t lb = 0;

    p->pairs = s->npairs;
    if (!s->npairs)
        return;
    p->line_max = MAX_LINE;
    while (p->line_max > 1 && (s->addr_or & (p->line_max - 1)))
        p->line_max >>= 1;
    for (int k = 0; k <= LOG_MAX_LINE; k++) {
        if (!s->lb_hist[k] || (1u << k) > p->line_max)
            continue;
        p->evidence_events += s->lb_hist[k];
        lb = 1u << k;
    }
    p->line_min = lb ? lb : 1;
    p->line = p->line_max;
    for (uint32_t w = 1; w <= MAX_ASSOC && p->ncand < CT_INFER_MAX_CANDIDATES; w++) {
        uint64_t maxset = 0, smin = 0, smax = 0;
        for (uint32_t i = 0; i < s->npairs; i++)
            if (s->pairs[i].line / w > maxset)
                maxset = s->pairs[i].line / w;
        for (int lg = 0; lg <= MAX_SETS_LOG; lg++) {
            uint64_t sets = 1ull << lg;
            int ok = 1;
            if (sets <= maxset)
                continue;
            for (uint32_t i = 0; i < s->npairs && ok; i++) {
                const ipair *q = &s->pairs[i];
                if (((q->addr / p->line) & (sets - 1)) != q->line / w)
                    ok = 0;
            }
            if (!ok) {
                if (smin)
                    break;
                continue;
            }
            if (!smin)
                smin = sets;
            smax = sets;
        }
        if (smin) {
            ct_infer_candidate *c = &p->cand[p->ncand++];
            c->assoc = w;
            c->sets_min = smin;
            c->sets_max = smax;
        }
    }
    if (p->ncand) {
        uint32_t w = p->cand[0].assoc;
        for (uint32_t i = 0; i < s->npairs; i++)
            if (s->pairs[i].line % w + 1 > p->ways_seen)
                p->ways_seen = (uint32_t)(s->pairs[i].line % w + 1);
    }
    if (strstr(s->name, "l1i") || strstr(s->name, "icache"))
        p->section = "l1i";
    else if (strstr(s->name, "l1d") || strstr(s->name, "dcache"))
        p->section = "l1d";
    else if (strstr(s->name, "l2"))
        p->section = "l2";
    else if (strstr(s->name, "l3"))
        p->section = "l3";
}

int ct_infer(ct_inference **out, const char *const *paths, size_t npaths,
             const ct_config *cfg, const ct_validate_opts *opts, ct_error *err)
{
    ct_inference *inf = calloc(1, sizeof *inf);
    ct_trace *t = NULL;
    ct_trace_opts to = {0};
    ct_batch b = {0};
    int rc;

    *out = NULL;
    if (!inf)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    inf->window = opts ? opts->window : 1;
    to.cfg = cfg;
    if (opts) {
        to.stop = opts->stop;
        to.stop_ctx = opts->stop_ctx;
    }
    if ((rc = ct_trace_open(&t, paths, npaths, &to, err)) != CT_OK) {
        ct_inference_free(inf);
        return rc;
    }
    if (ct_batch_init(&b, 1u << 14) != CT_OK) {
        ct_trace_close(t);
        ct_inference_free(inf);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    while ((rc = ct_trace_next(t, &b, err)) > 0) {
        uint32_t i = 0, mi = 0, ei = 0;
        for (;;) {
            int mk_ready = mi < b.nmk && b.mk[mi].index <= i;
            int ev_ready = ei < b.nev && b.ev[ei].index <= i;
            /* side records before access i, in the order written */
            if (mk_ready && ev_ready && ct_ticks_event_first(&inf->clock, &b.mk[mi], &b.ev[ei]))
                mk_ready = 0;
            if (mk_ready) {
                if (b.mk[mi].type == CT_MK_TIMESTAMP)
                    on_tick(inf, b.mk[mi].time);
                mi++;
            } else if (ev_ready) {
                if (on_event(inf, t, &b.ev[ei++]) < 0)
                    inf->nomem = 1;
            } else if (i < b.n) {
                on_access(inf, &b.acc[i++]);
            } else {
                break;
            }
        }
        if (inf->nomem) {
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            break;
        }
    }
    settle(inf, 1);
    ct_batch_free(&b);
    if (rc < 0) {
        ct_trace_close(t);
        ct_inference_free(inf);
        return rc;
    }
    for (size_t i = 0; i < inf->nvs; i++)
        solve(&inf->vs[i]);
    ct_trace_close(t);
    *out = inf;
    return CT_OK;
}

void ct_inference_free(ct_inference *inf)
{
    if (!inf)
        return;
    for (size_t i = 0; i < inf->nvs; i++) {
        free(inf->vs[i].name);
        free(inf->vs[i].pairs);
        ct_map_free(&inf->vs[i].by_addr);
    }
    free(inf->vs);
    free(inf->ref_vs);
    free(inf->fills);
    free(inf);
}

size_t ct_inference_nstructures(const ct_inference *inf) { return inf->nvs; }

const ct_infer_structure *ct_inference_structure(const ct_inference *inf, size_t i)
{
    return i < inf->nvs ? &inf->vs[i].pub : NULL;
}

/* ---- output ------------------------------------------------------------------ */

int ct_inference_write(ct_writer *w, const ct_inference *inf)
{
    size_t written = 0;

    for (size_t i = 0; i < inf->nvs; i++) {
        const ct_infer_structure *p = &inf->vs[i].pub;
        ct_writef(w, "%s: %llu CACHE lines, %llu distinct (LINE, address) pairs\n", p->name,
                  (unsigned long long)p->events, (unsigned long long)p->pairs);
        if (!p->pairs)
            continue;
        ct_writef(w, "  line size: %u bytes (%s): every line address is a multiple of %u",
                  p->line, p->line_min == p->line_max ? "determined" : "largest consistent",
                  p->line_max);
        if (p->evidence_events)
            ct_writef(w, "; %llu of %llu fills have the access that caused them in the window, "
                         "which needs lines of at least %u bytes\n",
                      (unsigned long long)p->evidence_events,
                      (unsigned long long)p->alloc_events, p->line_min);
        else
            ct_writef(w, "; no fill has its causing access in the window\n");
        if (!p->ncand) {
            ct_writef(w, "  no associativity up to %d fits LINE = set * assoc + way with "
                         "set = (address / %u) mod sets\n", MAX_ASSOC, p->line);
            continue;
        }
        for (uint32_t k = 0; k < p->ncand; k++) {
            const ct_infer_candidate *c = &p->cand[k];
            ct_writef(w, "  %s assoc %u: LINE = set * %u + way, set = (address / %u) mod sets "
                         "fits every pair for sets %llu..%llu\n",
                      k ? "also" : "fits", c->assoc, c->assoc, p->line,
                      (unsigned long long)c->sets_min, (unsigned long long)c->sets_max);
        }
        ct_writef(w, "  ways used: %u of %u; smallest set count: %llu\n", p->ways_seen,
                  p->cand[0].assoc, (unsigned long long)p->cand[0].sets_min);
    }
    ct_writef(w, "\n; cachet infer: the smallest geometry consistent with the CACHE lines\n");
    for (size_t i = 0; i < inf->nvs; i++) {
        const ct_infer_structure *p = &inf->vs[i].pub;
        char sz[32];
        if (!p->ncand)
            continue;
        ct_format_size(p->cand[0].sets_min * p->cand[0].assoc * p->line, sz, sizeof sz);
        if (p->section)
            ct_writef(w, "\n[%s]\n", p->section);
        else
            ct_writef(w, "\n; [l?] (which level is %s? name the section)\n", p->name);
        ct_writef(w, "%ssize = %s\n%sassoc = %u\n%sline = %u\n%starmac_name = %s\n",
                  p->section ? "" : "; ", sz, p->section ? "" : "; ", p->cand[0].assoc,
                  p->section ? "" : "; ", p->line, p->section ? "" : "; ", p->name);
        written++;
    }
    if (!written)
        ct_writef(w, "; (no structure could be inferred)\n");
    return w->failed ? CT_E_IO : CT_OK;
}
