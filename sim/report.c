/*
 * report.c - results as a table, JSON and CSV (schemas in results/README.md).
 *
 * Ratios are computed here from the integer counters: miss_rate = misses /
 * accesses, MPKI = misses * 1000 / instructions, AMAT(kind) = cycles of
 * kind / accesses of kind, CPI = cycles / instructions, amat (CSV) = cycles
 * of demand accesses (ifetch, load, store, atomic) / their number. A ratio
 * with a zero denominator is 0, except CPI and MPKI: a trace without
 * instructions has none, printed "-" in the table, null in JSON and an
 * empty field in CSV. The table and CSV print ratios with enough digits to
 * check by hand; JSON prints 17 significant digits, so that a value reads
 * back as the double it was (a miss rate of 1 in 235008 is
 * 4.2551742919389982e-06, not 0.000004).
 *
 * JSON by_kind maps every kind a level or TLB can count (shown_kinds) to
 * its counters, zeros included, so that a reader finds every key.
 *
 * Also here: model events as Tarmac lines (`cachet run --events`) and the
 * validation report (`cachet validate`, rules in sim/validate.c): a table
 * per structure and operation, the agreement, the cold-start allowance,
 * the verdict, then the divergences; or the same as one JSON object.
 *
 * Per core: a private level's or TLB's MPKI divides its misses by the
 * instructions of its own core, a shared level's by all cores' (a core's
 * misses per thousand of its instructions). Each core's instructions,
 * cycles and CPI (its stream's, by the same rules) are in the table after
 * the whole run's (with more than one core), in JSON's "cores" and in the
 * CSV's core_instructions, core_cycles and core_cpi: those of the row's
 * core, or of all cores for a shared level. compat = drcachesim prints no
 * per-core figures beyond what drcachesim prints.
 *
 * Figures that were not computed are never printed as 0: without [system]
 * miss_classes = yes the CSV's compulsory, capacity and conflict fields are
 * empty (JSON leaves the keys out; the table shows a "misses by class" part
 * only with it); with compat = drcachesim, which counts no time, cycles,
 * CPI and AMAT read n/a in the table, null in JSON and empty in CSV.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cachet/cachet.h"
#include "report_internal.h"

const char *ct_version(void) { return CACHET_VERSION; }

int ct_writef(ct_writer *w, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    int n;

    if (w->failed)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return w->failed = -1;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (w->write(w->ctx, buf, (size_t)n) != 0)
        w->failed = -1;
    return w->failed;
}

void ct_write_json_string(ct_writer *w, const char *s)
{
    char buf[1024];
    size_t n = 0;

    buf[n++] = '"';
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (n > sizeof buf - 8) {
            if (!w->failed && w->write(w->ctx, buf, n) != 0)
                w->failed = -1;
            n = 0;
        }
        if (ch == '"' || ch == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(buf + n, 8, "\\u%04x", ch);
        } else {
            buf[n++] = (char)ch;
        }
    }
    buf[n++] = '"';
    if (!w->failed && w->write(w->ctx, buf, n) != 0)
        w->failed = -1;
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* A write policy as the configuration spells it. */
static const char *yes_no_nofetch(int v)
{
    return v == CT_WRITE_NOFETCH ? "nofetch" : v ? "yes" : "no";
}

/* The instructions a structure of core `core` serves: that core's, or all
 * cores' for a shared one (core < 0). The denominator of its MPKI. */
static uint64_t instructions_of(const ct_sim *s, int core)
{
    const ct_core_totals *c = core >= 0 ? ct_sim_core_totals(s, (uint32_t)core) : NULL;
    return c ? c->instructions : ct_sim_get_totals(s)->instructions;
}

static const char *trace_name(const ct_run_meta *m, size_t i)
{
    return m && i < m->ntraces ? m->traces[i] : "";
}

/* The kinds a level or a TLB counts (CT_NOFETCH never reaches one). */
static const int shown_kinds[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_ATOMIC, CT_PREFETCH,
                                  CT_CACHEOP, CT_WRITEBACK, CT_HWPREFETCH, CT_WALK};

/* A per-instruction figure (CPI, MPKI) into buf as the table and CSV print
 * it: "-" in the table and "" in CSV without instructions. */
static const char *per_instr(char *buf, size_t n, const char *fmt, double scale, uint64_t a,
                             uint64_t instructions, const char *none)
{
    if (!instructions)
        return none;
    snprintf(buf, n, fmt, scale * (double)a / (double)instructions);
    return buf;
}

/* The same in JSON: null without instructions. */
static void json_per_instr(ct_writer *w, double scale, uint64_t a, uint64_t instructions)
{
    if (instructions)
        ct_writef(w, "%.17g", scale * (double)a / (double)instructions);
    else
        ct_writef(w, "null");
}

/* drcachesim's per-cache figures (compat = drcachesim): demand hits and
 * misses exclude prefetches, which it reports apart; compulsory misses
 * include them. */
typedef struct dcs_view {
    uint64_t hits, misses, compulsory, pf_hits, pf_misses, flushes, child_hits;
} dcs_view;

static int is_drcachesim(const ct_config *cfg)
{
    char buf[32];
    const char *v = ct_config_get(cfg, "system", "compat", buf, sizeof buf);
    return v && strcmp(v, "drcachesim") == 0;
}

/* Whether the run has cycles (compat = drcachesim counts no time: its
 * cycles, CPI and AMAT read n/a, null in JSON, empty in CSV). */
static int has_timing(const ct_config *cfg) { return !is_drcachesim(cfg); }

/* Whether accesses overlap ([system] timing = overlap, sim/timing.c): the
 * table says so, and the prefetch figures gain the late prefetches. */
static int is_overlap(const ct_config *cfg)
{
    char buf[32];
    const char *v = ct_config_get(cfg, "system", "timing", buf, sizeof buf);
    return v && strcmp(v, "overlap") == 0;
}

/* Whether the 3C split was computed ([system] miss_classes = yes): without
 * it the compulsory, capacity and conflict columns of the CSV are empty. */
static int has_classes(const ct_config *cfg)
{
    char buf[32];
    const char *v = ct_config_get(cfg, "system", "miss_classes", buf, sizeof buf);
    return v && strcmp(v, "yes") == 0;
}

void ct_csv_prov_config(ct_csv_prov *p, const ct_config *cfg)
{
    p->classes = has_classes(cfg);
    p->timing = has_timing(cfg);
}

static dcs_view dcs_of(const ct_level_stats *st)
{
    dcs_view v;
    static const int demand[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_ATOMIC};
    memset(&v, 0, sizeof v);
    for (size_t i = 0; i < sizeof demand / sizeof demand[0]; i++) {
        v.hits += st->kind[demand[i]].hits;
        v.misses += st->kind[demand[i]].misses;
    }
    for (int k = 0; k < CT_KIND_COUNT; k++)
        v.compulsory += st->kind[k].compulsory;
    v.pf_hits = st->kind[CT_PREFETCH].hits + st->kind[CT_HWPREFETCH].hits;
    v.pf_misses = st->kind[CT_PREFETCH].misses + st->kind[CT_HWPREFETCH].misses;
    v.flushes = st->kind[CT_CACHEOP].accesses;
    v.child_hits = st->child_hits;
    return v;
}

static ct_kind_stats tlb_total(const ct_tlb_stats *st)
{
    ct_kind_stats t;
    memset(&t, 0, sizeof t);
    for (int k = 0; k < CT_KIND_COUNT; k++) {
        t.accesses += st->kind[k].accesses;
        t.hits += st->kind[k].hits;
        t.misses += st->kind[k].misses;
    }
    return t;
}

