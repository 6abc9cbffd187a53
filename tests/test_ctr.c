/*
 * test_ctr.c - the cachet trace format (frontends/CTR.md): exact bytes of a
 * small example, a round trip of every field (accesses, markers, events and
 * structure names) through both writers, and damaged streams: truncation at
 * every length, bad magic, another version, corrupt varints, bad tags,
 * totals that disagree, bytes after the end, damaged zstd data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "harness.h"

static char tmpdir[64];

/* ---- helpers ------------------------------------------------------------------ */

typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
} membuf;

static int mem_write(void *ctx, const char *data, size_t len)
{
    membuf *m = ctx;
    if (m->n + len > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        while (cap < m->n + len)
            cap *= 2;
        m->p = realloc(m->p, cap);
        if (!m->p)
            return -1;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return 0;
}

static const char *tmp_path(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static const char *save(const char *name, const void *data, size_t n)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

/* Convert a trace file (or gen: input) with `writer` into memory. */
static int convert(const char *in, const char *writer, membuf *out, ct_error *err)
{
    ct_trace *t = NULL;
    ct_trace_writer *tw = NULL;
    ct_writer w = {mem_write, out, 0};
    ct_batch b = {0};
    const char *paths[1] = {in};
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = ct_trace_open(&t, paths, 1, NULL, err)) != CT_OK)
        return rc;
    if ((rc = ct_trace_writer_open(&tw, writer, &w, err)) != CT_OK) {
        ct_trace_close(t);
        return rc;
    }
    ct_batch_init(&b, 1000);
    while ((rc = ct_trace_next(t, &b, err)) > 0)
        if ((rc = ct_trace_writer_put(tw, &b, err)) != CT_OK)
            break;
    if (rc >= 0)
        rc = ct_trace_writer_finish(tw, err);
    else
        ct_trace_writer_finish(tw, NULL);
    ct_batch_free(&b);
    ct_trace_close(t);
    return rc;
}

/* Read a whole trace, forcing `format` (NULL: detect); returns 0 or the code. */
static int read_all(const char *path, const char *format, int lenient, uint64_t *accesses,
                    ct_error *err)
{
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    int rc;

    o.format = format;
    o.strictness = lenient ? CT_LENIENT : CT_STRICT;
    *accesses = 0;
    if ((rc = ct_trace_open(&t, paths, 1, &o, err)) != CT_OK)
        return rc;
    ct_batch_init(&b, 100);
    while ((rc = ct_trace_next(t, &b, err)) > 0)
        *accesses += b.n;
    ct_batch_free(&b);
    ct_trace_close(t);
    return rc < 0 ? rc : 0;
}

/* ---- exact bytes ---------------------------------------------------------------- */

TEST(example_from_the_format_document_has_these_bytes)
{
    static const unsigned char want[] = {
        0x07, 0x01, 0x00,                         /* state: thread 1 (din: stream 1), cpu 0 */
        0x50, 0x04, 0x80, 0x80, 0x80, 0x04,       /* ifetch 0x400000, size 4, time +1 */
        0x51, 0x04, 0x80, 0x40,                   /* load 0x1000, size 4, time +1 */
        0x58, 0x08,                               /* ifetch +4, same size, time +1 */
        0x27, 0x03, 0x00, 0x00,                   /* end: 3 accesses */
    };
    static const char text_din[] = "2 400000\n0 1000\n2 400004\n";
    const char *din = save("example.din", text_din, strlen(text_din));
    membuf m;
    ct_error err = {0};
    size_t text;

    CHECK_EQ_U64(convert(din, "ctr-raw", &m, &err), CT_OK);
    CHECK(m.n > 16 && memcmp(m.p, "\x89" "CTR\r\n\x1a\n", 8) == 0);
    CHECK(m.n > 16 && m.p[8] == 1 && m.p[9] == 0 && m.p[10] == 0 && m.p[11] == 0);
    text = m.n > 16 ? (size_t)m.p[12] | (size_t)m.p[13] << 8 : 0;
    CHECK(text > 0 && m.n > 16 + text && memcmp(m.p + 16, "producer=cachet ", 16) == 0);
    CHECK_EQ_U64(m.n, 16 + text + sizeof want);
    CHECK(m.n == 16 + text + sizeof want && memcmp(m.p + 16 + text, want, sizeof want) == 0);
    free(m.p);
}

