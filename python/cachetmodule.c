/*
 * cachetmodule.c - the Python module `cachet`: the simulator of libcachet
 * for programs in Python (NumPy, pandas).
 *
 *   sim = cachet.Simulator(config=None, overrides={})
 *       config: an INI path (None: the built-in default hierarchy);
 *       overrides: {"l1d.size": "64K", ...}, checked together as `-s` is.
 *   sim.access(kind, addr, size=8)   one access; kind "load", "store",
 *                                    "ifetch", "prefetch", "atomic" or a
 *                                    cachet.LOAD-style number
 *   sim.feed(kinds, addrs, sizes)    many accesses from any objects with the
 *                                    buffer protocol (NumPy arrays: no copy);
 *                                    kinds and sizes may be one int for all
 *   sim.run(paths, format=None)      replay trace files as `cachet run` does
 *   sim.stats()                      the structure `cachet run --json` prints
 *   sim.finish()                     the end-of-trace rules (flush_at_end)
 *   sim.reset_stats()                zero the counters, keep the contents
 *   cachet.info(path, format=None)   decode a trace, count what it holds
 *   cachet.sweep(sweep_ini, paths, format=None)
 *                                    the rows of the sweep CSV as dicts
 *
 * Every failure raises cachet.Error (a ValueError) whose args[0] is
 * libcachet's message and whose attributes are `file`, `position` (the line,
 * "line:column" or byte offset, None when the message has none), `reason`
 * and `code` (the library's status code). The GIL is released while the
 * model runs, so simulators in several threads run in parallel.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cachet/cachet.h"

#define FEED_CHUNK 4096

static PyObject *cachet_error;   /* cachet.Error */

/* ---- errors -------------------------------------------------------------- */

/* Split "FILE:LINE:COL: reason", "FILE: byte N: reason", "FILE: [s] k:
 * reason" and plain "FILE: reason" into file, position and reason, and raise. */