/* The translation structures and walks (only when the model translates). */
static void table_translation(ct_writer *w, const ct_sim *s)
{
    const size_t n = ct_sim_ntlbs(s);

    if (!n)
        return;
    ct_writef(w, "\n%-9s %4s %7s %5s %14s %14s %12s %8s %9s %10s  %s\n", "tlb", "core",
              "entries", "assoc", "lookups", "hits", "misses", "miss%", "MPKI", "evictions",
              "hits by size");
    for (size_t i = 0; i < n; i++) {
        const ct_tlb_info *ti = ct_sim_tlb_info(s, i);
        const ct_tlb_stats *st = ct_sim_tlb_stats(s, i);
        ct_kind_stats tot = tlb_total(st);
        int first = 1;
        char mpki[32];
        ct_writef(w, "%-9s %4d %7u %5u %14llu %14llu %12llu %7.3f%% %9s %10llu", ti->name,
                  ti->core, ti->entries, ti->assoc, (unsigned long long)tot.accesses,
                  (unsigned long long)tot.hits, (unsigned long long)tot.misses,
                  100.0 * ratio(tot.misses, tot.accesses),
                  per_instr(mpki, sizeof mpki, "%.3f", 1000.0, tot.misses,
                            instructions_of(s, ti->core), "-"),
                  (unsigned long long)st->evictions);
        for (int k = 0; k < CT_PAGE_LOG2_MAX; k++)
            if (st->hits_by_size[k]) {
                char sz[32];
                ct_format_size(1ull << k, sz, sizeof sz);
                ct_writef(w, "%s%s:%llu", first ? "  " : " ", sz,
                          (unsigned long long)st->hits_by_size[k]);
                first = 0;
            }
        ct_writef(w, "\n");
    }
    for (uint32_t c = 0; ct_sim_walk_stats(s, c); c++) {
        const ct_walk_stats *ws = ct_sim_walk_stats(s, c);
        ct_writef(w, "walks core %u: %llu walks, %llu descriptor reads (level 0-3: %llu %llu %llu "
                     "%llu), %llu levels skipped, %llu faults, %llu cycles\n",
                  c, (unsigned long long)ws->walks, (unsigned long long)ws->reads,
                  (unsigned long long)ws->reads_by_level[0],
                  (unsigned long long)ws->reads_by_level[1],
                  (unsigned long long)ws->reads_by_level[2],
                  (unsigned long long)ws->reads_by_level[3],
                  (unsigned long long)ws->skipped_levels, (unsigned long long)ws->faults,
                  (unsigned long long)ws->cycles);
    }
}

/* ---- table ---- */

/* A level's core as the table shows it: its number, or "all" when shared. */
static void core_text(const ct_level_info *li, char *buf, size_t n)
{
    if (li->core < 0)
        snprintf(buf, n, "all");
    else
        snprintf(buf, n, "%d", li->core);
}

/* The sum of a count by kind over every kind of the stream. */
static uint64_t all_kinds(const uint64_t v[CT_KIND_STREAM])
{
    uint64_t n = 0;
    for (int k = 0; k < CT_KIND_STREAM; k++)
        n += v[k];
    return n;
}

/* The kinds whose count is not zero, as "NAME COUNT" in `item` (a format of
 * a string and an unsigned long long), separated by ", ". */
static void nonzero_kinds(ct_writer *w, const uint64_t v[CT_KIND_STREAM], const char *item)
{
    const char *sep = "";
    for (int k = 0; k < CT_KIND_STREAM; k++)
        if (v[k]) {
            ct_writef(w, "%s", sep);
            ct_writef(w, item, ct_kind_name(k), (unsigned long long)v[k]);
            sep = ", ";
        }
}

/* Accesses that bypassed the caches (rule "Uncached memory", sim/hier.c). */
static uint64_t uncached_total(const ct_sim_totals *t) { return all_kinds(t->uncached); }

static int has_prefetcher(const ct_level_info *li)
{
    return li->prefetcher && strcmp(li->prefetcher, "none") != 0;
}

/* Demand misses (ifetch, load, store, atomic): coverage's denominator
 * (rule "Hardware prefetch" in sim/hier.c). */
static uint64_t demand_misses(const ct_level_stats *st)
{
    return st->kind[CT_IFETCH].misses + st->kind[CT_LOAD].misses + st->kind[CT_STORE].misses +
           st->kind[CT_ATOMIC].misses;
}

static void table_prefetch(ct_writer *w, const ct_sim *s, int late)
{
    int header = 0;

    for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
        const ct_level_info *li = ct_sim_level_info(s, i);
        const ct_level_stats *st = ct_sim_level_stats(s, i);
        const uint64_t fills = st->kind[CT_HWPREFETCH].misses;
        char core[16];
        if (!has_prefetcher(li))
            continue;
        if (!header++)
            ct_writef(w, "\nhardware prefetch\n%-6s %4s %-9s %12s %12s %12s %12s %9s %9s%s\n",
                      "level", "core", "prefetch", "issued", "filled", "useful", "useless",
                      "accuracy", "coverage", late ? "         late" : "");
        core_text(li, core, sizeof core);
        ct_writef(w, "%-6s %4s %-9s %12llu %12llu %12llu %12llu %8.2f%% %8.2f%%", li->name,
                  core, li->prefetcher, (unsigned long long)st->prefetches_issued,
                  (unsigned long long)fills, (unsigned long long)st->prefetch_useful,
                  (unsigned long long)st->prefetch_useless,
                  100.0 * ratio(st->prefetch_useful, fills),
                  100.0 * ratio(st->prefetch_useful, st->prefetch_useful + demand_misses(st)));
        if (late)
            ct_writef(w, " %12llu", (unsigned long long)st->prefetch_late);
        ct_writef(w, "\n");
    }
}

static const char *const protocol_names[] = {"none", "msi", "mesi"};

/* The coherence counts of the private levels (rules at the top of
 * sim/coherence.c), when the core model keeps coherence. */
static void table_coherence(ct_writer *w, const ct_sim *s)
{
    if (!ct_sim_coherent(s))
        return;
    ct_writef(w, "\ncoherence (%s)\n%-6s %4s %13s %12s %12s %12s\n",
              protocol_names[ct_sim_coherent(s)], "level", "core", "invalidations",
              "downgrades", "writebacks", "upgrades");
    for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
        const ct_level_info *li = ct_sim_level_info(s, i);
        const ct_level_stats *st = ct_sim_level_stats(s, i);
        char core[16];
        if (li->core < 0)
            continue;
        core_text(li, core, sizeof core);
        ct_writef(w, "%-6s %4s %13llu %12llu %12llu %12llu\n", li->name, core,
                  (unsigned long long)st->coh_invalidations,
                  (unsigned long long)st->coh_downgrades,
                  (unsigned long long)st->coh_writebacks, (unsigned long long)st->coh_upgrades);
    }
}

