/*
 * tracematcher.c - ISP RAS Trace Matcher text traces (also written by
 * MicroTESK and QEMU4V): a restricted Tarmac with three record kinds,
 *
 *   <time> <scale> <cpu> IT|IS (<index>) <addr> <opcode> <iset> <mode> : <disasm>
 *   <time> <scale> M<R|W><size>[X|T] <addr> <data>
 *   <time> <scale> R <register> <value>
 *
 * read by the Tarmac scanner in its Trace Matcher dialect (the differences
 * are listed at the top of tarmac.c): the cpu is a bare decimal, memory
 * records belong to the last instruction record's cpu, attribute X means
 * privileged. Accesses are as for Tarmac: one ifetch of opcode digits / 2
 * bytes per instruction record, one load or store per memory record.
 */
#include "tarmac.h"

/* Confident only when instruction records carry a numeric cpu, the shape
 * that a plain Tarmac trace never has. */
static int tm_probe(const uint8_t *h, size_t n)
{
    unsigned known, unknown;
    ct_tarmac_probe_count(h, n, CT_TARMAC_TM, &known, &unknown);
    return known > 0 && unknown <= known ? 90 : 0;
}

static int tm_open(void **st, ct_stream *s, ct_error *err)
{
    return ct_tarmac_open(st, s, CT_TARMAC_TM, err);
}

const ct_format_ops ct_format_tracematcher = {
    .name = "tracematcher",
    .desc = "ISP RAS Trace Matcher text (a Tarmac subset; MicroTESK, QEMU4V)",
    .max_per_record = CT_TARMAC_MAX_PER_LINE,
    .default_schedule = CT_SCHED_CPUS,
    .probe = tm_probe,
    .open = tm_open, .next = ct_tarmac_next, .close = ct_tarmac_close,
};