static PyObject *raise_error(const ct_error *err)
{
    const char *m = err->msg, *sep = strstr(m, ": ");
    PyObject *exc, *file = Py_None, *pos = Py_None, *reason;
    char fbuf[CT_ERRMSG_MAX], pbuf[64] = "";

    if (!sep) {
        fbuf[0] = '\0';
        reason = PyUnicode_FromString(m);
    } else {
        size_t n = (size_t)(sep - m);
        const char *colon;
        memcpy(fbuf, m, n);
        fbuf[n] = '\0';
        /* FILE:LINE or FILE:LINE:COL */
        colon = strchr(fbuf, ':');
        while (colon && !isdigit((unsigned char)colon[1]))
            colon = strchr(colon + 1, ':');
        if (colon) {
            snprintf(pbuf, sizeof pbuf, "%s", colon + 1);
            fbuf[colon - fbuf] = '\0';
        }
        m = sep + 2;
        if (!pbuf[0] && (strncmp(m, "byte ", 5) == 0 || strncmp(m, "record ", 7) == 0 ||
                         strncmp(m, "line ", 5) == 0)) {
            const char *e = strstr(m, ": ");
            if (e) {
                size_t k = (size_t)(e - m) < sizeof pbuf - 1 ? (size_t)(e - m) : sizeof pbuf - 1;
                memcpy(pbuf, m, k);
                pbuf[k] = '\0';
                m = e + 2;
            }
        }
        reason = PyUnicode_FromString(m);
    }
    exc = PyObject_CallFunction(cachet_error, "s", err->msg);
    if (!exc || !reason) {
        Py_XDECREF(reason);
        Py_XDECREF(exc);
        return NULL;
    }
    file = fbuf[0] ? PyUnicode_FromString(fbuf) : Py_NewRef(Py_None);
    pos = pbuf[0] ? PyUnicode_FromString(pbuf) : Py_NewRef(Py_None);
    PyObject_SetAttrString(exc, "file", file);
    PyObject_SetAttrString(exc, "position", pos);
    PyObject_SetAttrString(exc, "reason", reason);
    {
        PyObject *code = PyLong_FromLong(err->code);
        PyObject_SetAttrString(exc, "code", code);
        Py_XDECREF(code);
    }
    Py_XDECREF(file);
    Py_XDECREF(pos);
    Py_DECREF(reason);
    PyErr_SetObject(cachet_error, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ---- a writer into a growing buffer -------------------------------------- */

typedef struct membuf {
    char *p;
    size_t n, cap;
} membuf;

static int membuf_write(void *ctx, const char *data, size_t len)
{
    membuf *m = ctx;
    if (m->n + len + 1 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        char *p;
        while (cap < m->n + len + 1)
            cap *= 2;
        if (!(p = realloc(m->p, cap)))
            return -1;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    m->p[m->n] = '\0';
    return 0;
}

/* Parse text with module.function (json.loads, ...). */
static PyObject *call_py(const char *module, const char *fn, PyObject *arg)
{
    PyObject *mod = PyImport_ImportModule(module), *res = NULL;
    if (mod) {
        res = PyObject_CallMethod(mod, fn, "O", arg);
        Py_DECREF(mod);
    }
    return res;
}

/* ---- paths ---------------------------------------------------------------- */

/* A str, bytes or os.PathLike, or a list of them, as C strings (in *keep). */
static int paths_of(PyObject *obj, PyObject **keep, const char ***out, size_t *n)
{
    PyObject *seq;
    Py_ssize_t k;

    *keep = NULL;
    *out = NULL;
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyObject_HasAttrString(obj, "__fspath__"))
        seq = PyTuple_Pack(1, obj);
    else
        seq = PySequence_Tuple(obj);
    if (!seq)
        return -1;
    k = PyTuple_GET_SIZE(seq);
    if (k == 0) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "no trace paths given");
        return -1;
    }
    *keep = PyList_New(0);
    *out = calloc((size_t)k, sizeof **out);
    if (!*keep || !*out) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PyTuple_GET_ITEM(seq, i), &b)) {
            Py_DECREF(seq);
            return -1;
        }
        PyList_Append(*keep, b);
        (*out)[i] = PyBytes_AS_STRING(b);
        Py_DECREF(b);
    }
    *n = (size_t)k;
    Py_DECREF(seq);
    return 0;
}

static void paths_free(PyObject *keep, const char **paths)
{
    Py_XDECREF(keep);
    free((void *)paths);
}

/* ---- the Simulator type --------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    ct_config *cfg;
    ct_sim *sim;
    ct_batch batch;
    PyObject *config_path;   /* str or None */
    PyObject *traces;        /* list of the paths run so far */
    char format[64];         /* the last trace's format */
} Simulator;

