/*
 * cachet/validate.h - checking the model against the cache, TLB and walk
 * events a trace carries, and reading cache geometry out of them.
 *
 * Arm Fast Models write CACHE lines (which line of which cache was filled,
 * written, cleaned or dropped), TLB lines (entries filled and evicted) and
 * TTW lines (the descriptors each table walk read) into the same Tarmac
 * trace as the accesses that caused them. ct_validate replays the trace's
 * accesses through the model of a configuration and matches the model's
 * events (cachet/sim.h) with the trace's, one by one; ct_infer reads line
 * size, set count and associativity from the CACHE lines alone. The
 * matching rules are stated at the top of sim/validate.c, the inference
 * rules at the top of sim/infer.c.
 */
#ifndef CACHET_VALIDATE_H
#define CACHET_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/access.h"
#include "cachet/config.h"
#include "cachet/error.h"
#include "cachet/sim.h"
#include "cachet/trace.h"
#include "cachet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- naming model structures as Tarmac does -------------------------------- */

/* The Tarmac structure id of model level i: the level's `tarmac_name` key,
 * with "{cpu}" replaced by the core number of a private level. Writes it
 * to buf and returns 1, or returns 0 when the level has no tarmac_name
 * (buf then holds a name of cachet's own: "core0.l1d", "l2"). */
int ct_level_tarmac_name(const ct_config *cfg, const ct_sim *s, size_t i, char *buf,
                         size_t n);

/* The Tarmac structure id of translation structure i (ct_sim_tlb_info):
 * its tarmac_name, or with walk != 0 its tarmac_walk_name (the TTW side of
 * the walks its misses start), "{cpu}" replaced by its core. Writes it to
 * buf and returns 1, or returns 0 when that key is empty (buf then holds a
 * name of cachet's own: "core0.itlb", "core0.itlb.walk"). */
int ct_tlb_tarmac_name(const ct_config *cfg, const ct_sim *s, size_t i, int walk, char *buf,
                       size_t n);

/* Write one event as a Tarmac line, "<time> clk cpu<cpu> CACHE <name> LINE
 * <hex> <op> 0x<addr>[_NS]" (CACHE events; other types in their own Tarmac
 * syntax). Returns the writer's status. */
int ct_event_write_tarmac(ct_writer *w, const ct_event *ev, const char *name);

/* ---- validation ----------------------------------------------------------- */

/* How the model's cold start is allowed for (rule "Cold start" in
 * sim/validate.c). */
enum ct_cold_start {
    CT_COLD_RULE = 0,     /* default: the model's first touches in sets the
                             reference has not shown yet are set aside */
    CT_COLD_WARM_UNTIL,   /* events before warm_until are not compared;
                             every later extra counts */
    CT_COLD_NONE          /* the trace starts at reset: every extra counts */
};

typedef struct ct_validate_opts {
    uint64_t window;        /* events match when at most this many trace
                               timestamps apart (ticks, whatever the unit) */
    uint32_t max_diffs;     /* divergences kept, with their trace lines */
    uint32_t context;       /* trace lines shown either side of one */
    double min_agreement;   /* the agreement a run must reach, 0..1 */
    int ignore_line_ids;    /* nonzero: a pair with another detail (LINE id,
                               physical base, descriptor) agrees */
    int cold_start;         /* enum ct_cold_start */
    uint64_t warm_until;    /* CT_COLD_WARM_UNTIL: first trace time compared */
    /* Called after each batch of the trace is replayed, with the trace (for
     * ct_trace_get_progress and ct_trace_get_info) and the accesses replayed
     * so far; NULL: not called. For a progress report: the library itself
     * prints nothing. */
    void (*progress)(void *ctx, const ct_trace *t, uint64_t accesses);
    void *progress_ctx;     /* passed to progress */
    /* Polled per batch of records read; non-zero stops with CT_E_INTERRUPTED.
     * NULL: never stops. */
    int (*stop)(void *ctx);
    void *stop_ctx;
} ct_validate_opts;

/* Defaults: window 1, max_diffs 10, context 3, min_agreement 1.0, LINE ids
 * compared, cold start by CT_COLD_RULE, no progress callback. */
