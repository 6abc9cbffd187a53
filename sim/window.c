/*
 * window.c - which references of a run are simulated and counted: skip,
 * warm-up and a simulated count, as drcachesim's -skip_refs, -warmup_refs,
 * -warmup_fraction and -sim_refs (cache_simulator_t::process_memref).
 *
 * References
 *   A reference is an access of the stream (a fetch, a load, a store, a
 *   prefetch, a cache operation, a no-fetch instruction: every ct_access)
 *   or a thread exit (a CT_MK_THREAD_EXIT marker): what drcachesim counts
 *   as its non-marker records. Other side records are not references.
 *
 * The three phases, in stream order
 *   skip:    the first `skip` references are read and dropped: nothing of
 *            them is simulated or counted (their side records still reach
 *            the model, which uses only address-space ones).
 *   warm-up: the next references are simulated until the warm-up is done,
 *            then every statistic is reset (ct_sim_reset_stats); cache
 *            contents, and what compat = drcachesim remembers of lines that
 *            missed before (its compulsory misses), stay. The warm-up is
 *            done after the reference that makes either true, checked in
 *            this order after each one: every last level (a level with
 *            nothing below it) has had at least `warmup_fraction` of its
 *            lines filled (compat = drcachesim only: drcachesim's
 *            loaded-block count, rules in sim/drcachesim.c); `warmup`
 *            references have been simulated. Without either there is no
 *            warm-up phase. The level statistics at the reset are kept
 *            (ct_sim_level_warmup_stats: drcachesim's "Warmup hits" and
 *            "Warmup misses").
 *   sim:     `sim` references are simulated (all of them when `sim` is
 *            UINT64_MAX), counted from the first simulated one: the
 *            warm-up's references count too, except the one that ends it
 *            (drcachesim decrements -sim_refs for every reference but
 *            that one); every later one is dropped and
 *            ct_sim_window_done() turns 1, so that the caller can stop
 *            reading. When the warm-up takes more references than that,
 *            the count wraps as drcachesim's unsigned one does: the run
 *            goes on to the end of the stream.
 *   A stream that ends first simply ends: a warm-up that never finished
 *   resets nothing.
 *
 * Cost
 *   Without a window nothing here runs (ct_sim_run tests one pointer per
 *   batch). With one, a batch is cut at the phase boundaries and each part
 *   runs by the model's own batch path; while a warm-up by fraction is
 *   pending, parts are one reference long.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "window.h"

enum { PH_SKIP, PH_WARM, PH_SIM, PH_DONE };

struct ct_window_state {
    ct_window_stats st;
    uint64_t skip_left, warm_left, sim_left;
    double fraction;             /* warm-up until every last level is this full; 0: no */
    int phase;
    ct_level_stats *at_reset;    /* per level, the statistics at the reset */
    ct_batch part;               /* a part of a batch: its own side records */
};

static int next_phase(const struct ct_window_state *w, int from)
{
    if (from == PH_SKIP && w->skip_left)
        return PH_SKIP;
    if (from <= PH_WARM && (w->warm_left || w->fraction > 0) && !w->st.warmed)
        return PH_WARM;
    return w->sim_left ? PH_SIM : PH_DONE;
}

static int state_new(ct_sim *s, ct_error *err)
{
    struct ct_window_state *w;
    if (s->win)
        return CT_OK;
    w = calloc(1, sizeof *w);
    if (!w || !(w->at_reset = calloc(s->nlv ? s->nlv : 1, sizeof *w->at_reset))) {
        free(w);
        return ct_error_set(err, CT_E_NOMEM, "out of memory");
    }
    w->sim_left = UINT64_MAX;
    w->phase = PH_SIM;
    s->win = w;
    return CT_OK;
}

int ct_window_fraction(ct_sim *s, double fraction, ct_error *err)
{
    int rc;
    if (fraction <= 0)
        return CT_OK;
    if ((rc = state_new(s, err)) != CT_OK)
        return rc;
    s->win->fraction = fraction;
    s->win->phase = next_phase(s->win, PH_SKIP);
    return CT_OK;
}

int ct_sim_set_window(ct_sim *s, const ct_window *win, ct_error *err)
{
    struct ct_window_state *w;
    int rc;
    if (!win->skip && !win->warmup && win->sim == UINT64_MAX && !win->dropped)
        return CT_OK;
    if ((rc = state_new(s, err)) != CT_OK)
        return rc;
    w = s->win;
    w->skip_left = win->skip;
    w->warm_left = win->warmup;
    w->sim_left = win->sim;
    w->st.skipped = win->dropped;
    w->phase = next_phase(w, PH_SKIP);
    return CT_OK;
}

int ct_sim_window_done(const ct_sim *s)
{
    return s->win && s->win->phase == PH_DONE;
}

const ct_window_stats *ct_sim_window_stats(const ct_sim *s)
{
    return s->win ? &s->win->st : NULL;
}

const ct_level_stats *ct_sim_level_warmup_stats(const ct_sim *s, size_t i)
{
    return s->win && s->win->st.warmed && i < s->nlv ? &s->win->at_reset[i] : NULL;
}

void ct_window_free(struct ct_window_state *w)
{
    if (!w)
        return;
    free(w->at_reset);
    free(w->part.mk);
    free(w->part.ev);
    free(w);
}