int ct_report_table(ct_writer *w, const ct_sim *s, const ct_config *cfg, const ct_run_meta *m)
{
    const ct_sim_totals *t = ct_sim_get_totals(s);

    ct_writef(w, "cachet %s  config %s (%016llx)\n", ct_version(),
              ct_config_path(cfg)[0] ? ct_config_path(cfg) : "(built-in)",
              (unsigned long long)ct_config_hash(cfg));
    for (size_t i = 0; m && i < m->ntraces; i++)
        ct_writef(w, "trace  %s%s%s\n", trace_name(m, i), m->format ? "  format " : "",
                  m->format ? m->format : "");
    ct_writef(w, "\n%-6s %4s %6s %5s %5s %14s %14s %12s %8s %9s %12s\n", "level", "core",
              "size", "assoc", "line", "accesses", "hits", "misses", "miss%", "MPKI",
              "writebacks");
    for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
        const ct_level_info *li = ct_sim_level_info(s, i);
        ct_kind_stats tot = ct_level_total(ct_sim_level_stats(s, i));
        char size[32], core[16], mpki[32];
        ct_format_size(li->size, size, sizeof size);
        core_text(li, core, sizeof core);
        ct_writef(w, "%-6s %4s %6s %5u %5u %14llu %14llu %12llu %7.3f%% %9s %12llu\n",
                  li->name, core, size, li->assoc, li->line, (unsigned long long)tot.accesses,
                  (unsigned long long)tot.hits, (unsigned long long)tot.misses,
                  100.0 * ratio(tot.misses, tot.accesses),
                  per_instr(mpki, sizeof mpki, "%.3f", 1000.0, tot.misses,
                            instructions_of(s, li->core), "-"),
                  (unsigned long long)ct_sim_level_stats(s, i)->writebacks);
    }
    if (is_drcachesim(cfg)) {
        ct_writef(w, "\ndrcachesim counts (compat = drcachesim)\n%-6s %4s %12s %10s %10s %10s "
                     "%10s %12s\n", "level", "core", "hits", "misses", "compulsory", "pf_hits",
                  "pf_misses", "child_hits");
        for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
            const ct_level_info *li = ct_sim_level_info(s, i);
            dcs_view v = dcs_of(ct_sim_level_stats(s, i));
            char core[16];
            core_text(li, core, sizeof core);
            ct_writef(w, "%-6s %4s %12llu %10llu %10llu %10llu %10llu %12llu\n", li->name, core,
                      (unsigned long long)v.hits, (unsigned long long)v.misses,
                      (unsigned long long)v.compulsory, (unsigned long long)v.pf_hits,
                      (unsigned long long)v.pf_misses, (unsigned long long)v.child_hits);
        }
    }
    table_prefetch(w, s, is_overlap(cfg));
    table_coherence(w, s);
    if (has_classes(cfg)) {
        ct_writef(w, "\nmisses by class (system.miss_classes = yes)\n%-6s %4s %12s %12s %12s\n",
                  "level", "core", "compulsory", "capacity", "conflict");
        for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
            const ct_level_info *li = ct_sim_level_info(s, i);
            ct_kind_stats tot = ct_level_total(ct_sim_level_stats(s, i));
            char core[16];
            core_text(li, core, sizeof core);
            ct_writef(w, "%-6s %4s %12llu %12llu %12llu\n", li->name, core,
                      (unsigned long long)tot.compulsory, (unsigned long long)tot.capacity,
                      (unsigned long long)tot.conflict);
        }
    }
    table_translation(w, s);
    if (!has_timing(cfg)) {
        ct_writef(w, "\ninstructions %llu  cycles n/a  CPI n/a  (compat = drcachesim counts no "
                     "time)\nAMAT n/a", (unsigned long long)t->instructions);
    } else {
        char cpi[32];
        if (is_overlap(cfg)) {
            char win[32], base[32];
            ct_writef(w, "\ntiming overlap  window %s  base_cpi %s",
                      ct_config_get(cfg, "system", "window", win, sizeof win),
                      ct_config_get(cfg, "system", "base_cpi", base, sizeof base));
        }
        ct_writef(w, "\ninstructions %llu  cycles %llu  CPI %s\n",
                  (unsigned long long)t->instructions, (unsigned long long)t->cycles,
                  per_instr(cpi, sizeof cpi, "%.4f", 1.0, t->cycles, t->instructions, "-"));
        for (uint32_t c = 0; ct_sim_core_totals(s, 1) && ct_sim_core_totals(s, c); c++) {
            const ct_core_totals *ct = ct_sim_core_totals(s, c);
            ct_writef(w, "core %u  instructions %llu  cycles %llu  CPI %s\n", c,
                      (unsigned long long)ct->instructions, (unsigned long long)ct->cycles,
                      per_instr(cpi, sizeof cpi, "%.4f", 1.0, ct->cycles, ct->instructions, "-"));
        }
        if (ct_sim_ntlbs(s))
            ct_writef(w, "translation cycles %llu (%.2f%% of cycles)\n",
                      (unsigned long long)t->translation_cycles,
                      100.0 * ratio(t->translation_cycles, t->cycles));
        ct_writef(w, "AMAT");
        for (int k = 0; k < CT_KIND_STREAM; k++)
            if (t->accesses[k] && k != CT_NOFETCH)
                ct_writef(w, "  %s %.3f", ct_kind_name(k),
                          ratio(t->kind_cycles[k], t->accesses[k]));
    }
    ct_writef(w, "\nmemory reads %llu  writes %llu  line-crossing accesses %llu\n",
              (unsigned long long)t->mem_reads, (unsigned long long)t->mem_writes,
              (unsigned long long)t->line_crossings);
    if (uncached_total(t)) {
        ct_writef(w, "uncached accesses %llu  (", (unsigned long long)uncached_total(t));
        nonzero_kinds(w, t->uncached, "%s %llu");
        ct_writef(w, ")\n");
    }
    if (m && m->seconds > 0) {
        uint64_t n = 0;
        for (int k = 0; k < CT_KIND_STREAM; k++)
            n += t->accesses[k];
        ct_writef(w, "time %.3f s  (%.2f M accesses/s)\n", m->seconds, n / m->seconds / 1e6);
    }
    return w->failed;
}

/* ---- JSON ---- */

static void json_kind(ct_writer *w, const ct_kind_stats *k, int classes)
{
    ct_writef(w, "{\"accesses\": %llu, \"hits\": %llu, \"misses\": %llu",
              (unsigned long long)k->accesses, (unsigned long long)k->hits,
              (unsigned long long)k->misses);
    if (classes)
        ct_writef(w, ", \"compulsory\": %llu, \"capacity\": %llu, \"conflict\": %llu",
                  (unsigned long long)k->compulsory, (unsigned long long)k->capacity,
                  (unsigned long long)k->conflict);
    ct_writef(w, "}");
}

/* {kind: counters} for every kind of shown_kinds, zeros included, then any
 * other kind that counted something. */
static void json_by_kind(ct_writer *w, const ct_kind_stats *kind, int classes)
{
    int first = 1;
    ct_writef(w, "{");
    for (int k = 0; k < CT_KIND_COUNT; k++) {
        int shown = 0;
        for (size_t j = 0; j < sizeof shown_kinds / sizeof shown_kinds[0]; j++)
            shown |= shown_kinds[j] == k;
        if (!shown && !kind[k].accesses)
            continue;
        ct_writef(w, "%s\"%s\": ", first ? "" : ", ", ct_kind_name(k));
        json_kind(w, &kind[k], classes);
        first = 0;
    }
    ct_writef(w, "}");
}

typedef struct json_cfg_ctx {
    ct_writer *w;
    const char *section;
    int first_key;
    int first_section;
} json_cfg_ctx;

static int json_cfg_visit(void *ctx, const char *section, const char *key, const char *value)
{
    json_cfg_ctx *j = ctx;
    if (!j->section || strcmp(j->section, section) != 0) {
        if (j->section)
            ct_writef(j->w, "}");
        ct_writef(j->w, "%s", j->first_section ? "" : ", ");
        ct_write_json_string(j->w, section);
        ct_writef(j->w, ": {");
        j->section = section;
        j->first_key = 1;
        j->first_section = 0;
    }
    ct_writef(j->w, "%s", j->first_key ? "" : ", ");
    ct_write_json_string(j->w, key);
    ct_writef(j->w, ": ");
    ct_write_json_string(j->w, value);
    j->first_key = 0;
    return 0;
}

/* The run's header: version, configuration, traces, instructions and,
 * with timing, cycles per core. */
static void json_head(ct_writer *w, const ct_sim *s, const ct_config *cfg,
                      const ct_run_meta *m, const ct_sim_totals *t)
{
    ct_writef(w, "{\n  \"cachet_version\": ");
    ct_write_json_string(w, ct_version());
    ct_writef(w, ",\n  \"config\": ");
    ct_write_json_string(w, m && m->config_path ? m->config_path : ct_config_path(cfg));
    ct_writef(w, ",\n  \"config_hash\": \"%016llx\",\n  \"traces\": [",
              (unsigned long long)ct_config_hash(cfg));
    for (size_t i = 0; m && i < m->ntraces; i++) {
        ct_writef(w, "%s{\"path\": ", i ? ", " : "");
        ct_write_json_string(w, trace_name(m, i));
        if (m->trace_sizes)
            ct_writef(w, ", \"bytes\": %llu", (unsigned long long)m->trace_sizes[i]);
        ct_writef(w, "}");
    }
    ct_writef(w, "],\n  \"format\": ");
    ct_write_json_string(w, m && m->format ? m->format : "");
    ct_writef(w, ",\n  \"instructions\": %llu,\n", (unsigned long long)t->instructions);
    if (has_timing(cfg)) {
        ct_writef(w, "  \"cycles\": %llu,\n  \"cpi\": ", (unsigned long long)t->cycles);
        json_per_instr(w, 1.0, t->cycles, t->instructions);
        ct_writef(w, ",\n  \"cores\": [");
        for (uint32_t c = 0; ct_sim_core_totals(s, c); c++) {
            const ct_core_totals *ct = ct_sim_core_totals(s, c);
            ct_writef(w, "%s{\"core\": %u, \"instructions\": %llu, \"cycles\": %llu, \"cpi\": ",
                      c ? ", " : "", c, (unsigned long long)ct->instructions,
                      (unsigned long long)ct->cycles);
            json_per_instr(w, 1.0, ct->cycles, ct->instructions);
            ct_writef(w, "}");
        }
        ct_writef(w, "],\n");
    } else {
        ct_writef(w, "  \"cycles\": null,\n  \"cpi\": null,\n");
    }
}

