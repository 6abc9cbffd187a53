/*
 * sweep.c - running the points of a sweep (sweep_file.c) on shared decodes.
 *
 * Rules
 *  - A pass is one decode of one trace feeding a set of points. Points
 *    whose decoding settings differ ([trace] keys, system.cores,
 *    system.seed) get separate passes. Within a pass the producer (the
 *    calling thread) fills a ring of batches; every worker reads every
 *    batch in order and runs its jobs on it; a batch is refilled once all
 *    workers are done with it.
 *  - A job is one point's hierarchy, or one part of a one-pass group (a
 *    subset of its set counts, see onepass.c). A one-pass group is a set
 *    of at least two points equal but for one level's size, associativity
 *    and latency, that level being suitable (ct_onepass_unsuitable); each
 *    point joins the suitable level that gives it the largest group.
 *    Sampled mode analyses every suitable point in one pass, even alone.
 *    Jobs go to workers longest first onto the least loaded worker.
 *  - A trace with cache maintenance operations ends every one-pass job at
 *    once; their points are simulated in a second pass over the trace.
 *  - A window (ct_sweep_opts.window: skip, warm-up, simulated count, rules
 *    in window.c) applies to every point of every trace, each simulated on
 *    its own (no one-pass). The trace is still read to its end.
 *  - Memory: the hierarchies of one pass are bounded. A decoding setting's
 *    points are taken in order into passes whose hierarchies total at most
 *    half the physical memory, or half the address-space limit
 *    (RLIMIT_AS) when that is less (ct_sim_bytes_estimate, an estimate
 *    from above; a pass holds one point at least); each pass decodes the
 *    trace again, and frees its hierarchies when done. Should building a
 *    pass's jobs still run out of memory, the pass is split in two and
 *    each half run in turn, down to one point.
 *  - Intervals: every `interval` trace accesses (counted over the decoded
 *    stream), each level's miss rate over the interval joins its running
 *    statistics when the level saw accesses in it; a last, partial
 *    interval does not count.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>

#include "cachet/cachet.h"
#include "cachet/sweep.h"
#include "config_internal.h"
#include "report_internal.h"
#include "sweep_internal.h"
#include "hier_internal.h"
#include <sys/resource.h>

#define RING_SLOTS 16
#define BATCH_CAP (1u << 14)

/* ---- interval statistics ------------------------------------------------------------ */

int ct_ivstat_init(ct_ivstat *v)
{
    memset(v, 0, sizeof *v);
    v->rs = gsl_rstat_alloc();
    return v->rs ? 0 : -1;
}

void ct_ivstat_free(ct_ivstat *v)
{
    if (v->rs)
        gsl_rstat_free(v->rs);
    v->rs = NULL;
}

void ct_ivstat_mark(ct_ivstat *v, uint64_t acc, uint64_t miss)
{
    uint64_t da = acc - v->acc, dm = miss - v->miss;
    if (da)
        gsl_rstat_add((double)dm / (double)da, v->rs);
    v->acc = acc;
    v->miss = miss;
}

void ct_ivstat_get(const ct_ivstat *v, ct_interval_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = gsl_rstat_n(v->rs);
    if (!out->n)
        return;
    out->mean = gsl_rstat_mean(v->rs);
    out->ci_lo = out->ci_hi = out->mean;
    if (out->n >= 2) {
        double t = gsl_cdf_tdist_Pinv(0.975, (double)(out->n - 1));
        out->sd = gsl_rstat_sd(v->rs);
        out->ci_lo = out->mean - t * out->sd / sqrt((double)out->n);
        out->ci_hi = out->mean + t * out->sd / sqrt((double)out->n);
    }
}

/* ---- power-law fit ------------------------------------------------------------------ */

