/*
 * circuit.c - `cuzk circuit-info`: the size of a Filecoin circuit (one
 * partition) as the counter backend measures it, without values: the
 * constraints (as reference/filecoin.md and TestConstraintSystem count
 * them, and with the input constraints bellperson's prover appends), aux
 * and input variables (ONE included), the density popcounts the
 * parameter file sizes follow from, and the R1CS fingerprint (r1cs.h).
 * Memory stays bounded whatever the size (the counter keeps one bit per
 * variable), so the 32GiB PoRep partition is counted in minutes.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/update_circuit.h"

/* The blank circuit of every kind; the one in use is set by blank_circuit. */
typedef struct blank {
    porep_circuit porep;
    post_circuit post;
    update_circuit update;
} blank;

static const char *const KINDS[] = {"porep", "winning-post", "window-post", "update"};
#define N_KINDS (sizeof(KINDS) / sizeof(KINDS[0]))

static int blank_circuit(cs_circuit *out, blank *b, int kind, uint64_t size, cuzk_err *err)
{
    int rc;
    if (kind == 0) {
        porep_shape s;
        if (!(rc = porep_shape_for_size(&s, size, err)))
            porep_circuit_blank(&b->porep, &s), *out = porep_circuit_get(&b->porep);
    } else if (kind == 3) {
        update_shape s;
        if (!(rc = update_shape_for_size(&s, size, err)))
            update_circuit_blank(&b->update, &s), *out = update_circuit_get(&b->update);
    } else {
        post_shape s;
        int pk = kind == 1 ? VANILLA_POST_WINNING : VANILLA_POST_WINDOW;
        if (!(rc = post_shape_for_size(&s, pk, size, err)))
            post_circuit_blank(&b->post, &s), *out = post_circuit_get(&b->post);
    }
    return rc;
}

static void print_counts(const cs_counts *k, const char *kind, const char *size, double secs,
                         bool json)
{
    char fp[65];
    for (int i = 0; i < 32; i++) snprintf(fp + 2 * i, 3, "%02x", k->fingerprint[i]);
    size_t circuit = k->num_constraints - k->num_inputs;
    if (json) {
        printf("{\"kind\":\"%s\",\"sector_size\":\"%s\",\"constraints\":%zu,"
               "\"constraints_with_inputs\":%zu,\"aux\":%zu,\"inputs\":%zu,\"a_aux_density\":%zu,"
               "\"b_input_density\":%zu,\"b_aux_density\":%zu,\"fingerprint\":\"%s\","
               "\"seconds\":%.2f}\n",
               kind, size, circuit, k->num_constraints, k->num_aux, k->num_inputs, k->a_aux_density,
               k->b_input_density, k->b_aux_density, fp, secs);
        return;
    }
    printf("circuit             %s %s\n", kind, size);
    printf("constraints         %zu (%zu with the %zu input constraints)\n", circuit,
           k->num_constraints, k->num_inputs);
    printf("aux                 %zu\ninputs              %zu (ONE included)\n", k->num_aux,
           k->num_inputs);
    printf("a_aux_density       %zu\nb_input_density     %zu\nb_aux_density       %zu\n",
           k->a_aux_density, k->b_input_density, k->b_aux_density);
    printf("fingerprint         %s\ncounted in          %.2f s\n", fp, secs);
}

static int parse_kind(const char *s)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (!strcmp(s, KINDS[i])) return (int)i;
    return -1;
}

static int circuit_info_run(int argc, char **argv)
{
    static const struct option longs[] = {
        {"kind", 1, 0, 'k'}, {"sector-size", 1, 0, 's'}, {"json", 0, 0, 'j'}, {0, 0, 0, 0}};
    const char *cmd = "circuit-info", *kind_s = NULL, *size_s = NULL;
    bool json = false;
    if (cli_wants_help(argc, argv, &cli_circuit_info)) return CLI_OK;
    optind = 1, opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
        if (c == 'k')
            kind_s = optarg;
        else if (c == 's')
            size_s = optarg;
        else if (c == 'j')
            json = true;
        else
            return cli_usage_error(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
    }
    if (optind != argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!kind_s || !size_s) return cli_usage_error(cmd, "--kind and --sector-size are required");
    int kind = parse_kind(kind_s);
    if (kind < 0) return cli_usage_error(cmd, "unknown kind '%s'", kind_s);
    cuzk_err err = {0};
    uint64_t size;
    blank b;
    cs_circuit circuit;
    if (cuzk_parse_size(size_s, &size, &err) || blank_circuit(&circuit, &b, kind, size, &err))
        return cli_fail(&err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cs_counts k;
    if (cs_count(&k, circuit, &err)) return cli_fail(&err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    print_counts(&k, kind_s, size_s, secs, json);
    return CLI_OK;
}

const cli_command cli_circuit_info = {
    "circuit-info",
    circuit_info_run,
    "sizes and R1CS fingerprint of a Filecoin circuit",
    "usage: cuzk circuit-info --kind KIND --sector-size SIZE [--json]\n"
    "\n"
    "Synthesizes one partition of a Filecoin circuit without values through the\n"
    "counter backend (bounded memory) and prints its sizes:\n"
    "  constraints      the circuit's constraints (TestConstraintSystem's count;\n"
    "                   with bellperson's one input constraint per input too)\n"
    "  aux, inputs      variables (inputs include ONE)\n"
    "  a_aux_density, b_input_density, b_aux_density\n"
    "                   popcounts: the A, B_G1/B_G2 parameter lengths follow\n"
    "  fingerprint      SHA-256 of the whole R1CS (r1cs.h cs_count)\n"
    "\n"
    "  --kind KIND         porep, winning-post, window-post or update\n"
    "  --sector-size SIZE  2KiB, 8MiB, 512MiB, 32GiB, 64GiB (update: also smaller)\n"
    "  --json              one JSON object instead of the table\n",
};
