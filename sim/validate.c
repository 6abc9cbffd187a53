/*
 * validate.c - matching the model's events with the reference events of a
 * trace (Tarmac CACHE, TLB, WALKCACHE and TTW lines), event by event.
 *
 * Structures
 *   A model cache level takes part when its `tarmac_name` is set; its name
 *   is the Tarmac structure id ("{cpu}" stands for the core of a private
 *   level; a Tarmac trace runs each traced cpu on a core of its own, taken
 *   in order of first appearance, so cpuN is core N when the cpus first
 *   appear in the order of their numbers). A translation structure (TLB, walk cache) takes part with its
 *   `tarmac_name` for its TLB or WALKCACHE events, and a TLB with its
 *   `tarmac_walk_name` for the TTW lines of the walks its misses start (the
 *   Tarmac side, e.g. ITLB; the TLBs of several cores may share one, as
 *   Fast Models names the sides alike on every cpu: the cpu is part of a
 *   TTW line's key). A reference structure is the name and the line
 *   kind together: CACHE lines only meet a cache level, TLB lines a TLB,
 *   WALKCACHE lines a walk cache, TTW lines a walk side. Reference events of
 *   other structures (caches or TLBs nobody mapped, TTU lines) are counted
 *   and reported, but not matched and not part of the agreement. Model
 *   events of unnamed structures are not looked at.
 *
 * Time
 *   Events are compared in ticks, one per new trace timestamp (sim/ticks.h).
 *   A model event has the tick of the access that caused it.
 *
 * Matching
 *   A reference event and a model event pair when they have the same
 *   structure, operation and key, and are at most `window` ticks apart;
 *   each event pairs at most once: with a candidate of the same detail
 *   (below) when there is one, else the oldest candidate. The key:
 *   CACHE: line address and security; TLB and WALKCACHE: virtual base,
 *   size and the security of the virtual base; TTW: descriptor address, its
 *   security, and the cpu. For a pair a detail is compared as well:
 *   CACHE: the LINE id (set * assoc + way); TLB and WALKCACHE FILL: the
 *   physical base and its security; TTW: the descriptor's value. (The
 *   regime, ASID and VMID of TLB lines are not compared: Fast Models prints
 *   "nG asid=0" for entries of the EL3 regime, which has no ASIDs.) A pair
 *   agrees when the details are the same too; a pair with another detail
 *   (line_id_differ: the model put the line in another slot, mapped another
 *   physical page, read another descriptor) is a divergence that counts
 *   against the agreement, unless ignore_line_ids says pairs agree
 *   whatever their details. An event that found no partner within the
 *   window is missing (reference only) or extra (model only).
 *
 * Cold start
 *   A trace excerpt starts with warm caches and TLBs and the model with cold
 *   ones, so the model fills lines and entries and walks where the
 *   reference shows nothing. One of three allowances (cold_start) is used,
 *   and the report says which and how many events it set aside:
 *   - none (CT_COLD_NONE, `--cold`): the trace starts at reset; every extra
 *     counts.
 *   - warm-until (CT_COLD_WARM_UNTIL, `--warm-until TIME`): events of either
 *     side at a trace time before TIME are counted apart (warmup_reference,
 *     warmup_model) and not compared; the model still runs their accesses.
 *     From TIME on every extra counts.
 *   - the rule (CT_COLD_RULE, the default), below.
 *   Under the rule an extra is a cold-start extra, counted apart and not in
 *   the agreement, when both hold:
 *   - no reference event of its structure has touched its set (by the
 *     model's geometry: a cache line's set, a TLB entry's set for its size;
 *     a walk side has one set) at or before its tick; and
 *   - it is the model's first touch of its line (entry, descriptor): a fill
 *     (ALLOC, FILL) of a line the model never filled before, a TTW read of
 *     a descriptor address it never read before; or an event that follows
 *     from such a fill while the line stays: its DIRTY or CLEAN, the INVAL
 *     or EVICT that drops it (the warm reference held the line already, so
 *     it shows neither the fill nor what the cold fill brought about).
 *   Everything else is an extra: a refill of a line the model had dropped,
 *   an event on a line it had refilled, anything in a set the reference has
 *   touched. The model's lines are remembered (address and whether their
 *   fill was a first touch) for the mapped structures; when TOUCH_BUDGET
 *   lines in all are remembered, a line not remembered is not a first touch:
 *   its events are extras, never hidden.
 *
 * Agreement
 *   agreeing pairs / (reference + extra) over the mapped structures, and
 *   the same per structure and operation (1 when nothing was compared).
 *   Agreeing pairs are the pairs with the same detail (line_id_agree), or
 *   every pair with ignore_line_ids. A run passes when the agreement
 *   reaches min_agreement. Divergences: the first max_diffs detail
 *   disagreements and the first max_diffs missing or extra events that
 *   become final are kept; the list shows the detail disagreements first
 *   (they name a wrong geometry or policy most directly), then the others,
 *   each group in trace order, max_diffs in all, with the trace lines
 *   around them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachet/trace.h"
#include "cachet/validate.h"
#include "map.h"
#include "ticks.h"

enum { SIDE_REF = 0, SIDE_MODEL = 1 };


/* Lines remembered for the cold-start rule, over all structures. */
#define TOUCH_BUDGET (1u << 22)