void ct_validate_opts_default(ct_validate_opts *o);

/* Counts of one structure and event operation. reference = agree +
 * line_id_differ + missing (with ignore_line_ids, agreeing pairs are all
 * of matched); agreement = agreeing pairs / (reference + extra). */
typedef struct ct_vcount {
    uint64_t reference;      /* events in the trace (compared ones) */
    uint64_t model;          /* events the model made (compared ones) */
    uint64_t matched;        /* pairs found within the window (same structure,
                                operation and address) */
    uint64_t missing;        /* reference events the model did not make */
    uint64_t extra;          /* model events the reference does not have */
    uint64_t cold_extra;     /* extras counted apart: the model's first touch
                                of a line in a set the reference has not shown
                                yet, and what follows from it (rule "Cold
                                start" in sim/validate.c; CT_COLD_RULE only) */
    uint64_t line_id_agree;  /* matched pairs with the same detail: LINE id
                                (CACHE), physical base (TLB, WALKCACHE),
                                descriptor (TTW) */
    uint64_t line_id_differ; /* matched pairs with another detail: divergences
                                unless ignore_line_ids */
    uint64_t warmup_reference; /* CT_COLD_WARM_UNTIL: reference events before
                                  warm_until, not compared */
    uint64_t warmup_model;   /* the same for model events */
} ct_vcount;

/* The agreeing pairs of c: line_id_agree, or matched when ignore_line_ids. */
uint64_t ct_vcount_agreeing(const ct_vcount *c, int ignore_line_ids);

/* agreeing / (reference + extra); 1 when both are 0. */
double ct_vcount_agreement(const ct_vcount *c, int ignore_line_ids);

typedef struct ct_vstructure {
    const char *name;           /* Tarmac structure id */
    int level;                  /* model level (ct_sim_level_info), -1: none */
    int tlb;                    /* model translation structure (ct_sim_tlb_info),
                                   -1: none; for TTW: the TLB whose walks */
    int type;                   /* enum ct_event_type of its events */
    int mapped;                 /* a model level or translation structure maps
                                   to it: its events are compared */
    const char *section;        /* mapped: the model's config section ("l1d",
                                   "itlb"; "itlb.walk" for a TLB's walks) */
    int core;                   /* mapped: the model structure's core, -1 shared */
    ct_vcount op[CT_EVOP_COUNT];
} ct_vstructure;

enum ct_divergence_kind {
    CT_DIV_MISSING = 1,   /* in the reference only */
    CT_DIV_EXTRA,         /* in the model only */
    CT_DIV_LINE_ID        /* matched, but the detail differs (another slot,
                             physical base or descriptor) */
};

typedef struct ct_divergence {
    int kind;                  /* enum ct_divergence_kind */
    size_t structure;          /* index for ct_validation_structure */
    int op;                    /* enum ct_event_op */
    int type;                  /* enum ct_event_type of the structure */
    uint64_t time;             /* trace time of the event (the reference's for
                                  CT_DIV_LINE_ID) */
    uint64_t addr;             /* line address, virtual base, descriptor address */
    uint64_t size;             /* TLB, WALKCACHE: bytes mapped; else 0 */
    int ns;                    /* non-secure */
    uint64_t ref_line;         /* details (LINE id; physical base << 1 | NS;
                                  descriptor), when that side has the event */
    uint64_t model_line;
    uint64_t src;              /* trace line of the event (an extra: where its
                                  access's timestamp begins); 0 unknown */
    const char *path;          /* the trace file src refers to */
    size_t ncontext;           /* trace lines around src */
    uint64_t context_first;    /* line number of context[0] */
    const char *const *context;
} ct_divergence;

typedef struct ct_validation ct_validation;

/* Replay the traces through the model of cfg and match events. Returns
 * CT_OK with *out (free with ct_validation_free), or a negative code: bad
 * trace or configuration (err says which), CT_E_UNSUPPORTED for traces
 * without addresses. */
int ct_validate(ct_validation **out, const char *const *paths, size_t npaths,
                const ct_config *cfg, const ct_validate_opts *opts, ct_error *err);

