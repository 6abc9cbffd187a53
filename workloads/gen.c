/*
 * gen.c - synthetic workloads, read like any trace: "gen:NAME[:key=value,...]".
 *
 *   gen:stream:n=1M,stride=8,size=8,footprint=64M,writes=0
 *       sequential (stride = size) or strided reads over a footprint,
 *       wrapping around; writes=P makes P percent of them stores
 *       (every (100/P)-th access, deterministic).
 *   gen:random:n=1M,footprint=1M,size=8,writes=25,seed=1
 *       uniformly random aligned accesses over the footprint (GSL mt19937).
 *   gen:chase:n=1M,footprint=1M,node=64,seed=1
 *       pointer chase: the nodes of the footprint visited along one random
 *       cycle (a seeded permutation), one 8-byte load per node, each
 *       marked dependent on the one before (CT_F_DEPENDENT: its address is
 *       the data that load read).
 *   gen:matmul:dim=64,tile=0,elem=8
 *       C = A x B on dim x dim matrices, i-j-k loops (tile=0) or blocked
 *       with tile x tile blocks: per inner step a load of A[i][k] and of
 *       B[k][j]; C[i][j] is loaded before and stored after its k loop.
 *
 * Every generator also fetches instructions: each data access is preceded
 * by one 4-byte fetch from a loop body of `body` instructions (default 8)
 * at 0x400000, unless ifetch=0. Arrays start at 0x10000000, 0x20000000 and
 * 0x30000000. Memory is bounded by the footprint (chase) or constant.
 */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "../frontends/frontend.h"
#include "../sim/config_internal.h"
#include "../sim/rng.h"

#define CODE_BASE 0x400000ull
#define ARRAY_A 0x10000000ull
#define ARRAY_B 0x20000000ull
#define ARRAY_C 0x30000000ull

enum gen_kind { G_STREAM, G_RANDOM, G_CHASE, G_MATMUL };

typedef struct gen {
    ct_stream *s;
    int kind;
    /* parameters */
    uint64_t n, stride, size, footprint, writes, seed, node, dim, tile, elem, body;
    int ifetch;
    /* progress */
    uint64_t done;        /* data accesses emitted */
    uint64_t pcidx;
    gsl_rng *rng;
    uint32_t *perm;       /* chase: next node of each node */
    uint64_t cur;         /* chase: current node */
    uint64_t i, j, k, ii, jj, kk, phase;
    int finished;
} gen;

static int gen_probe_path(const char *path)
{
    return strncmp(path, "gen:", 4) == 0 ? 100 : 0;
}

static int set_param(gen *g, const char *key, const char *val, ct_error *err, const char *spec)
{
    static const struct { const char *name; size_t off; } params[] = {
        {"n", offsetof(gen, n)},           {"stride", offsetof(gen, stride)},
        {"size", offsetof(gen, size)},     {"footprint", offsetof(gen, footprint)},
        {"writes", offsetof(gen, writes)}, {"seed", offsetof(gen, seed)},
        {"node", offsetof(gen, node)},     {"dim", offsetof(gen, dim)},
        {"tile", offsetof(gen, tile)},     {"elem", offsetof(gen, elem)},
        {"body", offsetof(gen, body)},
    };
    uint64_t v;

    if (strcmp(key, "ifetch") == 0) {
        if (strcmp(val, "0") && strcmp(val, "1"))
            return ct_error_set(err, CT_E_USAGE, "%s: ifetch must be 0 or 1", spec);
        g->ifetch = val[0] == '1';
        return CT_OK;
    }
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (strcmp(key, params[i].name) == 0) {
            if (ct_parse_size(val, &v) != 0)
                return ct_error_set(err, CT_E_USAGE, "%s: %s=%s is not a number", spec, key, val);
            *(uint64_t *)((char *)g + params[i].off) = v;
            return CT_OK;
        }
    return ct_error_set(err, CT_E_USAGE, "%s: unknown parameter \"%s\"", spec, key);
}

