/*
 * verify_vanilla_post.c - `cuzk verify-vanilla winning-post | window-post
 * --sector-size SIZE --vanilla FILE --randomness HEX`: the native check of
 * PoSt vanilla proofs (post_verify.h) that the daemon runs before
 * synthesis, as a command, over a vanilla file in Curio's format (a JSON
 * array of base64 FallbackPoStSectorProof blobs, as cuzk-bench gen-vanilla
 * writes it) and with the value flags of `cuzk prove --kind`. A Window
 * PoSt file may hold several partitions' sectors: sector i is index i of
 * the proving set (V1's challenge indexing). Blobs are read for their
 * shape only (VANILLA_POST_UNCHECKED), so every inconsistency is reported
 * by the check with its sector and challenge. Exit status: 0 the proofs
 * check, 1 they do not (the first failure named), 2 bad usage or
 * unreadable input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_verify.h"

typedef struct post_job {
    const char *cmd;
    int kind; /* enum vanilla_post_kind */
    uint64_t size;
    post_shape shape;
    fc_post_request req;
    vanilla_node rnd;
    vanilla_blobs blobs;
    size_t n;
    vanilla_post_sector *sectors;
} post_job;

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* --randomness: 64 hex digits (optional 0x), a canonical field element. */
static int parse_randomness(post_job *j, const char *hex)
{
    if (!hex) return cli_usage_error(j->cmd, "missing --randomness");
    if (!strncmp(hex, "0x", 2)) hex += 2;
    if (strlen(hex) != 64 || !vanilla_node_from_hex(&j->rnd, hex))
        return cli_usage_error(j->cmd, "--randomness takes 64 hex digits (32 bytes)");
    if (!vanilla_node_canonical(&j->rnd))
        return cli_usage_error(j->cmd, "--randomness is not a canonical field element (>= r)");
    return CLI_OK;
}

/* --registered-proof: Winning V1; Window V1_2 (FIP-0061, the default) or V1. */
static int parse_api(post_job *j, const char *proof)
{
    bool win = j->kind == VANILLA_POST_WINNING;
    j->req.api_version = win ? FC_API_V1_1 : FC_API_V1_2;
    if (!proof || !strcmp(proof, win ? "V1" : "V1_2")) return CLI_OK;
    if (!win && !strcmp(proof, "V1")) {
        j->req.api_version = FC_API_V1_1;
        return CLI_OK;
    }
    return cli_usage_error(j->cmd, "--registered-proof takes %s, not '%s'",
                           win ? "V1" : "V1_2 or V1", proof);
}

static int job_options(post_job *j, const cli_opts *o)
{
    cuzk_err err = {0};
    if (cli_need(j->cmd, o->sector_size, "--sector-size") ||
        cli_need(j->cmd, o->vanilla, "--vanilla"))
        return CLI_ERROR;
    if (cuzk_parse_size(o->sector_size, &j->size, &err) ||
        post_shape_for_size(&j->shape, j->kind, j->size, &err))
        return cli_fail(&err);
    j->req = (fc_post_request){.kind = j->kind, .shape = &j->shape, .randomness = j->rnd.b};
    return parse_api(j, o->registered_proof) || parse_randomness(j, o->randomness) ? CLI_ERROR
                                                                                   : CLI_OK;
}

/* The sector proofs of the file, shapes checked. */
static int read_sectors(post_job *j, const char *path, cuzk_err *err)
{
    if (vanilla_blobs_read(&j->blobs, path, err)) return err->code;
    if (!j->blobs.n) return cuzk_errf(err, CUZK_EINVAL, "%s: no sector proofs", path);
    if (j->kind == VANILLA_POST_WINNING && j->blobs.n != 1)
        return cuzk_errf(err, CUZK_EINVAL, "%s: %zu sector proofs, Winning PoSt proves one sector",
                         path, j->blobs.n);
    if (!(j->sectors = calloc(j->blobs.n, sizeof *j->sectors)))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < j->blobs.n; i++, j->n++)
        if (vanilla_post_sector_parse(&j->sectors[i], j->kind | VANILLA_POST_UNCHECKED, j->size,
                                      j->blobs.data[i], j->blobs.len[i], err))
            return cuzk_err_prefix(err, "%s: sector proof %zu: ", path, i);
    return CUZK_OK;
}

