/*
 * filecoin_vanilla.c - `cuzk prove | verify --kind winning-post |
 * window-post | update`: PoSt and SnapDeals proofs over vanilla proof
 * files in Curio's format (cuzk-bench gen-vanilla: a JSON array of base64
 * bincode blobs), with the parameters of the sector size found in
 * --param-cache under the official file names.
 *
 * Public inputs are computed natively, as filecoin-proofs' verifiers do:
 * Winning PoSt from the one sector's (id, comm_r) and --randomness (one
 * partition); Window PoSt from every sector's (id, comm_r), the randomness
 * and the challenge indexes of --registered-proof (V1_2, the default:
 * FIP-0061; V1: sector-numbered), partition k holding the k-th chunk of
 * the shape's sector count; SnapDeals from --comm-r-old, --comm-d-new and
 * --comm-r-new alone (h = hs[3], one partition per shape partition), so
 * `verify --kind update` reads no vanilla file. Proofs are the partitions'
 * 192-byte proofs concatenated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/porep.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/update_circuit.h"

/* filecoin-proofs SectorUpdateConfig: h = hs(nodes)[3]. */
#define UPDATE_H_INDEX 3

typedef struct job {
    const char *cmd;
    fc_circuit_kind kind;
    uint64_t size;
    char params[4096], vk[4096];
    int api; /* PoSt: enum fc_api_version */
    vanilla_node rnd;
    update_public pub; /* SnapDeals: k set per partition */
    post_shape post;
    update_shape update;
    vanilla_blobs blobs;
    size_t n_sectors, n_parts; /* decoded sector proofs; partitions */
    vanilla_post_sector *sectors;
    vanilla_update_partition *parts;
    size_t n_inputs;
    fr_t *inputs; /* n_parts x n_inputs */
} job;

static void job_free(job *j)
{
    for (size_t i = 0; j->sectors && i < j->n_sectors; i++)
        vanilla_post_sector_free(&j->sectors[i]);
    for (size_t k = 0; j->parts && k < j->n_parts; k++) vanilla_update_free(&j->parts[k]);
    free(j->sectors), free(j->parts), free(j->inputs);
    vanilla_blobs_free(&j->blobs);
}

/* 64 hex digits (optional 0x): a canonical field element's 32 LE bytes. */
static int parse_node(const job *j, const char *hex, const char *name, vanilla_node *out)
{
    if (!hex) return cli_usage_error(j->cmd, "missing %s", name);
    if (!strncmp(hex, "0x", 2)) hex += 2;
    if (strlen(hex) != 64 || !vanilla_node_from_hex(out, hex))
        return cli_usage_error(j->cmd, "%s takes 64 hex digits (32 bytes)", name);
    if (!vanilla_node_canonical(out))
        return cli_usage_error(j->cmd, "%s is not a canonical field element (>= r)", name);
    return CLI_OK;
}

/* The registered proof's challenge indexing (PoSt). */
static int parse_api(job *j, const char *proof)
{
    j->api = j->kind == FC_CIRCUIT_WINNING_POST ? FC_API_V1_1 : FC_API_V1_2;
    if (!proof || !strcmp(proof, j->kind == FC_CIRCUIT_WINNING_POST ? "V1" : "V1_2")) return CLI_OK;
    if (j->kind == FC_CIRCUIT_WINDOW_POST && !strcmp(proof, "V1")) {
        j->api = FC_API_V1_1;
        return CLI_OK;
    }
    return cli_usage_error(j->cmd, "--registered-proof takes %s, not '%s'",
                           j->kind == FC_CIRCUIT_WINNING_POST ? "V1" : "V1_2 or V1", proof);
}