static int gen_open(void **st, ct_stream *s, ct_error *err)
{
    static const char *const names[] = {"stream", "random", "chase", "matmul"};
    gen *g = calloc(1, sizeof *g);
    char spec[512], *name, *params, *tok, *save = NULL;

    if (!g)
        return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
    g->s = s;
    g->kind = -1;
    g->n = 1000000;
    g->size = 8;
    g->stride = 0;
    g->footprint = 1 << 20;
    g->seed = s->cfg->seed;
    g->node = 64;
    g->dim = 64;
    g->elem = 8;
    g->body = 8;
    g->ifetch = 1;
    snprintf(spec, sizeof spec, "%s", s->path + 4);
    name = spec;
    params = strchr(spec, ':');
    if (params)
        *params++ = '\0';
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            g->kind = i;
    if (g->kind < 0) {
        free(g);
        return ct_error_set(err, CT_E_USAGE,
                            "%s: unknown generator \"%s\" (stream, random, chase, matmul)",
                            s->path, name);
    }
    for (tok = params ? strtok_r(params, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        int rc;
        if (!eq) {
            free(g);
            return ct_error_set(err, CT_E_USAGE, "%s: expected key=value, got \"%s\"", s->path, tok);
        }
        *eq = '\0';
        rc = set_param(g, tok, eq + 1, err, s->path);
        if (rc) {
            free(g);
            return rc;
        }
    }
    if (!g->stride)
        g->stride = g->size;
    if (!g->size || !g->footprint || g->footprint < g->size || g->writes > 100 || !g->body ||
        !g->node || g->node < 8 || !g->dim || !g->elem || (g->tile && g->dim % g->tile)) {
        free(g);
        return ct_error_set(err, CT_E_USAGE,
                            "%s: impossible parameters (size, footprint, node >= 8, body, dim, "
                            "elem must be positive, writes <= 100, tile must divide dim)",
                            s->path);
    }
    if (g->kind == G_RANDOM || g->kind == G_CHASE) {
        g->rng = ct_rng_new(g->seed);
        if (!g->rng) {
            free(g);
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
        }
    }
    if (g->kind == G_CHASE) {
        uint64_t nodes = g->footprint / g->node;
        uint32_t *order;
        if (nodes < 2 || nodes > (1u << 28)) {
            gsl_rng_free(g->rng);
            free(g);
            return ct_error_set(err, CT_E_USAGE, "%s: chase needs 2..2^28 nodes", s->path);
        }
        g->perm = malloc(nodes * sizeof *g->perm);
        order = malloc(nodes * sizeof *order);
        if (!g->perm || !order) {
            free(order);
            free(g->perm);
            gsl_rng_free(g->rng);
            free(g);
            return ct_error_set(err, CT_E_NOMEM, "%s: out of memory", s->path);
        }
        for (uint64_t i = 0; i < nodes; i++)
            order[i] = (uint32_t)i;
        for (uint64_t i = nodes - 1; i > 0; i--) { /* Fisher-Yates */
            uint64_t j = gsl_rng_uniform_int(g->rng, (unsigned long)(i + 1));
            uint32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (uint64_t i = 0; i < nodes; i++)
            g->perm[order[i]] = order[(i + 1) % nodes];
        g->cur = order[0];
        free(order);
    }
    if (g->kind == G_MATMUL)
        g->n = UINT64_MAX; /* ends with the loops */
    *st = g;
    return CT_OK;
}

static void gen_close(void *st)
{
    gen *g = st;
    if (!g)
        return;
    if (g->rng)
        gsl_rng_free(g->rng);
    free(g->perm);
    free(g);
}

/* A uniform draw in [0, n): GSL's own draw up to 2^32 values (mt19937's
 * range), two 32-bit draws and a rejection step beyond. */
static uint64_t uniform(gsl_rng *r, uint64_t n)
{
    uint64_t limit, x;
    if (n <= 0xffffffffull)
        return gsl_rng_uniform_int(r, (unsigned long)n);
    limit = UINT64_MAX - UINT64_MAX % n;
    do
        x = (uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r);
    while (x >= limit);
    return x % n;
}

static void emit(gen *g, ct_batch *b, int kind, uint64_t addr, uint32_t size)
{
    uint64_t pc = CODE_BASE + 4 * (g->pcidx++ % g->body);
    if (g->ifetch)
        b->acc[b->n++] = (ct_access){.vaddr = pc, .pc = pc, .size = 4, .kind = CT_IFETCH,
                                     .time = g->done};
    b->acc[b->n++] = (ct_access){.vaddr = addr, .pc = pc, .size = size, .kind = (uint8_t)kind,
                                 .time = g->done};
    g->done++;
}

/* One step of the matrix multiply; returns 0 when the loops are done. */
static int matmul_step(gen *g, ct_batch *b)
{
    const uint64_t n = g->dim, e = g->elem, t = g->tile ? g->tile : n;
    /* loops: ii, jj, kk over tiles; i, j inside; phase 0 = load C,
     * 1..2t = k steps (A then B), 2t+1 = store C */
    uint64_t kmax = g->tile ? t : n;
    uint64_t i = g->ii + g->i, j = g->jj + g->j, k = g->kk + g->k;

    if (g->finished)
        return 0;
    if (g->phase == 0) {
        emit(g, b, CT_LOAD, ARRAY_C + (i * n + j) * e, (uint32_t)e);
        g->phase = 1;
        return 1;
    }
    if (g->phase == 1) {
        emit(g, b, CT_LOAD, ARRAY_A + (i * n + k) * e, (uint32_t)e);
        g->phase = 2;
        return 1;
    }
    if (g->phase == 2) {
        emit(g, b, CT_LOAD, ARRAY_B + (k * n + j) * e, (uint32_t)e);
        if (++g->k < kmax)
            g->phase = 1;
        else
            g->phase = 3;
        return 1;
    }
    emit(g, b, CT_STORE, ARRAY_C + (i * n + j) * e, (uint32_t)e);
    g->phase = 0;
    g->k = 0;
    if (++g->j < t) return 1;
    g->j = 0;
    if (++g->i < t) return 1;
    g->i = 0;
    if (!g->tile) {
        g->finished = 1;
        return 1;
    }
    if ((g->kk += t) < n) return 1;
    g->kk = 0;
    if ((g->jj += t) < n) return 1;
    g->jj = 0;
    if ((g->ii += t) < n) return 1;
    g->finished = 1;
    return 1;
}

static int gen_next(void *st, ct_batch *b, ct_error *err)
{
    gen *g = st;
    (void)err;

    while (b->n + 2 <= b->cap) {
        if (g->kind == G_MATMUL) {
            if (!matmul_step(g, b))
                return 0;
            g->s->info->records++;
            continue;
        }
        if (g->done >= g->n)
            return 0;
        switch (g->kind) {
        case G_STREAM: {
            uint64_t off = (g->done * g->stride) % g->footprint;
            int st_ = g->writes && (g->done % (100 / g->writes)) == 0 && g->writes != 0;
            emit(g, b, st_ ? CT_STORE : CT_LOAD, ARRAY_A + off, (uint32_t)g->size);
            break;
        }
        case G_RANDOM: {
            uint64_t slots = g->footprint / g->size;
            uint64_t off = uniform(g->rng, slots) * g->size;
            int st_ = gsl_rng_uniform_int(g->rng, 100) < g->writes;
            emit(g, b, st_ ? CT_STORE : CT_LOAD, ARRAY_A + off, (uint32_t)g->size);
            break;
        }
        case G_CHASE:
            emit(g, b, CT_LOAD, ARRAY_A + g->cur * g->node, 8);
            b->acc[b->n - 1].flags |= CT_F_DEPENDENT;  /* its address is the load before's data */
            g->cur = g->perm[g->cur];
            break;
        }
        g->s->info->records++;
    }
    return 1;
}

const ct_format_ops ct_format_gen = {
    .name = "gen",
    .desc = "synthetic workloads: gen:stream|random|chase|matmul[:key=value,...]",
    .max_per_record = 2,
    .default_schedule = CT_SCHED_THREADS,
    .probe_path = gen_probe_path,
    .no_bytes = 1,
    .open = gen_open, .next = gen_next, .close = gen_close,
};
