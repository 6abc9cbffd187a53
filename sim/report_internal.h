/*
 * report_internal.h - the CSV row shared by `cachet run` and sweeps
 * (internal). A sweep row is the run row with the sweep's own columns around
 * it, so both files read the same way (schemas in results/README.md).
 */
#ifndef CT_REPORT_INTERNAL_H
#define CT_REPORT_INTERNAL_H

#include <stdint.h>

#include "cachet/report.h"

/* Provenance columns of one row. */
typedef struct ct_csv_prov {
    const char *config;   /* configuration (or sweep) file as given */
    uint64_t hash;        /* ct_config_hash of the resolved configuration */
    const char *traces;   /* trace path(s), ';'-separated */
    uint64_t bytes;       /* their size on disk (0 when unknown) */
    const char *format;
    int classes;          /* 3C computed (miss_classes = yes); else those columns empty */
    int timing;           /* cycles counted (not compat = drcachesim); else cycles, cpi
                             and amat empty */
} ct_csv_prov;

/* Set classes and timing from the configuration of the run. */
void ct_csv_prov_config(ct_csv_prov *p, const ct_config *cfg);

/* One CSV field, quoted when needed, then "," (last == 0), "\n" (last > 0)
 * or nothing (last < 0). */
void ct_csv_field(ct_writer *w, const char *s, int last);

/* The run columns, comma-separated, without a newline. */
void ct_csv_run_header(ct_writer *w);

/* One level's run columns, without a newline: t the run's totals, c the
 * totals of the level's core (NULL for a shared level: the run's). */
void ct_csv_run_fields(ct_writer *w, const ct_csv_prov *p, const ct_level_info *li,
                       const ct_level_stats *st, const ct_sim_totals *t,
                       const ct_core_totals *c);

#endif