/* Accesses and AMAT by kind, memory traffic and the optional totals
 * (uncached accesses, drcachesim's coherence, the warm-up window). */
static void json_totals(ct_writer *w, const ct_sim *s, const ct_config *cfg,
                        const ct_sim_totals *t)
{
    ct_writef(w, "  \"accesses\": {");
    for (int k = 0; k < CT_KIND_STREAM; k++)
        ct_writef(w, "%s\"%s\": %llu", k ? ", " : "", ct_kind_name(k),
                  (unsigned long long)t->accesses[k]);
    ct_writef(w, "},\n  \"amat\": {");
    for (int k = 0, first = 1; k < CT_KIND_STREAM; k++) {
        if (k == CT_NOFETCH)
            continue;
        ct_writef(w, "%s\"%s\": ", first ? "" : ", ", ct_kind_name(k));
        if (has_timing(cfg))
            ct_writef(w, "%.17g", ratio(t->kind_cycles[k], t->accesses[k]));
        else
            ct_writef(w, "null");
        first = 0;
    }
    ct_writef(w, "},\n  \"memory\": {\"reads\": %llu, \"writes\": %llu},\n",
              (unsigned long long)t->mem_reads, (unsigned long long)t->mem_writes);
    ct_writef(w, "  \"line_crossings\": %llu,\n", (unsigned long long)t->line_crossings);
    if (uncached_total(t)) {
        ct_writef(w, "  \"uncached\": {");
        nonzero_kinds(w, t->uncached, "\"%s\": %llu");
        ct_writef(w, "},\n");
    }
    if (ct_sim_coherence(s)) {
        /* drcachesim's "Coherence stats" */
        const ct_coherence_stats *c = ct_sim_coherence(s);
        ct_writef(w, "  \"coherence\": {\"writes\": %llu, \"invalidations\": %llu, "
                     "\"writebacks\": %llu},\n",
                  (unsigned long long)c->writes, (unsigned long long)c->invalidations,
                  (unsigned long long)c->writebacks);
    }
    if (ct_sim_coherent(s)) {
        /* the core model's protocol: the sums over the levels */
        uint64_t n[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
            const ct_level_stats *st = ct_sim_level_stats(s, i);
            n[0] += st->coh_invalidations;
            n[1] += st->coh_downgrades;
            n[2] += st->coh_writebacks;
            n[3] += st->coh_upgrades;
        }
        ct_writef(w, "  \"coherence\": {\"protocol\": \"%s\", \"invalidations\": %llu, "
                     "\"downgrades\": %llu, \"writebacks\": %llu, \"upgrades\": %llu},\n",
                  protocol_names[ct_sim_coherent(s)], (unsigned long long)n[0],
                  (unsigned long long)n[1], (unsigned long long)n[2], (unsigned long long)n[3]);
    }
    if (ct_sim_window_stats(s)) {
        const ct_window_stats *ws = ct_sim_window_stats(s);
        ct_writef(w, "  \"window\": {\"skipped\": %llu, \"warmup\": %llu, \"warmed\": %s, "
                     "\"simulated\": %llu},\n",
                  (unsigned long long)ws->skipped, (unsigned long long)ws->warmup,
                  ws->warmed ? "true" : "false", (unsigned long long)ws->simulated);
    }
}

/* A level's counts as drcachesim prints them (compat = drcachesim). */
static void json_level_drcachesim(ct_writer *w, const ct_sim *s, size_t i,
                                  const ct_level_stats *st)
{
    dcs_view v = dcs_of(st);
    uint64_t wi;

    ct_writef(w, "     \"drcachesim\": {\"hits\": %llu, \"misses\": %llu, "
                 "\"compulsory_misses\": %llu, \"invalidations\": 0, "
                 "\"prefetch_hits\": %llu, \"prefetch_misses\": %llu, "
                 "\"flushes\": %llu, \"child_hits\": %llu, \"miss_rate\": %.17g, "
                 "\"total_miss_rate\": %.17g},\n",
              (unsigned long long)v.hits, (unsigned long long)v.misses,
              (unsigned long long)v.compulsory, (unsigned long long)v.pf_hits,
              (unsigned long long)v.pf_misses, (unsigned long long)v.flushes,
              (unsigned long long)v.child_hits, ratio(v.misses, v.hits + v.misses),
              ratio(v.misses, v.hits + v.child_hits + v.misses));
    /* a snooped level: drcachesim's "Parent invalidations" (none: levels
     * are non-inclusive) and "Write invalidations" */
    if (ct_sim_level_write_invalidations(s, i, &wi))
        ct_writef(w, "     \"drcachesim_coherence\": {\"parent_invalidations\": 0, "
                     "\"write_invalidations\": %llu},\n",
                  (unsigned long long)wi);
    if (ct_sim_window_stats(s)) {
        /* drcachesim's "Warmup hits" and "Warmup misses" */
        const ct_level_stats *ws = ct_sim_level_warmup_stats(s, i);
        dcs_view wv;
        memset(&wv, 0, sizeof wv);
        if (ws)
            wv = dcs_of(ws);
        ct_writef(w, "     \"drcachesim_warmup\": {\"hits\": %llu, \"misses\": %llu},\n",
                  (unsigned long long)wv.hits, (unsigned long long)wv.misses);
    }
}

/* Level i: geometry, counts, prefetches, miss classes. */
static void json_level(ct_writer *w, const ct_sim *s, const ct_config *cfg, size_t i,
                       int classes)
{
    const ct_level_info *li = ct_sim_level_info(s, i);
    const ct_level_stats *st = ct_sim_level_stats(s, i);
    ct_kind_stats tot = ct_level_total(st);

    ct_writef(w, "    {\"name\": ");
    ct_write_json_string(w, li->name);
    if (li->core < 0)
        ct_writef(w, ", \"core\": null");
    else
        ct_writef(w, ", \"core\": %d", li->core);
    ct_writef(w, ", \"size\": %llu, \"assoc\": %u, \"line\": %u, \"sets\": %llu, "
                 "\"replacement\": \"%s\", \"write_back\": %s, \"write_allocate\": %s, "
                 "\"inclusion\": \"%s\", \"latency\": %u,\n",
              (unsigned long long)li->size, li->assoc, li->line,
              (unsigned long long)li->sets, li->replacement,
              li->write_back == CT_WRITE_NOFETCH ? "\"nofetch\""
              : li->write_back                   ? "true"
                                                 : "false",
              li->write_allocate == CT_WRITE_NOFETCH ? "\"nofetch\""
              : li->write_allocate                   ? "true"
                                                     : "false",
              li->inclusion, li->latency);
    ct_writef(w, "     \"accesses\": %llu, \"hits\": %llu, \"misses\": %llu, "
                 "\"miss_rate\": %.17g, \"mpki\": ",
              (unsigned long long)tot.accesses, (unsigned long long)tot.hits,
              (unsigned long long)tot.misses, ratio(tot.misses, tot.accesses));
    json_per_instr(w, 1000.0, tot.misses, instructions_of(s, li->core));
    ct_writef(w, ", \"writebacks\": %llu, \"bytes_from_below\": %llu, "
                 "\"bytes_to_below\": %llu, "
                 "\"evictions\": %llu, \"invalidations\": %llu, "
                 "\"back_invalidations\": %llu, \"child_hits\": %llu, "
                 "\"prefetches_issued\": %llu,\n",
              (unsigned long long)st->writebacks,
              (unsigned long long)st->bytes_from_below,
              (unsigned long long)st->bytes_to_below, (unsigned long long)st->evictions,
              (unsigned long long)st->invalidations,
              (unsigned long long)st->back_invalidations,
              (unsigned long long)st->child_hits,
              (unsigned long long)st->prefetches_issued);
    if (has_prefetcher(li)) {
        const uint64_t fills = st->kind[CT_HWPREFETCH].misses;
        ct_writef(w, "     \"prefetch\": {\"prefetcher\": \"%s\", \"issued\": %llu, "
                     "\"filled\": %llu, \"useful\": %llu, \"useless\": %llu, "
                     "\"accuracy\": %.17g, \"coverage\": %.17g",
                  li->prefetcher, (unsigned long long)st->prefetches_issued,
                  (unsigned long long)fills, (unsigned long long)st->prefetch_useful,
                  (unsigned long long)st->prefetch_useless,
                  ratio(st->prefetch_useful, fills),
                  ratio(st->prefetch_useful, st->prefetch_useful + demand_misses(st)));
        if (is_overlap(cfg))
            ct_writef(w, ", \"late\": %llu", (unsigned long long)st->prefetch_late);
        ct_writef(w, "},\n");
    }
    if (ct_sim_coherent(s) && li->core >= 0)
        ct_writef(w, "     \"coherence\": {\"invalidations\": %llu, \"downgrades\": %llu, "
                     "\"writebacks\": %llu, \"upgrades\": %llu},\n",
                  (unsigned long long)st->coh_invalidations,
                  (unsigned long long)st->coh_downgrades,
                  (unsigned long long)st->coh_writebacks, (unsigned long long)st->coh_upgrades);
    if (classes) {
        ct_writef(w, "     \"compulsory\": %llu, \"capacity\": %llu, \"conflict\": %llu,\n",
                  (unsigned long long)tot.compulsory, (unsigned long long)tot.capacity,
                  (unsigned long long)tot.conflict);
    }
    if (is_drcachesim(cfg))
        json_level_drcachesim(w, s, i, st);
    ct_writef(w, "     \"by_kind\": ");
    json_by_kind(w, st->kind, classes);
    ct_writef(w, "}%s\n", i + 1 < ct_sim_nlevels(s) ? "," : "");
}