enum { T_SEEN = 1, T_COLD = 2 /* its current fill was a first touch */ };

typedef struct vstruct {
    ct_vstructure pub;
    char *name;
    char section[40];         /* pub.section */
    uint64_t sets;            /* model geometry (mapped structures) */
    uint32_t line_bits;       /* caches: log2 of the line */
    uint64_t *first_ref;      /* per set: tick of the first reference event */
    ct_map seen;              /* the model's lines (mapped structures) -> T_* state */
} vstruct;

/* What an event is matched on (rule "Matching"). */
typedef struct ekey {
    uint64_t addr;            /* line, virtual base or descriptor address */
    uint64_t detail;          /* LINE id, physical base | security, descriptor */
    uint16_t cpu;             /* TTW only, else 0 */
    uint8_t ns, size_log2;
} ekey;

typedef struct pend {
    uint64_t seq;             /* 0: never used */
    uint64_t next;            /* older entry of the same hash chain (seq), 0: none */
    uint64_t tick, time, addr, line, src;
    uint32_t vs, stream;
    uint16_t cpu;
    uint8_t op, side, ns, sz, alive;
    uint8_t first;            /* model: a first touch or what follows from one */
} pend;

typedef struct vdiv {
    ct_divergence pub;
    uint64_t tick;
    uint32_t stream;
    char **lines;
} vdiv;

struct ct_validation {
    ct_validate_opts o;
    const ct_config *cfg;
    ct_sim *sim;
    ct_trace *trace;
    const char *const *paths;
    size_t npaths;
    vstruct *vs;
    size_t nvs, capvs;
    int32_t *level_vs;        /* model level -> structure, -1: not named */
    int32_t (*tlb_vs)[2];     /* translation structure -> its TLB/WALKCACHE and
                                 its TTW structure, -1: not named */
    int32_t *ref_vs;          /* trace structure id and line kind -> structure */
    size_t nref_vs;
    ct_ticks clock;
    uint64_t cur_src;          /* line where the current timestamp begins */
    uint32_t cur_stream;
    /* pending events */
    pend *ring;
    uint64_t cap, head, tail;  /* seqs [head, tail) are in the ring; they start
                                  at 1 so that 0 ends a chain */
    uint64_t *bucket;
    uint64_t nbucket;
    /* divergences: detail disagreements and the others, then the list */
    vdiv *lid, *oth, *div;
    size_t nlid, noth, ndiv;
    ct_trace_info info;        /* copied when the trace is closed */
    uint64_t touch_used;       /* lines remembered, all structures */
    int cur_first;             /* the model event arriving is a first touch */
    int nomem;
};

/* ---- structures ---------------------------------------------------------- */

static int add_struct(ct_validation *v, const char *name, size_t len, int level, int tlb,
                      int type)
{
    vstruct *s;
    if (v->nvs == v->capvs) {
        size_t cap = v->capvs ? v->capvs * 2 : 16;
        vstruct *nv = realloc(v->vs, cap * sizeof *nv);
        if (!nv)
            return -1;
        v->vs = nv;
        v->capvs = cap;
    }
    s = &v->vs[v->nvs];
    memset(s, 0, sizeof *s);
    s->name = malloc(len + 1);
    if (!s->name)
        return -1;
    memcpy(s->name, name, len);
    s->name[len] = '\0';
    s->pub.name = s->name;
    s->pub.level = level;
    s->pub.tlb = tlb;
    s->pub.type = type;
    s->pub.core = -1;
    if (level >= 0 || tlb >= 0) {
        s->pub.mapped = 1;
        s->pub.section = s->section;
        if (level >= 0) {
            const ct_level_info *li = ct_sim_level_info(v->sim, (size_t)level);
            s->sets = li->sets;
            while ((1u << s->line_bits) < li->line)
                s->line_bits++;
            snprintf(s->section, sizeof s->section, "%s", li->name);
            s->pub.core = li->core;
        } else {
            const ct_tlb_info *ti = ct_sim_tlb_info(v->sim, (size_t)tlb);
            s->sets = type == CT_EV_TTW ? 1 : ti->sets;
            snprintf(s->section, sizeof s->section, "%s%s", ti->name,
                     type == CT_EV_TTW ? ".walk" : "");
            s->pub.core = ti->core;
        }
        s->first_ref = malloc(s->sets * sizeof *s->first_ref);
        if (!s->first_ref)
            return -1;
        for (uint64_t i = 0; i < s->sets; i++)
            s->first_ref[i] = UINT64_MAX;
    }
    return (int)v->nvs++;
}