/* ---- round trip ------------------------------------------------------------------- */

#define RT_N 20000
#define RT_BATCH 700

static ct_access rt_acc[RT_N];
static uint32_t rt_mk_at[RT_N / 50], rt_ev_at[RT_N / 40];
static ct_marker rt_mk[RT_N / 50];
static ct_event rt_ev[RT_N / 40];
static const char *const rt_names[] = {"cpu.cpu0.l1dcache", "cpu.cpu0.l1icache",
                                       "Validation_ARMAEMv8AMPCT.cpu.l2_cache"};

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A stream that exercises every coding choice: strides, random jumps,
 * negative deltas, huge values, changing thread/cpu/flags/op, physical
 * addresses, time going backwards. */
static void make_stream(void)
{
    uint64_t pc = 0x400000, t = 0, data = 0x10000000;
    for (uint32_t i = 0; i < RT_N; i++) {
        ct_access *a = &rt_acc[i];
        uint64_t r = next_rand();
        memset(a, 0, sizeof *a);
        a->kind = (uint8_t)(r % 7);
        a->thread = 1 + (uint32_t)((i / 3000) % 3);
        a->cpu = (uint16_t)((i / 5000) % 2);
        t += (r >> 8) % 4 == 0 ? 0 : (r >> 8) % 4 == 3 ? (uint64_t)-5 : 1;
        a->time = (r >> 10) % 97 == 0 ? UINT64_MAX - i : t;
        if (a->kind == CT_IFETCH) {
            pc = (r >> 12) % 10 == 0 ? pc - 0x40 : pc + 4;
            a->vaddr = pc;
            a->pc = (r >> 20) % 50 == 0 ? pc + 1 : pc;
            a->size = 4;
        } else {
            data = (r >> 16) % 3 == 0 ? data + 8 : (r >> 16) % 3 == 1 ? r : data - 64;
            a->vaddr = data;
            a->pc = pc;
            /* any 32-bit size for cache operations (ranges); data accesses
             * stay within the 1 MiB readers accept */
            a->size = (r >> 24) % 5 == 0 ? (a->kind == CT_CACHEOP ? (uint32_t)(r >> 32)
                                                                 : (uint32_t)(r >> 32) % (1u << 20))
                                         : 1u << ((r >> 28) % 5);
        }
        if ((r >> 40) % 4 == 0) {
            a->flags = CT_F_PADDR | ((r >> 42) % 2 ? CT_F_NS : 0);
            a->paddr = (r >> 44) % 8 == 0 ? next_rand() : a->vaddr + 0x80000000ull;
        }
        if (a->kind == CT_CACHEOP || a->kind == CT_PREFETCH)
            a->op = (uint8_t)((r >> 48) % 0x40);
        /* zeroing and allocating write every line: bounded like accesses */
        if (a->kind == CT_CACHEOP && ((a->op & CT_OP_MASK) == CT_OP_ZERO ||
                                      (a->op & CT_OP_MASK) == CT_OP_ALLOC))
            a->size %= 1u << 20;
        if ((r >> 50) % 200 == 0)
            a->flags |= CT_F_EXCL;
    }
    for (uint32_t k = 0; k < RT_N / 50; k++) {
        uint64_t r = next_rand();
        rt_mk_at[k] = k * 50 + (uint32_t)(r % 3);
        if (k >= RT_N / 100 && k % 16 != 0) /* runs of regular timestamps */
            rt_mk[k] = (ct_marker){.type = CT_MK_TIMESTAMP, .time = 1000 + k, .value = k,
                                   .value2 = 3 * k + k / 5 * 2};
        else
            rt_mk[k] = (ct_marker){.type = (uint16_t)(1 + r % 9), .cpu = (uint16_t)(r >> 8),
                                   .thread = (uint32_t)(r >> 16), .aux = (uint32_t)(r >> 32),
                                   .time = next_rand(), .value = next_rand(),
                                   .value2 = k % 2 ? 0 : next_rand()};
    }
    for (uint32_t k = 0; k < RT_N / 40; k++) {
        uint64_t r = next_rand();
        uint64_t r2 = next_rand();
        rt_ev_at[k] = k * 40 + 7;
        rt_ev[k] = (ct_event){.cpu = (uint16_t)(r >> 3), .type = (uint8_t)(1 + r % 5),
                              .op = (uint8_t)(1 + (r >> 8) % 8),
                              .structure = (uint16_t)(k % 3), .flags = (uint16_t)(r >> 24),
                              .stage = (uint8_t)(1 + (r >> 40) % 2),
                              .level = (uint8_t)((r >> 42) % 4),
                              .regime = (uint8_t)((r >> 44) % 8),
                              .result = (uint8_t)((r >> 48) % 11),
                              .asid = (uint16_t)r2, .vmid = (uint16_t)(r2 >> 16),
                              .stream = 5, .src = 1000 + k, /* not kept: read as 0, 0 */
                              .time = next_rand(), .line = next_rand(), .addr = next_rand(),
                              .value = next_rand(), .size = (r2 >> 32) % 3 ? 4096 : r2};
    }
}