void ct_validation_free(ct_validation *v);

/* The options the run used. */
const ct_validate_opts *ct_validation_opts(const ct_validation *v);

size_t ct_validation_nstructures(const ct_validation *v);
const ct_vstructure *ct_validation_structure(const ct_validation *v, size_t i);

/* Sums over the structures a model level or translation structure maps to. */
ct_vcount ct_validation_total(const ct_validation *v);

/* ct_vcount_agreement of the total. */
double ct_validation_agreement(const ct_validation *v);

/* Whether the agreement reaches min_agreement. */
int ct_validation_passed(const ct_validation *v);

/* The divergences kept (at most max_diffs): detail disagreements (LINE id,
 * physical base, descriptor) first, then missing and extra events, each
 * group in trace order. With ignore_line_ids detail disagreements are
 * counted (line_id_differ) but not listed. */
size_t ct_validation_ndivergences(const ct_validation *v);
const ct_divergence *ct_validation_divergence(const ct_validation *v, size_t i);

/* What ct_trace_get_info said when the run ended (malformed lines, ignored
 * kinds), valid until ct_validation_free. */
const ct_trace_info *ct_validation_trace_info(const ct_validation *v);

/* Names of enum ct_divergence_kind ("missing", "extra", "line_id") and
 * enum ct_cold_start ("rule", "warm-until", "none"). */
const char *ct_divergence_kind_name(int kind);
const char *ct_cold_start_name(int mode);

/* The report as a text table ending in the verdict, or as one JSON object:
 * structures (name, level, per operation reference/model/matched/missing/
 * extra/cold_start_extra/line_id_agree/line_id_differ/agreement), totals,
 * agreement, min_agreement, passed, ignore_line_ids, cold_start (the
 * allowance used and the events it set aside), divergences with their
 * trace lines. `traces` and `config` are named in the output. Both are
 * written in sim/report.c. */
int ct_validation_write_text(ct_writer *w, const ct_validation *v);
int ct_validation_write_json(ct_writer *w, const ct_validation *v,
                             const char *const *traces, size_t ntraces, const char *config);

/* ---- inference ------------------------------------------------------------ */

typedef struct ct_infer_candidate {
    uint32_t assoc;          /* ways */
    uint64_t sets_min;       /* smallest power-of-two set count that fits */
    uint64_t sets_max;       /* largest tried that fits (up to 2^24) */
} ct_infer_candidate;

#define CT_INFER_MAX_CANDIDATES 8

typedef struct ct_infer_structure {
    const char *name;
    uint64_t events;             /* CACHE lines read */
    uint64_t pairs;              /* distinct (LINE, address) pairs used */
    uint64_t alloc_events;       /* fills looked at for line-size evidence */
    uint64_t evidence_events;    /* fills with an access of the window inside */
    uint32_t line_min;           /* line size bounds: the accesses that caused */
    uint32_t line_max;           /* fills (min), address alignment (max) */
    uint32_t line;               /* the size chosen (line_max) */
    uint32_t ncand;
    ct_infer_candidate cand[CT_INFER_MAX_CANDIDATES]; /* fitting assoc, smallest first */
    uint32_t ways_seen;          /* highest way used + 1, for cand[0] */
    const char *section;         /* guessed INI section ("l1i"...), or NULL */
} ct_infer_structure;

typedef struct ct_inference ct_inference;

/* Read the traces (cfg: format options; NULL for defaults) and infer the
 * geometry of every structure named by CACHE lines. Of opts (NULL: the
 * defaults), `window` and `stop` are used, as by ct_validate. */
int ct_infer(ct_inference **out, const char *const *paths, size_t npaths,
             const ct_config *cfg, const ct_validate_opts *opts, ct_error *err);
void ct_inference_free(ct_inference *inf);
size_t ct_inference_nstructures(const ct_inference *inf);
const ct_infer_structure *ct_inference_structure(const ct_inference *inf, size_t i);

/* The evidence as text, then an INI snippet for configs/. */
int ct_inference_write(ct_writer *w, const ct_inference *inf);

#ifdef __cplusplus
}
#endif
#endif
