/*
 * circuit.c - `cuzk circuit-info`: the size of a Filecoin circuit (one
 * partition) as the counter backend measures it, without values: the
 * constraints (as reference/filecoin.md and TestConstraintSystem count
 * them, and with the input constraints bellperson's prover appends), aux
 * and input variables (ONE included), the density popcounts the
 * parameter file sizes follow from, and the R1CS fingerprint (r1cs.h).
 * Memory stays bounded whatever the size (the counter keeps one bit per
 * variable), so the 32GiB PoRep partition is counted in minutes. With
 * --shape the circuit's shape (cs_shape: A, B, C in about five bytes an
 * entry) is recorded too, its fingerprint checked against the counter's,
 * and its entries, bytes and recording time printed (a 32GiB PoRep
 * partition's shape takes about 5 GB).
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
#include "r1cs/shape.h"

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

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* The shape of circuit recorded and checked against the counts k. */
static int print_shape(cs_circuit circuit, const cs_counts *k, bool json, cuzk_err *err)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cs_shape *s;
    int rc = cs_shape_record(&s, circuit, err);
    if (rc) return rc;
    double secs = seconds_since(&t0);
    uint8_t fp[32];
    cs_shape_fingerprint(s, fp);
    if (memcmp(fp, k->fingerprint, 32)) {
        cs_shape_free(s);
        return cuzk_errf(err, CUZK_EINVAL,
                         "circuit-info: the shape's fingerprint differs from the "
                         "counter's");
    }
    size_t e[3], esc = 0;
    for (int i = 0; i < 3; i++) e[i] = s->m[i].nnz, esc += s->m[i].n_esc;
    size_t nnz = e[0] + e[1] + e[2], bytes = cs_shape_bytes(s);
    if (json)
        printf("{\"shape_entries\":[%zu,%zu,%zu],\"shape_escaped\":%zu,\"shape_values\":%zu,"
               "\"shape_bytes\":%zu,\"shape_seconds\":%.2f}\n",
               e[0], e[1], e[2], esc, s->n_vals, bytes, secs);
    else
        printf("shape               %zu entries (A %zu, B %zu, C %zu), %zu escaped to %zu "
               "values\n                    %zu bytes (%.2f an entry), recorded in %.2f s\n",
               nnz, e[0], e[1], e[2], esc, s->n_vals, bytes, nnz ? (double)bytes / nnz : 0.0, secs);
    cs_shape_free(s);
    return 0;
}

static int parse_kind(const char *s)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (!strcmp(s, KINDS[i])) return (int)i;
    return -1;
}

static int circuit_info_run(int argc, char **argv)
{
    static const struct option longs[] = {{"kind", 1, 0, 'k'},
                                          {"sector-size", 1, 0, 's'},
                                          {"json", 0, 0, 'j'},
                                          {"shape", 0, 0, 'r'},
                                          {0, 0, 0, 0}};
    const char *cmd = "circuit-info", *kind_s = NULL, *size_s = NULL;
    bool json = false, shape = false;
    if (cli_wants_help(argc, argv, &cli_circuit_info)) return CLI_OK;
    optind = 1, opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", longs, NULL)) != -1;) {
        if (c == 'k')
            kind_s = optarg;
        else if (c == 's')
            size_s = optarg;
        else if (c == 'j')
            json = true;
        else if (c == 'r')
            shape = true;
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
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cs_counts k;
    if (cs_count(&k, circuit, &err)) return cli_fail(&err);
    print_counts(&k, kind_s, size_s, seconds_since(&t0), json);
    if (shape && print_shape(circuit, &k, json, &err)) return cli_fail(&err);
    return CLI_OK;
}

const cli_command cli_circuit_info = {
    "circuit-info",
    circuit_info_run,
    "sizes and R1CS fingerprint of a Filecoin circuit",
    "usage: cuzk circuit-info --kind KIND --sector-size SIZE [--json] [--shape]\n"
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
    "  --json              one JSON object instead of the table (a second one for\n"
    "                      the shape)\n"
    "  --shape             also record the circuit's shape (cs_shape, r1cs.h), check\n"
    "                      its fingerprint and print its entries, bytes and time\n",
};
