/*
 * verify_vanilla_update.c - `cuzk verify-vanilla update --sector-size SIZE
 * --vanilla FILE --comm-r-old .. --comm-d-new .. --comm-r-new ..`: the
 * native check of a SnapDeals vanilla proof (update_verify.h) that the
 * daemon runs before synthesis, as a command. FILE is Curio's format
 * (cuzk-bench gen-vanilla snap-prove: a JSON array of base64 bincode
 * partition proofs); h is filecoin-proofs' hs[3], as `cuzk prove --kind
 * update` and the daemon take it. Exit status: 0 the proof checks, 1 it
 * does not (the first failure named by partition, challenge and node), 2
 * bad usage or unreadable input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/update_verify.h"

#define CMD "verify-vanilla update"
/* filecoin-proofs SectorUpdateConfig: h = hs(nodes)[3]. */
#define UPDATE_H_INDEX 3

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 64 hex digits (optional 0x): a canonical field element's 32 LE bytes. */
static int parse_node(const char *hex, const char *name, vanilla_node *out)
{
    if (!hex) return cli_usage_error(CMD, "missing %s", name);
    if (!strncmp(hex, "0x", 2)) hex += 2;
    if (strlen(hex) != 64 || !vanilla_node_from_hex(out, hex))
        return cli_usage_error(CMD, "%s takes 64 hex digits (32 bytes)", name);
    if (!vanilla_node_canonical(out))
        return cli_usage_error(CMD, "%s is not a canonical field element (>= r)", name);
    return CLI_OK;
}

static int options(const cli_opts *o, uint64_t *size, update_shape *s, update_public *pub,
                   cuzk_err *err)
{
    if (cli_need(CMD, o->sector_size, "--sector-size") || cli_need(CMD, o->vanilla, "--vanilla"))
        return CLI_ERROR;
    if (cuzk_parse_size(o->sector_size, size, err) || update_shape_for_size(s, *size, err))
        return cli_fail(err);
    pub->h = s->hs[UPDATE_H_INDEX];
    return parse_node(o->comm_r_old, "--comm-r-old", &pub->comm_r_old) ||
                   parse_node(o->comm_d_new, "--comm-d-new", &pub->comm_d_new) ||
                   parse_node(o->comm_r_new, "--comm-r-new", &pub->comm_r_new)
               ? CLI_ERROR
               : CLI_OK;
}

/* The partition proofs of the file, one per partition of the shape. */
static int read_parts(vanilla_update_partition **parts, size_t *n, const vanilla_blobs *b,
                      uint64_t size, const update_shape *s, cuzk_err *err)
{
    if (b->n != s->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "%zu partition proofs, a %s sector has %u partitions",
                         b->n, vanilla_shape_for_size(size)->name, s->partitions);
    if (!(*parts = calloc(b->n, sizeof(**parts))))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; k < b->n; k++, (*n)++)
        if (vanilla_update_parse(&(*parts)[k], size, b->data[k], b->len[k], err))
            return cuzk_err_prefix(err, "partition proof %zu: ", k), err->code;
    return CUZK_OK;
}

static int check(const cli_opts *o, const update_shape *s, const update_public *pub,
                 const vanilla_update_partition *parts, size_t n, cuzk_err *err)
{
    double t0 = seconds();
    int rc = fc_update_verify(s, pub, parts, n, err);
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID: %s: %s\n", o->vanilla, err->msg);
        return CLI_INVALID;
    }
    if (rc) {
        cuzk_err_prefix(err, "%s: ", o->vanilla);
        return cli_fail(err);
    }
    printf("OK: %s (%s update, h = %u, %zu partition%s x %u challenges) checks in %.3f s\n",
           o->vanilla, o->sector_size, pub->h, n, n == 1 ? "" : "s", s->challenges, seconds() - t0);
    return CLI_OK;
}

static int verify_vanilla_update(const cli_opts *o)
{
    uint64_t size;
    update_shape s;
    update_public pub = {0};
    cuzk_err err = {0};
    int rc = options(o, &size, &s, &pub, &err);
    if (rc) return rc;
    vanilla_blobs b = {0};
    vanilla_update_partition *parts = NULL;
    size_t n = 0;
    if (vanilla_blobs_read(&b, o->vanilla, &err)) { /* the message names the file */
        rc = cli_fail(&err);
    } else if (read_parts(&parts, &n, &b, size, &s, &err)) {
        cuzk_err_prefix(&err, "%s: ", o->vanilla);
        rc = cli_fail(&err);
    } else {
        rc = check(o, &s, &pub, parts, n, &err);
    }
    for (size_t k = 0; k < n; k++) vanilla_update_free(&parts[k]);
    free(parts);
    vanilla_blobs_free(&b);
    return rc;
}

static int verify_vanilla_update_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_verify_vanilla_update)) return CLI_OK;
    if (cli_parse(argc, argv, CMD, &o)) return CLI_ERROR;
    return verify_vanilla_update(&o);
}

const cli_command cli_verify_vanilla_update = {
    CMD, verify_vanilla_update_run, "check a SnapDeals vanilla proof natively, as the circuit will",
    "usage: cuzk verify-vanilla update --sector-size SIZE --vanilla FILE\n"
    "                                  --comm-r-old HEX --comm-d-new HEX --comm-r-new HEX\n\n"
    "Checks natively, partitions and challenges in parallel, everything the SnapDeals\n"
    "(Empty Sector Update) circuit will enforce on every partition proof of FILE\n"
    "(Curio's format, as cuzk-bench gen-vanilla snap-prove writes it): comm_r_old and\n"
    "comm_r_new = Poseidon(comm_c, the tree-R-old / tree-R-new root), the apex leaves\n"
    "under comm_d_new, each challenge index (from comm_r_new and the partition), the\n"
    "challenge's tree-R-old, tree-D-new and tree-R-new openings, and the encoding new =\n"
    "old + data x rho (h = hs[3]: 1 up to 32KiB, 10 above, as the daemon takes it).\n"
    "The commitments are 64 hex digits of their little-endian bytes, as cuzk prove\n"
    "--kind update takes them. The daemon runs the same check on every SnapDeals\n"
    "request.\n"
    "Exit status: 0 the proof checks, 1 it does not (the first failure is named by\n"
    "partition, challenge and node), 2 bad usage or unreadable input.\n"};