/* Options, shapes and parameter paths of a job. */
static int job_options(job *j, const cli_opts *o, cuzk_err *err)
{
    if (cli_need(j->cmd, o->sector_size, "--sector-size") ||
        cli_need(j->cmd, o->param_cache, "--param-cache"))
        return CLI_ERROR;
    if (cuzk_parse_size(o->sector_size, &j->size, err)) return cli_fail(err);
    bool update = j->kind == FC_CIRCUIT_UPDATE;
    int rc = update ? update_shape_for_size(&j->update, j->size, err)
                    : post_shape_for_size(&j->post,
                                          j->kind == FC_CIRCUIT_WINNING_POST ? VANILLA_POST_WINNING
                                                                             : VANILLA_POST_WINDOW,
                                          j->size, err);
    if (!rc) rc = fc_param_paths(j->params, j->vk, 4096, o->param_cache, j->kind, j->size, err);
    if (rc) return cli_fail(err);
    if (!update)
        return parse_api(j, o->registered_proof) ||
                       parse_node(j, o->randomness, "--randomness", &j->rnd)
                   ? CLI_ERROR
                   : CLI_OK;
    j->pub.h = j->update.hs[UPDATE_H_INDEX];
    return parse_node(j, o->comm_r_old, "--comm-r-old", &j->pub.comm_r_old) ||
                   parse_node(j, o->comm_r_new, "--comm-r-new", &j->pub.comm_r_new) ||
                   parse_node(j, o->comm_d_new, "--comm-d-new", &j->pub.comm_d_new)
               ? CLI_ERROR
               : CLI_OK;
}

/* The PoSt sector proofs of the vanilla file, and the partition count. */
static int read_sectors(job *j, cuzk_err *err)
{
    int win = j->kind == FC_CIRCUIT_WINNING_POST,
        pk = win ? VANILLA_POST_WINNING : VANILLA_POST_WINDOW;
    if (win && j->blobs.n != 1)
        return cuzk_errf(err, CUZK_EINVAL, "%zu sector proofs: Winning PoSt proves one sector",
                         j->blobs.n);
    if (!j->blobs.n) return cuzk_errf(err, CUZK_EINVAL, "no sector proofs");
    if (!(j->sectors = calloc(j->blobs.n, sizeof(*j->sectors))))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < j->blobs.n; i++, j->n_sectors++)
        if (vanilla_post_sector_parse(&j->sectors[i], pk, j->size, j->blobs.data[i],
                                      j->blobs.len[i], err))
            return cuzk_err_prefix(err, "sector proof %zu: ", i), err->code;
    j->n_parts = win ? 1 : (j->n_sectors + j->post.sectors - 1) / j->post.sectors;
    return CUZK_OK;
}