static int find_struct(const ct_validation *v, const char *name, int type)
{
    for (size_t i = 0; i < v->nvs; i++)
        if (v->vs[i].pub.type == type && strcmp(v->vs[i].name, name) == 0)
            return (int)i;
    return -1;
}

#define EV_TYPES 8

/* The structure of trace structure id `sid` with lines of `type` (created
 * when new). */
static int ref_struct(ct_validation *v, uint16_t sid, int type)
{
    const ct_trace_info *ti = ct_trace_get_info(v->trace);
    const size_t slot = (size_t)sid * EV_TYPES + (size_t)type;
    int i;
    if (slot >= v->nref_vs) {
        size_t n = slot + 16 * EV_TYPES;
        int32_t *m = realloc(v->ref_vs, n * sizeof *m);
        if (!m)
            return -1;
        for (size_t k = v->nref_vs; k < n; k++)
            m[k] = -1;
        v->ref_vs = m;
        v->nref_vs = n;
    }
    if (v->ref_vs[slot] >= 0)
        return v->ref_vs[slot];
    if (sid >= ti->nstructures)
        return -1;
    i = find_struct(v, ti->structures[sid], type);
    if (i < 0)
        i = add_struct(v, ti->structures[sid], strlen(ti->structures[sid]), -1, -1, type);
    v->ref_vs[slot] = i;
    return i;
}

static uint8_t log2_of(uint64_t v)
{
    uint8_t k = 0;
    while (k < 63 && (1ull << (k + 1)) <= v)
        k++;
    return k;
}

static void key_of(const ct_event *ev, ekey *k)
{
    memset(k, 0, sizeof *k);
    k->addr = ev->addr;
    switch (ev->type) {
    case CT_EV_TLB:
    case CT_EV_WALKCACHE:
        k->ns = (ev->flags & CT_EVF_VNS) != 0;
        k->size_log2 = log2_of(ev->size);
        if (ev->flags & CT_EVF_PADDR)
            k->detail = ev->value << 1 | ((ev->flags & CT_EVF_NS) != 0);
        break;
    case CT_EV_TTW:
    case CT_EV_TTU:
        k->ns = (ev->flags & CT_EVF_NS) != 0;
        k->cpu = ev->cpu;
        k->detail = ev->value;
        break;
    default:
        k->ns = (ev->flags & CT_EVF_NS) != 0;
        k->detail = ev->line;
        break;
    }
}

/* The set (by the model's geometry) of a pending event, for the cold-start
 * rule. */
static uint64_t set_of(const vstruct *s, uint64_t addr, uint8_t size_log2)
{
    if (s->pub.level >= 0)
        return (addr >> s->line_bits) % s->sets;
    return (addr >> size_log2) % s->sets;
}

/* ---- the model's first touches ------------------------------------------------ */

/* Whether a model event is a first touch of its line or follows from one
 * (rule "Cold start"), remembering the line. */
static int first_touch(ct_validation *v, vstruct *s, const ct_event *ev, const ekey *k)
{
    /* line addresses and descriptor addresses leave bit 0 free, TLB bases
     * (at least 4K aligned) bits 0-11 */
    const uint64_t key = k->addr | k->ns | (uint64_t)k->size_log2 << 1;
    const int fill = ev->op == CT_EVOP_ALLOC || ev->op == CT_EVOP_FILL ||
                     ev->op == CT_EVOP_WALK;
    uint64_t *state = ct_map_find(&s->seen, key);
    int added;

    if (state) { /* seen before */
        if (fill) {
            *state = T_SEEN; /* a refill, or a descriptor read again */
            return 0;
        }
        return (*state & T_COLD) != 0;
    }
    if (!fill || v->touch_used >= TOUCH_BUDGET || !(state = ct_map_put(&s->seen, key, &added)))
        return 0;
    *state = T_SEEN | T_COLD;
    v->touch_used++;
    return 1;
}

/* ---- pending events ---------------------------------------------------------- */

static uint64_t key_hash(uint32_t vs, int op, uint64_t addr, int ns)
{
    uint64_t x = addr ^ ((uint64_t)vs << 48) ^ ((uint64_t)op << 40) ^ ((uint64_t)ns << 39);
    return ct_mix64(x);
}

