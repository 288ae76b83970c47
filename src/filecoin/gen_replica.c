/*
 * gen_replica.c - sealed replicas for the PoSt and SnapDeals generators
 * (gen.h): the replica's nodes as field elements, tree-R-last rebuilt over
 * them as an fc_ptree, and the sector's id, comm_c and comm_r, taken from
 * a sealed sector in memory or from the directory cuzk-seal wrote
 * (seal.json, sealed.dat). seal.json is our own flat file: its values are
 * found by key, not parsed as general JSON. comm_r is checked against
 * Poseidon-2(comm_c, root) either way, so a replica that does not belong
 * to its commitments is refused.
 */
#include "cuzk/filecoin/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/file.h"
#include "cuzk/poseidon.h"

#define SEAL_JSON_MAX (1u << 16)

/* nodes must hold sector_size / 32 field elements; builds the tree, checks comm_r. */
static int finish(fc_replica *r, const char *where, fc_progress_fn progress, void *ctx,
                  cuzk_err *err)
{
    post_shape ps;
    int rc = post_shape_for_size(&ps, VANILLA_POST_WINNING, r->sector_size, err);
    if (!rc)
        rc = fc_ptree_build(&r->tree_r, &ps.tree, r->nodes, ps.nodes, "tree-r-last", progress, ctx,
                            err);
    if (rc) return rc;
    fr_t pre[2], h, want;
    if (!fr_from_bytes_le(&pre[0], r->comm_c.b) || !fr_from_bytes_le(&want, r->comm_r.b))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "%s: comm_c or comm_r is not below r", where);
    pre[1] = *fc_ptree_root(&r->tree_r);
    poseidon_hash(&h, poseidon_std(2), pre);
    if (!fr_eq(&h, &want))
        return cuzk_errf(err, CUZK_EINVAL,
                         "%s: comm_r is not Poseidon(comm_c, root of the replica's tree-R)", where);
    return CUZK_OK;
}

static int alloc_nodes(fc_replica *r, const uint8_t *bytes, const char *where, cuzk_err *err)
{
    uint64_t n = r->sector_size / 32;
    if (!(r->nodes = malloc(n * sizeof(fr_t))))
        return cuzk_errf(err, CUZK_ENOMEM, "%s: replica: out of memory", where);
    return fc_nodes_to_fr(r->nodes, bytes, n, where, err);
}

int fc_replica_from_sealed(fc_replica *r, const fc_sealed *s, fc_progress_fn progress,
                           void *progress_ctx, cuzk_err *err)
{
    memset(r, 0, sizeof(*r));
    r->sector_id = s->sector_id;
    r->sector_size = s->cfg->sector_size;
    memcpy(r->comm_c.b, s->comm_c, 32);
    memcpy(r->comm_r.b, s->comm_r, 32);
    int rc = alloc_nodes(r, fc_tree_node(&s->tree_r, 0, 0), "sealed replica", err);
    if (!rc) rc = finish(r, "sealed replica", progress, progress_ctx, err);
    if (rc) fc_replica_free(r);
    return rc;
}

/* The text after "key": in seal.json, or NULL. */
static const char *json_value(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(text, pat);
    if (!p) return NULL;
    for (p += strlen(pat); *p == ' ' || *p == '"'; p++) continue;
    return p;
}

/* "key": "<64 hex digits>" */
static int json_node(vanilla_node *out, const char *text, const char *key, const char *path,
                     cuzk_err *err)
{
    const char *v = json_value(text, key);
    if (v && vanilla_node_from_hex(out, v) && v[64] == '"') return CUZK_OK;
    return cuzk_errf(err, CUZK_EINVAL, "%s: no 64-hex-digit \"%s\"", path, key);
}

static int read_json(fc_replica *r, const char *dir, cuzk_err *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/seal.json", dir);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = cuzk_read_file(path, &buf, &len, SEAL_JSON_MAX, err);
    if (rc) return rc;
    const char *text = (const char *)buf; /* NUL-terminated by cuzk_read_file */
    const char *id = json_value(text, "sector_id");
    if (!id || *id < '0' || *id > '9' || /* sscanf would take a sign or spaces */
        sscanf(id, "%llu", (unsigned long long *)&r->sector_id) != 1)
        rc = cuzk_errf(err, CUZK_EINVAL, "%s: no \"sector_id\"", path);
    if (!rc) rc = json_node(&r->comm_c, text, "comm_c", path, err);
    if (!rc) rc = json_node(&r->comm_r, text, "comm_r", path, err);
    free(buf);
    return rc;
}

int fc_replica_read(fc_replica *r, const char *dir, fc_progress_fn progress, void *progress_ctx,
                    cuzk_err *err)
{
    memset(r, 0, sizeof(*r));
    char path[4096];
    snprintf(path, sizeof path, "%s/sealed.dat", dir);
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = read_json(r, dir, err);
    if (!rc) rc = cuzk_read_file(path, &bytes, &len, (size_t)1 << 30, err);
    r->sector_size = len;
    if (!rc && !vanilla_shape_for_size(len))
        rc = cuzk_errf(err, CUZK_EINVAL, "%s: %zu bytes is no sector size", path, len);
    if (!rc) rc = alloc_nodes(r, bytes, path, err);
    if (!rc) rc = finish(r, dir, progress, progress_ctx, err);
    free(bytes);
    if (rc) fc_replica_free(r);
    return rc;
}

void fc_replica_free(fc_replica *r)
{
    free(r->nodes);
    fc_ptree_free(&r->tree_r);
    memset(r, 0, sizeof(*r));
}

fc_post_replica fc_replica_post(const fc_replica *r)
{
    return (fc_post_replica){.sector_id = r->sector_id, .comm_c = r->comm_c, .tree_r = &r->tree_r};
}
