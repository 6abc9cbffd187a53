/*
 * main.c - the cachet command: a table of subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"run", cmd_run, "replay traces through a cache hierarchy and report the results"},
    {"info", cmd_info, "decode traces without simulating and count what they hold"},
    {"convert", cmd_convert, "rewrite a trace in another format"},
    {"config", cmd_config, "print a resolved configuration, or the key reference"},
    {"bench", cmd_bench, "measure cachet's own speed on a synthetic trace"},
    {"validate", cmd_validate, "check the model's cache events against Tarmac CACHE lines"},
    {"infer", cmd_infer, "infer cache geometry from Tarmac CACHE lines"},
    {"sweep", cmd_sweep, "run every point of a parameter sweep, decoding each trace once"},
    {"merge", cmd_merge, "join the CSVs of sweep shards into the file one run writes"},
    {"plot", cmd_plot, "draw miss-rate curves of a sweep CSV with gnuplot"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cachet COMMAND [OPTIONS] ...\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-9s %s\n", "help", "describe a command: cachet help COMMAND (as cachet COMMAND --help)");
    fprintf(f, "  %-9s %s\n", "version", "print cachet's version (as cachet --version)");
    fprintf(f, "\n`cachet COMMAND --help` describes a command. Exit status: 0 success, "
               "1 usage error,\n2 bad input or configuration, 3 validation below the "
               "agreement asked for.\n");
}

/* `cachet help --help` and `cachet version --help` (their man pages come
 * from these). */
static void help_help(FILE *f)
{
    fprintf(f, "usage: cachet help [COMMAND]\n\n"
               "Describes COMMAND (the text of cachet COMMAND --help); without one, lists\n"
               "the commands (the text of cachet --help).\n");
}

static void version_help(FILE *f)
{
    fprintf(f, "usage: cachet version\n\n"
               "Prints cachet's version (as cachet --version does).\n");
}

static int is_help(const char *s) { return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0; }

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if ((strcmp(argv[1], "help") == 0 && argc > 2 &&
         (is_help(argv[2]) || strcmp(argv[2], "help") == 0)) ||
        (strcmp(argv[1], "version") == 0 && argc > 2 && is_help(argv[2])) ||
        (strcmp(argv[1], "help") == 0 && argc > 2 && strcmp(argv[2], "version") == 0)) {
        if (strcmp(argv[1], "version") == 0 || strcmp(argv[2], "version") == 0)
            version_help(stdout);
        else
            help_help(stdout);
        return cli_stdout_close(EXIT_OK);
    }
    if (strcmp(argv[1], "help") == 0 && argc > 2) {
        /* `cachet help COMMAND` is `cachet COMMAND --help` */
        static char help_opt[] = "--help";
        char *hargv[] = {argv[2], help_opt, NULL};
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].fn(2, hargv);
        cli_error("unknown command \"%s\" (try cachet --help)", argv[2]);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return cli_stdout_close(EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("cachet %s\n", ct_version());
        return cli_stdout_close(EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return cli_stdout_close(commands[i].fn(argc - 1, argv + 1));
    cli_error("unknown command \"%s\" (try cachet --help)", argv[1]);
    return EXIT_USAGE;
}