/* Write the stream in batches of RT_BATCH with `writer`. */
static int write_stream(const char *writer, membuf *out, ct_error *err)
{
    ct_trace_writer *tw = NULL;
    ct_writer w = {mem_write, out, 0};
    ct_batch b = {0};
    uint32_t mk = 0, ev = 0;
    int rc;

    memset(out, 0, sizeof *out);
    if ((rc = ct_trace_writer_open(&tw, writer, &w, err)) != CT_OK)
        return rc;
    ct_batch_init(&b, RT_BATCH);
    for (uint32_t base = 0; base < RT_N && rc == CT_OK; base += RT_BATCH) {
        ct_batch_clear(&b);
        for (uint32_t i = base; i < base + RT_BATCH && i < RT_N; i++) {
            while (mk < RT_N / 50 && rt_mk_at[mk] == i) {
                b.mk[b.nmk] = rt_mk[mk++];
                b.mk[b.nmk++].index = b.n;
            }
            while (ev < RT_N / 40 && rt_ev_at[ev] == i) {
                b.ev[b.nev] = rt_ev[ev++];
                b.ev[b.nev++].index = b.n;
            }
            b.acc[b.n++] = rt_acc[i];
        }
        /* names become known as the events that use them appear */
        rc = ct_trace_writer_set_names(tw, rt_names, ev ? (ev < 3 ? ev : 3) : 0, err);
        if (rc == CT_OK)
            rc = ct_trace_writer_put(tw, &b, err);
    }
    CHECK_EQ_U64(ct_trace_writer_dropped(tw), 0);
    if (rc == CT_OK)
        rc = ct_trace_writer_finish(tw, err);
    else
        ct_trace_writer_finish(tw, NULL);
    ct_batch_free(&b);
    return rc;
}