/* The TLBs and the walks of each core. */
static void json_translation(ct_writer *w, const ct_sim *s, const ct_sim_totals *t)
{
    ct_writef(w, "  \"translation_cycles\": %llu,\n  \"tlbs\": [\n",
              (unsigned long long)t->translation_cycles);
    for (size_t i = 0; i < ct_sim_ntlbs(s); i++) {
        const ct_tlb_info *ti = ct_sim_tlb_info(s, i);
        const ct_tlb_stats *st = ct_sim_tlb_stats(s, i);
        ct_kind_stats tot = tlb_total(st);
        ct_writef(w, "    {\"name\": \"%s\", \"core\": %d, \"entries\": %u, \"assoc\": %u, "
                     "\"sets\": %llu, \"replacement\": \"%s\", \"latency\": %u,\n",
                  ti->name, ti->core, ti->entries, ti->assoc, (unsigned long long)ti->sets,
                  ti->replacement, ti->latency);
        ct_writef(w, "     \"lookups\": %llu, \"hits\": %llu, \"misses\": %llu, "
                     "\"miss_rate\": %.17g, \"mpki\": ",
                  (unsigned long long)tot.accesses, (unsigned long long)tot.hits,
                  (unsigned long long)tot.misses, ratio(tot.misses, tot.accesses));
        json_per_instr(w, 1000.0, tot.misses, instructions_of(s, ti->core));
        ct_writef(w, ", \"fills\": %llu, \"evictions\": %llu,\n     \"by_kind\": ",
                  (unsigned long long)st->fills, (unsigned long long)st->evictions);
        json_by_kind(w, st->kind, 0);
        for (int which = 0; which < 2; which++) {
            const uint64_t *v = which ? st->fills_by_size : st->hits_by_size;
            int first = 1;
            ct_writef(w, ",\n     \"%s_by_size\": {", which ? "fills" : "hits");
            for (int k = 0; k < CT_PAGE_LOG2_MAX; k++) {
                if (!v[k])
                    continue;
                ct_writef(w, "%s\"%llu\": %llu", first ? "" : ", ",
                          (unsigned long long)(1ull << k), (unsigned long long)v[k]);
                first = 0;
            }
            ct_writef(w, "}");
        }
        ct_writef(w, "}%s\n", i + 1 < ct_sim_ntlbs(s) ? "," : "");
    }
    ct_writef(w, "  ],\n  \"walks\": [\n");
    for (uint32_t c = 0; ct_sim_walk_stats(s, c); c++) {
        const ct_walk_stats *ws = ct_sim_walk_stats(s, c);
        ct_writef(w, "    {\"core\": %u, \"walks\": %llu, \"reads\": %llu, "
                     "\"reads_by_level\": [%llu, %llu, %llu, %llu], \"skipped_levels\": %llu, "
                     "\"faults\": %llu, \"cycles\": %llu}%s\n",
                  c, (unsigned long long)ws->walks, (unsigned long long)ws->reads,
                  (unsigned long long)ws->reads_by_level[0],
                  (unsigned long long)ws->reads_by_level[1],
                  (unsigned long long)ws->reads_by_level[2],
                  (unsigned long long)ws->reads_by_level[3],
                  (unsigned long long)ws->skipped_levels, (unsigned long long)ws->faults,
                  (unsigned long long)ws->cycles, ct_sim_walk_stats(s, c + 1) ? "," : "");
    }
    ct_writef(w, "  ],\n");
}

int ct_report_json(ct_writer *w, const ct_sim *s, const ct_config *cfg, const ct_run_meta *m)
{
    const ct_sim_totals *t = ct_sim_get_totals(s);
    char buf[64];
    int classes = strcmp(ct_config_get(cfg, "system", "miss_classes", buf, sizeof buf), "yes") == 0;
    json_cfg_ctx jc = {w, NULL, 1, 1};

    json_head(w, s, cfg, m, t);
    json_totals(w, s, cfg, t);
    if (m && m->seconds > 0)
        ct_writef(w, "  \"seconds\": %.6f,\n", m->seconds);
    ct_writef(w, "  \"levels\": [\n");
    for (size_t i = 0; i < ct_sim_nlevels(s); i++)
        json_level(w, s, cfg, i, classes);
    ct_writef(w, "  ],\n");
    if (ct_sim_ntlbs(s))
        json_translation(w, s, t);
    ct_writef(w, "  \"resolved_config\": {");
    ct_config_visit(cfg, json_cfg_visit, &jc);
    if (jc.section)
        ct_writef(w, "}");
    ct_writef(w, "}\n}\n");
    return w->failed;
}

/* ---- CSV ---- */

void ct_csv_field(ct_writer *w, const char *s, int last)
{
    int quote = strpbrk(s, ",\"\n") != NULL;
    if (quote) {
        ct_writef(w, "\"");
        for (; *s; s++)
            ct_writef(w, *s == '"' ? "\"\"" : "%c", *s);
        ct_writef(w, "\"");
    } else {
        ct_writef(w, "%s", s);
    }
    if (last >= 0)
        ct_writef(w, last ? "\n" : ",");
}

void ct_csv_run_header(ct_writer *w)
{
    ct_writef(w, "cachet_version,config,config_hash,trace,trace_bytes,format,level,core,"
                 "size,assoc,line,sets,replacement,write_back,write_allocate,inclusion,"
                 "latency,accesses,hits,misses,miss_rate,mpki,"
                 "ifetch_accesses,ifetch_misses,load_accesses,load_misses,"
                 "store_accesses,store_misses,writeback_accesses,writeback_misses,"
                 "prefetch_accesses,prefetch_misses,hwprefetch_accesses,hwprefetch_misses,"
                 "writebacks,bytes_from_below,bytes_to_below,compulsory,capacity,conflict,"
                 "instructions,cycles,cpi,core_instructions,core_cycles,core_cpi,"
                 "amat,mem_reads,mem_writes,trace_accesses");
}