static int grow_ring(ct_validation *v)
{
    uint64_t cap = v->cap ? v->cap * 2 : 1024;
    pend *r = calloc(cap, sizeof *r);
    if (!r)
        return -1;
    for (uint64_t s = v->head; s < v->tail; s++)
        r[s & (cap - 1)] = v->ring[s & (v->cap - 1)];
    free(v->ring);
    v->ring = r;
    v->cap = cap;
    if (v->nbucket < cap) {
        uint64_t nb = cap * 2;
        uint64_t *b = calloc(nb, sizeof *b);
        if (!b)
            return -1;
        /* rebuild the chains, oldest first so that heads are the newest */
        for (uint64_t s = v->head; s < v->tail; s++) {
            pend *e = &v->ring[s & (cap - 1)];
            uint64_t h = key_hash(e->vs, e->op,
                                  e->addr ^ ((uint64_t)e->sz << 58) ^ ((uint64_t)e->cpu << 42),
                                  e->ns) &
                         (nb - 1);
            e->next = b[h];
            b[h] = s;
        }
        free(v->bucket);
        v->bucket = b;
        v->nbucket = nb;
    }
    return 0;
}

static void add_div(ct_validation *v, int kind, const pend *e, uint64_t ref_line,
                    uint64_t model_line)
{
    vdiv *d;
    size_t *n = kind == CT_DIV_LINE_ID ? &v->nlid : &v->noth;
    if (*n >= v->o.max_diffs)
        return;
    d = kind == CT_DIV_LINE_ID ? &v->lid[(*n)++] : &v->oth[(*n)++];
    memset(d, 0, sizeof *d);
    d->pub.kind = kind;
    d->pub.structure = e->vs;
    d->pub.op = e->op;
    d->pub.time = e->time;
    d->pub.addr = e->addr;
    d->pub.ns = e->ns;
    d->pub.ref_line = ref_line;
    d->pub.model_line = model_line;
    d->pub.size = e->sz ? 1ull << e->sz : 0;
    d->pub.type = v->vs[e->vs].pub.type;
    d->pub.src = e->src;
    d->tick = e->tick;
    d->stream = e->stream;
}

/* An unmatched event leaves the window. */
static void finalize(ct_validation *v, pend *e)
{
    vstruct *s = &v->vs[e->vs];
    ct_vcount *c = &s->pub.op[e->op];

    if (e->side == SIDE_REF) {
        c->missing++;
        add_div(v, CT_DIV_MISSING, e, e->line, 0);
        return;
    }
    if (s->first_ref && e->first && v->o.cold_start == CT_COLD_RULE) {
        uint64_t set = set_of(s, e->addr, e->sz);
        if (s->first_ref[set] == UINT64_MAX || s->first_ref[set] > e->tick) {
            c->cold_extra++;
            return;
        }
    }
    c->extra++;
    add_div(v, CT_DIV_EXTRA, e, 0, e->line);
}

static void expire(ct_validation *v, int all)
{
    while (v->head < v->tail) {
        pend *e = &v->ring[v->head & (v->cap - 1)];
        /* one tick of slack: side records may trail the next marker */
        if (!all && e->tick + v->o.window + 1 >= v->clock.tick)
            break;
        if (e->alive)
            finalize(v, e);
        e->alive = 0;
        v->head++;
    }
}

