/*
 * cli.h - what the cachet commands share: exit codes, option helpers,
 * configuration loading, output files written atomically.
 *
 * The commands use the public API (cachet/cachet.h) only.
 */
#ifndef CT_CLI_H
#define CT_CLI_H

#include <stdio.h>

#include "cachet/cachet.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_INPUT = 2, EXIT_MISMATCH = 3 };

/* Map a library status to an exit status (usage errors 1, others 2). */
int cli_exit_for(int code);

/* Print "cachet: MESSAGE" to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Report err (with its own message) and return the matching exit status. */
int cli_fail(const ct_error *err);

/* Report that the trace (paths[0], or "one of the traces" when npaths > 1)
 * hides its addresses, so that it cannot be `what` ("simulated", "written
 * as din"), and return EXIT_INPUT. */
int cli_masked(int npaths, char *const *paths, const char *what);
/* The inputs named for a message: "a", "a, b" ... (cut to fit buf). */
const char *cli_inputs(char *buf, size_t n, int npaths, char *const *paths);

/* Options every simulating command takes: -c FILE, -s key=value, -f FORMAT,
 * --lenient. */
typedef struct cli_common {
    const char *config_path;
    const char *sets[64];
    int nsets;
    const char *format;
    int lenient;
    int drcachesim;   /* no -c: start from drcachesim's default hierarchy (run --compat) */
} cli_common;

/* Take option c (as getopt_long returned it, with its argument arg) when it
 * is one of the common ones ('c', 's', 'f', 'L' for --lenient): 1 taken,
 * 0 not one of them, -1 refused (the message is printed). */
int cli_common_option(cli_common *o, int c, const char *arg);

/* The next option of a command: getopt_long over shorts and longs (set
 * optind = 1 before the first call). The common options are taken into co
 * (unless co is NULL: a command without them); -h/--help prints help to
 * stdout. Returns an option for the command to take (its character), or
 * CLI_OPT_END after the last option, or CLI_OPT_STOP with *status set:
 * EXIT_OK after --help, EXIT_USAGE after an unknown or refused option (the
 * message and, for an unknown one, help are printed on stderr). */
enum { CLI_OPT_END = -1, CLI_OPT_STOP = -2 };
struct option;
int cli_option(int argc, char **argv, const char *shorts, const struct option *longs,
               cli_common *co, void (*help)(FILE *), int *status);

/* A count given to an option: decimal digits only (no sign), at most max.
 * 0, or -1 when arg is not one. */
int cli_count(const char *arg, uint64_t max, uint64_t *out);

/* Load the configuration: the file (or the built-in default, or with
 * drcachesim set drcachesim's default hierarchy) plus -s settings.
 * Returns CT_OK or fills err. */
int cli_load_config(const cli_common *o, ct_config **out, ct_error *err);

/* Open the traces paths[0..n) as one and a batch to read them into.
 * Returns CT_OK or fills err (the caller closes and frees both either way). */
int cli_open_trace(ct_trace **t, ct_batch *b, char *const *paths, int n,
                   const ct_trace_opts *to, ct_error *err);

/* An output file, opened, written and put in place by the rules stated
 * once at the top of cli_out.c ("-" is stdout; regular files are written
 * to an exclusive temporary name and renamed on commit; devices, FIFOs and
 * /dev/stdout are written directly; every write is checked). */
typedef struct cli_out {
    FILE *f;
    char path[4096];     /* the name asked for */
    char target[4096];   /* that name after its symbolic links */
    char tmp[4200];      /* the temporary name (not direct) */
    int is_stdout;
    int direct;          /* written in place: a device, a FIFO, /dev/stdout */
    int werr;            /* errno of the first failed write, 0 */
    ct_writer w;         /* writes to f; its ctx is this cli_out */
} cli_out;

int cli_out_open(cli_out *o, const char *path, ct_error *err);
int cli_out_commit(cli_out *o, ct_error *err);   /* close and rename */
void cli_out_abort(cli_out *o);                  /* close and remove */
/* Put what was written so far under the name (flush, rename) and keep the
 * file open: later writes append to it in place (the sweep's journal). */
int cli_out_publish(cli_out *o, ct_error *err);
/* 1 with "NAME: write error: REASON" in err when a write to o has failed,
 * else 0 (err untouched). */
int cli_out_failed(cli_out *o, ct_error *err);

/* Refuse (a usage message printed, -1) when two of outs[0..nouts) (NULL
 * entries skipped) are the same file or one is among ins[0..nins); else 0. */
int cli_out_distinct(const char *const *outs, int nouts, char *const *ins, int nins);

/* Flush stdout and check it for errors once the command is done: returns
 * status, or EXIT_INPUT (with a message) when stdout lost output. */
int cli_stdout_close(int status);

/* A writer on stdout, and on any open FILE. */
ct_writer cli_stdout_writer(void);
ct_writer cli_file_writer(FILE *f);

/* 1 once SIGINT or SIGTERM arrived (after cli_catch_signals). The first
 * signal only sets the flag, so that the command stops cleanly; a second
 * one ends the process (outputs are still under their temporary names). */
void cli_catch_signals(void);
int cli_interrupted(void);
/* cli_interrupted as the library's stop callback (ctx unused). */
int cli_stop_requested(void *ctx);

/* Size of a trace in bytes: a file's size, the total of a directory's files,
 * 0 when unknown (stdin, generators). */
uint64_t cli_file_size(const char *path);

/* What identifies an input (sweep --resume checks it): its size, its
 * modification time (ns) and a hash of its first and last MiB (all of it up
 * to 2 MiB) and name; for a trace directory, of its regular files two
 * levels down (sizes summed, the latest time, hashes summed). All 0 for
 * stdin and for a name that is not a file (gen:...). */
typedef struct cli_identity {
    uint64_t size, mtime, hash;
} cli_identity;
void cli_file_identity(const char *path, cli_identity *id);

/* Monotonic seconds. */
double cli_now(void);

/* A progress line on stderr while a long input is read, shown only when
 * stderr is a terminal (never in files or pipes) and not quiet, redrawn at
 * most twice a second: "12.3 M accesses  1.2 M records  21.4 M accesses/s
 * 37%  5 s left", the share and time left only when the input's size is
 * known. cli_progress_end erases it. */
typedef struct cli_progress {
    int on;
    int shown;
    double t0, next;
} cli_progress;

void cli_progress_start(cli_progress *p, int quiet);
void cli_progress_update(cli_progress *p, const ct_trace *t, uint64_t accesses);
void cli_progress_end(cli_progress *p);

/* Commands. */
int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_plot(int argc, char **argv);

#endif
