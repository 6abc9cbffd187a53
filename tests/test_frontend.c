/*
 * test_frontend.c - byte sources (file, gzip, zstd, unix compress), format
 * detection, the din decoder in strict and lenient mode, generators and the
 * din writer. Inputs are written to temporary files, so the public path
 * (ct_trace_open) is what is tested.
 */
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "harness.h"
#include "cachet/cachet.h"

static char tmpdir[] = "/tmp/cachet-test-XXXXXX";

static const char *write_file(const char *name, const void *data, size_t n)
{
    static char path[8][512];
    static int slot;
    char *p = path[slot++ % 8];
    FILE *f;
    snprintf(p, 512, "%s/%s", tmpdir, name);
    f = fopen(p, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        perror(p);
        exit(2);
    }
    fclose(f);
    return p;
}

/* Everything a trace decodes to, summed. */
typedef struct summary {
    int rc;
    uint64_t n, kind[CT_KIND_STREAM], addr_sum, last_addr, last_time;
    uint64_t malformed, warnings, records;
    const char *format;
    char msg[CT_ERRMSG_MAX];
    ct_access first[8];
} summary;

static summary decode(const char *path, const char *format, int lenient)
{
    summary s;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_error err = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    int rc;

    memset(&s, 0, sizeof s);
    o.format = format;
    o.strictness = lenient ? CT_LENIENT : CT_STRICT;
    rc = ct_trace_open(&t, paths, 1, &o, &err);
    if (rc != CT_OK) {
        s.rc = rc;
        snprintf(s.msg, sizeof s.msg, "%s", err.msg);
        return s;
    }
    ct_batch_init(&b, 7); /* a tiny batch: records straddle batch ends */
    while ((rc = ct_trace_next(t, &b, &err)) > 0)
        for (uint32_t i = 0; i < b.n; i++) {
            if (s.n < 8)
                s.first[s.n] = b.acc[i];
            s.n++;
            s.kind[b.acc[i].kind]++;
            s.addr_sum += b.acc[i].vaddr;
            s.last_addr = b.acc[i].vaddr;
            s.last_time = b.acc[i].time;
        }
    s.rc = rc;
    if (rc < 0)
        snprintf(s.msg, sizeof s.msg, "%s", err.msg);
    s.malformed = ct_trace_get_info(t)->malformed;
    s.warnings = ct_trace_get_info(t)->nwarnings;
    s.records = ct_trace_get_info(t)->records;
    s.format = ct_trace_get_info(t)->format;
    ct_batch_free(&b);
    ct_trace_close(t);
    return s;
}

static const char din_text[] =
    "2 400170 8fa40000\n"
    "0 7ffebc84 0\n"
    "1 0x10004368 0\n"
    "\n"
    "2 400174\r\n"
    "  0\t1003\n"          /* leading blanks, tab, unaligned: word 0x1000 */
    "3 1234\n"
    "4 2a6\n"            /* copy back the block of word 0x2a4 */
    "5 40\n"
    "2 ABCDEF";            /* no final newline, upper-case hex */

TEST(din_decodes_every_label)
{
    const char *p = write_file("a.din", din_text, sizeof din_text - 1);
    summary s = decode(p, NULL, 0);
    CHECK_EQ_U64(s.rc, 0);
    CHECK(s.format && strcmp(s.format, "din") == 0);
    CHECK_EQ_U64(s.n, 9);           /* label 3 is kind misc */
    CHECK_EQ_U64(s.kind[CT_MISC], 1);
    CHECK_EQ_U64(s.kind[CT_IFETCH], 3);
    CHECK_EQ_U64(s.kind[CT_LOAD], 2);
    CHECK_EQ_U64(s.kind[CT_STORE], 1);
    CHECK_EQ_U64(s.kind[CT_CACHEOP], 2);
    CHECK_EQ_U64(s.first[1].vaddr, 0x7ffebc84);
    CHECK_EQ_U64(s.first[1].pc, 0x400170);
    CHECK_EQ_U64(s.first[1].size, 4);
    CHECK_EQ_U64(s.first[2].vaddr, 0x10004368);
    CHECK_EQ_U64(s.first[4].vaddr, 0x1000);
    CHECK_EQ_U64(s.first[4].time, 6);   /* its line number */
    CHECK_EQ_U64(s.first[5].kind, CT_MISC);
    CHECK_EQ_U64(s.first[5].vaddr, 0x1234);
    CHECK_EQ_U64(s.first[5].size, 4);
    CHECK_EQ_U64(s.first[6].op, CT_OP_CLEAN);   /* the block of the address */
    CHECK_EQ_U64(s.first[7].op, CT_OP_INVAL | CT_OP_BOTH);
    CHECK_EQ_U64(s.first[6].vaddr, 0x2a4);
    CHECK_EQ_U64(s.first[6].size, 4);
    CHECK_EQ_U64(s.first[7].vaddr, 0x40);
    CHECK_EQ_U64(s.last_addr, 0xabcdef & ~3ull);
    CHECK_EQ_U64(s.warnings, 0);
    CHECK_EQ_U64(s.records, 9);
}