/* One event of either side arrives. */
static void arrive(ct_validation *v, int side, uint32_t vs, const ct_event *ev, uint64_t tick,
                   uint64_t src, uint32_t stream)
{
    ekey k;
    int ns;
    uint64_t h;
    pend *best = NULL;
    ct_vcount *c = &v->vs[vs].pub.op[ev->op];
    uint64_t seq;

    key_of(ev, &k);
    ns = k.ns;
    h = key_hash(vs, ev->op, k.addr ^ ((uint64_t)k.size_log2 << 58) ^ ((uint64_t)k.cpu << 42), ns);
    if (v->o.cold_start == CT_COLD_WARM_UNTIL && ev->time < v->o.warm_until) {
        if (side == SIDE_REF)
            c->warmup_reference++;
        else
            c->warmup_model++;
        return;
    }
    if (side == SIDE_REF)
        c->reference++;
    else
        c->model++;
    if (v->nbucket) {
        for (seq = v->bucket[h & (v->nbucket - 1)]; seq >= v->head && seq != 0;) {
            pend *e = &v->ring[seq & (v->cap - 1)];
            uint64_t dt = e->tick > tick ? e->tick - tick : tick - e->tick;
            if (e->alive && e->side != side && e->vs == vs && e->op == ev->op &&
                e->addr == k.addr && e->ns == ns && e->sz == k.size_log2 && e->cpu == k.cpu &&
                dt <= v->o.window &&
                (!best || (e->line == k.detail) > (best->line == k.detail) ||
                 ((e->line == k.detail) == (best->line == k.detail) && e->tick <= best->tick)))
                best = e;
            seq = e->next;
        }
    }
    if (best) {
        uint64_t ref_line = side == SIDE_REF ? k.detail : best->line;
        uint64_t model_line = side == SIDE_REF ? best->line : k.detail;
        best->alive = 0;
        c->matched++;
        if (ref_line == model_line) {
            c->line_id_agree++;
        } else {
            pend tmp = *best;
            c->line_id_differ++;
            if (v->o.ignore_line_ids)
                return;
            if (side == SIDE_REF) { /* report at the reference's place */
                tmp.time = ev->time;
                tmp.src = src;
                tmp.stream = stream;
                tmp.tick = tick;
            }
            add_div(v, CT_DIV_LINE_ID, &tmp, ref_line, model_line);
        }
        return;
    }
    if (v->tail - v->head == v->cap && grow_ring(v) != 0) {
        v->nomem = 1;
        return;
    }
    seq = v->tail++;
    {
        pend *e = &v->ring[seq & (v->cap - 1)];
        uint64_t b = h & (v->nbucket - 1);
        memset(e, 0, sizeof *e);
        e->seq = seq;
        e->next = v->bucket[b];
        v->bucket[b] = seq;
        e->tick = tick;
        e->time = ev->time;
        e->addr = k.addr;
        e->line = k.detail;
        e->sz = k.size_log2;
        e->cpu = k.cpu;
        e->src = src;
        e->vs = vs;
        e->stream = stream;
        e->op = ev->op;
        e->side = (uint8_t)side;
        e->ns = (uint8_t)ns;
        e->first = (uint8_t)(side == SIDE_MODEL && v->cur_first);
        e->alive = 1;
    }
}

/* ---- the two sides ---------------------------------------------------------- */

static void on_model_event(void *ctx, const ct_event *ev, size_t level)
{
    ct_validation *v = ctx;
    const size_t nlv = ct_sim_nlevels(v->sim);
    int32_t vs = -1;

    if (level < nlv)
        vs = v->level_vs[level];
    else if (level - nlv < ct_sim_ntlbs(v->sim))
        vs = v->tlb_vs[level - nlv][ev->type == CT_EV_TTW];
    if (vs >= 0) {
        ekey k;
        key_of(ev, &k);
        v->cur_first = first_touch(v, &v->vs[vs], ev, &k);
        arrive(v, SIDE_MODEL, (uint32_t)vs, ev, v->clock.tick, v->cur_src, v->cur_stream);
        v->cur_first = 0;
    }
}

static int on_ref_event(ct_validation *v, const ct_event *ev)
{
    int i;
    const uint64_t tick = ct_ticks_of(&v->clock, ev->time);
    vstruct *s;
    ct_sim_trace_event(v->sim, ev); /* the trace's tables, for the walker */
    if (ev->type >= EV_TYPES)
        return 0;
    if ((i = ref_struct(v, ev->structure, ev->type)) < 0)
        return -1;
    s = &v->vs[i];
    if (ev->op >= CT_EVOP_COUNT)
        return 0;
    if (!s->first_ref) {
        s->pub.op[ev->op].reference++;
        return 0;
    }
    {
        ekey k;
        uint64_t set;
        key_of(ev, &k);
        set = set_of(s, k.addr, k.size_log2);
        if (s->first_ref[set] == UINT64_MAX || tick < s->first_ref[set])
            s->first_ref[set] = tick;
    }
    arrive(v, SIDE_REF, (uint32_t)i, ev, tick, ev->src, ev->stream);
    return 0;
}

static void on_marker(ct_validation *v, const ct_marker *m)
{
    ct_sim_marker(v->sim, m);
    if (m->type != CT_MK_TIMESTAMP)
        return;
    ct_ticks_mark(&v->clock, m->time);
    v->cur_src = m->value2;
    v->cur_stream = m->aux;
    expire(v, 0);
}

/* ---- naming -------------------------------------------------------------- */

/* tn with "{cpu}" replaced by core, into buf. */
static void substitute(const char *tn, int core, char *buf, size_t n)
{
    size_t o = 0;

    for (const char *p = tn; *p && o + 1 < n; p++) {
        if (strncmp(p, "{cpu}", 5) == 0) {
            int k = snprintf(buf + o, n - o, "%d", core >= 0 ? core : 0);
            o += k > 0 ? (size_t)k : 0;
            if (o >= n)
                o = n - 1;
            p += 4;
        } else {
            buf[o++] = *p;
        }
    }
    buf[o] = '\0';
}

