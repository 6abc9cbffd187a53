/*
 * cachet/report.h - results as a text table, JSON and CSV.
 *
 * The library formats results; the caller supplies where the bytes go
 * (a ct_writer), so the library itself never prints. The CSV schema is
 * documented in results/README.md; the JSON object is documented there too.
 */
#ifndef CACHET_REPORT_H
#define CACHET_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/config.h"
#include "cachet/sim.h"
#include "cachet/trace.h"
#include "cachet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Provenance for one run. */
typedef struct ct_run_meta {
    const char *config_path;        /* as given by the user ("" = built in) */
    const char *const *traces;      /* trace paths as given */
    size_t ntraces;
    const uint64_t *trace_sizes;    /* bytes on disk per trace (may be NULL) */
    const char *format;             /* detected format */
    double seconds;                 /* wall time of the simulation (0: omit) */
} ct_run_meta;

/* Human-readable per-level table. */
int ct_report_table(ct_writer *w, const ct_sim *s, const ct_config *cfg,
                    const ct_run_meta *meta);

/* One JSON object (documented in results/README.md). */
int ct_report_json(ct_writer *w, const ct_sim *s, const ct_config *cfg,
                   const ct_run_meta *meta);

/* CSV: header line (when header != 0) and one row per level. */
int ct_report_csv(ct_writer *w, const ct_sim *s, const ct_config *cfg,
                  const ct_run_meta *meta, int header);

/* The cachet version string ("0.1.0"). */
const char *ct_version(void);

#ifdef __cplusplus
}
#endif
#endif
