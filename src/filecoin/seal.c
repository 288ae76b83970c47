/*
 * seal.c - seal a small sector in memory (seal.h).
 *
 * The steps follow rust-fil-proofs: parent cache, tree-D over the data
 * (comm_d), replica_id from comm_d, SDR labels layer by layer, column
 * hashes (Poseidon, arity = layers) into tree-C, the last layer's labels
 * added to the data (encoding) into tree-R-last, then comm_r. Trees and
 * column hashes run in parallel (OpenMP); labelling is sequential.
 */
#include "cuzk/filecoin/seal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk/filecoin/sdr.h"
#include "cuzk/fr.h"
#include "cuzk/poseidon.h"
#include "cuzk/rng.h"

#define NB FC_NODE_BYTES

static int columns_tree(fc_sealed *s, fc_progress_fn progress, void *pctx, cuzk_err *err)
{
    uint64_t n = s->cfg->nodes;
    uint8_t *cols = malloc(n * NB);
    if (!cols) return cuzk_errf(err, CUZK_ENOMEM, "seal: column hashes do not fit in memory");
    const uint64_t chunk = 1ULL << 14;
    for (uint64_t start = 0; start < n; start += chunk) {
        uint64_t end = start + chunk < n ? start + chunk : n;
#pragma omp parallel for schedule(static)
        for (uint64_t i = start; i < end; i++)
            fc_column_hash(cols + i * NB, s->labels, n, s->cfg->layers, i);
        if (progress) progress(pctx, "columns", end, n);
    }
    int rc = fc_tree_build(&s->tree_c, FC_TREE_POSEIDON, s->cfg->base_arity, cols, n, "tree-c",
                           progress, pctx, err);
    free(cols);
    return rc;
}

static int replica_tree(fc_sealed *s, fc_progress_fn progress, void *pctx, cuzk_err *err)
{
    uint64_t n = s->cfg->nodes;
    uint8_t *replica = malloc(n * NB);
    if (!replica) return cuzk_errf(err, CUZK_ENOMEM, "seal: replica does not fit in memory");
    const uint8_t *key = s->labels + (size_t)(s->cfg->layers - 1) * n * NB;
    int rc = fc_encode(replica, fc_tree_node(&s->tree_d, 0, 0), key, n, err);
    if (!rc)
        rc = fc_tree_build(&s->tree_r, FC_TREE_POSEIDON, s->cfg->base_arity, replica, n,
                           "tree-r-last", progress, pctx, err);
    free(replica);
    return rc;
}

static void comm_r_from(uint8_t comm_r[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32])
{
    fr_t in[2], h;
    fr_from_bytes_le(&in[0], comm_c);
    fr_from_bytes_le(&in[1], comm_r_last);
    poseidon_hash(&h, poseidon_std(2), in);
    fr_to_bytes_le(comm_r, &h);
}

static int seal_steps(fc_sealed *s, const fc_seal_input *in, fc_progress_fn progress, void *pctx,
                      cuzk_err *err)
{
    const fc_porep_config *cfg = in->cfg;
    int rc = fc_graph_for(&s->graph, cfg, err);
    if (!rc) rc = fc_parent_cache_build(&s->graph, &s->parents, progress, pctx, err);
    if (!rc)
        rc = fc_tree_build(&s->tree_d, FC_TREE_SHA256, 2, in->data, cfg->nodes, "tree-d", progress,
                           pctx, err);
    if (rc) return rc;
    memcpy(s->comm_d, fc_tree_root(&s->tree_d), 32);
    fc_replica_id(s->replica_id, s->prover_id, s->sector_id, s->ticket, s->comm_d, s->porep_id);
    s->labels = malloc((size_t)cfg->layers * cfg->nodes * NB);
    if (!s->labels) return cuzk_errf(err, CUZK_ENOMEM, "seal: labels do not fit in memory");
    rc = fc_sdr_labels(&s->graph, s->parents, s->replica_id, cfg->layers, s->labels, progress, pctx,
                       err);
    if (!rc) rc = columns_tree(s, progress, pctx, err);
    if (!rc) rc = replica_tree(s, progress, pctx, err);
    if (rc) return rc;
    memcpy(s->comm_c, fc_tree_root(&s->tree_c), 32);
    memcpy(s->comm_r_last, fc_tree_root(&s->tree_r), 32);
    comm_r_from(s->comm_r, s->comm_c, s->comm_r_last);
    return CUZK_OK;
}