/* The provenance columns that begin every row. */
static void csv_prov_fields(ct_writer *w, const ct_csv_prov *p)
{
    ct_writef(w, "%s,", ct_version());
    ct_csv_field(w, p->config, 0);
    ct_writef(w, "%016llx,", (unsigned long long)p->hash);
    ct_csv_field(w, p->traces, 0);
    ct_writef(w, "%llu,", (unsigned long long)p->bytes);
    ct_csv_field(w, p->format ? p->format : "", 0);
}

/* Trace accesses the model has counted (every kind of the stream). */
static uint64_t stream_accesses(const ct_sim_totals *t) { return all_kinds(t->accesses); }

/* AMAT over demand accesses: cycles of ifetch, load, store and atomic
 * accesses over their number. */
static double demand_amat(const ct_sim_totals *t)
{
    static const int k[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_ATOMIC};
    uint64_t cyc = 0, n = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cyc += t->kind_cycles[k[i]];
        n += t->accesses[k[i]];
    }
    return ratio(cyc, n);
}

void ct_csv_run_fields(ct_writer *w, const ct_csv_prov *p, const ct_level_info *li,
                       const ct_level_stats *st, const ct_sim_totals *t,
                       const ct_core_totals *c)
{
    ct_kind_stats tot = ct_level_total(st);
    char core[16], mpki[32], cpi[32];
    const uint64_t c_instr = c ? c->instructions : t->instructions;
    const uint64_t c_cycles = c ? c->cycles : t->cycles;

    csv_prov_fields(w, p);
    if (li->core < 0)
        snprintf(core, sizeof core, "all");
    else
        snprintf(core, sizeof core, "%d", li->core);
    ct_writef(w, "%s,%s,%llu,%u,%u,%llu,%s,%s,%s,%s,%u,", li->name, core,
              (unsigned long long)li->size, li->assoc, li->line, (unsigned long long)li->sets,
              li->replacement, yes_no_nofetch(li->write_back), yes_no_nofetch(li->write_allocate),
              li->inclusion, li->latency);
    ct_writef(w, "%llu,%llu,%llu,%.6f,%s,", (unsigned long long)tot.accesses,
              (unsigned long long)tot.hits, (unsigned long long)tot.misses,
              ratio(tot.misses, tot.accesses),
              per_instr(mpki, sizeof mpki, "%.6f", 1000.0, tot.misses, c_instr, ""));
    {
        static const int k[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_WRITEBACK, CT_PREFETCH,
                                CT_HWPREFETCH};
        for (size_t j = 0; j < sizeof k / sizeof k[0]; j++)
            ct_writef(w, "%llu,%llu,", (unsigned long long)st->kind[k[j]].accesses,
                      (unsigned long long)st->kind[k[j]].misses);
    }
    ct_writef(w, "%llu,%llu,%llu,", (unsigned long long)st->writebacks,
              (unsigned long long)st->bytes_from_below, (unsigned long long)st->bytes_to_below);
    if (p->classes)
        ct_writef(w, "%llu,%llu,%llu,", (unsigned long long)tot.compulsory,
                  (unsigned long long)tot.capacity, (unsigned long long)tot.conflict);
    else
        ct_writef(w, ",,,");
    ct_writef(w, "%llu,", (unsigned long long)t->instructions);
    if (p->timing)
        ct_writef(w, "%llu,%s,", (unsigned long long)t->cycles,
                  per_instr(cpi, sizeof cpi, "%.6f", 1.0, t->cycles, t->instructions, ""));
    else
        ct_writef(w, ",,");
    ct_writef(w, "%llu,", (unsigned long long)c_instr);
    if (p->timing)
        ct_writef(w, "%llu,%s,%.6f,", (unsigned long long)c_cycles,
                  per_instr(cpi, sizeof cpi, "%.6f", 1.0, c_cycles, c_instr, ""),
                  demand_amat(t));
    else
        ct_writef(w, ",,,");
    ct_writef(w, "%llu,%llu,%llu", (unsigned long long)t->mem_reads,
              (unsigned long long)t->mem_writes, (unsigned long long)stream_accesses(t));
}

/* One translation structure's row: the run columns that apply to it, the
 * others empty (results/README.md). */
static void csv_tlb_fields(ct_writer *w, const ct_csv_prov *p, const ct_tlb_info *ti,
                           const ct_tlb_stats *st, const ct_sim_totals *t,
                           const ct_core_totals *c)
{
    static const int k[] = {CT_IFETCH, CT_LOAD, CT_STORE, CT_WRITEBACK, CT_PREFETCH,
                            CT_HWPREFETCH};
    const ct_kind_stats tot = tlb_total(st);

    csv_prov_fields(w, p);
    /* no size, line, write policies or inclusion */
    ct_writef(w, "%s,%d,,%u,,%llu,%s,,,,%u,", ti->name, ti->core, ti->assoc,
              (unsigned long long)ti->sets, ti->replacement, ti->latency);
    ct_writef(w, "%llu,%llu,%llu,%.6f,%.6f,", (unsigned long long)tot.accesses,
              (unsigned long long)tot.hits, (unsigned long long)tot.misses,
              ratio(tot.misses, tot.accesses), 1000.0 * ratio(tot.misses, c->instructions));
    /* lookups by the kind of the access that made them: write-backs and
     * hardware prefetches are never translated */
    for (size_t j = 0; j < sizeof k / sizeof k[0]; j++) {
        if (k[j] == CT_WRITEBACK || k[j] == CT_HWPREFETCH)
            ct_writef(w, ",,");
        else
            ct_writef(w, "%llu,%llu,", (unsigned long long)st->kind[k[j]].accesses,
                      (unsigned long long)st->kind[k[j]].misses);
    }
    /* no write-backs, no bytes, no 3C split */
    ct_writef(w, ",,,,,,%llu,%llu,%.6f,%llu,%llu,%.6f,%.6f,%llu,%llu,%llu",
              (unsigned long long)t->instructions, (unsigned long long)t->cycles,
              ratio(t->cycles, t->instructions), (unsigned long long)c->instructions,
              (unsigned long long)c->cycles, ratio(c->cycles, c->instructions), demand_amat(t),
              (unsigned long long)t->mem_reads, (unsigned long long)t->mem_writes,
              (unsigned long long)stream_accesses(t));
}

int ct_report_csv(ct_writer *w, const ct_sim *s, const ct_config *cfg, const ct_run_meta *m,
                  int header)
{
    const ct_sim_totals *t = ct_sim_get_totals(s);
    char traces[4096] = "";
    ct_csv_prov p;

    p.bytes = 0;
    for (size_t i = 0; m && i < m->ntraces; i++) {
        size_t used = strlen(traces);
        snprintf(traces + used, sizeof traces - used, "%s%s", i ? ";" : "", m->traces[i]);
        if (m->trace_sizes)
            p.bytes += m->trace_sizes[i];
    }
    p.config = m && m->config_path ? m->config_path : ct_config_path(cfg);
    p.hash = ct_config_hash(cfg);
    ct_csv_prov_config(&p, cfg);
    p.traces = traces;
    p.format = m && m->format ? m->format : "";
    if (header) {
        ct_csv_run_header(w);
        /* the core model's coherence: four columns more (results/README.md) */
        if (ct_sim_coherent(s))
            ct_writef(w, ",coh_invalidations,coh_downgrades,coh_writebacks,coh_upgrades");
        ct_writef(w, "\n");
    }
    for (size_t i = 0; i < ct_sim_nlevels(s); i++) {
        const ct_level_info *li = ct_sim_level_info(s, i);
        const ct_level_stats *st = ct_sim_level_stats(s, i);
        ct_csv_run_fields(w, &p, li, st, t,
                          li->core >= 0 ? ct_sim_core_totals(s, (uint32_t)li->core) : NULL);
        if (ct_sim_coherent(s) && li->core >= 0)
            ct_writef(w, ",%llu,%llu,%llu,%llu", (unsigned long long)st->coh_invalidations,
                      (unsigned long long)st->coh_downgrades,
                      (unsigned long long)st->coh_writebacks,
                      (unsigned long long)st->coh_upgrades);
        else if (ct_sim_coherent(s))
            ct_writef(w, ",,,,");
        ct_writef(w, "\n");
    }
    for (size_t i = 0; i < ct_sim_ntlbs(s); i++) {
        csv_tlb_fields(w, &p, ct_sim_tlb_info(s, i), ct_sim_tlb_stats(s, i), t,
                       ct_sim_core_totals(s, (uint32_t)ct_sim_tlb_info(s, i)->core));
        ct_writef(w, "\n");
    }
    return w->failed;
}
/* ---- Tarmac event lines (cachet run --events) ------------------------------ */