int ct_powerlaw_fit(const double *x, const double *y, size_t n, ct_powerlaw *out,
                    ct_error *err)
{
    double *lx = malloc((n ? n : 1) * sizeof *lx), *ly = malloc((n ? n : 1) * sizeof *ly);
    double c0, c1, cov00, cov01, cov11, sumsq, tss;
    size_t m = 0;
    int rc = CT_OK;

    gsl_set_error_handler_off();
    memset(out, 0, sizeof *out);
    if (!lx || !ly) {
        free(lx);
        free(ly);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && y[i] > 0) {
            lx[m] = log(x[i]);
            ly[m] = log(y[i]);
            m++;
        }
    if (m < 3 || gsl_stats_variance(lx, 1, m) <= 0) {
        rc = ct_error_set(err, CT_E_USAGE, "power-law fit: fewer than 3 usable points");
        goto out;
    }
    if (gsl_fit_linear(lx, 1, ly, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != GSL_SUCCESS) {
        rc = ct_error_set(err, CT_E_USAGE, "power-law fit: the fit failed");
        goto out;
    }
    tss = gsl_stats_tss(ly, 1, m);
    out->a = exp(c0);
    out->b = c1;
    out->r2 = tss > 0 ? 1.0 - sumsq / tss : 1.0;
    out->n = m;
out:
    free(lx);
    free(ly);
    return rc;
}

/* ---- CSV ------------------------------------------------------------------------------ */

int ct_sweep_csv_header(ct_writer *w, const ct_sweep *sw)
{
    ct_writef(w, "point,");
    for (size_t j = 0; j < sw->nparams; j++)
        ct_csv_field(w, sw->param[j], 0);
    ct_csv_run_header(w);
    ct_writef(w, ",sample_rate,miss_rate_error,intervals,interval_miss_rate_mean,"
                 "interval_miss_rate_sd,interval_miss_rate_ci95_lo,"
                 "interval_miss_rate_ci95_hi\n");
    return w->failed;
}

int ct_sweep_csv_rows(ct_writer *w, const ct_sweep *sw, const ct_sweep_result *r,
                      const char *trace_path, uint64_t trace_bytes)
{
    ct_csv_prov p;

    p.config = sw->path;
    p.hash = ct_config_hash(sw->cfg[r->point]);
    p.traces = trace_path;
    p.bytes = trace_bytes;
    p.format = r->format ? r->format : "";
    ct_csv_prov_config(&p, sw->cfg[r->point]);
    for (size_t l = 0; l < r->nlevels; l++) {
        const ct_interval_stats *iv = &r->interval[l];
        ct_writef(w, "%zu,", r->point);
        for (size_t j = 0; j < sw->nparams; j++)
            ct_csv_field(w, ct_sweep_point_value(sw, r->point, j), 0);
        const int core = r->info[l].core;
        ct_csv_run_fields(w, &p, &r->info[l], &r->stats[l], r->totals,
                          core >= 0 && (size_t)core < r->ncores ? &r->cores[core] : NULL);
        ct_writef(w, ",%g,%.6f,%llu,%.6f,%.6f,%.6f,%.6f\n", r->sample_rate,
                  r->miss_rate_error[l], (unsigned long long)iv->n, iv->mean, iv->sd, iv->ci_lo,
                  iv->ci_hi);
    }
    return w->failed;
}

/* ---- the engine ----------------------------------------------------------------------- */

enum { JOB_SIM, JOB_ONEPASS };

typedef struct job {
    int type;
    double cost;
    uint64_t next_mark;
    int broken;               /* one-pass job hit a cache operation */
    /* JOB_SIM */
    size_t point;
    ct_sim *sim;
    ct_ivstat *iv;
    /* JOB_ONEPASS */
    ct_onepass *op;
    int sampled;              /* it samples (a sampled sweep, no 3C split) */
    size_t *points;           /* sweep point of each analysed point */
    size_t npoints;
} job;

typedef struct slot {
    ct_batch b;
    uint64_t first;           /* trace index of its first access */
    int has_cacheop;
    unsigned pending;         /* workers still reading it */
} slot;

typedef struct engine {
    slot ring[RING_SLOTS];
    uint64_t published;
    int ended;
    int abort;
    pthread_mutex_t mu;
    pthread_cond_t more, freed;
    uint64_t interval;
} engine;

typedef struct worker {
    pthread_t th;
    engine *e;
    job **jobs;
    size_t njobs;
    double load;
    int rc;
    ct_error err;
} worker;

static void job_mark(job *j)
{
    if (j->type == JOB_SIM) {
        for (size_t l = 0; l < ct_sim_nlevels(j->sim); l++) {
            ct_kind_stats t = ct_level_total(ct_sim_level_stats(j->sim, l));
            ct_ivstat_mark(&j->iv[l], t.accesses, t.misses);
        }
    } else {
        ct_onepass_interval(j->op);
    }
}

static int job_feed(job *j, const slot *s, uint64_t interval, ct_error *err)
{
    uint64_t pos = s->first;
    uint32_t off = 0;

    if (j->broken)
        return CT_OK;
    if (j->type == JOB_ONEPASS && s->has_cacheop) {
        j->broken = 1;
        return CT_OK;
    }
    while (off < s->b.n) {
        uint64_t take = s->b.n - off;
        ct_batch view;
        int rc;
        if (take > j->next_mark - pos)
            take = j->next_mark - pos;
        memset(&view, 0, sizeof view);
        view.acc = s->b.acc + off;
        view.n = view.cap = (uint32_t)take;
        rc = j->type == JOB_SIM ? ct_sim_run(j->sim, &view, err)
                                : ct_onepass_run(j->op, &view, err);
        if (rc)
            return rc;
        pos += take;
        off += (uint32_t)take;
        if (pos == j->next_mark) {
            job_mark(j);
            j->next_mark += interval;
        }
    }
    return CT_OK;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    engine *e = w->e;

    for (uint64_t seq = 0;; seq++) {
        slot *s;
        pthread_mutex_lock(&e->mu);
        while (e->published <= seq && !e->ended)
            pthread_cond_wait(&e->more, &e->mu);
        if (e->published <= seq) {
            pthread_mutex_unlock(&e->mu);
            break;
        }
        pthread_mutex_unlock(&e->mu);
        s = &e->ring[seq % RING_SLOTS];
        for (size_t i = 0; i < w->njobs && !w->rc; i++) {
            w->rc = job_feed(w->jobs[i], s, e->interval, &w->err);
            if (w->rc) {
                pthread_mutex_lock(&e->mu);
                e->abort = 1;
                pthread_mutex_unlock(&e->mu);
            }
        }
        pthread_mutex_lock(&e->mu);
        if (--s->pending == 0)
            pthread_cond_broadcast(&e->freed);
        pthread_mutex_unlock(&e->mu);
    }
    return NULL;
}

static void job_free(job *j)
{
    if (!j)
        return;
    if (j->sim) {
        for (size_t l = 0; j->iv && l < ct_sim_nlevels(j->sim); l++)
            ct_ivstat_free(&j->iv[l]);
        ct_sim_free(j->sim);
    }
    free(j->iv);
    ct_onepass_free(j->op);
    free(j->points);
    free(j);
}

static int job_new_sim(job **out, const ct_sweep *sw, size_t point, uint64_t interval,
                       const ct_window *window, ct_error *err)
{
    job *j = calloc(1, sizeof *j);
    int rc;

    *out = NULL;
    if (!j)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    j->type = JOB_SIM;
    j->point = point;
    j->next_mark = interval;
    if ((rc = ct_sim_create(&j->sim, sw->cfg[point], err)) != CT_OK ||
        (window && (rc = ct_sim_set_window(j->sim, window, err)) != CT_OK)) {
        job_free(j);
        return rc;
    }
    j->iv = calloc(ct_sim_nlevels(j->sim), sizeof *j->iv);
    if (!j->iv) {
        job_free(j);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    for (size_t l = 0; l < ct_sim_nlevels(j->sim); l++)
        if (ct_ivstat_init(&j->iv[l]) != 0) {
            job_free(j);
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        }
    j->cost = (double)ct_sim_nlevels(j->sim);
    *out = j;
    return CT_OK;
}

/* Hash of a configuration's keys, except some keys of one section. */
typedef struct skip_hash {
    uint64_t h;
    const char *section;
    const char *const *skip;
} skip_hash;

static int skip_visit(void *ctx, const char *section, const char *key, const char *value)
{
    skip_hash *sh = ctx;
    const char *parts[4] = {section, key, value, "\n"};
    if (sh->section && strcmp(section, sh->section) == 0)
        for (size_t i = 0; sh->skip[i]; i++)
            if (strcmp(key, sh->skip[i]) == 0)
                return 0;
    for (size_t p = 0; p < 4; p++) {
        for (const char *q = parts[p]; *q; q++)
            sh->h = (sh->h ^ (unsigned char)*q) * 0x100000001b3ull;
        sh->h = (sh->h ^ 0xff) * 0x100000001b3ull;
    }
    return 0;
}

static uint64_t group_key(const ct_config *c, const char *section)
{
    static const char *const skip[] = {"size", "assoc", "latency", "tarmac_name", NULL};
    skip_hash sh = {0xcbf29ce484222325ull, section, skip};
    ct_config_visit(c, skip_visit, &sh);
    for (const char *q = section; *q; q++)
        sh.h = (sh.h ^ (unsigned char)*q) * 0x100000001b3ull;
    return sh.h;
}

/* What decides how a trace decodes: [trace], cores and the seed. */
static uint64_t decode_key(const ct_config *c)
{
    char buf[64];
    skip_hash sh = {0xcbf29ce484222325ull, NULL, NULL};
    static const char *const tkeys[] = {"format", "lenient", "max_errors", "schedule",
                                        "interleave", "quantum"};
    for (size_t i = 0; i < sizeof tkeys / sizeof tkeys[0]; i++)
        skip_visit(&sh, "trace", tkeys[i], ct_config_get(c, "trace", tkeys[i], buf, sizeof buf));
    skip_visit(&sh, "system", "cores", ct_config_get(c, "system", "cores", buf, sizeof buf));
    skip_visit(&sh, "system", "seed", ct_config_get(c, "system", "seed", buf, sizeof buf));
    return sh.h;
}

static unsigned cores_available(void)
{
#ifdef _SC_NPROCESSORS_ONLN
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
#else
    return 1;
#endif
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const level_sections[] = {"l3", "l2", "l1d", "l1i"};

/* Why the points of pts[] not taken by one-pass groups are simulated one by
 * one, for the plan note: the first level whose geometry varies among them
 * and that one-pass cannot analyse, with the reason. Empty when there is
 * nothing to explain. */
static void why_simulated(const ct_sweep *sw, const size_t *pts, size_t n, const uint8_t *taken,
                          int allow_onepass, const ct_sweep_opts *o, char *why, size_t why_n)
{
    static const char *const geometry[] = {"size", "assoc", NULL};
    size_t nsim = 0, first = SIZE_MAX;

    why[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (!taken[i]) {
            nsim++;
            if (first == SIZE_MAX)
                first = i;
        }
    if (nsim == 0 || o->no_onepass)
        return;
    if (o->window) {
        snprintf(why, why_n, "%zu point%s simulated one by one because of the window "
                 "(skip, warm-up, count), which one-pass does not apply", nsim,
                 nsim == 1 ? "" : "s");
        return;
    }
    if (!allow_onepass) {
        snprintf(why, why_n, "%zu point%s simulated one by one because the trace has cache "
                 "maintenance operations, which one-pass cannot model", nsim,
                 nsim == 1 ? "" : "s");
        return;
    }
    for (int l = 3; l >= 0; l--) {   /* l1i, l1d, l2, l3 */
        const char *sec = level_sections[l], *reason;
        int varies = 0;
        for (size_t i = first + 1; i < n && !varies; i++) {
            if (taken[i])
                continue;
            for (size_t k = 0; geometry[k] && !varies; k++) {
                char a[64], b[64];
                const char *va = ct_config_get(sw->cfg[pts[first]], sec, geometry[k], a, 64);
                const char *vb = ct_config_get(sw->cfg[pts[i]], sec, geometry[k], b, 64);
                varies = va && vb && strcmp(va, vb) != 0;
            }
        }
        if (!varies || !(reason = ct_onepass_unsuitable(sw->cfg[pts[first]], sec)))
            continue;
        if (strcmp(reason, "a level below it depends on it") == 0)
            snprintf(why, why_n, "one-pass applies to the last level before memory; %zu "
                     "point%s simulated one by one because a level below depends on [%s]",
                     nsim, nsim == 1 ? "" : "s", sec);
        else
            snprintf(why, why_n, "%zu point%s simulated one by one because one-pass cannot "
                     "analyse [%s]: %s", nsim, nsim == 1 ? "" : "s", sec, reason);
        return;
    }
}

/* Each point's candidate levels for one-pass, with the key of the group it
 * would join (0: not a candidate), and its choice: the level whose group
 * is largest (-1: none; a group of one is worth it only sampled). */
static void choose_levels(const ct_sweep *sw, const size_t *pts, size_t n,
                          const ct_sweep_opts *o, int allow_onepass, uint64_t *key, int *choice)
{
    const int sampled = o->sample > 0 && o->sample < 1;

    for (size_t i = 0; i < n; i++) {
        const ct_config *c = sw->cfg[pts[i]];
        for (int l = 0; l < 4; l++) {
            key[i * 4 + l] = 0;
            if (!allow_onepass || o->no_onepass || o->window ||
                ct_onepass_unsuitable(c, level_sections[l]) != NULL)
                continue;
            key[i * 4 + l] = group_key(c, level_sections[l]) | 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        choice[i] = -1;
        for (int l = 0; l < 4; l++) {
            size_t cnt = 0;
            if (!key[i * 4 + l])
                continue;
            for (size_t j = 0; j < n; j++)
                if (key[j * 4 + l] == key[i * 4 + l])
                    cnt++;
            if (cnt > best) {
                best = cnt;
                choice[i] = l;
            }
        }
        if (best < 2 && !sampled)
            choice[i] = -1;
    }
}

/* One one-pass group: its points and their geometry at the level, and
 * the set counts among them with the most ways of each. */
typedef struct group {
    int level;             /* index into level_sections */
    size_t m;
    size_t *members;       /* points */
    ct_op_point *opp;      /* their sets, ways and latency */
    uint64_t setc[64];
    uint32_t maxw[64];
    size_t nsetc;
} group;

/* The untaken points from i on that chose level g->level with point i's
 * key join g (past 32 set counts a point stays to be simulated). */
static void gather_group(const ct_sweep *sw, const size_t *pts, size_t n, size_t i,
                         const uint64_t *key, const int *choice, uint8_t *taken, group *g)
{
    const int l = g->level;

    for (size_t j = i; j < n; j++)
        if (!taken[j] && choice[j] == l && key[j * 4 + l] == key[i * 4 + l]) {
            const ct_config *c = sw->cfg[pts[j]];
            char b1[64], b2[64], b3[64], b4[64];
            uint64_t size = strtoull(ct_config_get(c, level_sections[l], "size", b1, 64), 0, 10);
            uint64_t assoc = strtoull(ct_config_get(c, level_sections[l], "assoc", b2, 64), 0, 10);
            uint64_t line = strtoull(ct_config_get(c, level_sections[l], "line", b3, 64), 0, 10);
            uint64_t lat = strtoull(ct_config_get(c, level_sections[l], "latency", b4, 64), 0, 10);
            uint64_t sets = size / line / assoc;
            size_t s;
            for (s = 0; s < g->nsetc && g->setc[s] != sets; s++)
                ;
            if (s == g->nsetc) {
                if (g->nsetc == 32)
                    continue;  /* too many set counts for one group: simulate */
                g->maxw[g->nsetc] = 0;
                g->setc[g->nsetc++] = sets;
            }
            if (assoc > g->maxw[s])
                g->maxw[s] = (uint32_t)assoc;
            taken[j] = 1;
            g->members[g->m] = pts[j];
            g->opp[g->m].sets = sets;
            g->opp[g->m].ways = (uint32_t)assoc;
            g->opp[g->m].latency = (uint32_t)lat;
            g->m++;
        }
}

/* Deal the set counts of g round nparts parts, heaviest first (a stack
 * costs more the deeper it is; the fully-associative one about twice a
 * 64-deep one: instruction counts of onepass.c on random and real
 * traces): part_of[k] is set count k's part, load[q] part q's weight. */
static void deal_set_counts(const group *g, uint32_t nparts, int *part_of, double *load)
{
    for (size_t k = 0; k < g->nsetc; k++) {
        uint32_t best = 0;
        size_t s = 0;
        double w = -1;
        for (size_t x = 0; x < g->nsetc; x++) {  /* heaviest stack not placed */
            double wx = g->setc[x] == 1 ? 8.0 : 1.0 + log2((double)g->maxw[x] + 1) / 2;
            if (part_of[x] == 0 && wx > w) {
                w = wx;
                s = x;
            }
        }
        for (uint32_t q = 1; q < nparts; q++)
            if (load[q] < load[best])
                best = q;
        part_of[s] = (int)best + 1;
        load[best] += w;
    }
    for (size_t k = 0; k < g->nsetc; k++)
        part_of[k]--;
}

/* One one-pass job per part of g that has points, appended to jobs. */
static int group_jobs(const ct_sweep *sw, const group *g, uint32_t nparts, uint32_t helpers,
                      int group_sampled, const ct_sweep_opts *o, uint64_t interval, job **jobs,
                      size_t *nj, ct_error *err)
{
    double load[64] = {0};
    int *part_of = calloc(g->nsetc, sizeof *part_of);
    int rc = CT_OK;

    if (!part_of)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    deal_set_counts(g, nparts, part_of, load);
    for (uint32_t q = 0; q < nparts && rc == CT_OK; q++) {
        job *j = calloc(1, sizeof *j);
        ct_op_point *sub = calloc(g->m, sizeof *sub);
        size_t ns = 0;
        if (!j || !sub) {
            free(j);
            free(sub);
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            break;
        }
        j->type = JOB_ONEPASS;
        j->next_mark = interval;
        j->points = calloc(g->m, sizeof *j->points);
        if (!j->points) {
            free(sub);
            job_free(j);
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            break;
        }
        for (size_t k = 0; k < g->m; k++) {
            size_t s;
            for (s = 0; g->setc[s] != g->opp[k].sets; s++)
                ;
            if ((uint32_t)part_of[s] != q)
                continue;
            sub[ns] = g->opp[k];
            j->points[ns++] = g->members[k];
        }
        j->npoints = ns;
        if (ns == 0) {
            free(sub);
            job_free(j);
            continue;
        }
        j->sampled = group_sampled;
        rc = ct_onepass_create(&j->op, sw->cfg[j->points[0]], level_sections[g->level], sub, ns,
                               j->sampled ? o->sample : 1.0, o->sample_seed, helpers, err);
        free(sub);
        if (rc) {
            job_free(j);
            break;
        }
        j->cost = 1.0 + load[q];
        jobs[(*nj)++] = j;
    }
    free(part_of);
    return rc;
}

/* The note on a group: its level, points and set counts, and what was
 * sampled (jobs[first_job..nj) are its jobs). */
static void note_group(char *note, size_t note_n, const group *g, int sampled,
                       int group_sampled, job **jobs, size_t first_job, size_t nj)
{
    size_t used = strlen(note);

    snprintf(note + used, note_n - used, "%s%s LRU for [%s]: %zu points, %zu set counts",
             used ? "; " : "", group_sampled ? "sampled one-pass" : "one-pass",
             level_sections[g->level], g->m, g->nsetc);
    used = strlen(note);
    if (sampled && !group_sampled)
        snprintf(note + used, note_n - used, " (not sampled: the 3C split needs every request)");
    if (group_sampled) {
        size_t nsampled = 0;
        for (size_t k = first_job; k < nj; k++)
            nsampled += ct_onepass_sampled_points(jobs[k]->op);
        used = strlen(note);
        if (nsampled < g->m)
            snprintf(note + used, note_n - used,
                     ", %zu of the %zu points sampled (the others have too few sets "
                     "or lines for the rate: exact)",
                     nsampled, g->m);
    }
}

/* The one-pass group of point i (level choice[i]) and its jobs. */
static int plan_group(const ct_sweep *sw, const size_t *pts, size_t n, size_t i,
                      const uint64_t *key, const int *choice, uint8_t *taken,
                      const ct_sweep_opts *o, unsigned threads, uint64_t interval, job **jobs,
                      size_t *nj, size_t *n_onepass, size_t *n_groups, char *note,
                      size_t note_n, ct_error *err)
{
    const int sampled = o->sample > 0 && o->sample < 1;
    group g;
    uint32_t nparts, helpers;
    size_t first_job;
    int rc;

    memset(&g, 0, sizeof g);
    g.level = choice[i];
    g.members = calloc(n, sizeof *g.members);
    g.opp = calloc(n, sizeof *g.opp);
    if (!g.members || !g.opp) {
        free(g.members);
        free(g.opp);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    gather_group(sw, pts, n, i, key, choice, taken, &g);
    /* parts (when the pass has other jobs too): set counts dealt round the
     * threads */
    nparts = (uint32_t)(g.nsetc < threads ? g.nsetc : threads);
    if (sw->cfg[g.members[0]]->miss_classes || nparts == 0)
        nparts = 1;
    /* the 3C split is not sampled: its capacity misses need the exact
     * fully-associative depth of every request */
    const int group_sampled = sampled && !sw->cfg[g.members[0]]->miss_classes;
    /* a group that is the whole pass runs as one analysis whose own
     * threads share its stacks: the levels above and the table of
     * lines are then kept once, not once per part */
    helpers = 0;
    if (g.m == n && threads > 1 && g.nsetc > 1) {
        nparts = 1;
        helpers = threads - 1;
    }
    first_job = *nj;
    rc = group_jobs(sw, &g, nparts, helpers, group_sampled, o, interval, jobs, nj, err);
    if (rc == CT_OK) {
        note_group(note, note_n, &g, sampled, group_sampled, jobs, first_job, *nj);
        *n_onepass += g.m;
        (*n_groups)++;
    }
    free(g.members);
    free(g.opp);
    return rc;
}

/* Split the points of a pass into simulated points and one-pass jobs. */
static int plan_jobs(const ct_sweep *sw, const size_t *pts, size_t n, const ct_sweep_opts *o,
                     int allow_onepass, unsigned threads, uint64_t interval, job ***jobs_out,
                     size_t *njobs_out, size_t *n_onepass, size_t *n_groups, char *note,
                     size_t note_n, char *why, size_t why_n, ct_error *err)
{
    ct_window win = {0, 0, UINT64_MAX, 0};   /* each point's: the reader skips */
    if (o->window) {
        win = *o->window;
        win.dropped = win.skip;
        win.skip = 0;
    }
    uint64_t *key = calloc(n * 4 + 1, sizeof *key);
    int *choice = malloc((n + 1) * sizeof *choice);
    uint8_t *taken = calloc(n + 1, 1);
    job **jobs = calloc(n + 1, sizeof *jobs);
    size_t nj = 0;
    int rc = CT_OK;

    *n_onepass = *n_groups = 0;
    note[0] = '\0';
    why[0] = '\0';
    if (!key || !choice || !taken || !jobs) {
        rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
        goto out;
    }
    choose_levels(sw, pts, n, o, allow_onepass, key, choice);
    for (size_t i = 0; i < n; i++) {
        if (taken[i] || choice[i] < 0)
            continue;
        if ((rc = plan_group(sw, pts, n, i, key, choice, taken, o, threads, interval, jobs, &nj,
                             n_onepass, n_groups, note, note_n, err)) != CT_OK)
            goto out;
    }
    why_simulated(sw, pts, n, taken, allow_onepass, o, why, why_n);
    for (size_t i = 0; i < n; i++) {
        if (taken[i])
            continue;
        if ((rc = job_new_sim(&jobs[nj], sw, pts[i], interval, o->window ? &win : NULL,
                              err)) != CT_OK)
            goto out;
        nj++;
    }
out:
    free(key);
    free(choice);
    free(taken);
    if (rc) {
        for (size_t i = 0; i < nj; i++)
            job_free(jobs[i]);
        free(jobs);
        return rc;
    }
    *jobs_out = jobs;
    *njobs_out = nj;
    return CT_OK;
}

typedef struct pass_ctx {
    const ct_sweep *sw;
    const ct_sweep_opts *o;
    const char *trace;
    size_t trace_index, ntraces;
    size_t points_done, points_total;
    double t0;
    int planned;              /* the current pass built its jobs (run_points) */
} pass_ctx;

/* Deliver the results of finished jobs, in point order. */
static int deliver(pass_ctx *pc, job **jobs, size_t nj, const char *format, size_t *redo,
                   size_t *nredo, ct_error *err)
{
    size_t total = 0;
    int rc = CT_OK;
    typedef struct item { size_t point; job *j; size_t k; } item;
    item *items;

    for (size_t i = 0; i < nj; i++)
        total += jobs[i]->type == JOB_SIM ? 1 : jobs[i]->npoints;
    items = calloc(total + 1, sizeof *items);
    if (!items)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    total = 0;
    for (size_t i = 0; i < nj; i++) {
        if (jobs[i]->type == JOB_SIM) {
            items[total++] = (item){jobs[i]->point, jobs[i], 0};
            continue;
        }
        for (size_t k = 0; k < jobs[i]->npoints; k++) {
            if (jobs[i]->broken)
                redo[(*nredo)++] = jobs[i]->points[k];
            else
                items[total++] = (item){jobs[i]->points[k], jobs[i], k};
        }
    }
    /* point order (insertion sort: passes are small) */
    for (size_t i = 1; i < total; i++) {
        item t = items[i];
        size_t j = i;
        while (j > 0 && items[j - 1].point > t.point) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = t;
    }
    for (size_t i = 0; i < total && rc == CT_OK; i++) {
        job *j = items[i].j;
        size_t nl = j->type == JOB_SIM ? ct_sim_nlevels(j->sim) : ct_onepass_nlevels(j->op);
        ct_level_info *info = calloc(nl, sizeof *info);
        ct_level_stats *st = calloc(nl, sizeof *st);
        ct_interval_stats *iv = calloc(nl, sizeof *iv);
        double *re = calloc(nl, sizeof *re);
        ct_core_totals *cores = NULL;
        ct_sim_totals tot;
        ct_sweep_result r;

        if (!info || !st || !iv || !re) {
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
        } else {
            memset(&r, 0, sizeof r);
            if (j->type == JOB_SIM) {
                for (size_t l = 0; l < nl; l++) {
                    info[l] = *ct_sim_level_info(j->sim, l);
                    st[l] = *ct_sim_level_stats(j->sim, l);
                    ct_ivstat_get(&j->iv[l], &iv[l]);
                }
                tot = *ct_sim_get_totals(j->sim);
                for (r.ncores = 0; ct_sim_core_totals(j->sim, (uint32_t)r.ncores); r.ncores++)
                    ;
                cores = calloc(r.ncores, sizeof *cores);
                for (size_t c = 0; cores && c < r.ncores; c++)
                    cores[c] = *ct_sim_core_totals(j->sim, (uint32_t)c);
                r.method = CT_SWEEP_SIMULATED;
                r.sample_rate = 1.0;
            } else {
                ct_onepass_result(j->op, items[i].k, info, st, &tot, iv, re);
                /* a point the sample cannot cover is exact (onepass.c) */
                r.method = j->sampled && ct_onepass_point_sampled(j->op, items[i].k)
                               ? CT_SWEEP_SAMPLED
                               : CT_SWEEP_ONEPASS;
                r.sample_rate = r.method == CT_SWEEP_SAMPLED ? pc->o->sample : 1.0;
                /* one core (ct_onepass_unsuitable): its figures are the run's */
                r.ncores = 1;
                if ((cores = calloc(1, sizeof *cores)) != NULL) {
                    cores->instructions = tot.instructions;
                    cores->repeats = tot.repeats;
                    cores->cycles = tot.cycles;
                    memcpy(cores->accesses, tot.accesses, sizeof tot.accesses);
                    memcpy(cores->kind_cycles, tot.kind_cycles, sizeof tot.kind_cycles);
                }
            }
            r.cores = cores;
            if (!cores)
                rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            r.trace = pc->trace_index;
            r.point = items[i].point;
            r.nlevels = nl;
            r.info = info;
            r.stats = st;
            r.totals = &tot;
            r.interval = iv;
            r.miss_rate_error = re;
            r.format = format;
            if (rc == CT_OK && pc->o->result && pc->o->result(pc->o->result_ctx, &r) != 0)
                rc = ct_error_set(err, CT_E_IO, "the caller refused the results of point %zu "
                                  "on trace %zu (its result callback failed)", r.point, r.trace);
            pc->points_done++;
        }
        free(cores);
        free(info);
        free(st);
        free(iv);
        free(re);
    }
    free(items);
    return rc;
}

/* A progress report of the pass: pass_points 0 and every byte read once
 * the pass's points are done. */
static void report_progress(pass_ctx *pc, ct_trace *t, size_t pass_points, uint64_t accesses,
                            double t_pass, int done)
{
    double now = now_seconds();
    ct_sweep_progress p = {pc->trace_index, pc->ntraces, pc->points_done, pc->points_total,
                           pass_points, accesses, 0, 0, now - pc->t0, now - t_pass};

    ct_trace_get_progress(t, &p.bytes, &p.bytes_total);
    if (done)
        p.bytes = p.bytes_total;
    pc->o->progress(pc->o->progress_ctx, &p);
}

/* The workers of a pass, their jobs placed longest first onto the least
 * loaded. */
static int place_jobs(engine *e, job **jobs, size_t nj, worker *w, size_t nw, ct_error *err)
{
    uint8_t *placed = calloc(nj + 1, 1);

    if (!placed)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    for (size_t i = 0; i < nw; i++) {
        w[i].e = e;
        w[i].jobs = calloc(nj, sizeof *w[i].jobs);
        if (!w[i].jobs) {
            free(placed);
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        }
    }
    for (size_t k = 0; k < nj; k++) {
        size_t big = SIZE_MAX, least = 0;
        for (size_t i = 0; i < nj; i++)
            if (!placed[i] && (big == SIZE_MAX || jobs[i]->cost > jobs[big]->cost))
                big = i;
        for (size_t i = 1; i < nw; i++)
            if (w[i].load < w[least].load)
                least = i;
        placed[big] = 1;
        w[least].jobs[w[least].njobs++] = jobs[big];
        w[least].load += jobs[big]->cost;
    }
    free(placed);
    return CT_OK;
}

/* Decode the trace into the ring, each batch published to the nw workers
 * once they have all released its slot, until the end, an error, a stop
 * request or a worker's abort. *accesses counts the accesses read. */
static int publish_batches(pass_ctx *pc, engine *e, ct_trace *t, size_t nw, size_t n,
                           uint64_t *accesses, double t_pass, ct_error *err)
{
    const ct_sweep_opts *o = pc->o;
    uint64_t seq = 0;
    double last_progress = 0;

    for (;;) {
        slot *s = &e->ring[seq % RING_SLOTS];
        int got, stop = 0;
        pthread_mutex_lock(&e->mu);
        while (s->pending > 0 && !e->abort)
            pthread_cond_wait(&e->freed, &e->mu);
        stop = e->abort;
        pthread_mutex_unlock(&e->mu);
        if (stop)
            return CT_OK;
        got = ct_trace_next(t, &s->b, err);
        if (got <= 0)
            return got;
        s->first = *accesses;
        s->has_cacheop = 0;
        for (uint32_t i = 0; i < s->b.n; i++)
            if (s->b.acc[i].kind == CT_CACHEOP) {
                s->has_cacheop = 1;
                break;
            }
        *accesses += s->b.n;
        pthread_mutex_lock(&e->mu);
        s->pending = (unsigned)nw;
        e->published = ++seq;
        pthread_cond_broadcast(&e->more);
        pthread_mutex_unlock(&e->mu);
        if (o->stop && o->stop(o->stop_ctx))
            return ct_error_set(err, CT_E_INTERRUPTED, "interrupted");
        if (o->progress && (seq & 15) == 0 && now_seconds() - last_progress >= 0.5) {
            last_progress = now_seconds();
            report_progress(pc, t, n, *accesses, t_pass, 0);
        }
    }
}

/* After the workers: an interval that is not full does not count; then the
 * end rules of every job, and the results delivered. */
static int finish_jobs(pass_ctx *pc, job **jobs, size_t nj, ct_trace *t, size_t *redo,
                       size_t *nredo, ct_error *err)
{
    int rc = CT_OK;

    for (size_t i = 0; i < nj && rc == CT_OK; i++) {
        if (jobs[i]->broken)
            continue;
        if (jobs[i]->type == JOB_SIM)
            ct_sim_finish(jobs[i]->sim);
        else
            rc = ct_onepass_finish(jobs[i]->op, err);
    }
    if (rc == CT_OK)
        rc = deliver(pc, jobs, nj, ct_trace_get_info(t)->format, redo, nredo, err);
    return rc;
}

/* Stop the workers (all of them when rc says the pass failed) and take the
 * first worker's error when the pass had none. */
static int join_workers(pass_ctx *pc, engine *e, worker *w, size_t nw, int rc, ct_error *err)
{
    pthread_mutex_lock(&e->mu);
    e->ended = 1;
    if (rc)
        e->abort = 1;
    pthread_cond_broadcast(&e->more);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < nw; i++)
        pthread_join(w[i].th, NULL);
    for (size_t i = 0; i < nw && rc == CT_OK; i++)
        if (w[i].rc) {
            rc = w[i].rc;
            if (err)
                *err = w[i].err;
            ct_error_prefix(err, "%s", pc->trace);
        }
    return rc;
}

static void engine_free(engine *e)
{
    for (size_t i = 0; i < RING_SLOTS; i++)
        ct_batch_free(&e->ring[i].b);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->more);
    pthread_cond_destroy(&e->freed);
    free(e);
}

/* One decode of one trace for the points pts[0..n). */
static int run_pass(pass_ctx *pc, const size_t *pts, size_t n, int allow_onepass,
                    size_t *redo, size_t *nredo, ct_error *err)
{
    const ct_sweep *sw = pc->sw;
    const ct_sweep_opts *o = pc->o;
    unsigned threads = o->threads ? o->threads : cores_available();
    uint64_t interval = o->interval ? o->interval : 1000000;
    engine *e = calloc(1, sizeof *e);
    worker *w = NULL;
    job **jobs = NULL;
    size_t nj = 0, nw = 0, n_onepass = 0, n_groups = 0;
    ct_trace *t = NULL;
    ct_trace_opts to;
    const char *paths[1] = {pc->trace};
    char note[1024], why[512];
    uint64_t accesses = 0;
    double t_pass = now_seconds();
    int rc = CT_OK, started = 0;

    if (!e)
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    e->interval = interval;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->more, NULL);
    pthread_cond_init(&e->freed, NULL);
    for (size_t i = 0; i < RING_SLOTS; i++)
        if (ct_batch_init(&e->ring[i].b, BATCH_CAP) != CT_OK) {
            rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
            goto out;
        }
    memset(&to, 0, sizeof to);
    to.cfg = sw->cfg[pts[0]];
    if (o->window)   /* the skip happens in the reader, before scheduling (trace.c) */
        to.skip_refs = o->window->skip;
    to.format = o->format;
    if ((rc = ct_trace_open(&t, paths, 1, &to, err)) != CT_OK)
        goto out;
    if ((rc = plan_jobs(sw, pts, n, o, allow_onepass, threads, interval, &jobs, &nj, &n_onepass,
                        &n_groups, note, sizeof note, why, sizeof why, err)) != CT_OK)
        goto out;
    nw = threads < nj ? threads : nj;
    w = calloc(nw ? nw : 1, sizeof *w);
    if (!w) {
        rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
        goto out;
    }
    if ((rc = place_jobs(e, jobs, nj, w, nw, err)) != CT_OK)
        goto out;
    if (o->plan) {
        size_t used = nw;       /* and the one-pass analyses' own helpers */
        for (size_t k = 0; k < nj; k++)
            if (jobs[k]->type == JOB_ONEPASS)
                used += ct_onepass_threads(jobs[k]->op) - 1;
        ct_sweep_plan p = {pc->trace_index, n - n_onepass, n_onepass, n_groups, used, note, why};
        o->plan(o->plan_ctx, &p);
    }
    pc->planned = 1;
    for (size_t i = 0; i < nw; i++) {
        if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0) {
            rc = ct_error_set(err, CT_E_INTERNAL, "cannot start a worker thread");
            nw = i;
            break;
        }
    }
    started = 1;
    if (rc == CT_OK)
        rc = publish_batches(pc, e, t, nw, n, &accesses, t_pass, err);
out:
    if (started)
        rc = join_workers(pc, e, w, nw, rc, err);
    if (rc == CT_OK)
        rc = finish_jobs(pc, jobs, nj, t, redo, nredo, err);
    if (rc == CT_OK && o->progress)  /* the pass's points are done */
        report_progress(pc, t, 0, accesses, t_pass, 1);
    for (size_t i = 0; w && i < nw; i++)
        free(w[i].jobs);
    free(w);
    for (size_t i = 0; i < nj; i++)
        job_free(jobs[i]);
    free(jobs);
    ct_trace_close(t);
    engine_free(e);
    return rc;
}

/* Bytes of hierarchies one pass may hold (the rule at the top). */
static uint64_t pass_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : UINT64_MAX;
    struct rlimit rl;

    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (uint64_t)rl.rlim_cur / 2 < budget)
        budget = (uint64_t)rl.rlim_cur / 2;
    return budget;
}

