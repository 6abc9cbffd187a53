/*
 * cachet/cachet.h - the whole public API of libcachet.
 *
 *   error.h   status codes and the error record
 *   access.h  the unified access stream (accesses, markers, events, batches)
 *   config.h  INI configurations checked against one schema
 *   writer.h  the byte sink outputs go through
 *   trace.h   reading traces (sources, detection, scheduling) and writing them
 *   sim.h     the cache hierarchy model and its statistics
 *   report.h  tables, JSON and CSV
 *   validate.h the model against a trace's own cache events; geometry inference
 *   sweep.h   parameter sweeps over shared decodes
 *
 * Link with `pkg-config --cflags --libs cachet`, or in CMake with
 * find_package(cachet) and target_link_libraries(... cachet::cachet).
 * A program that models its own memory traffic (the tests build and run
 * this example against the installed library both ways):
 *
 * --- example begin ---
 *   #include <stdio.h>
 *   #include <cachet/cachet.h>
 *
 *   int main(void)
 *   {
 *       ct_config *cfg = NULL;
 *       ct_sim *sim = NULL;
 *       ct_error err = {0};
 *       ct_kind_stats l1;
 *
 *       if (ct_config_new_default(&cfg, &err) != CT_OK ||
 *           ct_config_set(cfg, "l1d.size=16K", &err) != CT_OK ||
 *           ct_config_set(cfg, "l1d.assoc=4", &err) != CT_OK ||
 *           ct_sim_create(&sim, cfg, &err) != CT_OK) {
 *           fprintf(stderr, "cachet: %s\n", err.msg);
 *           return 1;
 *       }
 *       for (int pass = 0; pass < 2; pass++)
 *           for (uint64_t a = 0x10000; a < 0x12000; a += 8)
 *               ct_sim_feed(sim, CT_LOAD, a, 8, NULL);
 *       ct_sim_finish(sim);
 *       l1 = ct_level_total(ct_sim_level_stats(sim, 0));
 *       printf("%s: %llu accesses, %llu misses\n", ct_sim_level_info(sim, 0)->name,
 *              (unsigned long long)l1.accesses, (unsigned long long)l1.misses);
 *       ct_sim_free(sim);
 *       ct_config_free(cfg);
 *       return l1.accesses == 2048 && l1.misses == 128 ? 0 : 1;
 *   }
 * --- example end ---
 *
 * (8 KiB read twice in 8-byte loads: the first pass misses once per
 * 64-byte line, the second hits.)
 */
#ifndef CACHET_CACHET_H
#define CACHET_CACHET_H

#include "cachet/error.h"
#include "cachet/access.h"
#include "cachet/config.h"
#include "cachet/writer.h"
#include "cachet/trace.h"
#include "cachet/sim.h"
#include "cachet/report.h"
#include "cachet/validate.h"
#include "cachet/sweep.h"

#define CACHET_VERSION "0.1.0"

#endif