static void sim_dealloc(Simulator *self)
{
    ct_sim_free(self->sim);
    ct_config_free(self->cfg);
    ct_batch_free(&self->batch);
    Py_XDECREF(self->config_path);
    Py_XDECREF(self->traces);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int sim_init(Simulator *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"config", "overrides", NULL};
    PyObject *config = Py_None, *overrides = NULL, *pathb = NULL;
    ct_error err = {0};
    int rc;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:Simulator", names, &config, &overrides))
        return -1;
    if (self->sim) {
        PyErr_SetString(PyExc_RuntimeError, "Simulator already initialised");
        return -1;
    }
    if (config == Py_None) {
        rc = ct_config_new_default(&self->cfg, &err);
    } else {
        if (!PyUnicode_FSConverter(config, &pathb))
            return -1;
        Py_BEGIN_ALLOW_THREADS
        rc = ct_config_load(&self->cfg, PyBytes_AS_STRING(pathb), &err);
        Py_END_ALLOW_THREADS
    }
    if (rc != CT_OK) {
        Py_XDECREF(pathb);
        raise_error(&err);
        return -1;
    }
    if (overrides && overrides != Py_None) {
        PyObject *items = PyMapping_Items(overrides), *keep = PyList_New(0);
        const char **sets = NULL;
        Py_ssize_t n;
        if (!items || !keep) {
            Py_XDECREF(items);
            Py_XDECREF(keep);
            Py_XDECREF(pathb);
            return -1;
        }
        n = PyList_GET_SIZE(items);
        sets = calloc((size_t)n + 1, sizeof *sets);
        for (Py_ssize_t i = 0; sets && i < n; i++) {
            PyObject *kv = PyList_GET_ITEM(items, i);
            PyObject *k = PyObject_Str(PyTuple_GET_ITEM(kv, 0));
            PyObject *v = PyTuple_GET_ITEM(kv, 1);
            PyObject *vs = PyBool_Check(v) ? PyUnicode_FromString(v == Py_True ? "yes" : "no")
                                           : PyObject_Str(v);
            PyObject *a = k && vs ? PyUnicode_FromFormat("%U=%U", k, vs) : NULL;
            Py_XDECREF(k);
            Py_XDECREF(vs);
            if (!a) {
                free(sets);
                Py_DECREF(items);
                Py_DECREF(keep);
                Py_XDECREF(pathb);
                return -1;
            }
            PyList_Append(keep, a);
            Py_DECREF(a);
            sets[i] = PyUnicode_AsUTF8(a);
        }
        rc = sets ? ct_config_set_list(self->cfg, "", sets, (size_t)n, &err) : CT_E_NOMEM;
        free(sets);
        Py_DECREF(items);
        Py_DECREF(keep);
        if (rc != CT_OK) {
            Py_XDECREF(pathb);
            if (rc == CT_E_NOMEM)
                PyErr_NoMemory();
            else
                raise_error(&err);
            return -1;
        }
    }
    if ((rc = ct_config_check(self->cfg, &err)) != CT_OK ||
        (rc = ct_sim_create(&self->sim, self->cfg, &err)) != CT_OK ||
        (rc = ct_batch_init(&self->batch, FEED_CHUNK)) != CT_OK) {
        Py_XDECREF(pathb);
        if (rc == CT_E_NOMEM && !err.msg[0])
            PyErr_NoMemory();
        else
            raise_error(&err);
        return -1;
    }
    self->config_path = pathb ? PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(pathb))
                              : Py_NewRef(Py_None);
    Py_XDECREF(pathb);
    self->traces = PyList_New(0);
    return self->config_path && self->traces ? 0 : -1;
}

static int ready(Simulator *self)
{
    if (!self->sim) {
        PyErr_SetString(PyExc_RuntimeError, "Simulator not initialised");
        return 0;
    }
    return 1;
}

/* "load" -> CT_LOAD; numbers pass through. -1 with an exception. */
static int kind_of(PyObject *k)
{
    static const struct { const char *name; int kind; } names[] = {
        {"ifetch", CT_IFETCH}, {"fetch", CT_IFETCH}, {"load", CT_LOAD}, {"read", CT_LOAD},
        {"store", CT_STORE}, {"write", CT_STORE}, {"prefetch", CT_PREFETCH},
        {"atomic", CT_ATOMIC}, {"nofetch", CT_NOFETCH},
        {"misc", CT_MISC},
    };
    if (PyLong_Check(k)) {
        long v = PyLong_AsLong(k);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < 0 || v >= CT_KIND_STREAM || v == CT_CACHEOP) {
            PyErr_Format(PyExc_ValueError, "access kind %ld: not one of cachet.IFETCH, LOAD, "
                         "STORE, PREFETCH, ATOMIC, NOFETCH, MISC", v);
            return -1;
        }
        return (int)v;
    }
    if (PyUnicode_Check(k)) {
        const char *s = PyUnicode_AsUTF8(k);
        for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
            if (strcmp(s, names[i].name) == 0)
                return names[i].kind;
        PyErr_Format(PyExc_ValueError,
                     "access kind %R: not one of 'load', 'store', 'ifetch', 'prefetch', "
                     "'atomic', 'nofetch'", k);
        return -1;
    }
    PyErr_Format(PyExc_TypeError, "access kind must be a str or an int, not %s",
                 Py_TYPE(k)->tp_name);
    return -1;
}