int ct_level_tarmac_name(const ct_config *cfg, const ct_sim *s, size_t i, char *buf, size_t n)
{
    const ct_level_info *li = ct_sim_level_info(s, i);
    const char *tn;
    char tmp[256];

    if (!li || n == 0)
        return 0;
    tn = ct_config_get(cfg, li->name, "tarmac_name", tmp, sizeof tmp);
    if (!tn || !tn[0]) {
        if (li->core >= 0)
            snprintf(buf, n, "core%d.%s", li->core, li->name);
        else
            snprintf(buf, n, "%s", li->name);
        return 0;
    }
    substitute(tn, li->core, buf, n);
    return 1;
}

int ct_tlb_tarmac_name(const ct_config *cfg, const ct_sim *s, size_t i, int walk, char *buf,
                       size_t n)
{
    const ct_tlb_info *ti = ct_sim_tlb_info(s, i);
    const char *tn = NULL;
    char tmp[256];

    if (!ti || n == 0)
        return 0;
    if (!walk || strcmp(ti->name, "walkcache") != 0)
        tn = ct_config_get(cfg, ti->name, walk ? "tarmac_walk_name" : "tarmac_name", tmp,
                           sizeof tmp);
    if (!tn || !tn[0]) {
        snprintf(buf, n, "core%d.%s%s", ti->core, ti->name, walk ? ".walk" : "");
        return 0;
    }
    substitute(tn, ti->core, buf, n);
    return 1;
}

/* ---- running ------------------------------------------------------------------ */

void ct_validate_opts_default(ct_validate_opts *o)
{
    o->window = 1;
    o->max_diffs = 10;
    o->context = 3;
    o->min_agreement = 1.0;
    o->ignore_line_ids = 0;
    o->cold_start = CT_COLD_RULE;
    o->warm_until = 0;
    o->progress = NULL;
    o->progress_ctx = NULL;
    o->stop = NULL;
    o->stop_ctx = NULL;
}

/* Run accesses [from, to) of b through the model. */
static int simulate(ct_validation *v, const ct_batch *b, uint32_t from, uint32_t to,
                    ct_error *err)
{
    ct_batch view;
    if (from >= to)
        return CT_OK;
    memset(&view, 0, sizeof view);
    view.acc = b->acc + from;
    view.n = view.cap = to - from;
    return ct_sim_run(v->sim, &view, err);
}

static int replay(ct_validation *v, ct_batch *b, ct_error *err)
{
    uint32_t i = 0, mi = 0, ei = 0;
    int rc;

    for (;;) {
        uint32_t next = b->n;
        int mk_ready = mi < b->nmk && b->mk[mi].index <= i;
        int ev_ready = ei < b->nev && b->ev[ei].index <= i;
        /* side records that apply before access i, in the order written */
        if (mk_ready && !(ev_ready && ct_ticks_event_first(&v->clock, &b->mk[mi], &b->ev[ei]))) {
            on_marker(v, &b->mk[mi++]);
            continue;
        }
        if (ev_ready) {
            if (on_ref_event(v, &b->ev[ei++]) < 0)
                return ct_error_set(err, CT_E_NOMEM, "out of memory");
            continue;
        }
        if (i >= b->n)
            break;
        if (mi < b->nmk && b->mk[mi].index < next)
            next = b->mk[mi].index;
        if (ei < b->nev && b->ev[ei].index < next)
            next = b->ev[ei].index;
        if ((rc = simulate(v, b, i, next, err)) != CT_OK)
            return rc;
        i = next;
    }
    return v->nomem ? ct_error_set(err, CT_E_NOMEM, "out of memory") : CT_OK;
}

/* Keep one line of a divergence's context, cut to 200 characters. */
static int keep_line(void *ctx, uint64_t lineno, const char *text, size_t len)
{
    vdiv *d = ctx;
    (void)lineno;
    if (len > 200)
        len = 200;
    d->lines[d->pub.ncontext] = malloc(len + 1);
    if (!d->lines[d->pub.ncontext])
        return 1;
    memcpy(d->lines[d->pub.ncontext], text, len);
    d->lines[d->pub.ncontext][len] = '\0';
    d->pub.ncontext++;
    return 0;
}

/* Read the trace lines around each divergence. */
static void read_context(ct_validation *v)
{
    for (size_t k = 0; k < v->ndiv; k++) {
        vdiv *d = &v->div[k];
        ct_error err = {0};
        uint64_t first, last;

        if (d->stream < v->npaths)
            d->pub.path = v->paths[d->stream];
        if (!d->pub.src || v->o.context == 0 || !d->pub.path)
            continue;
        first = d->pub.src > v->o.context ? d->pub.src - v->o.context : 1;
        last = d->pub.src + v->o.context;
        d->lines = calloc((size_t)(last - first + 1), sizeof *d->lines);
        if (!d->lines)
            continue;
        ct_trace_lines(d->pub.path, first, last, keep_line, d, &err);
        d->pub.context_first = first;
        d->pub.context = (const char *const *)d->lines;
    }
}