/* Every partition's public inputs. */
static int job_inputs(job *j, cuzk_err *err)
{
    bool update = j->kind == FC_CIRCUIT_UPDATE;
    if (update) j->n_parts = j->update.partitions;
    j->n_inputs = update ? UPDATE_PUBLIC_INPUTS : post_num_public_inputs(&j->post);
    if (!(j->inputs = calloc(j->n_parts * j->n_inputs, sizeof(fr_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    post_public_sector *pub = update ? NULL : calloc(j->n_sectors, sizeof(*pub));
    if (!update && !pub) return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; pub && i < j->n_sectors; i++)
        pub[i] = (post_public_sector){j->sectors[i].sector_id, j->sectors[i].comm_r};
    int rc = CUZK_OK;
    for (size_t k = 0; !rc && k < j->n_parts; k++) {
        fr_t *out = j->inputs + k * j->n_inputs;
        j->pub.k = k;
        if (update)
            rc = update_public_inputs(out, &j->update, &j->pub, err);
        else if (j->kind == FC_CIRCUIT_WINNING_POST)
            rc = post_winning_public_inputs(out, &j->post, j->api, j->rnd.b, pub, err);
        else
            rc = post_public_inputs(out, &j->post, j->api, j->rnd.b, pub, j->n_sectors, k, err);
    }
    free(pub);
    return rc;
}

static int read_vanilla(job *j, const cli_opts *o, cuzk_err *err)
{
    if (cli_need(j->cmd, o->vanilla, "--vanilla")) return CLI_ERROR;
    return vanilla_blobs_read(&j->blobs, o->vanilla, err) ? cli_fail(err) : CLI_OK;
}

/* The SnapDeals partition proofs of the vanilla file, one per partition. */
static int read_parts(job *j, cuzk_err *err)
{
    if (j->blobs.n != j->update.partitions)
        return cuzk_errf(err, CUZK_EINVAL, "%zu partition proofs, a %s sector has %u partitions",
                         j->blobs.n, vanilla_shape_for_size(j->size)->name, j->update.partitions);
    if (!(j->parts = calloc(j->blobs.n, sizeof(*j->parts))))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; k < j->blobs.n; k++, j->n_parts++)
        if (vanilla_update_parse(&j->parts[k], j->size, j->blobs.data[k], j->blobs.len[k], err))
            return cuzk_err_prefix(err, "partition proof %zu: ", k), err->code;
    return CUZK_OK;
}

/* Partition k's circuit into post[k] or upd[k], and circ[k]. */
static int build(job *j, size_t k, post_circuit *post, update_circuit *upd, cs_circuit *circ,
                 cuzk_err *err)
{
    int rc;
    if (j->kind == FC_CIRCUIT_UPDATE) {
        j->pub.k = k;
        if (!(rc = update_circuit_init(&upd[k], &j->update, &j->parts[k], &j->pub, err)))
            circ[k] = update_circuit_get(&upd[k]);
        return rc;
    }
    bool win = j->kind == FC_CIRCUIT_WINNING_POST;
    size_t first = k * j->post.sectors, n = win ? 1 : j->n_sectors - first;
    if (n > j->post.sectors) n = j->post.sectors;
    rc = post_circuit_init(&post[k], win ? VANILLA_POST_WINNING : VANILLA_POST_WINDOW, &j->post,
                           j->sectors + first, n, err);
    if (!rc) circ[k] = post_circuit_get(&post[k]);
    return rc;
}

static int prove_job(job *j, const cli_opts *o, cuzk_err *err)
{
    int rc = j->kind == FC_CIRCUIT_UPDATE ? read_parts(j, err) : read_sectors(j, err);
    size_t n = j->n_parts;
    post_circuit *post = calloc(n, sizeof(*post));
    update_circuit *upd = calloc(n, sizeof(*upd));
    cs_circuit *circ = calloc(n, sizeof(*circ));
    if (!rc && (!post || !upd || !circ)) rc = cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < n; k++)
        if ((rc = build(j, k, post, upd, circ, err))) cuzk_err_prefix(err, "partition %zu: ", k);
    if (!rc) rc = cli_fc_prove_circuits(o, j->params, circ, n, err);
    free(post), free(upd), free(circ);
    return rc;
}

int cli_fc_prove_vanilla(const cli_opts *o, int kind)
{
    job j = {.cmd = "prove", .kind = (fc_circuit_kind)kind};
    cuzk_err err = {0};
    int rc = job_options(&j, o, &err);
    if (!rc) rc = cli_need("prove", o->out, "-o");
    if (!rc) rc = read_vanilla(&j, o, &err);
    if (!rc && prove_job(&j, o, &err)) rc = cli_fail(&err);
    job_free(&j);
    return rc;
}

int cli_fc_verify_vanilla(const cli_opts *o, int kind)
{
    job j = {.cmd = "verify", .kind = (fc_circuit_kind)kind};
    cuzk_err err = {0};
    bool update = kind == FC_CIRCUIT_UPDATE;
    int rc = job_options(&j, o, &err);
    if (!rc) rc = cli_need("verify", o->proof, "--proof");
    if (!rc && !update) rc = read_vanilla(&j, o, &err);
    if (!rc && ((!update && read_sectors(&j, &err)) || job_inputs(&j, &err))) rc = cli_fail(&err);
    char against[256];
    snprintf(against, sizeof against, "%s %s (%s)", o->kind, o->sector_size,
             update ? "the given commitments" : o->vanilla);
    if (!rc) rc = cli_fc_verify_proofs(o, j.vk, j.inputs, j.n_inputs, j.n_parts, against);
    job_free(&j);
    return rc;
}