static void check_round_trip(const char *writer)
{
    membuf m;
    ct_error err = {0};
    ct_trace *t = NULL;
    ct_batch b = {0};
    const char *paths[1];
    uint64_t got = 0, mk = 0, ev = 0, bad_acc = 0, bad_side = 0;
    int rc;

    CHECK_EQ_U64(write_stream(writer, &m, &err), CT_OK);
    paths[0] = save("rt.ctr", m.p, m.n);
    free(m.p);
    CHECK_EQ_U64(ct_trace_open(&t, paths, 1, NULL, &err), CT_OK);
    if (!t)
        return;
    CHECK(strcmp(ct_trace_get_info(t)->format, "ctr") == 0);
    ct_batch_init(&b, 512);
    while ((rc = ct_trace_next(t, &b, &err)) > 0) {
        const ct_trace_info *ti = ct_trace_get_info(t);
        for (uint32_t i = 0; i < b.nmk; i++, mk++) {
            ct_marker m1 = b.mk[i], m2 = rt_mk[mk];
            uint64_t at = got + m1.index;
            m1.index = m2.index = 0;
            if (mk >= RT_N / 50 || at != rt_mk_at[mk] || memcmp(&m1, &m2, sizeof m1) != 0)
                bad_side++;
        }
        for (uint32_t i = 0; i < b.nev; i++, ev++) {
            ct_event e1 = b.ev[i], e2 = rt_ev[ev];
            uint64_t at = got + e1.index;
            const char *name = e1.structure < ti->nstructures ? ti->structures[e1.structure] : "";
            if (strcmp(name, rt_names[e2.structure]) != 0)
                bad_side++;
            e1.index = e2.index = 0;
            e1.structure = e2.structure = 0;
            if (e1.stream != 0 || e1.src != 0)
                bad_side++;
            e1.stream = e2.stream;
            e1.src = e2.src;
            if (ev >= RT_N / 40 || at != rt_ev_at[ev] || memcmp(&e1, &e2, sizeof e1) != 0)
                bad_side++;
        }
        for (uint32_t i = 0; i < b.n; i++, got++) {
            ct_access a1 = b.acc[i], a2 = rt_acc[got];
            a1.core = a2.core = 0;
            if (got >= RT_N || memcmp(&a1, &a2, sizeof a1) != 0) {
                if (bad_acc++ == 0)
                    fprintf(stderr, "%s: access %llu differs\n", writer, (unsigned long long)got);
            }
        }
    }
    CHECK_EQ_U64(rc, 0);
    CHECK_EQ_U64(got, RT_N);
    CHECK_EQ_U64(mk, RT_N / 50);
    CHECK_EQ_U64(ev, RT_N / 40);
    CHECK_EQ_U64(bad_acc, 0);
    CHECK_EQ_U64(bad_side, 0);
    /* accesses, markers, events, 3 names, the end record and the state records */
    CHECK(ct_trace_get_info(t)->records > RT_N + RT_N / 50 + RT_N / 40 + 4);
    ct_batch_free(&b);
    ct_trace_close(t);
}

TEST(every_field_survives_the_raw_writer)
{
    check_round_trip("ctr-raw");
}

TEST(every_field_survives_the_compressing_writer)
{
    check_round_trip("ctr");
}

/* ---- damaged input ------------------------------------------------------------- */

/* A small valid raw stream to damage. */
static membuf small_raw(void)
{
    membuf m;
    ct_error err = {0};
    static const char text[] = "2 400000\n0 1000\n1 2000\n2 400004\n0 1040\n";
    const char *din = save("small.din", text, strlen(text));
    if (convert(din, "ctr-raw", &m, &err) != CT_OK || m.n < 16) {
        fprintf(stderr, "cannot make the small stream: %s\n", err.msg);
        exit(1);
    }
    return m;
}

static size_t header_len(const membuf *m)
{
    return 16 + ((size_t)m->p[12] | (size_t)m->p[13] << 8);
}

static void expect_error(const void *data, size_t n, const char *format, const char *what)
{
    uint64_t acc;
    ct_error err = {0};
    const char *p = save("damaged.ctr", data, n);
    int rc = read_all(p, format, 1, &acc, &err);
    CHECK_EQ_U64(rc, (uint64_t)(int64_t)CT_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, what);
}

TEST(a_stream_cut_anywhere_is_an_error)
{
    membuf m = small_raw();
    uint64_t acc;
    ct_error err = {0};
    const char *p = save("whole.ctr", m.p, m.n);

    CHECK_EQ_U64(read_all(p, NULL, 0, &acc, &err), 0);
    CHECK_EQ_U64(acc, 5);
    for (size_t n = 0; n < m.n; n++) {
        const char *want = n == 0 ? "empty"
                         : n < 16 ? "header cut short"   /* inside the magic too */
                         : n < header_len(&m) ? "header text cut short"
                                              : "truncated";
        uint64_t a;
        ct_error e = {0};
        int rc;
        p = save("cut.ctr", m.p, n);
        rc = read_all(p, "ctr", 1, &a, &e);
        if (rc != CT_E_FORMAT || !strstr(e.msg, want)) {
            fprintf(stderr, "cut at %zu of %zu: rc %d: %s\n", n, m.n, rc, e.msg);
            CHECK(!"a cut stream must fail with the reason");
        } else {
            CHECK(1);
        }
    }
    free(m.p);
}