static int cmp_div(const void *a, const void *b)
{
    const vdiv *x = a, *y = b;
    return x->tick < y->tick ? -1 : x->tick > y->tick;
}

/* Register model structure `name` (a cache level, or translation
 * structure tlb) for events of `type`; frees v on failure. A walk side
 * already named by another core's TLB is shared. */
static int name_struct(ct_validation *v, int32_t *slot, const char *name, int level, int tlb,
                       int type, ct_error *err)
{
    const int found = find_struct(v, name, type);
    if (found >= 0 && type == CT_EV_TTW &&
        ct_sim_tlb_info(v->sim, (size_t)v->vs[found].pub.tlb)->core !=
            ct_sim_tlb_info(v->sim, (size_t)tlb)->core) {
        *slot = found;
        return CT_OK;
    }
    if (found >= 0) {
        const char *path = ct_config_path(v->cfg)[0] ? ct_config_path(v->cfg) : "configuration";
        ct_validation_free(v);
        if (type == CT_EV_CACHE)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: two levels have the tarmac_name \"%s\" (use {cpu} in the "
                                "name of a private level)",
                                path, name);
        if (type == CT_EV_TTW)
            return ct_error_set(err, CT_E_CONFIG,
                                "%s: two TLBs of one core have the tarmac_walk_name \"%s\"",
                                path, name);
        return ct_error_set(err, CT_E_CONFIG,
                            "%s: two translation structures have the tarmac_name \"%s\" (use "
                            "{cpu} in the name of a private one)",
                            path, name);
    }
    *slot = add_struct(v, name, strlen(name), level, tlb, type);
    if (*slot < 0) {
        ct_validation_free(v);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    return CT_OK;
}

