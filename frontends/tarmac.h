/*
 * tarmac.h - the Tarmac line scanner, shared by the Tarmac format and its
 * ISP RAS Trace Matcher dialect (internal).
 *
 * Both formats are one decoder (tarmac.c) run in one of two dialects; the
 * differences are listed at the top of tarmac.c. Each format file adds its
 * own probe and registry entry.
 */
#ifndef CT_TARMAC_H
#define CT_TARMAC_H

#include <stddef.h>
#include <stdint.h>

#include "frontend.h"

enum ct_tarmac_dialect {
    CT_TARMAC_ARM = 0,  /* Fast Models and the producers that imitate it */
    CT_TARMAC_TM = 1    /* ISP RAS Trace Matcher (and MicroTESK, QEMU4V) */
};

/* Most batch slots (of each kind) one line can use: an LD/ST line gives at
 * most 8 runs of accessed bytes. */
#define CT_TARMAC_MAX_PER_LINE 8

int ct_tarmac_open(void **st, ct_stream *s, int dialect, ct_error *err);
int ct_tarmac_next(void *st, ct_batch *b, ct_error *err);
void ct_tarmac_close(void *st);

/* Lines in head[0..n) that read as Tarmac of the dialect (`known`) and that
 * do not (`unknown`); the last, possibly cut, line is not looked at. For
 * CT_TARMAC_TM, `known` counts only instruction records with a numeric cpu,
 * the one shape that tells the dialect apart. */
void ct_tarmac_probe_count(const uint8_t *head, size_t n, int dialect, unsigned *known,
                           unsigned *unknown);

/* The address of the instruction that runs after a traced one, from its
 * disassembly (the text after "<iset> <mode> :"), for the end-of-trace fetch
 * ([trace] tarmac_next_fetch). `skipped` is 1 for an instruction that failed
 * its condition. Returns 1 with *next set, or 0 when the disassembly does
 * not tell (indirect branches, returns, exception-generating instructions,
 * writes to pc, compare-and-branch). */
int ct_tarmac_next_pc(const char *disasm, size_t len, uint64_t pc, uint32_t size, int skipped,
                      uint64_t *next);

#endif