TEST(a_cut_compressed_stream_is_an_error)
{
    membuf m;
    ct_error err = {0};
    uint64_t acc;
    const char *p;

    CHECK_EQ_U64(convert("gen:random:n=20K", "ctr", &m, &err), CT_OK);
    p = save("whole.ctr.zst", m.p, m.n);
    CHECK_EQ_U64(read_all(p, NULL, 0, &acc, &err), 0);
    CHECK_EQ_U64(acc, 40960);
    for (size_t n = 20; n < m.n; n += m.n / 7) {
        p = save("cut.ctr.zst", m.p, n);
        CHECK_EQ_U64(read_all(p, NULL, 0, &acc, &err), (uint64_t)(int64_t)CT_E_FORMAT);
        CHECK_STR_CONTAINS(err.msg, "truncated");
    }
    free(m.p);
}

TEST(damaged_zstd_data_is_an_error)
{
    membuf m;
    ct_error err = {0};
    uint64_t acc;
    int found = 0;

    CHECK_EQ_U64(convert("gen:random:n=20K", "ctr", &m, &err), CT_OK);
    /* flip one byte at several places inside the frame */
    for (size_t at = m.n / 5; at < m.n - 8; at += m.n / 5) {
        const char *p;
        int rc;
        m.p[at] ^= 0x5a;
        p = save("flipped.ctr.zst", m.p, m.n);
        rc = read_all(p, NULL, 1, &acc, &err);
        m.p[at] ^= 0x5a;
        CHECK_EQ_U64(rc, (uint64_t)(int64_t)CT_E_FORMAT);
        found += strstr(err.msg, "zstd") != NULL || strstr(err.msg, "record") != NULL;
    }
    CHECK(found >= 3);
    free(m.p);
}

TEST(bad_magic_and_other_versions_are_refused)
{
    membuf m = small_raw();
    uint64_t acc;
    ct_error err = {0};
    const char *p;

    m.p[1] = 'X';
    p = save("magic.ctr", m.p, m.n);
    CHECK_EQ_U64(read_all(p, NULL, 0, &acc, &err), (uint64_t)(int64_t)CT_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "unknown trace format");
    expect_error(m.p, m.n, "ctr", "bad magic");
    m.p[1] = 'C';
    m.p[8] = 2;
    expect_error(m.p, m.n, NULL, "ctr version 2.0 (this cachet reads version 1)");
    m.p[8] = 1;
    m.p[10] = 7; /* a newer minor version is read */
    p = save("minor.ctr", m.p, m.n);
    CHECK_EQ_U64(read_all(p, NULL, 0, &acc, &err), 0);
    CHECK_EQ_U64(acc, 5);
    m.p[15] = 1; /* header text of 16 MiB */
    expect_error(m.p, m.n, NULL, "header text of");
    free(m.p);
}

/* Valid header + the given records; `what` may hold %zu for the offset of
 * the first record. */
static void expect_records_error(const unsigned char *rec, size_t n, const char *what)
{
    membuf m = small_raw();
    size_t h = header_len(&m);
    unsigned char buf[512];
    char want[160];
    memcpy(buf, m.p, h);
    memcpy(buf + h, rec, n);
    snprintf(want, sizeof want, what, h);
    expect_error(buf, h + n, NULL, want);
    free(m.p);
}

