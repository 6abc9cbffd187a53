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

#define CACHET_VERSION "0.1.0"

#endif