/* "64K", "2M": Tarmac region sizes. */
static void region_text(uint64_t bytes, char *buf, size_t n)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, n, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, n, "%llu%c", (unsigned long long)bytes, units[u]);
}

int ct_event_write_tarmac(ct_writer *w, const ct_event *ev, const char *name)
{
    const char *ns = (ev->flags & CT_EVF_NS) ? "_NS" : "";
    char size[32];

    switch (ev->type) {
    case CT_EV_CACHE:
        return ct_writef(w, "%llu clk cpu%u CACHE %s LINE %04llx %s 0x%012llx%s\n",
                         (unsigned long long)ev->time, ev->cpu, name,
                         (unsigned long long)ev->line, ct_event_op_name(ev->op),
                         (unsigned long long)ev->addr, ns);
    case CT_EV_TLB:
    case CT_EV_WALKCACHE:
        region_text(ev->size, size, sizeof size);
        ct_writef(w, "%llu clk cpu%u %s %s %s %s 0x%08llx%s", (unsigned long long)ev->time,
                  ev->cpu, ct_event_type_name(ev->type), ct_event_op_name(ev->op), name, size,
                  (unsigned long long)ev->addr, (ev->flags & CT_EVF_VNS) ? "_NS" : "");
        if (ev->regime)
            ct_writef(w, " %s", ct_regime_name(ev->regime));
        if (ev->flags & CT_EVF_VMID)
            ct_writef(w, " vmid=%u", ev->vmid);
        if (ev->flags & CT_EVF_NG)
            ct_writef(w, ", nG asid=%u", ev->asid);
        if (ev->flags & CT_EVF_PADDR)
            ct_writef(w, ":0x%010llx%s", (unsigned long long)ev->value, ns);
        return ct_writef(w, "\n");
    case CT_EV_TTW:
    case CT_EV_TTU:
        ct_writef(w, "%llu clk cpu%u %s %s %s %u:%u %012llx%s %0*llx : %s",
                  (unsigned long long)ev->time, ev->cpu, ct_event_type_name(ev->type), name,
                  (ev->flags & CT_EVF_VMSA) ? "VMSA" : "LPAE", ev->stage, ev->level,
                  (unsigned long long)ev->addr, ns, (int)(ev->size ? ev->size * 2 : 16),
                  (unsigned long long)ev->value, ct_walk_result_name(ev->result));
        if (ev->line)
            ct_writef(w, " ADDR=0x%016llx", (unsigned long long)ev->line);
        return ct_writef(w, "\n");
    default:
        return -1;
    }
}

/* ---- validation reports (sim/validate.c) --------------------------------- */

/* The compared detail of an event of structure type `type` (rule
 * "Matching" in sim/validate.c), as text. */
static const char *detail_text(int type, uint64_t d, char *buf, size_t n)
{
    if (type == CT_EV_TLB || type == CT_EV_WALKCACHE)
        snprintf(buf, n, "0x%llx%s", (unsigned long long)(d >> 1), (d & 1) ? "_NS" : "");
    else if (type == CT_EV_TTW || type == CT_EV_TTU)
        snprintf(buf, n, "%016llx", (unsigned long long)d);
    else
        snprintf(buf, n, "%04llx", (unsigned long long)d);
    return buf;
}

/* One divergence on one line: kind, structure, operation, address, the
 * details of each side, time and trace line. */
static void divergence_text(ct_writer *w, const ct_validation *v, const ct_divergence *d)
{
    const char *what = d->type == CT_EV_CACHE                          ? "LINE"
                       : d->type == CT_EV_TTW || d->type == CT_EV_TTU ? "value"
                                                                      : "pa";
    char dt[48];

    ct_writef(w, "%-7s %s %s", ct_divergence_kind_name(d->kind),
              ct_validation_structure(v, d->structure)->name, ct_event_op_name(d->op));
    if (d->size) {
        region_text(d->size, dt, sizeof dt);
        ct_writef(w, " %s", dt);
    }
    ct_writef(w, " 0x%llx%s", (unsigned long long)d->addr, d->ns ? "_NS" : "");
    if (d->kind != CT_DIV_EXTRA)
        ct_writef(w, " %s %s", what, detail_text(d->type, d->ref_line, dt, sizeof dt));
    if (d->kind != CT_DIV_MISSING)
        ct_writef(w, " model %s %s", what, detail_text(d->type, d->model_line, dt, sizeof dt));
    ct_writef(w, " at time %llu", (unsigned long long)d->time);
    if (d->src && d->path)
        ct_writef(w, " (%s:%llu)", d->path, (unsigned long long)d->src);
}

/* What the cold-start allowance set aside, in words. */
static void cold_start_text(ct_writer *w, const ct_validate_opts *o, const ct_vcount *t)
{
    switch (o->cold_start) {
    case CT_COLD_NONE:
        ct_writef(w, "cold start: no allowance (--cold): every extra counts\n");
        break;
    case CT_COLD_WARM_UNTIL:
        ct_writef(w, "cold start: events before time %llu not compared (--warm-until): %llu "
                     "reference and %llu model events set aside; every later extra counts\n",
                  (unsigned long long)o->warm_until, (unsigned long long)t->warmup_reference,
                  (unsigned long long)t->warmup_model);
        break;
    default:
        ct_writef(w, "cold start: %llu model events set aside as cold-start extras by the rule "
                     "(the model's first fill of a line or entry, or first read of a "
                     "descriptor, in a set where the reference has shown no event yet, and "
                     "what follows from it); --cold counts them, --warm-until TIME compares "
                     "from TIME instead\n",
                  (unsigned long long)t->cold_extra);
        break;
    }
}

int ct_validation_write_text(ct_writer *w, const ct_validation *v)
{
    const ct_validate_opts *o = ct_validation_opts(v);
    const ct_vcount t = ct_validation_total(v);
    const double ag = ct_validation_agreement(v);
    uint64_t unmapped = 0;

    ct_writef(w, "%-40s %-9s %-6s %9s %9s %9s %9s %9s %9s %9s %9s\n", "structure", "level", "op",
              "reference", "model", "agree", "line_id", "missing", "extra", "cold",
              "agreement");
    for (size_t i = 0; i < ct_validation_nstructures(v); i++) {
        const ct_vstructure *s = ct_validation_structure(v, i);
        int any = 0;
        for (int op = 1; op < CT_EVOP_COUNT; op++) {
            const ct_vcount *c = &s->op[op];
            if (!c->reference && !c->model && !c->warmup_reference && !c->warmup_model)
                continue;
            any = 1;
            if (!s->mapped) {
                unmapped += c->reference;
                ct_writef(w, "%-40.40s %-9s %-6s %9llu %9s %9s %9s %9s %9s %9s %9s\n", s->name,
                          "-", ct_event_op_name(op), (unsigned long long)c->reference, "-", "-",
                          "-", "-", "-", "-", "-");
                continue;
            }
            ct_writef(w, "%-40.40s %-9s %-6s %9llu %9llu %9llu %9llu %9llu %9llu %9llu %9.4f\n",
                      s->name, s->section, ct_event_op_name(op), (unsigned long long)c->reference,
                      (unsigned long long)c->model,
                      (unsigned long long)ct_vcount_agreeing(c, o->ignore_line_ids),
                      (unsigned long long)c->line_id_differ, (unsigned long long)c->missing,
                      (unsigned long long)c->extra, (unsigned long long)c->cold_extra,
                      ct_vcount_agreement(c, o->ignore_line_ids));
        }
        if (!any)
            ct_writef(w, "%-40.40s %-9s %-6s %9s\n", s->name, s->mapped ? s->section : "-", "-",
                      "none");
    }
    ct_writef(w, "\nagreement %.4f (min %.4f): %llu agree of %llu reference + %llu extra; "
                 "%llu paired with another LINE id, physical base or descriptor%s; "
                 "%llu missing; %llu extra\n",
              ag, o->min_agreement, (unsigned long long)ct_vcount_agreeing(&t, o->ignore_line_ids),
              (unsigned long long)t.reference, (unsigned long long)t.extra,
              (unsigned long long)t.line_id_differ,
              o->ignore_line_ids ? " (agreeing: --ignore-line-ids)" : "",
              (unsigned long long)t.missing, (unsigned long long)t.extra);
    cold_start_text(w, o, &t);
    if (unmapped)
        ct_writef(w, "%llu reference events of structures nothing in the model maps to "
                     "(level \"-\": set tarmac_name to compare a cache, TLB or walk cache, "
                     "tarmac_walk_name to compare a TLB's walks)\n",
                  (unsigned long long)unmapped);
    if (ct_validation_passed(v)) {
        ct_writef(w, "verdict: PASS (agreement %.4f reaches %.4f)\n", ag, o->min_agreement);
    } else {
        ct_writef(w, "verdict: FAIL (agreement %.4f below %.4f)", ag, o->min_agreement);
        if (ct_validation_ndivergences(v)) {
            ct_writef(w, "; first divergence: ");
            divergence_text(w, v, ct_validation_divergence(v, 0));
        }
        ct_writef(w, "\n");
    }
    if (ct_validation_ndivergences(v))
        ct_writef(w, "\ndivergences (first %zu, window %llu; other LINE ids first):\n",
                  ct_validation_ndivergences(v), (unsigned long long)o->window);
    for (size_t k = 0; k < ct_validation_ndivergences(v); k++) {
        const ct_divergence *d = ct_validation_divergence(v, k);
        ct_writef(w, "  ");
        divergence_text(w, v, d);
        ct_writef(w, "\n");
        for (size_t j = 0; j < d->ncontext; j++) {
            uint64_t ln = d->context_first + j;
            ct_writef(w, "    %s%7llu | %s\n", ln == d->src ? ">" : " ", (unsigned long long)ln,
                      d->context[j]);
        }
    }
    return w->failed ? CT_E_IO : CT_OK;
}