/* The part of b from access a0 and side records m0, e0 up to access a1 and
 * marker m1 (events: those before access a1, or all that are left when
 * `last`), its indices made relative to a0. Runs it, or only hands over
 * its side records when `drop`. */
static int run_part(ct_sim *s, const ct_batch *b, uint32_t a0, uint32_t a1, uint32_t m0,
                    uint32_t m1, uint32_t *e, int last, int drop, ct_error *err)
{
    ct_batch *p = &s->win->part;
    uint32_t e1 = *e;

    while (e1 < b->nev && (last || b->ev[e1].index < a1))
        e1++;
    if (m1 - m0 > p->mkcap || e1 - *e > p->evcap) {
        uint32_t mk = b->mkcap > p->mkcap ? b->mkcap : p->mkcap;
        uint32_t ev = b->evcap > p->evcap ? b->evcap : p->evcap;
        ct_marker *nm = realloc(p->mk, (size_t)(mk ? mk : 1) * sizeof *nm);
        ct_event *ne;
        if (nm)
            p->mk = nm;
        ne = nm ? realloc(p->ev, (size_t)(ev ? ev : 1) * sizeof *ne) : NULL;
        if (!ne)
            return ct_error_set(err, CT_E_NOMEM, "out of memory");
        p->ev = ne;
        p->mkcap = mk;
        p->evcap = ev;
    }
    p->acc = b->acc + a0;
    p->n = drop ? 0 : a1 - a0;
    p->nmk = m1 - m0;
    p->nev = e1 - *e;
    for (uint32_t i = 0; i < p->nmk; i++) {
        p->mk[i] = b->mk[m0 + i];
        p->mk[i].index = drop || p->mk[i].index < a0 ? 0 : p->mk[i].index - a0;
    }
    for (uint32_t i = 0; i < p->nev; i++) {
        p->ev[i] = b->ev[*e + i];
        p->ev[i].index = drop || p->ev[i].index < a0 ? 0 : p->ev[i].index - a0;
    }
    *e = e1;
    return s->run(s, p, err);
}

/* The warm-up is over: keep the statistics, reset them. */
static void warmed(ct_sim *s)
{
    struct ct_window_state *w = s->win;
    for (size_t i = 0; i < s->nlv; i++)
        w->at_reset[i] = *ct_sim_level_stats(s, i);
    ct_sim_reset_stats(s);
    w->st.warmed = 1;
}

int ct_window_run(ct_sim *s, const ct_batch *b, ct_error *err)
{
    struct ct_window_state *w = s->win;
    uint32_t a = 0, m = 0, e = 0;

    while ((a < b->n || m < b->nmk || e < b->nev) && w->phase != PH_DONE) {
        uint64_t budget = w->phase == PH_SKIP   ? w->skip_left
                          : w->phase == PH_SIM  ? w->sim_left
                          : w->fraction > 0     ? 1
                                                : w->warm_left;
        uint32_t a1 = a, m1 = m;
        const uint64_t k = ct_batch_walk_refs(b, &a1, &m1, budget);
        int rc, end = k > 0;   /* the batch ends before the budget does */

        if (!end && a1 == b->n && k == 0) {
            /* side records after the last access that are not references
             * go with this part */
            uint32_t x = m1;
            while (x < b->nmk && b->mk[x].type != CT_MK_THREAD_EXIT)
                x++;
            if (x == b->nmk)
                m1 = b->nmk, end = 1;
        }
        rc = run_part(s, b, a, a1, m, m1, &e, end, w->phase == PH_SKIP, err);
        if (rc != CT_OK)
            return rc;
        a = a1;
        m = m1;
        switch (w->phase) {
        case PH_SKIP:
            w->skip_left -= budget - k;
            w->st.skipped += budget - k;
            break;
        case PH_WARM:
            w->st.warmup += budget - k;
            /* every warm-up reference counts against sim but the last
             * (unsigned: it may wrap) */
            w->sim_left -= budget - k;
            if (k == 0) {
                if (w->fraction > 0 && ct_dcs_loaded_fraction(s) >= w->fraction)
                    warmed(s);
                else if (w->warm_left && (w->warm_left -= budget) == 0)
                    warmed(s);
                if (w->st.warmed)
                    w->sim_left++;
            } else if (w->fraction <= 0) {
                w->warm_left = k;
            }
            break;
        default:
            w->sim_left -= budget - k;
            w->st.simulated += budget - k;
            break;
        }
        w->phase = next_phase(w, w->phase);
    }
    return CT_OK;
}

int ct_warmup_fraction_parse(const char *text, double *out, char *why, size_t whyn)
{
    char *end;
    double f;
    if (!text[0] || text[0] == '-' || text[0] == '+' ||
        (f = strtod(text, &end), *end) || !(f >= 0 && f <= 1)) {
        snprintf(why, whyn, "a fraction from 0 to 1 (as 0.5), not \"%s\"", text);
        return -1;
    }
    if (out)
        *out = f;
    return 0;
}

int ct_warmup_fraction_check(const char *text, char *why, size_t whyn)
{
    return ct_warmup_fraction_parse(text, NULL, why, whyn);
}
