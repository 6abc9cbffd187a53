/*
 * opt_pass.c - the two passes of replacement = opt over a hierarchy: which
 * configurations the first pass records exactly, and handing the next uses
 * from the first-pass model to the second (rules at the top of
 * sim/policy/opt.c; the arrivals are counted in sim/hier.c where each
 * request looks a level up).
 */
#include "hier_internal.h"
#include "policy/opt.h"

static const char *origin(const struct ct_config *cfg)
{
    return cfg->path[0] ? cfg->path : "configuration";
}

int ct_opt_attach(ct_sim *s, const struct ct_config *cfg, ct_error *err)
{
    s->nopt = 0;
    for (size_t li = 0; li < s->nlv; li++) {
        ct_level *L = &s->lv[li];
        const char *why = NULL;
        if (L->c.pol != &ct_policy_opt)
            continue;
        if (cfg->compat == CT_COMPAT_DRCACHESIM)
            why = "drcachesim has no such policy (compat = drcachesim)";
        else if (L->pf)
            why = "the level's own prefetcher asks for lines by its hits, which the policy "
                  "changes: give it prefetcher = none (levels above may prefetch)";
        else if (L->cls)
            why = "miss classification needs a shadow cache with next uses of its own: "
                  "set [system] miss_classes = no";
        else if (L->nabove && (L->inclusion == CT_INCL_INCLUSIVE || L->incl_below))
            why = "an inclusive level at or below it would back-invalidate the levels above, "
                  "changing what reaches it: make the levels from it down non-inclusive or "
                  "exclusive";
        for (uint32_t i = 0; !why && i < L->nabove; i++)
            if (s->lv[L->above[i]].c.pol == &ct_policy_opt)
                why = "a level above it is opt too: what reaches this one depends on the "
                      "next uses of that one; use opt at one level of a path";
        if (why)
            return ct_error_set(err, CT_E_CONFIG, "%s: [%s] replacement = opt: %s",
                                origin(cfg), L->name, why);
        L->opt = L->c.pst;
        s->nopt++;
    }
    return CT_OK;
}

int ct_opt_ready(const ct_sim *s, ct_error *err)
{
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_opt *o = s->lv[li].opt;
        if (o && o->mode == CT_OPT_NONE)
            return ct_error_set(err, CT_E_USAGE,
                                "[%s] replacement = opt: next uses come from a first pass "
                                "over the same trace, which only `cachet run` makes (on "
                                "trace files and directories)",
                                s->lv[li].name);
    }
    return CT_OK;
}

int ct_opt_status(const ct_sim *s, ct_error *err)
{
    for (size_t li = 0; li < s->nlv; li++) {
        const ct_opt *o = s->lv[li].opt;
        if (o && o->failed)
            return ct_error_set(err, CT_E_IO, "[%s] replacement = opt: %s", s->lv[li].name,
                                o->msg);
    }
    return CT_OK;
}

size_t ct_sim_opt_levels(const ct_sim *s)
{
    return s->nopt;
}

int ct_sim_opt_record(ct_sim *first, const char *dir, ct_error *err)
{
    for (size_t li = 0; li < first->nlv; li++) {
        ct_opt *o = first->lv[li].opt;
        if (o && ct_opt_record(o, dir) != 0)
            return ct_error_set(err, CT_E_IO, "[%s] replacement = opt: %s",
                                first->lv[li].name, o->msg);
    }
    return CT_OK;
}

int ct_sim_opt_replay(ct_sim *s, ct_sim *first, const char *dir, ct_error *err)
{
    if (first->nlv != s->nlv || first->nopt != s->nopt)
        return ct_error_set(err, CT_E_USAGE,
                            "replacement = opt: the first pass ran another hierarchy");
    for (size_t li = 0; li < s->nlv; li++) {
        ct_opt *o = s->lv[li].opt, *f = first->lv[li].opt;
        if (!o)
            continue;
        if (!f)
            return ct_error_set(err, CT_E_USAGE,
                                "replacement = opt: the first pass ran another hierarchy");
        if (ct_opt_replay(o, f, dir) != 0)
            return ct_error_set(err, CT_E_IO, "[%s] replacement = opt: %s", s->lv[li].name,
                                o->msg);
    }
    return CT_OK;
}

int ct_sim_opt_check(const ct_sim *s, ct_error *err)
{
    int rc = ct_opt_status(s, err);

    for (size_t li = 0; rc == CT_OK && li < s->nlv; li++) {
        const ct_opt *o = s->lv[li].opt;
        if (o && o->mode == CT_OPT_REPLAY && ct_opt_position(o) != o->total)
            rc = ct_error_set(err, CT_E_INTERNAL,
                              "[%s] replacement = opt: the second pass saw %llu arrivals, "
                              "the first %llu: did the trace change between the passes?",
                              s->lv[li].name, (unsigned long long)ct_opt_position(o),
                              (unsigned long long)o->total);
    }
    return rc;
}