int fc_seal(fc_sealed *s, const fc_seal_input *in, fc_progress_fn progress, void *progress_ctx,
            cuzk_err *err)
{
    memset(s, 0, sizeof *s);
    const fc_porep_config *cfg = in->cfg;
    if (cfg->sub_arity || cfg->top_arity || cfg->layers > POSEIDON_MAX_ARITY)
        return cuzk_errf(err, CUZK_EUNSUPPORTED,
                         "seal: %s has a %u-%u-%u tree; only 8-0-0 sizes (up to 512MiB) are "
                         "sealed here",
                         cfg->name, cfg->base_arity, cfg->sub_arity, cfg->top_arity);
    s->cfg = cfg;
    fc_porep_id(s->porep_id, cfg->id);
    memcpy(s->prover_id, in->prover_id, 32);
    memcpy(s->ticket, in->ticket, 32);
    s->sector_id = in->sector_id;
    int rc = seal_steps(s, in, progress, progress_ctx, err);
    if (rc) {
        cuzk_err_prefix(err, "sealing %s: ", cfg->name);
        fc_sealed_free(s);
    }
    return rc;
}

void fc_sealed_free(fc_sealed *s)
{
    free(s->parents);
    free(s->labels);
    fc_tree_free(&s->tree_d);
    fc_tree_free(&s->tree_c);
    fc_tree_free(&s->tree_r);
    s->parents = NULL;
    s->labels = NULL;
}

void fc_seal_random_data(uint8_t *data, uint64_t nodes, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    cuzk_rng_bytes(&g, data, nodes * NB);
    for (uint64_t i = 0; i < nodes; i++) data[i * NB + 31] &= 0x3f;
}

static int write_bytes(const char *dir, const char *name, const void *p, size_t len, cuzk_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "seal output %s: cannot create", path);
    int bad = len && fwrite(p, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? cuzk_errf(err, CUZK_EIO, "seal output %s: write failed", path) : CUZK_OK;
}

static int write_tree(const char *dir, const char *name, const fc_tree *t, cuzk_err *err)
{
    return write_bytes(dir, name, t->nodes, t->len * NB, err);
}

static void json_hex(FILE *f, const char *key, const uint8_t *b, const char *sep)
{
    fprintf(f, "  \"%s\": \"", key);
    for (int i = 0; i < 32; i++) fprintf(f, "%02x", b[i]);
    fprintf(f, "\"%s\n", sep);
}

static int write_json(const fc_sealed *s, const char *dir, cuzk_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seal.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_errf(err, CUZK_EIO, "seal output %s: cannot create", path);
    fprintf(f, "{\n  \"registered_proof\": \"%s\",\n  \"registered_proof_id\": %llu,\n",
            s->cfg->name, (unsigned long long)s->cfg->id);
    fprintf(f, "  \"sector_size\": %llu,\n  \"nodes\": %llu,\n  \"layers\": %u,\n",
            (unsigned long long)s->cfg->sector_size, (unsigned long long)s->cfg->nodes,
            s->cfg->layers);
    fprintf(f, "  \"sector_id\": %llu,\n", (unsigned long long)s->sector_id);
    json_hex(f, "porep_id", s->porep_id, ",");
    json_hex(f, "prover_id", s->prover_id, ",");
    json_hex(f, "ticket", s->ticket, ",");
    json_hex(f, "replica_id", s->replica_id, ",");
    json_hex(f, "comm_d", s->comm_d, ",");
    json_hex(f, "comm_c", s->comm_c, ",");
    json_hex(f, "comm_r_last", s->comm_r_last, ",");
    json_hex(f, "comm_r", s->comm_r, "");
    fprintf(f, "}\n");
    if (fclose(f)) return cuzk_errf(err, CUZK_EIO, "seal output %s: write failed", path);
    return CUZK_OK;
}

int fc_sealed_write(const fc_sealed *s, const char *dir, cuzk_err *err)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return cuzk_errf(err, CUZK_EIO, "seal output %s: cannot create directory", dir);
    size_t layer_bytes = (size_t)s->cfg->nodes * NB;
    int rc = write_tree(dir, "sc-02-data-tree-d.dat", &s->tree_d, err);
    for (unsigned l = 1; !rc && l <= s->cfg->layers; l++) {
        char name[64];
        snprintf(name, sizeof name, "sc-02-data-layer-%u.dat", l);
        rc = write_bytes(dir, name, s->labels + (l - 1) * layer_bytes, layer_bytes, err);
    }
    if (!rc) rc = write_tree(dir, "sc-02-data-tree-c.dat", &s->tree_c, err);
    if (!rc) rc = write_tree(dir, "sc-02-data-tree-r-last.dat", &s->tree_r, err);
    if (!rc) rc = write_bytes(dir, "unsealed.dat", s->tree_d.nodes, layer_bytes, err);
    if (!rc) rc = write_bytes(dir, "sealed.dat", s->tree_r.nodes, layer_bytes, err);
    if (!rc) rc = write_json(s, dir, err);
    return rc;
}