TEST(corrupt_records_are_refused_even_when_lenient)
{
    static const unsigned char long_varint[] = {0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0};
    static const unsigned char wide_varint[] = {0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                0xff, 0xff, 0xff, 0x02, 0, 0, 0};
    static const unsigned char bad_type[] = {0x37, 0x00};
    static const unsigned char bad_time[] = {0x38 | 0x08 | 0x40 | 0x80};
    static const unsigned char big_cpu[] = {0x07, 0x01, 0x80, 0x80, 0x08};
    static const unsigned char bad_kind[] = {0x2f, 0x07, 0x00, 0x00};
    static const unsigned char bad_totals[] = {0x50, 0x04, 0x00, 0x27, 0x02, 0x00, 0x00};
    static const unsigned char after_end[] = {0x50, 0x04, 0x00, 0x27, 0x01, 0x00, 0x00, 0x00};
    static const unsigned char bad_name[] = {0x1f, 0x00, 0x00};
    static const unsigned char big_size[] = {0x00, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00};

    expect_records_error(long_varint, sizeof long_varint, "byte %zu (record 0): corrupt varint");
    expect_records_error(wide_varint, sizeof wide_varint, "corrupt varint");
    expect_records_error(bad_type, sizeof bad_type, "unknown record type");
    expect_records_error(bad_time, sizeof bad_time, "bad time code");
    expect_records_error(big_cpu, sizeof big_cpu, "state record: field out of range");
    expect_records_error(bad_kind, sizeof bad_kind, "kind state record: field out of range");
    expect_records_error(bad_totals, sizeof bad_totals, "(record 1): the end record counts 2/0/0");
    expect_records_error(after_end, sizeof after_end, "bytes after the end record");
    expect_records_error(bad_name, sizeof bad_name, "name record: id or length out of range");
    expect_records_error(big_size, sizeof big_size, "access size out of range");
}

TEST(any_single_damaged_byte_is_read_or_refused_cleanly)
{
    static const unsigned char values[] = {0x00, 0x01, 0x07, 0x27, 0x7f, 0x80, 0xff};
    membuf m = small_raw();
    size_t h = header_len(&m);
    uint64_t fine = 0, refused = 0, other = 0;

    for (size_t at = h; at < m.n; at++)
        for (size_t k = 0; k < sizeof values; k++) {
            unsigned char keep = m.p[at];
            uint64_t acc;
            ct_error err = {0};
            int rc;
            m.p[at] = values[k];
            rc = read_all(save("byte.ctr", m.p, m.n), NULL, 1, &acc, &err);
            m.p[at] = keep;
            if (rc == 0)
                fine++;
            else if (rc == CT_E_FORMAT && strstr(err.msg, "byte "))
                refused++;
            else
                other++;
        }
    CHECK_EQ_U64(other, 0);
    CHECK(refused > 0);
    CHECK_EQ_U64(fine + refused, (m.n - h) * sizeof values);
    free(m.p);
}

/* ---- sizes ------------------------------------------------------------------------ */

/* A ctr file of 5000 loads of 4 bytes in which access `big` (if below
 * 5000) is a load of 2 MiB and access 10 a cache operation of 8 MiB. */
static const char *sized_stream(const char *name, uint32_t big)
{
    membuf m = {0};
    ct_writer w = {mem_write, &m, 0};
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    const char *path;

    CHECK(ct_trace_writer_open(&tw, "ctr-raw", &w, &err) == CT_OK);
    ct_batch_init(&b, 5000);
    for (uint32_t i = 0; i < 5000; i++)
        b.acc[b.n++] = (ct_access){.vaddr = 0x1000 + 64 * i, .time = i, .thread = 1,
                                   .kind = i == 10 ? CT_CACHEOP : CT_LOAD,
                                   .op = i == 10 ? CT_OP_CLEAN : 0,
                                   .size = i == big ? 2u << 20 : i == 10 ? 8u << 20 : 4};
    CHECK(ct_trace_writer_put(tw, &b, &err) == CT_OK);
    CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
    ct_batch_free(&b);
    path = save(name, m.p, m.n);
    free(m.p);
    return path;
}

