/*
 * main.c - `cuzk`, the offline toolbox: Groth16 setup, prove, verify,
 * the native check of PoRep C1 outputs, parameter file information and
 * snarkjs interoperability. Each command lives in its own file and has
 * --help; errors name the file and the position, and the exit code says
 * what happened (cli.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Two-word commands before the one-word ones they start with. */
static const cli_command *const commands[] = {
    &cli_prove_porep,
    &cli_verify_porep,
    &cli_verify_vanilla_porep,
    &cli_verify_vanilla_winning,
    &cli_verify_vanilla_window,
    &cli_verify_vanilla_update,
    &cli_setup,
    &cli_prove,
    &cli_verify,
    &cli_params_info,
    &cli_snarkjs_prove,
    &cli_snarkjs_verify,
    &cli_snarkjs_import,
    &cli_snarkjs_setup,
    &cli_circuit_info,
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_fail(const cuzk_err *err)
{
    fprintf(stderr, "cuzk: %s\n", err->msg);
    return CLI_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuzk %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see cuzk %s --help)\n", cmd);
    va_end(ap);
    return CLI_ERROR;
}

bool cli_wants_help(int argc, char **argv, const cli_command *c)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("%s", c->usage);
            return true;
        }
    return false;
}

static void overview(FILE *out)
{
    fprintf(out, "usage: cuzk COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-20s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\n`cuzk COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        overview(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_ERROR : CLI_OK;
    }
    /* Two-word commands ("snarkjs prove") are matched on both words. */
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const char *name = commands[i]->name, *space = strchr(name, ' ');
        if (!space && !strcmp(argv[1], name)) return commands[i]->run(argc - 1, argv + 1);
        if (space && argc >= 3 && !strncmp(argv[1], name, (size_t)(space - name)) &&
            argv[1][space - name] == 0 && !strcmp(argv[2], space + 1))
            return commands[i]->run(argc - 2, argv + 2);
    }
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    overview(stderr);
    return CLI_ERROR;
}