static int check(post_job *j, const char *path)
{
    cuzk_err err = {0};
    if (read_sectors(j, path, &err)) return cli_fail(&err);
    double t0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    int rc = fc_post_vanilla_verify(&j->req, j->sectors, j->n, &err);
    double wall = seconds(CLOCK_MONOTONIC) - t0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID: %s: %s\n", path, err.msg);
        return CLI_INVALID;
    }
    if (rc) return cuzk_err_prefix(&err, "%s: ", path), cli_fail(&err);
    printf("OK: %s (%s PoSt %s, %zu sector%s x %zu challenges) checks in %.3f s, %.3f CPU-s\n",
           path, j->kind == VANILLA_POST_WINNING ? "Winning" : "Window",
           vanilla_shape_for_size(j->size)->name, j->n, j->n == 1 ? "" : "s",
           j->sectors[0].n_proofs, wall, cpu);
    return CLI_OK;
}

static int run(int argc, char **argv, int kind, const cli_command *c)
{
    cli_opts o;
    post_job j = {.cmd = c->name, .kind = kind};
    if (cli_wants_help(argc, argv, c)) return CLI_OK;
    if (cli_parse(argc, argv, c->name, &o)) return CLI_ERROR;
    int rc = job_options(&j, &o);
    if (!rc) rc = check(&j, o.vanilla);
    for (size_t i = 0; i < j.n; i++) vanilla_post_sector_free(&j.sectors[i]);
    free(j.sectors);
    vanilla_blobs_free(&j.blobs);
    return rc;
}

static int winning_run(int argc, char **argv)
{
    return run(argc, argv, VANILLA_POST_WINNING, &cli_verify_vanilla_winning);
}

static int window_run(int argc, char **argv)
{
    return run(argc, argv, VANILLA_POST_WINDOW, &cli_verify_vanilla_window);
}

#define POST_CHECKS                                                                                \
    "Checks natively, sectors and challenges in parallel, everything the PoSt\n"                   \
    "circuit will enforce on the sector proofs (a JSON array of base64\n"                          \
    "FallbackPoStSectorProof blobs, as Curio and cuzk-bench gen-vanilla write them):\n"            \
    "per sector the proof count and tree-R geometry of the size and comm_r =\n"                    \
    "Poseidon(comm_c, comm_r_last); per challenge the opened leaf against the one\n"               \
    "derived from the randomness, the sector id and the challenge index, and the\n"                \
    "leaf's tree-R path against comm_r_last. The daemon runs the same check on\n"                  \
    "every PoSt request.\n"                                                                        \
    "Exit status: 0 the proofs check, 1 they do not (the first failure is named by\n"              \
    "sector, challenge and leaf), 2 bad usage or unreadable input.\n"

const cli_command cli_verify_vanilla_winning = {
    "verify-vanilla winning-post", winning_run,
    "check a Winning PoSt vanilla proof natively, as the circuit will",
    "usage: cuzk verify-vanilla winning-post --sector-size SIZE --vanilla FILE\n"
    "           --randomness HEX [--registered-proof V1]\n\n" POST_CHECKS};

const cli_command cli_verify_vanilla_window = {
    "verify-vanilla window-post", window_run,
    "check Window PoSt vanilla proofs natively, as the circuit will",
    "usage: cuzk verify-vanilla window-post --sector-size SIZE --vanilla FILE\n"
    "           --randomness HEX [--registered-proof V1_2|V1]\n\n"
    "The file's sector i is sector i of the proving set (V1 indexes challenges by\n"
    "it; V1_2, FIP-0061 and the default, does not).\n\n" POST_CHECKS};