/* Run the points pts[0..n) of one decoding setting: a one-pass-allowed
 * pass, then its redo pass; a pass whose jobs cannot be built for want of
 * memory is split in two (the rule at the top). scratch holds n entries. */
static int run_points(pass_ctx *pc, const size_t *pts, size_t n, size_t *scratch,
                      ct_error *err)
{
    size_t nredo = 0;
    int rc;

    pc->planned = 0;
    rc = run_pass(pc, pts, n, 1, scratch, &nredo, err);
    if (rc == CT_E_NOMEM && !pc->planned && n > 1) {
        memset(err, 0, sizeof *err);
        rc = run_points(pc, pts, n / 2, scratch, err);
        if (rc == CT_OK)
            rc = run_points(pc, pts + n / 2, n - n / 2, scratch, err);
        return rc;
    }
    if (rc == CT_OK && nredo > 0) {
        size_t *redo = malloc(nredo * sizeof *redo), nagain = 0;
        if (!redo)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        memcpy(redo, scratch, nredo * sizeof *redo);
        rc = run_pass(pc, redo, nredo, 0, scratch, &nagain, err);
        free(redo);
    }
    return rc;
}

int ct_sweep_run(ct_sweep *sw, const char *const *traces, size_t ntraces,
                 const ct_sweep_opts *o, ct_error *err)
{
    size_t *todo = calloc(sw->npoints + 1, sizeof *todo);
    size_t *grp = calloc(sw->npoints + 1, sizeof *grp);
    size_t *redo = calloc(sw->npoints + 1, sizeof *redo);
    uint64_t *dk = calloc(sw->npoints + 1, sizeof *dk);
    uint64_t *bytes = calloc(sw->npoints + 1, sizeof *bytes);
    const uint64_t budget = pass_budget();
    pass_ctx pc;
    int rc = CT_OK;

    gsl_set_error_handler_off();
    if (!todo || !grp || !redo || !dk || !bytes) {
        rc = ct_error_set(err, CT_E_NOMEM, "out of memory");
        goto out;
    }
    if (o->shard_n && o->shard_k >= o->shard_n) {
        rc = ct_error_set(err, CT_E_USAGE, "shard %u/%u: K must be below N", o->shard_k,
                          o->shard_n);
        goto out;
    }
    memset(&pc, 0, sizeof pc);
    pc.sw = sw;
    pc.o = o;
    pc.ntraces = ntraces;
    pc.t0 = now_seconds();
    /* every point this run may take is built here, before any worker starts */
    for (size_t i = 0; i < sw->npoints && rc == CT_OK; i++)
        if (!o->shard_n || i % o->shard_n == o->shard_k) {
            if (!sw->cfg[i])
                rc = ct_sweep_point_build(sw, i, err);
            if (rc == CT_OK) {
                dk[i] = decode_key(sw->cfg[i]);
                bytes[i] = ct_sim_bytes_estimate(sw->cfg[i]);
            }
        }
    if (rc)
        goto out;
    for (size_t t = 0; t < ntraces; t++)
        for (size_t i = 0; i < sw->npoints; i++)
            if (!o->shard_n || i % o->shard_n == o->shard_k)
                pc.points_total++;
    for (size_t t = 0; t < ntraces && rc == CT_OK; t++) {
        size_t ntodo = 0;
        pc.trace = traces[t];
        pc.trace_index = t;
        for (size_t i = 0; i < sw->npoints; i++) {
            if (o->shard_n && i % o->shard_n != o->shard_k)
                continue;
            if (o->done && o->done(o->done_ctx, t, i)) {
                pc.points_done++;
                continue;
            }
            todo[ntodo++] = i;
        }
        /* one pass per decoding setting */
        while (ntodo > 0 && rc == CT_OK) {
            size_t ng = 0, keep = 0;
            uint64_t k = dk[todo[0]];
            for (size_t i = 0; i < ntodo; i++) {
                if (dk[todo[i]] == k)
                    grp[ng++] = todo[i];
                else
                    todo[keep++] = todo[i];
            }
            ntodo = keep;
            /* passes of at most `budget` bytes of hierarchies, one point at least */
            for (size_t at = 0, m; at < ng && rc == CT_OK; at += m) {
                uint64_t held = bytes[grp[at]];
                for (m = 1; at + m < ng && held + bytes[grp[at + m]] <= budget; m++)
                    held += bytes[grp[at + m]];
                rc = run_points(&pc, grp + at, m, redo, err);
            }
        }
    }
out:
    free(todo);
    free(grp);
    free(redo);
    free(dk);
    free(bytes);
    return rc;
}