TEST(oversized_accesses_are_refused_wherever_they_appear)
{
    /* the decoder vouches for sizes until a large one appears: after 4000
     * accesses (40 batches of the reader) the trace layer checks again */
    uint64_t n = 0;
    ct_error err = {0};
    char ok[160], bad[160];   /* save() reuses its buffer */

    snprintf(ok, sizeof ok, "%s", sized_stream("sized-ok.ctr", 5000));
    snprintf(bad, sizeof bad, "%s", sized_stream("sized-bad.ctr", 4000));

    CHECK_EQ_U64(read_all(ok, NULL, 0, &n, &err), 0);
    CHECK_EQ_U64(n, 5000);                  /* the large cache operation stays */
    CHECK(read_all(bad, NULL, 0, &n, &err) == CT_E_FORMAT);
    CHECK_STR_CONTAINS(err.msg, "the load at trace time 4000 covers 2097152 bytes");
    CHECK_EQ_U64(read_all(bad, NULL, 1, &n, &err), 0);
    CHECK_EQ_U64(n, 4999);                  /* lenient: dropped */
}

TEST(cache_operations_that_allocate_are_bounded_like_accesses)
{
    /* cleaning 8 MiB touches at most the lines a level holds; zeroing 8 MiB
     * would write 131072 lines: a damaged record */
    static const uint8_t ops[] = {CT_OP_CLEAN, CT_OP_INVAL, CT_OP_CLEAN_INVAL, CT_OP_ZERO,
                                  CT_OP_ALLOC};
    for (size_t k = 0; k < sizeof ops; k++) {
        membuf m = {0};
        ct_writer w = {mem_write, &m, 0};
        ct_trace_writer *tw = NULL;
        ct_batch b = {0};
        ct_error err = {0};
        uint64_t n = 0;
        int allocates = ops[k] == CT_OP_ZERO || ops[k] == CT_OP_ALLOC;
        char path[160];

        CHECK(ct_trace_writer_open(&tw, "ctr-raw", &w, &err) == CT_OK);
        ct_batch_init(&b, 4);
        b.acc[b.n++] = (ct_access){.vaddr = 0x1000, .time = 1, .thread = 1, .kind = CT_LOAD,
                                   .size = 4};
        b.acc[b.n++] = (ct_access){.vaddr = 0x100000, .time = 2, .thread = 1,
                                   .kind = CT_CACHEOP, .op = ops[k], .size = 8u << 20};
        b.acc[b.n++] = (ct_access){.vaddr = 0x1000, .time = 3, .thread = 1, .kind = CT_STORE,
                                   .size = 4};
        CHECK(ct_trace_writer_put(tw, &b, &err) == CT_OK);
        CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
        ct_batch_free(&b);
        snprintf(path, sizeof path, "%s", save("cacheop-size.ctr", m.p, m.n));
        free(m.p);
        if (allocates) {
            CHECK(read_all(path, NULL, 0, &n, &err) == CT_E_FORMAT);
            CHECK_STR_CONTAINS(err.msg, "the cacheop at trace time 2 covers 8388608 bytes");
            CHECK_EQ_U64(read_all(path, NULL, 1, &n, &err), 0);
            CHECK_EQ_U64(n, 2); /* lenient: dropped */
        } else {
            CHECK_EQ_U64(read_all(path, NULL, 0, &n, &err), 0);
            CHECK_EQ_U64(n, 3);
        }
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cachet-test-ctr-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    make_stream();
    RUN(example_from_the_format_document_has_these_bytes);
    RUN(every_field_survives_the_raw_writer);
    RUN(every_field_survives_the_compressing_writer);
    RUN(a_stream_cut_anywhere_is_an_error);
    RUN(a_cut_compressed_stream_is_an_error);
    RUN(damaged_zstd_data_is_an_error);
    RUN(bad_magic_and_other_versions_are_refused);
    RUN(corrupt_records_are_refused_even_when_lenient);
    RUN(any_single_damaged_byte_is_read_or_refused_cleanly);
    RUN(oversized_accesses_are_refused_wherever_they_appear);
    RUN(cache_operations_that_allocate_are_bounded_like_accesses);
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return harness_done();
}