int ct_validate(ct_validation **out, const char *const *paths, size_t npaths,
                const ct_config *cfg, const ct_validate_opts *opts, ct_error *err)
{
    ct_validation *v = calloc(1, sizeof *v);
    ct_trace_opts to = {0};
    ct_batch b = {0};
    char name[256];
    uint64_t replayed = 0; /* accesses, for opts->progress */
    int rc;

    *out = NULL;
    if (!v)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    if (opts)
        v->o = *opts;
    else
        ct_validate_opts_default(&v->o);
    v->cfg = cfg;
    v->paths = paths;
    v->npaths = npaths;
    v->lid = calloc(v->o.max_diffs ? v->o.max_diffs : 1, sizeof *v->lid);
    v->oth = calloc(v->o.max_diffs ? v->o.max_diffs : 1, sizeof *v->oth);
    v->div = calloc(v->o.max_diffs ? v->o.max_diffs : 1, sizeof *v->div);
    if (!v->lid || !v->oth || !v->div) {
        ct_validation_free(v);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    if ((rc = ct_sim_create(&v->sim, cfg, err)) != CT_OK) {
        ct_validation_free(v);
        return rc;
    }
    v->head = v->tail = 1;
    v->level_vs = malloc(ct_sim_nlevels(v->sim) * sizeof *v->level_vs + 1);
    v->tlb_vs = malloc(ct_sim_ntlbs(v->sim) * sizeof *v->tlb_vs + 1);
    if (!v->level_vs || !v->tlb_vs || grow_ring(v) != 0) {
        ct_validation_free(v);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (size_t li = 0; li < ct_sim_nlevels(v->sim); li++) {
        v->level_vs[li] = -1;
        if (!ct_level_tarmac_name(cfg, v->sim, li, name, sizeof name))
            continue;
        if ((rc = name_struct(v, &v->level_vs[li], name, (int)li, -1, CT_EV_CACHE, err)) != CT_OK)
            return rc;
    }
    for (size_t ti = 0; ti < ct_sim_ntlbs(v->sim); ti++) {
        const int type = strcmp(ct_sim_tlb_info(v->sim, ti)->name, "walkcache") == 0
                             ? CT_EV_WALKCACHE
                             : CT_EV_TLB;
        for (int walk = 0; walk < 2; walk++) {
            v->tlb_vs[ti][walk] = -1;
            if (!ct_tlb_tarmac_name(cfg, v->sim, ti, walk, name, sizeof name))
                continue;
            if ((rc = name_struct(v, &v->tlb_vs[ti][walk], name, -1, (int)ti,
                                  walk ? CT_EV_TTW : type, err)) != CT_OK)
                return rc;
        }
    }
    ct_sim_set_event_sink(v->sim, on_model_event, v);
    to.cfg = cfg;
    to.stop = v->o.stop;
    to.stop_ctx = v->o.stop_ctx;
    if ((rc = ct_trace_open(&v->trace, paths, npaths, &to, err)) != CT_OK) {
        ct_validation_free(v);
        return rc;
    }
    if (ct_batch_init(&b, 1u << 14) != CT_OK) {
        ct_validation_free(v);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    while ((rc = ct_trace_next(v->trace, &b, err)) > 0) {
        if ((rc = replay(v, &b, err)) != CT_OK)
            break;
        replayed += b.n;
        if (v->o.progress)
            v->o.progress(v->o.progress_ctx, v->trace, replayed);
    }
    ct_batch_free(&b);
    if (rc < 0) {
        ct_validation_free(v);
        return rc;
    }
    expire(v, 1);
    if (v->nomem) {
        ct_validation_free(v);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    v->info = *ct_trace_get_info(v->trace);
    qsort(v->lid, v->nlid, sizeof *v->lid, cmp_div);
    qsort(v->oth, v->noth, sizeof *v->oth, cmp_div);
    for (size_t k = 0; k < v->nlid + v->noth && v->ndiv < v->o.max_diffs; k++)
        v->div[v->ndiv++] = k < v->nlid ? v->lid[k] : v->oth[k - v->nlid];
    read_context(v);
    *out = v;
    return CT_OK;
}

void ct_validation_free(ct_validation *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->nvs; i++) {
        free(v->vs[i].name);
        free(v->vs[i].first_ref);
        ct_map_free(&v->vs[i].seen);
    }
    free(v->vs);
    free(v->level_vs);
    free(v->tlb_vs);
    free(v->ref_vs);
    free(v->ring);
    free(v->bucket);
    for (size_t k = 0; k < v->ndiv; k++) {
        if (!v->div[k].lines)
            continue;
        for (size_t j = 0; j < v->div[k].pub.ncontext; j++)
            free(v->div[k].lines[j]);
        free(v->div[k].lines);
    }
    free(v->div);
    free(v->lid);
    free(v->oth);
    ct_trace_close(v->trace);
    ct_sim_free(v->sim);
    free(v);
}

/* ---- results ------------------------------------------------------------------ */

size_t ct_validation_nstructures(const ct_validation *v) { return v->nvs; }

const ct_vstructure *ct_validation_structure(const ct_validation *v, size_t i)
{
    return i < v->nvs ? &v->vs[i].pub : NULL;
}

const ct_validate_opts *ct_validation_opts(const ct_validation *v) { return &v->o; }

uint64_t ct_vcount_agreeing(const ct_vcount *c, int ignore_line_ids)
{
    return ignore_line_ids ? c->matched : c->line_id_agree;
}

double ct_vcount_agreement(const ct_vcount *c, int ignore_line_ids)
{
    if (c->reference + c->extra == 0)
        return 1.0;
    return (double)ct_vcount_agreeing(c, ignore_line_ids) / (double)(c->reference + c->extra);
}

ct_vcount ct_validation_total(const ct_validation *v)
{
    ct_vcount t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < v->nvs; i++) {
        if (!v->vs[i].pub.mapped)
            continue;
        for (int op = 0; op < CT_EVOP_COUNT; op++) {
            const ct_vcount *c = &v->vs[i].pub.op[op];
            t.reference += c->reference;
            t.model += c->model;
            t.matched += c->matched;
            t.missing += c->missing;
            t.extra += c->extra;
            t.cold_extra += c->cold_extra;
            t.line_id_agree += c->line_id_agree;
            t.line_id_differ += c->line_id_differ;
            t.warmup_reference += c->warmup_reference;
            t.warmup_model += c->warmup_model;
        }
    }
    return t;
}

double ct_validation_agreement(const ct_validation *v)
{
    ct_vcount t = ct_validation_total(v);
    return ct_vcount_agreement(&t, v->o.ignore_line_ids);
}

int ct_validation_passed(const ct_validation *v)
{
    return ct_validation_agreement(v) >= v->o.min_agreement;
}

size_t ct_validation_ndivergences(const ct_validation *v) { return v->ndiv; }

const ct_divergence *ct_validation_divergence(const ct_validation *v, size_t i)
{
    return i < v->ndiv ? &v->div[i].pub : NULL;
}

const ct_trace_info *ct_validation_trace_info(const ct_validation *v) { return &v->info; }

const char *ct_divergence_kind_name(int kind)
{
    return kind == CT_DIV_MISSING ? "missing" : kind == CT_DIV_EXTRA ? "extra" : "line_id";
}

const char *ct_cold_start_name(int mode)
{
    return mode == CT_COLD_WARM_UNTIL ? "warm-until" : mode == CT_COLD_NONE ? "none" : "rule";
}