static void count_json(ct_writer *w, const ct_vcount *c, int ignore_line_ids)
{
    ct_writef(w, "{\"reference\": %llu, \"model\": %llu, \"matched\": %llu, \"missing\": %llu, "
                 "\"extra\": %llu, \"cold_start_extra\": %llu, \"line_id_agree\": %llu, "
                 "\"line_id_differ\": %llu, \"warmup_reference\": %llu, \"warmup_model\": %llu, "
                 "\"agreement\": %.6f}",
              (unsigned long long)c->reference, (unsigned long long)c->model,
              (unsigned long long)c->matched, (unsigned long long)c->missing,
              (unsigned long long)c->extra, (unsigned long long)c->cold_extra,
              (unsigned long long)c->line_id_agree, (unsigned long long)c->line_id_differ,
              (unsigned long long)c->warmup_reference, (unsigned long long)c->warmup_model,
              ct_vcount_agreement(c, ignore_line_ids));
}

int ct_validation_write_json(ct_writer *w, const ct_validation *v,
                             const char *const *traces, size_t ntraces, const char *config)
{
    const ct_validate_opts *o = ct_validation_opts(v);
    const ct_vcount t = ct_validation_total(v);
    char dt[48];

    ct_writef(w, "{\n  \"traces\": [");
    for (size_t i = 0; i < ntraces; i++) {
        ct_writef(w, "%s", i ? ", " : "");
        ct_write_json_string(w, traces[i]);
    }
    ct_writef(w, "],\n  \"config\": ");
    ct_write_json_string(w, config ? config : "");
    ct_writef(w, ",\n  \"window\": %llu,\n  \"structures\": [", (unsigned long long)o->window);
    for (size_t i = 0; i < ct_validation_nstructures(v); i++) {
        const ct_vstructure *s = ct_validation_structure(v, i);
        int first = 1;
        ct_writef(w, "%s\n    {\"name\": ", i ? "," : "");
        ct_write_json_string(w, s->name);
        ct_writef(w, ", \"level\": ");
        if (s->mapped) {
            ct_write_json_string(w, s->section);
            if (s->core >= 0)
                ct_writef(w, ", \"core\": %d", s->core);
            else
                ct_writef(w, ", \"core\": null");
        } else {
            ct_writef(w, "null, \"core\": null");
        }
        ct_writef(w, ", \"type\": \"%s\", \"ops\": {", ct_event_type_name(s->type));
        for (int op = 1; op < CT_EVOP_COUNT; op++) {
            const ct_vcount *c = &s->op[op];
            if (!c->reference && !c->model && !c->warmup_reference && !c->warmup_model)
                continue;
            ct_writef(w, "%s\"%s\": ", first ? "" : ", ", ct_event_op_name(op));
            count_json(w, c, o->ignore_line_ids);
            first = 0;
        }
        ct_writef(w, "}}");
    }
    ct_writef(w, "\n  ],\n  \"totals\": ");
    count_json(w, &t, o->ignore_line_ids);
    ct_writef(w, ",\n  \"agreement\": %.6f,\n  \"min_agreement\": %.6f,\n  \"passed\": %s,\n"
                 "  \"ignore_line_ids\": %s,\n  \"cold_start\": {\"allowance\": \"%s\", "
                 "\"warm_until\": ",
              ct_validation_agreement(v), o->min_agreement,
              ct_validation_passed(v) ? "true" : "false", o->ignore_line_ids ? "true" : "false",
              ct_cold_start_name(o->cold_start));
    if (o->cold_start == CT_COLD_WARM_UNTIL)
        ct_writef(w, "%llu", (unsigned long long)o->warm_until);
    else
        ct_writef(w, "null");
    ct_writef(w, ", \"reference_set_aside\": %llu, \"model_set_aside\": %llu},\n"
                 "  \"malformed\": %llu,\n  \"divergences\": [",
              (unsigned long long)t.warmup_reference,
              (unsigned long long)(t.warmup_model + t.cold_extra),
              (unsigned long long)ct_validation_trace_info(v)->malformed);
    for (size_t k = 0; k < ct_validation_ndivergences(v); k++) {
        const ct_divergence *d = ct_validation_divergence(v, k);
        ct_writef(w, "%s\n    {\"kind\": \"%s\", \"structure\": ", k ? "," : "",
                  ct_divergence_kind_name(d->kind));
        ct_write_json_string(w, ct_validation_structure(v, d->structure)->name);
        ct_writef(w, ", \"type\": \"%s\", \"op\": \"%s\", \"time\": %llu, \"address\": "
                     "\"0x%llx\", \"ns\": %s, \"size\": %llu, \"line\": ",
                  ct_event_type_name(d->type), ct_event_op_name(d->op),
                  (unsigned long long)d->time, (unsigned long long)d->addr,
                  d->ns ? "true" : "false", (unsigned long long)d->size);
        if (d->kind != CT_DIV_EXTRA)
            ct_writef(w, "\"%s\"", detail_text(d->type, d->ref_line, dt, sizeof dt));
        else
            ct_writef(w, "null");
        ct_writef(w, ", \"model_line\": ");
        if (d->kind != CT_DIV_MISSING)
            ct_writef(w, "\"%s\"", detail_text(d->type, d->model_line, dt, sizeof dt));
        else
            ct_writef(w, "null");
        ct_writef(w, ", \"source\": ");
        if (d->src && d->path) {
            ct_write_json_string(w, d->path);
            ct_writef(w, ", \"source_line\": %llu", (unsigned long long)d->src);
        } else {
            ct_writef(w, "null, \"source_line\": null");
        }
        ct_writef(w, ", \"context\": [");
        for (size_t j = 0; j < d->ncontext; j++) {
            ct_writef(w, "%s{\"line\": %llu, \"text\": ", j ? ", " : "",
                      (unsigned long long)(d->context_first + j));
            ct_write_json_string(w, d->context[j]);
            ct_writef(w, "}");
        }
        ct_writef(w, "]}");
    }
    ct_writef(w, "\n  ]\n}\n");
    return w->failed ? CT_E_IO : CT_OK;
}