static PyObject *sim_access(Simulator *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"kind", "addr", "size", "pc", "core", NULL};
    PyObject *k;
    unsigned long long addr, pc = 0;
    unsigned int size = 8, core = 0;
    ct_error err = {0};
    int kind;

    if (!ready(self) ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OK|IKI:access", names, &k, &addr, &size, &pc,
                                     &core))
        return NULL;
    if ((kind = kind_of(k)) < 0)
        return NULL;
    if (ct_sim_feed_at(self->sim, kind, addr, size, pc, core, &err) != CT_OK)
        return raise_error(&err);
    Py_RETURN_NONE;
}

/* One argument of feed: a buffer of integers, or one int for every access. */
typedef struct column {
    Py_buffer view;
    int have_view;
    char type;           /* struct format code: b B h H i I l L q Q */
    uint64_t constant;
    Py_ssize_t n;        /* -1: a constant */
} column;

static int column_open(column *c, PyObject *obj, const char *what)
{
    memset(c, 0, sizeof *c);
    if (PyLong_Check(obj)) {
        c->constant = PyLong_AsUnsignedLongLongMask(obj);
        c->n = -1;
        return PyErr_Occurred() ? -1 : 0;
    }
    if (PyObject_GetBuffer(obj, &c->view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Format(PyExc_TypeError, "feed: %s must be an int or support the buffer protocol "
                     "(a NumPy array, array.array, bytes), not %s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    c->have_view = 1;
    {
        const char *f = c->view.format ? c->view.format : "B";
        if (*f == '@' || *f == '=' || *f == '<')
            f++;
        c->type = *f;
        if (!strchr("bBhHiIlLqQ", c->type) || f[1] != '\0' || c->view.ndim > 1) {
            PyErr_Format(PyExc_TypeError, "feed: %s must be a one-dimensional array of "
                         "integers, not format '%s'", what, c->view.format);
            return -1;
        }
    }
    c->n = c->view.len / c->view.itemsize;
    return 0;
}

static void column_close(column *c)
{
    if (c->have_view)
        PyBuffer_Release(&c->view);
}

static inline uint64_t column_at(const column *c, Py_ssize_t i)
{
    const char *p = c->view.buf;
    switch (c->type) {
    case 'b': return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case 'B': return ((const uint8_t *)p)[i];
    case 'h': return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case 'H': return ((const uint16_t *)p)[i];
    case 'i': return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case 'I': return ((const uint32_t *)p)[i];
    case 'l': case 'q': return (uint64_t)((const int64_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

/* Copy accesses [from, from + n) of the columns into the batch: one tight
 * loop per column, specialised for the common types. */
static void fill(ct_access *acc, const column *c, Py_ssize_t from, uint32_t n, int which)
{
#define FILL(expr)                                                                            \
    do {                                                                                      \
        if (which == 0)                                                                       \
            for (uint32_t j = 0; j < n; j++) acc[j].kind = (uint8_t)(expr);                   \
        else if (which == 1)                                                                  \
            for (uint32_t j = 0; j < n; j++) acc[j].vaddr = (uint64_t)(expr);                 \
        else                                                                                  \
            for (uint32_t j = 0; j < n; j++) acc[j].size = (uint32_t)(expr);                  \
    } while (0)
    if (c->n < 0) {
        const uint64_t v = c->constant;
        FILL(v);
    } else if (c->type == 'B' || c->type == 'b') {
        const uint8_t *p = (const uint8_t *)c->view.buf + from;
        FILL(p[j]);
    } else if (c->type == 'q' || c->type == 'Q' || c->type == 'l' || c->type == 'L') {
        const uint64_t *p = (const uint64_t *)c->view.buf + from;
        FILL(p[j]);
    } else if (c->type == 'i' || c->type == 'I') {
        const uint32_t *p = (const uint32_t *)c->view.buf + from;
        FILL(p[j]);
    } else {
        FILL(column_at(c, from + (Py_ssize_t)j));
    }
#undef FILL
}

static PyObject *sim_feed(Simulator *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"kinds", "addrs", "sizes", NULL};
    PyObject *ko, *ao, *so = NULL;
    column kc, ac, sc;
    Py_ssize_t n, bad = -1;
    int rc = CT_OK;
    ct_error err = {0};

    if (!ready(self) ||
        !PyArg_ParseTupleAndKeywords(args, kw, "OO|O:feed", names, &ko, &ao, &so))
        return NULL;
    memset(&kc, 0, sizeof kc);
    memset(&sc, 0, sizeof sc);
    if (column_open(&ac, ao, "addrs") != 0)
        goto fail;
    if (PyUnicode_Check(ko)) {
        int k = kind_of(ko);
        if (k < 0)
            goto fail;
        kc.n = -1;
        kc.constant = (uint64_t)k;
    } else if (column_open(&kc, ko, "kinds") != 0) {
        goto fail;
    }
    if (!so) {
        sc.n = -1;
        sc.constant = 8;
    } else if (column_open(&sc, so, "sizes") != 0) {
        goto fail;
    }
    n = ac.n < 0 ? 1 : ac.n;
    if ((kc.n >= 0 && kc.n != n) || (sc.n >= 0 && sc.n != n) || ac.n < 0) {
        PyErr_Format(PyExc_ValueError, "feed: kinds, addrs and sizes must have the same "
                     "length (%zd, %zd, %zd)", kc.n, ac.n, sc.n);
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n && rc == CT_OK;) {
        uint32_t m = (uint32_t)(n - i < FEED_CHUNK ? n - i : FEED_CHUNK);
        ct_access *acc = self->batch.acc;
        ct_batch_clear(&self->batch);
        memset(acc, 0, m * sizeof *acc);
        fill(acc, &kc, i, m, 0);
        fill(acc, &ac, i, m, 1);
        fill(acc, &sc, i, m, 2);
        for (uint32_t j = 0; j < m; j++) {
            if (acc[j].kind >= CT_KIND_STREAM || acc[j].kind == CT_CACHEOP) {
                bad = i + j;
                m = j;
                break;
            }
            acc[j].flags = CT_F_NOPC;
        }
        self->batch.n = m;
        rc = ct_sim_run(self->sim, &self->batch, &err);
        i += m;
        if (bad >= 0)
            break;
    }
    Py_END_ALLOW_THREADS
    column_close(&kc);
    column_close(&ac);
    column_close(&sc);
    if (rc != CT_OK)
        return raise_error(&err);
    if (bad >= 0)
        return PyErr_Format(PyExc_ValueError, "feed: access %zd: kind %u is not one of "
                            "cachet.IFETCH, LOAD, STORE, PREFETCH, ATOMIC, NOFETCH, MISC (the "
                            "accesses before it were simulated)", bad,
                            (unsigned)column_at(&kc, bad));
    return PyLong_FromSsize_t(n);
fail:
    column_close(&kc);
    column_close(&ac);
    column_close(&sc);
    return NULL;
}

static PyObject *sim_run(Simulator *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"paths", "format", NULL};
    PyObject *po, *keep = NULL;
    const char *format = NULL, **paths = NULL;
    size_t np = 0;
    ct_trace_opts o = {0};
    ct_trace *t = NULL;
    ct_error err = {0};
    int rc;
    uint64_t total = 0;

    if (!ready(self) ||
        !PyArg_ParseTupleAndKeywords(args, kw, "O|z:run", names, &po, &format))
        return NULL;
    if (paths_of(po, &keep, &paths, &np) != 0) {
        paths_free(keep, paths);
        return NULL;
    }
    o.format = format;
    o.cfg = self->cfg;
    Py_BEGIN_ALLOW_THREADS
    rc = ct_trace_open(&t, paths, np, &o, &err);
    while (rc >= 0 && (rc = ct_trace_next(t, &self->batch, &err)) > 0) {
        total += self->batch.n;
        if (ct_sim_run(self->sim, &self->batch, &err) != CT_OK) {
            rc = err.code;
            break;
        }
    }
    if (rc == 0)
        ct_sim_finish(self->sim);
    Py_END_ALLOW_THREADS
    if (t)
        snprintf(self->format, sizeof self->format, "%s", ct_trace_get_info(t)->format);
    ct_trace_close(t);
    ct_batch_clear(&self->batch);
    if (rc < 0) {
        paths_free(keep, paths);
        return raise_error(&err);
    }
    for (size_t i = 0; i < np; i++) {
        PyObject *s = PyUnicode_DecodeFSDefault(paths[i]);
        if (s) {
            PyList_Append(self->traces, s);
            Py_DECREF(s);
        }
    }
    paths_free(keep, paths);
    return PyLong_FromUnsignedLongLong(total);
}

static PyObject *sim_stats(Simulator *self, PyObject *unused)
{
    membuf m = {0};
    ct_writer w = {membuf_write, &m, 0};
    ct_run_meta meta = {0};
    const char **traces = NULL;
    Py_ssize_t nt;
    PyObject *text, *res;
    (void)unused;

    if (!ready(self))
        return NULL;
    nt = PyList_GET_SIZE(self->traces);
    traces = calloc((size_t)nt + 1, sizeof *traces);
    if (!traces)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < nt; i++)
        traces[i] = PyUnicode_AsUTF8(PyList_GET_ITEM(self->traces, i));
    meta.config_path = self->config_path == Py_None ? "" : PyUnicode_AsUTF8(self->config_path);
    meta.traces = traces;
    meta.ntraces = (size_t)nt;
    meta.format = self->format[0] ? self->format : "";
    ct_report_json(&w, self->sim, self->cfg, &meta);
    free(traces);
    if (w.failed || !m.p) {
        free(m.p);
        return PyErr_NoMemory();
    }
    text = PyUnicode_FromStringAndSize(m.p, (Py_ssize_t)m.n);
    free(m.p);
    if (!text)
        return NULL;
    res = call_py("json", "loads", text);
    Py_DECREF(text);
    return res;
}

static PyObject *sim_finish(Simulator *self, PyObject *unused)
{
    (void)unused;
    if (!ready(self))
        return NULL;
    ct_sim_finish(self->sim);
    Py_RETURN_NONE;
}

static PyObject *sim_reset_stats(Simulator *self, PyObject *unused)
{
    (void)unused;
    if (!ready(self))
        return NULL;
    ct_sim_reset_stats(self->sim);
    Py_RETURN_NONE;
}

static PyMethodDef sim_methods[] = {
    {"access", (PyCFunction)(void (*)(void))sim_access, METH_VARARGS | METH_KEYWORDS,
     "access(kind, addr, size=8, pc=0, core=0): simulate one access."},
    {"feed", (PyCFunction)(void (*)(void))sim_feed, METH_VARARGS | METH_KEYWORDS,
     "feed(kinds, addrs, sizes=8): simulate len(addrs) accesses from buffer-protocol\n"
     "arrays of integers (NumPy arrays are read in place); kinds and sizes may be one\n"
     "value for all. Returns the number of accesses."},
    {"run", (PyCFunction)(void (*)(void))sim_run, METH_VARARGS | METH_KEYWORDS,
     "run(paths, format=None): replay trace files (one path or a list: one workload)\n"
     "as `cachet run` does, then apply the end-of-trace rules. Returns the accesses."},
    {"stats", (PyCFunction)sim_stats, METH_NOARGS,
     "stats(): the statistics, in the structure `cachet run --json` prints."},
    {"finish", (PyCFunction)sim_finish, METH_NOARGS,
     "finish(): apply the end-of-trace rules ([system] flush_at_end)."},
    {"reset_stats", (PyCFunction)sim_reset_stats, METH_NOARGS,
     "reset_stats(): zero every counter; cache contents stay (warm-up)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject SimulatorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "cachet.Simulator",
    .tp_basicsize = sizeof(Simulator),
    .tp_dealloc = (destructor)sim_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Simulator(config=None, overrides={}): a cache hierarchy.\n\n"
              "config is an INI file (None: the built-in default: L1D 32K 8-way,\n"
              "L2 1M 16-way); overrides sets keys, e.g. {'l1d.size': '64K'}.",
    .tp_methods = sim_methods,
    .tp_init = (initproc)sim_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module functions ----------------------------------------------------- */

static int put_u64(PyObject *d, const char *k, uint64_t v)
{
    PyObject *o = PyLong_FromUnsignedLongLong(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

static PyObject *mod_info(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"path", "format", NULL};
    PyObject *po, *keep = NULL, *d = NULL, *kinds = NULL;
    const char *format = NULL, **paths = NULL;
    size_t np = 0;
    ct_trace_opts o = {0};
    ct_trace *t = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    uint64_t count[CT_KIND_STREAM] = {0}, markers = 0, events = 0;
    int rc;
    (void)mod;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z:info", names, &po, &format))
        return NULL;
    if (paths_of(po, &keep, &paths, &np) != 0) {
        paths_free(keep, paths);
        return NULL;
    }
    o.format = format;
    Py_BEGIN_ALLOW_THREADS
    rc = ct_batch_init(&b, FEED_CHUNK);
    if (rc == CT_OK)
        rc = ct_trace_open(&t, paths, np, &o, &err);
    while (rc >= 0 && (rc = ct_trace_next(t, &b, &err)) > 0) {
        for (uint32_t i = 0; i < b.n; i++)
            count[b.acc[i].kind < CT_KIND_STREAM ? b.acc[i].kind : 0]++;
        markers += b.nmk;
        events += b.nev;
    }
    Py_END_ALLOW_THREADS
    ct_batch_free(&b);
    paths_free(keep, paths);
    if (rc < 0) {
        ct_trace_close(t);
        if (rc == CT_E_NOMEM && !err.msg[0])
            return PyErr_NoMemory();
        return raise_error(&err);
    }
    {
        const ct_trace_info *ti = ct_trace_get_info(t);
        uint64_t total = 0;
        d = PyDict_New();
        kinds = PyDict_New();
        if (!d || !kinds)
            goto out;
        for (int k = 0; k < CT_KIND_STREAM; k++) {
            total += count[k];
            if (put_u64(kinds, ct_kind_name(k), count[k]) != 0)
                goto out;
        }
        {
            PyObject *f = PyUnicode_FromString(ti->format);
            if (!f || PyDict_SetItemString(d, "format", f) != 0) {
                Py_XDECREF(f);
                goto out;
            }
            Py_DECREF(f);
        }
        if (put_u64(d, "accesses", total) || PyDict_SetItemString(d, "kinds", kinds) ||
            put_u64(d, "streams", ti->streams) || put_u64(d, "threads", ti->threads) ||
            put_u64(d, "records", ti->records) || put_u64(d, "bytes", ti->bytes) ||
            put_u64(d, "malformed", ti->malformed) || put_u64(d, "markers", markers) ||
            put_u64(d, "events", events))
            goto out;
        PyDict_SetItemString(d, "masked_addresses", ti->masked_addresses ? Py_True : Py_False);
    }
    Py_DECREF(kinds);
    ct_trace_close(t);
    return d;
out:
    Py_XDECREF(kinds);
    Py_XDECREF(d);
    ct_trace_close(t);
    return NULL;
}

typedef struct sweep_ctx {
    membuf *m;
    ct_writer *w;
    const ct_sweep *sw;
    const char *const *paths;
} sweep_ctx;

static int sweep_row(void *ctx, const ct_sweep_result *r)
{
    sweep_ctx *c = ctx;
    return ct_sweep_csv_rows(c->w, c->sw, r, c->paths[r->trace], 0);
}

static PyObject *mod_sweep(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"sweep_ini", "paths", "format", "threads", NULL};
    PyObject *ini, *po, *keep = NULL, *inib = NULL, *text = NULL, *io = NULL, *reader = NULL;
    PyObject *rows = NULL;
    const char **paths = NULL;
    size_t np = 0;
    unsigned threads = 0;
    const char *format = NULL;
    ct_sweep *sw = NULL;
    ct_error err = {0};
    membuf m = {0};
    ct_writer w = {membuf_write, &m, 0};
    ct_sweep_opts o = {0};
    sweep_ctx sc;
    int rc;
    (void)mod;

    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|zI:sweep", names, &ini, &po, &format, &threads))
        return NULL;
    if (!PyUnicode_FSConverter(ini, &inib))
        return NULL;
    if (paths_of(po, &keep, &paths, &np) != 0)
        goto out;
    Py_BEGIN_ALLOW_THREADS
    rc = ct_sweep_load(&sw, PyBytes_AS_STRING(inib), &err);
    if (rc == CT_OK) {
        sc.m = &m;
        sc.w = &w;
        sc.sw = sw;
        sc.paths = paths;
        o.threads = threads;
        o.format = format;
        o.result = sweep_row;
        o.result_ctx = &sc;
        rc = ct_sweep_csv_header(&w, sw);
        if (rc == CT_OK)
            rc = ct_sweep_run(sw, paths, np, &o, &err);
    }
    Py_END_ALLOW_THREADS
    if (rc != CT_OK) {
        raise_error(&err);
        goto out;
    }
    if (w.failed) {
        PyErr_NoMemory();
        goto out;
    }
    /* the rows of the CSV as dicts: csv.DictReader(io.StringIO(text)) */
    text = PyUnicode_FromStringAndSize(m.p ? m.p : "", (Py_ssize_t)m.n);
    if (!text || !(io = call_py("io", "StringIO", text)) ||
        !(reader = call_py("csv", "DictReader", io)))
        goto out;
    rows = PySequence_List(reader);
out:
    free(m.p);
    Py_XDECREF(text);
    Py_XDECREF(io);
    Py_XDECREF(reader);
    Py_XDECREF(inib);
    paths_free(keep, paths);
    ct_sweep_free(sw);
    return rows;
}

static PyMethodDef mod_methods[] = {
    {"info", (PyCFunction)(void (*)(void))mod_info, METH_VARARGS | METH_KEYWORDS,
     "info(path, format=None): decode a trace (a path or a list of paths) without\n"
     "simulating; returns a dict: format, accesses, kinds (accesses by kind),\n"
     "streams, threads, records, bytes, malformed, markers, events."},
    {"sweep", (PyCFunction)(void (*)(void))mod_sweep, METH_VARARGS | METH_KEYWORDS,
     "sweep(sweep_ini, paths, format=None, threads=0): run a parameter sweep as\n"
     "`cachet sweep` does (format forces the trace format, as -f does); returns\n"
     "the rows of its CSV as dicts (pandas.DataFrame(rows) works)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef cachet_module = {
    PyModuleDef_HEAD_INIT, "cachet",
    "cachet: a trace-driven cache and memory-hierarchy simulator (libcachet).", -1,
    mod_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_cachet(void)
{
    PyObject *m = PyModule_Create(&cachet_module);
    if (!m)
        return NULL;
    if (PyType_Ready(&SimulatorType) < 0)
        goto fail;
    cachet_error = PyErr_NewExceptionWithDoc(
        "cachet.Error",
        "A failure of libcachet. args[0] is its message; file, position (None when the\n"
        "message names none), reason and code are its parts.",
        PyExc_ValueError, NULL);
    if (!cachet_error)
        goto fail;
    Py_INCREF(cachet_error);
    Py_INCREF(&SimulatorType);
    if (PyModule_AddObject(m, "Error", cachet_error) < 0 ||
        PyModule_AddObject(m, "Simulator", (PyObject *)&SimulatorType) < 0 ||
        PyModule_AddIntConstant(m, "IFETCH", CT_IFETCH) < 0 ||
        PyModule_AddIntConstant(m, "LOAD", CT_LOAD) < 0 ||
        PyModule_AddIntConstant(m, "STORE", CT_STORE) < 0 ||
        PyModule_AddIntConstant(m, "PREFETCH", CT_PREFETCH) < 0 ||
        PyModule_AddIntConstant(m, "ATOMIC", CT_ATOMIC) < 0 ||
        PyModule_AddIntConstant(m, "NOFETCH", CT_NOFETCH) < 0 ||
        PyModule_AddIntConstant(m, "MISC", CT_MISC) < 0 ||
        PyModule_AddStringConstant(m, "__version__", ct_version()) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