TEST(din_strict_errors_name_line_and_column)
{
    static const struct { const char *text, *want; } cases[] = {
        {"0 100\n7 200\n", "b.din:2:1: label is not 0..5"},
        {"0 100\n0\n", "b.din:2:2: expected a blank after the label"},
        {"0 100\n1 \n", "b.din:2:3: expected a hex address"},
        {"0 100\n1 12g4\n", "b.din:2:5: bad character in hex address"},
        {"2 12345678123456781\n", "b.din:1:20: address wider than 64 bits"},
        {"x 1\n", "unknown trace format"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = write_file("b.din", cases[i].text, strlen(cases[i].text));
        summary s = decode(p, i == 5 ? NULL : "din", 0);
        CHECK(s.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(s.msg, cases[i].want);
    }
}

TEST(din_lenient_skips_and_counts)
{
    static const char text[] = "0 100\n9 200\n1 300\n0 zz\n2 400\n";
    const char *p = write_file("c.din", text, sizeof text - 1);
    summary s = decode(p, "din", 1);
    CHECK_EQ_U64(s.rc, 0);
    CHECK_EQ_U64(s.n, 3);
    CHECK_EQ_U64(s.malformed, 2);
}

TEST(empty_and_missing_inputs)
{
    const char *p = write_file("empty.din", "", 0);
    summary s = decode(p, NULL, 0);
    CHECK(s.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(s.msg, "empty file");
    s = decode("/nonexistent/trace.din", NULL, 0);
    CHECK(s.rc == CT_E_IO);
    CHECK_STR_CONTAINS(s.msg, "/nonexistent/trace.din: cannot open");
    s = decode(tmpdir, "din", 0);
    CHECK(s.rc == CT_E_IO);
    CHECK_STR_CONTAINS(s.msg, "is a directory");
    s = decode(p, "nosuchformat", 0);
    CHECK(s.rc == CT_E_USAGE);
    CHECK_STR_CONTAINS(s.msg, "unknown format \"nosuchformat\"");
}

/* Every access of a trace, in order (NULL with *rc set on an error). */
static ct_access *decode_all(const char *path, uint64_t *n, int *rc, char *msg)
{
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_error err = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    ct_access *all = NULL;
    uint64_t cap = 0;

    *n = 0;
    o.format = "din";
    if ((*rc = ct_trace_open(&t, paths, 1, &o, &err)) != CT_OK) {
        snprintf(msg, CT_ERRMSG_MAX, "%s", err.msg);
        return NULL;
    }
    ct_batch_init(&b, 1000);
    while ((*rc = ct_trace_next(t, &b, &err)) > 0)
        for (uint32_t i = 0; i < b.n; i++) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 4096;
                all = realloc(all, cap * sizeof *all);
            }
            all[(*n)++] = b.acc[i];
        }
    if (*rc < 0)
        snprintf(msg, CT_ERRMSG_MAX, "%s", err.msg);
    ct_batch_free(&b);
    ct_trace_close(t);
    return all;
}

/* Lines of every shape the decoder reads eight characters at a time (label
 * 0..2, one blank, 1 to 16 hex digits of either case, newline) and of the
 * shapes it leaves to its general code, long enough that both are used;
 * each address is checked against strtoull of the text written. */
TEST(din_every_address_form_decodes_exactly)
{
    const int lines = 60000;
    char *text = malloc((size_t)lines * 48), line[64];
    uint64_t *want = malloc((size_t)lines * sizeof *want), x = 88172645463325252ull, n, pc = 0;
    int *label = malloc((size_t)lines * sizeof *label), nw = 0, rc;
    size_t used = 0;
    char msg[CT_ERRMSG_MAX];
    ct_access *got;

    for (int i = 0; i < lines; i++) {
        int digits, form, upper;
        uint64_t a;
        char hex[20];
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        digits = 1 + (int)(x % 16);
        form = (int)((x >> 8) % 10);
        upper = (int)((x >> 12) & 1);
        a = (x >> 16) | (x << 48);
        if (digits < 16)
            a &= (1ull << (4 * digits)) - 1;
        snprintf(hex, sizeof hex, upper ? "%0*llX" : "%0*llx", digits, (unsigned long long)a);
        label[nw] = (int)((x >> 4) % 3);
        switch (form) {
        case 0: snprintf(line, sizeof line, " %d 0x%s\n", label[nw], hex); break;
        case 1: snprintf(line, sizeof line, "%d %s\r\n", label[nw], hex); break;
        case 2: snprintf(line, sizeof line, "%d\t%s 7\n", label[nw], hex); break;
        case 3: snprintf(line, sizeof line, "%d  %s\n", label[nw], hex); break;
        default: snprintf(line, sizeof line, "%d %s\n", label[nw], hex); break;
        }
        memcpy(text + used, line, strlen(line));
        used += strlen(line);
        want[nw++] = strtoull(hex, NULL, 16);
    }
    got = decode_all(write_file("forms.din", text, used), &n, &rc, msg);
    CHECK_EQ_U64(rc, 0);
    CHECK_EQ_U64(n, (uint64_t)nw);
    for (int i = 0; i < nw && (uint64_t)i < n; i++) {
        const uint8_t kind = label[i] == 2 ? CT_IFETCH : label[i] == 0 ? CT_LOAD : CT_STORE;
        if (label[i] == 2)
            pc = want[i];
        if (got[i].vaddr != (want[i] & ~3ull) || got[i].kind != kind || got[i].pc != pc ||
            got[i].time != (uint64_t)i + 1 || got[i].size != 4) {
            CHECK_EQ_U64(got[i].vaddr, want[i] & ~3ull);
            CHECK_EQ_U64(got[i].kind, kind);
            CHECK_EQ_U64(got[i].pc, pc);
            CHECK_EQ_U64(got[i].time, (uint64_t)i + 1);
            break;
        }
    }
    CHECK(n == (uint64_t)nw);
    free(got);
    free(text);
    free(want);
    free(label);
}

/* Malformed lines far into a file (where whole words are decoded) are
 * reported as at the start of one. */
TEST(din_errors_inside_long_files)
{
    static const struct { const char *bad, *want; } cases[] = {
        {"1 12g4\n", ":1001:5: bad character in hex address"},
        {"1 12:4\n", ":1001:5: bad character in hex address"},
        {"1 12@4\n", ":1001:5: bad character in hex address"},
        {"1 12G4\n", ":1001:5: bad character in hex address"},
        {"1 12`4\n", ":1001:5: bad character in hex address"},
        {"1 1234567\3778\n", ":1001:10: bad character in hex address"},
        {"2 123456789abcdef01\n", ":1001:20: address wider than 64 bits"},
        {"2 \n", ":1001:3: expected a hex address"},
        {"6 100\n", ":1001:1: label is not 0..5"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text = malloc(20000 + 64);
        size_t used = 0;
        uint64_t n;
        int rc;
        char msg[CT_ERRMSG_MAX];
        ct_access *got;
        for (int i = 0; i < 1000; i++)
            used += (size_t)sprintf(text + used, "%d %x\n", i % 3, 0x1000 + 4 * i);
        used += (size_t)sprintf(text + used, "%s", cases[c].bad);
        for (int i = 0; i < 100; i++)
            used += (size_t)sprintf(text + used, "0 %x\n", 0x2000 + 4 * i);
        got = decode_all(write_file("bad.din", text, used), &n, &rc, msg);
        CHECK(rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(msg, cases[c].want);
        free(got);
        free(text);
    }
}

/* A din text of n lines with known content. */
static char *make_din(int n, size_t *len)
{
    char *buf = malloc((size_t)n * 24 + 1);
    size_t used = 0;
    for (int i = 0; i < n; i++)
        used += (size_t)sprintf(buf + used, "%d %x\n", i % 3, 0x1000 + 4 * i);
    *len = used;
    return buf;
}

static void check_like_plain(const char *path, int n)
{
    summary s = decode(path, NULL, 0);
    uint64_t want_sum = 0;
    for (int i = 0; i < n; i++)
        want_sum += 0x1000 + 4 * (uint64_t)i;
    CHECK_EQ_U64(s.rc, 0);
    CHECK_EQ_U64(s.n, (uint64_t)n);
    CHECK_EQ_U64(s.addr_sum, want_sum);
}

TEST(gzip_source)
{
    size_t len, clen;
    char *text = make_din(200000, &len);
    z_stream z;
    unsigned char *out = malloc(len + 1024);
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)text;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)(len + 1024);
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    clen = z.total_out;
    deflateEnd(&z);
    check_like_plain(write_file("t.din.gz", out, clen), 200000);
    /* truncated compressed data is an error that names the file */
    {
        summary s = decode(write_file("cut.din.gz", out, clen / 2), NULL, 0);
        CHECK(s.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(s.msg, "cut.din.gz");
        CHECK_STR_CONTAINS(s.msg, "gzip stream truncated");
    }
    /* two gzip members in a row read as one stream (as gzip -d does) */
    {
        unsigned char *two = malloc(clen * 2);
        memcpy(two, out, clen);
        memcpy(two + clen, out, clen);
        summary s = decode(write_file("two.din.gz", two, clen * 2), NULL, 0);
        CHECK_EQ_U64(s.n, 400000);
        free(two);
    }
    free(out);
    free(text);
}

TEST(zstd_source)
{
    size_t len, cap, clen;
    char *text = make_din(150000, &len);
    void *out;
    cap = ZSTD_compressBound(len);
    out = malloc(cap);
    clen = ZSTD_compress(out, cap, text, len, 3);
    CHECK(!ZSTD_isError(clen));
    check_like_plain(write_file("t.din.zst", out, clen), 150000);
    {
        summary s = decode(write_file("cut.din.zst", out, clen - 10), NULL, 0);
        CHECK(s.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(s.msg, "zstd");
    }
    {
        unsigned char *bad = malloc(clen);
        memcpy(bad, out, clen);
        for (size_t i = 20; i < clen; i += 97)
            bad[i] ^= 0x5a;
        summary s = decode(write_file("bad.din.zst", bad, clen), NULL, 0);
        CHECK(s.rc == CT_E_FORMAT);
        free(bad);
    }
    free(out);
    free(text);
}

/* A small unix-compress (LZW, block mode) encoder, written for this test
 * from the format description at the top of frontends/source_compress.c:
 * codes LSB first from 9 bits, width grows when the next code reaches
 * 2^width, and a CLEAR code (256) when the table is full. Width changes and
 * CLEAR are followed by padding to the end of the group of eight codes. */
typedef struct lzw_out {
    unsigned char *buf;
    size_t n;
    uint64_t bits;
    int nbits;
    int width;
    int in_group;
} lzw_out;

static void put_code(lzw_out *o, unsigned code)
{
    o->bits |= (uint64_t)code << o->nbits;
    o->nbits += o->width;
    while (o->nbits >= 8) {
        o->buf[o->n++] = (unsigned char)o->bits;
        o->bits >>= 8;
        o->nbits -= 8;
    }
    o->in_group = (o->in_group + 1) % 8;
}

static void pad_group(lzw_out *o)
{
    while (o->in_group != 0)
        put_code(o, 0);
}

static size_t lzw_compress(const unsigned char *in, size_t n, unsigned char *out, int maxbits)
{
    /* dictionary: (prefix code, byte) -> code, linear probing */
    enum { HSIZE = 1 << 18 };
    static uint32_t key[HSIZE];
    static uint16_t val[HSIZE];
    lzw_out o = {out, 0, 0, 0, 9, 0};
    unsigned next = 257, prefix;

    out[0] = 0x1f;
    out[1] = 0x9d;
    out[2] = (unsigned char)(0x80 | maxbits);
    o.n = 3;
    memset(key, 0, sizeof key);
    if (n == 0)
        return o.n;
    prefix = in[0];
    for (size_t i = 1; i < n; i++) {
        uint32_t k = ((uint32_t)prefix << 8 | in[i]) + 1;
        uint32_t h = (k * 2654435761u) & (HSIZE - 1);
        while (key[h] && key[h] != k)
            h = (h + 1) & (HSIZE - 1);
        if (key[h]) {
            prefix = val[h];
            continue;
        }
        put_code(&o, prefix);
        if (next < (1u << maxbits)) {
            key[h] = k;
            val[h] = (uint16_t)next++;
            if (next > (1u << o.width) && o.width < maxbits) {
                pad_group(&o);
                o.width++;
            }
        } else { /* table full: clear */
            put_code(&o, 256);
            pad_group(&o);
            o.width = 9;
            next = 257;
            memset(key, 0, sizeof key);
        }
        prefix = in[i];
    }
    put_code(&o, prefix);
    if (o.nbits)
        o.buf[o.n++] = (unsigned char)o.bits;
    return o.n;
}

TEST(compress_source_with_width_changes_and_clears)
{
    size_t len, clen;
    char *text = make_din(120000, &len);
    unsigned char *out = malloc(len * 2 + 64);
    /* 12-bit codes: the table fills and is cleared many times */
    clen = lzw_compress((unsigned char *)text, len, out, 12);
    check_like_plain(write_file("t.din.Z", out, clen), 120000);
    clen = lzw_compress((unsigned char *)text, len, out, 16);
    check_like_plain(write_file("t16.din.Z", out, clen), 120000);
    {
        unsigned char bad[3] = {0x1f, 0x9d, 0x85};  /* 5-bit codes: impossible */
        summary s = decode(write_file("bad.Z", bad, 3), NULL, 0);
        CHECK(s.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(s.msg, "compress header");
    }
    free(out);
    free(text);
}

TEST(generators_are_deterministic_and_bounded)
{
    summary a = decode("gen:random:n=5000,footprint=64K,writes=50,seed=9", NULL, 0);
    summary b = decode("gen:random:n=5000,footprint=64K,writes=50,seed=9", NULL, 0);
    summary c = decode("gen:random:n=5000,footprint=64K,writes=50,seed=10", NULL, 0);
    CHECK_EQ_U64(a.rc, 0);
    CHECK_EQ_U64(a.n, 10000);                /* each data access follows a fetch */
    CHECK_EQ_U64(a.kind[CT_IFETCH], 5000);
    CHECK_EQ_U64(a.addr_sum, b.addr_sum);
    CHECK(a.addr_sum != c.addr_sum);
    CHECK(a.kind[CT_STORE] > 2200 && a.kind[CT_STORE] < 2800);
    {
        /* 8x8 naive matmul: 64 (load C, 8x(load A, load B), store C) = 1152 */
        summary m = decode("gen:matmul:dim=8,ifetch=0", NULL, 0);
        CHECK_EQ_U64(m.n, 64 * 18);
        CHECK_EQ_U64(m.kind[CT_STORE], 64);
        summary t = decode("gen:matmul:dim=8,tile=4,ifetch=0", NULL, 0);
        /* blocked: per (ii,jj,kk) tile 16 (i,j) pairs x (2 + 2x4) = 8 tiles x 160 */
        CHECK_EQ_U64(t.n, 8 * 16 * 10);
    }
    {
        /* chase visits every node once per lap */
        summary ch = decode("gen:chase:n=64,footprint=4K,node=64,ifetch=0", NULL, 0);
        CHECK_EQ_U64(ch.n, 64);
        CHECK_EQ_U64(ch.addr_sum, 64ull * 0x10000000 + 64ull * 63 / 2 * 64);
    }
    {
        /* footprints beyond 2^32 slots draw from two words (no GSL error) */
        summary big = decode("gen:random:n=2000,footprint=64G,size=8,ifetch=0", NULL, 0);
        CHECK_EQ_U64(big.rc, 0);
        CHECK_EQ_U64(big.n, 2000);
        CHECK(big.addr_sum / 2000 > 0x10000000ull + (16ull << 30)); /* mean well past 16G */
    }
    {
        summary bad = decode("gen:stream:n=10,bogus=1", NULL, 0);
        CHECK(bad.rc == CT_E_USAGE);
        CHECK_STR_CONTAINS(bad.msg, "unknown parameter \"bogus\"");
    }
}

TEST(oversized_accesses_are_damaged_records)
{
    /* 2 MiB loads cannot be real: strict stops, lenient drops and counts */
    summary st = decode("gen:stream:n=10,size=2M,footprint=4M", NULL, 0);
    summary le = decode("gen:stream:n=10,size=2M,footprint=4M", NULL, 1);
    summary ok = decode("gen:stream:n=10,size=1M,footprint=4M", NULL, 0);
    CHECK(st.rc == CT_E_FORMAT);
    CHECK_STR_CONTAINS(st.msg, "covers 2097152 bytes, more than any real access");
    CHECK_EQ_U64(le.rc, 0);
    CHECK_EQ_U64(le.n, 10);           /* the ten fetches stay */
    CHECK_EQ_U64(le.kind[CT_LOAD], 0);
    CHECK_EQ_U64(le.malformed, 10);
    CHECK_EQ_U64(ok.n, 20);
}

TEST(a_memory_input_never_opens_a_file_of_its_name)
{
    /* a TT6 error may suggest reading a file as it is when its raw bytes
     * look compressed; for memory the name is no file, even when a file of
     * that name exists (here one that starts like gzip data) */
    static const unsigned char gz[] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0};
    static const unsigned char odd[] = {0x00, 0x00, 0x10, 0x00, 0x60, 0x00}; /* 1.5 words */
    const char *name = "cachet-test-memory-name.tt6";
    const char *kv[] = {"trace.format=tt6"};
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_batch b = {0};
    ct_error err = {0};
    FILE *f = fopen(name, "wb");
    int rc;

    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(gz, 1, sizeof gz, f) == sizeof gz);
    fclose(f);
    CHECK(ct_config_new_empty(&cfg, &err) == CT_OK);
    CHECK(ct_config_set_all(cfg, kv, 1, &err) == CT_OK);
    o.cfg = cfg;
    rc = ct_trace_open_mem(&t, name, odd, sizeof odd, &o, &err);
    if (rc == CT_OK) {
        ct_batch_init(&b, 64);
        while ((rc = ct_trace_next(t, &b, &err)) > 0)
            ;
    }
    CHECK(rc < 0);
    CHECK_STR_CONTAINS(err.msg, "partial word");
    CHECK(strstr(err.msg, "containers=no") == NULL);
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
    remove(name);
}

TEST(din_writer_round_trips)
{
    char path[512];
    FILE *f;
    ct_trace *t = NULL;
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    const char *in[1] = {"gen:random:n=3000,footprint=16K,writes=30,seed=3,size=4"};
    summary orig, back;
    ct_writer w;

    snprintf(path, sizeof path, "%s/rt.din", tmpdir);
    f = fopen(path, "w");
    w = (ct_writer){harness_file_write, f, 0};
    CHECK(ct_trace_open(&t, in, 1, NULL, &err) == CT_OK);
    CHECK(ct_trace_writer_open(&tw, "din", &w, &err) == CT_OK);
    ct_batch_init(&b, 100);
    while (ct_trace_next(t, &b, &err) > 0)
        CHECK(ct_trace_writer_put(tw, &b, &err) == CT_OK);
    CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
    fclose(f);
    ct_trace_close(t);
    ct_batch_free(&b);
    orig = decode(in[0], NULL, 0);
    back = decode(path, NULL, 0);
    CHECK_EQ_U64(back.n, orig.n);
    CHECK_EQ_U64(back.addr_sum, orig.addr_sum);
    CHECK_EQ_U64(back.kind[CT_STORE], orig.kind[CT_STORE]);
    CHECK(ct_trace_writer_open(&tw, "nosuch", &w, &err) == CT_E_USAGE);
}

/* A growing memory buffer as a ct_writer target. */
typedef struct membuf_file {
    char *p;
    size_t n, cap;
} membuf_file;

static int membuf_write(void *ctx, const char *data, size_t len)
{
    membuf_file *m = ctx;
    if (m->n + len > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 65536;
        char *q;
        while (cap < m->n + len)
            cap *= 2;
        if (!(q = realloc(m->p, cap)))
            return -1;
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return 0;
}

/* ---- read-ahead ---------------------------------------------------------------- */

/* What a whole read gives, batch boundaries aside: a hash of every access
 * and every marker (with its place in the stream), the counts, the final
 * code and message, and the code of one more call after the end. */
typedef struct read_hash {
    uint64_t h, n, nmk;
    int rc, again;
    char msg[CT_ERRMSG_MAX];
} read_hash;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

/* Read path with [trace] readahead on or off; after each batch the caller
 * works `busy` rounds over it (0: it only counts, as cachet info does). */
static read_hash read_hashed(const char *path, int readahead, unsigned busy)
{
    read_hash r;
    ct_config *cfg = NULL;
    ct_trace *t = NULL;
    ct_trace_opts o = {0};
    ct_error err = {0};
    ct_batch b = {0};
    const char *paths[1] = {path};
    volatile uint64_t sink = 0;

    memset(&r, 0, sizeof r);
    r.h = 0xcbf29ce484222325ull;
    CHECK(ct_config_new_default(&cfg, &err) == CT_OK);
    CHECK(ct_config_set(cfg, readahead ? "trace.readahead=yes" : "trace.readahead=no", &err) ==
          CT_OK);
    o.cfg = cfg;
    r.rc = ct_trace_open(&t, paths, 1, &o, &err);
    if (r.rc == CT_OK) {
        ct_batch_init(&b, 1000);
        while ((r.rc = ct_trace_next(t, &b, &err)) > 0) {
            for (uint32_t i = 0; i < b.nmk; i++) {
                ct_marker m = b.mk[i];
                m.index += (uint32_t)r.n;
                r.h = fnv(r.h, &m, sizeof m);
            }
            r.h = fnv(r.h, b.acc, b.n * sizeof *b.acc);
            r.n += b.n;
            r.nmk += b.nmk;
            for (unsigned k = 0; k < busy; k++)
                for (uint32_t i = 0; i < b.n; i++)
                    sink += b.acc[i].vaddr * (k + 1);
        }
        if (r.rc < 0)
            snprintf(r.msg, sizeof r.msg, "%s", err.msg);
        r.again = ct_trace_next(t, &b, &err);
    }
    (void)sink; /* the busy work's only result */
    ct_batch_free(&b);
    ct_trace_close(t);
    ct_config_free(cfg);
    return r;
}

/* A ctr file of n accesses in 3 threads, a timestamp marker every 7
 * accesses and a thread exit now and then; cut_bytes bytes cut off its end. */
static const char *ctr_with_markers(const char *name, uint32_t n, size_t cut_bytes)
{
    static char path[2][512];
    static int slot;
    char *p = path[slot++ % 2];
    membuf_file mf = {NULL, 0, 0};
    ct_writer w = {membuf_write, &mf, 0};
    ct_trace_writer *tw = NULL;
    ct_batch b = {0};
    ct_error err = {0};
    FILE *f;

    CHECK(ct_trace_writer_open(&tw, "ctr-raw", &w, &err) == CT_OK);
    ct_batch_init(&b, 4096);
    for (uint32_t i = 0; i < n; i++) {
        ct_access *a = &b.acc[b.n];
        if (i % 7 == 0)
            b.mk[b.nmk++] = (ct_marker){.index = b.n, .type = CT_MK_TIMESTAMP, .time = i,
                                        .value2 = 3 * i};
        if (i % 20011 == 20010)
            b.mk[b.nmk++] = (ct_marker){.index = b.n, .type = CT_MK_THREAD_EXIT,
                                        .thread = 1 + (i / 5000) % 3};
        memset(a, 0, sizeof *a);
        a->kind = i % 3 ? CT_LOAD : CT_IFETCH;
        a->vaddr = i % 3 ? 0x10000000u + (i * 2654435761u) % 65536 : 0x400000u + 4u * i;
        a->pc = 0x400000u + 4u * (i - i % 3);
        a->time = i;
        a->size = 4;
        a->thread = 1 + (i / 5000) % 3;
        if (++b.n == b.cap - 1 || b.nmk + 2 >= b.mkcap || i + 1 == n) {
            CHECK(ct_trace_writer_put(tw, &b, &err) == CT_OK);
            ct_batch_clear(&b);
        }
    }
    CHECK(ct_trace_writer_finish(tw, &err) == CT_OK);
    ct_batch_free(&b);
    snprintf(p, 512, "%s/%s", tmpdir, name);
    f = fopen(p, "wb");
    CHECK(f && mf.n > cut_bytes && fwrite(mf.p, 1, mf.n - cut_bytes, f) == mf.n - cut_bytes);
    if (f)
        fclose(f);
    free(mf.p);
    return p;
}

static void same_read(const read_hash *a, const read_hash *b)
{
    CHECK_EQ_U64(a->n, b->n);
    CHECK_EQ_U64(a->nmk, b->nmk);
    CHECK(a->h == b->h);
    CHECK_EQ_U64((uint64_t)(int64_t)a->rc, (uint64_t)(int64_t)b->rc);
    CHECK_EQ_U64((uint64_t)(int64_t)a->again, (uint64_t)(int64_t)b->again);
    CHECK(strcmp(a->msg, b->msg) == 0);
}

TEST(read_ahead_gives_what_a_direct_read_gives)
{
    /* hundreds of batches: the read-ahead thread is measured, and stopped
     * when the caller only counts (its batches are handed out first), or
     * kept when the caller works on each batch */
    const char *gen = "gen:random:n=200000,footprint=64K,writes=25,seed=9";
    const char *good = ctr_with_markers("ra.ctr", 300000, 0);
    const char *cut = ctr_with_markers("ra-cut.ctr", 300000, 5);
    const char *inputs[3] = {gen, good, cut};

    for (int i = 0; i < 3; i++) {
        read_hash direct = read_hashed(inputs[i], 0, 0);
        read_hash idle = read_hashed(inputs[i], 1, 0);
        read_hash busy = read_hashed(inputs[i], 1, 40);
        CHECK(direct.n >= 300000);
        CHECK_EQ_U64((uint64_t)(int64_t)direct.again, (uint64_t)(int64_t)direct.rc);
        same_read(&idle, &direct);
        same_read(&busy, &direct);
    }
    {
        read_hash g = read_hashed(good, 0, 0), c = read_hashed(cut, 0, 0);
        CHECK_EQ_U64(g.rc, 0);
        CHECK_EQ_U64(g.nmk, 300000 / 7 + 1 + 300000 / 20011);
        CHECK(c.rc == CT_E_FORMAT);
        CHECK_STR_CONTAINS(c.msg, "truncated");
    }
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    RUN(din_decodes_every_label);
    RUN(din_strict_errors_name_line_and_column);
    RUN(din_lenient_skips_and_counts);
    RUN(din_every_address_form_decodes_exactly);
    RUN(din_errors_inside_long_files);
    RUN(empty_and_missing_inputs);
    RUN(gzip_source);
    RUN(zstd_source);
    RUN(compress_source_with_width_changes_and_clears);
    RUN(generators_are_deterministic_and_bounded);
    RUN(oversized_accesses_are_damaged_records);
    RUN(a_memory_input_never_opens_a_file_of_its_name);
    RUN(din_writer_round_trips);
    RUN(read_ahead_gives_what_a_direct_read_gives);
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return harness_done();
}
