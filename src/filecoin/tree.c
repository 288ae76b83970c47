/*
 * tree.c - native Merkle trees (tree.h): rows hashed in parallel (OpenMP
 * over the nodes of a row), SHA-256 through one EVP context per thread,
 * Poseidon through cuzk/poseidon.h on Montgomery-form elements.
 */
#include "cuzk/filecoin/tree.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/fr.h"
#include "cuzk/poseidon.h"

#define NB FC_NODE_BYTES

/* SHA256(children) with byte 31 &= 0x3f (Sha256Function::hash, trim_to_fr32). */
static int hash_sha(EVP_MD_CTX *ctx, const EVP_MD *md, uint8_t out[32], const uint8_t *children,
                    unsigned arity)
{
    unsigned len;
    if (!EVP_DigestInit_ex2(ctx, md, NULL) || !EVP_DigestUpdate(ctx, children, arity * NB) ||
        !EVP_DigestFinal_ex(ctx, out, &len))
        return -1;
    out[31] &= 0x3f;
    return 0;
}

/* Poseidon over the children as field elements (they are canonical: every
 * leaf and node of these trees is below r). */
static void hash_poseidon(uint8_t out[32], const uint8_t *children, unsigned arity)
{
    fc_tree_hash_nodes(out, children, arity, 1);
}

#define BATCH 8 /* poseidon_hash_batch's lanes */

void fc_tree_hash_nodes(uint8_t *out, const uint8_t *children, unsigned arity, size_t n)
{
    const poseidon_constants *c = poseidon_std(arity);
    for (size_t j = 0; j < n; j += BATCH) {
        size_t k = n - j < BATCH ? n - j : BATCH;
        fr_t in[BATCH * 16], h[BATCH];
        for (size_t i = 0; i < k * arity; i++)
            fr_from_bytes_le(&in[i], children + (j * arity + i) * NB);
        poseidon_hash_batch(h, c, in, k);
        for (size_t i = 0; i < k; i++) fr_to_bytes_le(out + (j + i) * NB, &h[i]);
    }
}

void fc_tree_hash_node(uint8_t out[32], int hash, const uint8_t *children, unsigned arity)
{
    if (hash == FC_TREE_POSEIDON) {
        hash_poseidon(out, children, arity);
        return;
    }
    SHA256(children, (size_t)arity * NB, out);
    out[31] &= 0x3f;
}

static int hash_row(int hash, unsigned arity, uint8_t *out, const uint8_t *in, uint64_t count)
{
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        EVP_MD *md = hash == FC_TREE_SHA256 ? EVP_MD_fetch(NULL, "SHA256", NULL) : NULL;
        EVP_MD_CTX *ctx = md ? EVP_MD_CTX_new() : NULL;
        failed |= hash == FC_TREE_SHA256 && !ctx;
#pragma omp for schedule(static)
        for (uint64_t i = 0; i < count; i += BATCH) {
            uint64_t k = count - i < BATCH ? count - i : BATCH;
            const uint8_t *c = in + i * arity * NB;
            if (hash == FC_TREE_POSEIDON) fc_tree_hash_nodes(out + i * NB, c, arity, k);
            for (uint64_t j = 0; j < k && ctx; j++)
                failed |= hash_sha(ctx, md, out + (i + j) * NB, c + j * arity * NB, arity) != 0;
        }
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    return failed;
}

static int shape_check(int hash, unsigned arity, uint64_t n, cuzk_err *err)
{
    int ok_arity = hash == FC_TREE_SHA256 ? arity == 2
                                          : (arity == 2 || arity == 4 || arity == 8 || arity == 16);
    if (!ok_arity)
        return cuzk_errf(err, CUZK_EINVAL, "tree: arity %u is not supported for %s", arity,
                         hash == FC_TREE_SHA256 ? "SHA-256" : "Poseidon");
    uint64_t m = n;
    while (m > 1 && m % arity == 0) m /= arity;
    if (n < 1 || m != 1)
        return cuzk_errf(err, CUZK_EINVAL, "tree: %llu leaves is not a power of %u",
                         (unsigned long long)n, arity);
    return CUZK_OK;
}

int fc_tree_build(fc_tree *t, int hash, unsigned arity, const uint8_t *leaves, uint64_t n,
                  const char *stage, fc_progress_fn progress, void *progress_ctx, cuzk_err *err)
{
    memset(t, 0, sizeof *t);
    int rc = shape_check(hash, arity, n, err);
    if (rc) return rc;
    t->hash = hash;
    t->arity = arity;
    t->leaves = n;
    for (uint64_t w = n;; w /= arity) {
        t->row_start[t->rows++] = t->len;
        t->len += w;
        if (w == 1) break;
    }
    t->nodes = malloc(t->len * NB);
    if (!t->nodes)
        return cuzk_errf(err, CUZK_ENOMEM, "tree: %llu nodes do not fit in memory",
                         (unsigned long long)t->len);
    memcpy(t->nodes, leaves, n * NB);
    uint64_t done = 0, total = t->len - n;
    for (unsigned r = 1; r < t->rows; r++) {
        uint64_t count = (r + 1 < t->rows ? t->row_start[r + 1] : t->len) - t->row_start[r];
        if (hash_row(hash, arity, t->nodes + t->row_start[r] * NB,
                     t->nodes + t->row_start[r - 1] * NB, count)) {
            fc_tree_free(t);
            return cuzk_errf(err, CUZK_ENOMEM, "tree: OpenSSL SHA-256 failed");
        }
        done += count;
        if (progress) progress(progress_ctx, stage, done, total);
    }
    return CUZK_OK;
}

void fc_tree_free(fc_tree *t)
{
    free(t->nodes);
    t->nodes = NULL;
}

const uint8_t *fc_tree_root(const fc_tree *t)
{
    return t->nodes + (t->len - 1) * NB;
}

const uint8_t *fc_tree_node(const fc_tree *t, unsigned row, uint64_t i)
{
    return t->nodes + (t->row_start[row] + i) * NB;
}

void fc_tree_path(const fc_tree *t, uint64_t leaf, uint8_t *siblings, uint32_t *positions)
{
    uint64_t i = leaf;
    for (unsigned r = 0; r + 1 < t->rows; r++, i /= t->arity) {
        uint64_t first = i - i % t->arity;
        if (positions) positions[r] = (uint32_t)(i % t->arity);
        if (!siblings) continue;
        uint8_t *s = siblings + (size_t)r * (t->arity - 1) * NB;
        for (unsigned k = 0; k < t->arity; k++)
            if (first + k != i) {
                memcpy(s, fc_tree_node(t, r, first + k), NB);
                s += NB;
            }
    }
}

int fc_tree_root_from_path(uint8_t root[32], int hash, unsigned arity, const uint8_t leaf[32],
                           const uint8_t *siblings, const uint32_t *positions, unsigned levels)
{
    int failed = 0;
    uint8_t cur[32], children[16 * NB];
    memcpy(cur, leaf, NB);
    EVP_MD *md = hash == FC_TREE_SHA256 ? EVP_MD_fetch(NULL, "SHA256", NULL) : NULL;
    EVP_MD_CTX *ctx = md ? EVP_MD_CTX_new() : NULL;
    for (unsigned r = 0; r < levels; r++) {
        const uint8_t *s = siblings + (size_t)r * (arity - 1) * NB;
        for (unsigned k = 0, j = 0; k < arity; k++)
            memcpy(children + k * NB, k == positions[r] ? cur : s + NB * j++, NB);
        if (hash == FC_TREE_POSEIDON)
            hash_poseidon(cur, children, arity);
        else
            failed |= !ctx || hash_sha(ctx, md, cur, children, arity);
    }
    memcpy(root, cur, NB);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return failed ? CUZK_ENOMEM : CUZK_OK;
}

int fc_tree_write(const fc_tree *t, const char *path, cuzk_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "tree %s: cannot create", path);
    int bad = fwrite(t->nodes, NB, t->len, f) != t->len;
    bad |= fclose(f) != 0;
    if (bad) return cuzk_errf(err, CUZK_EIO, "tree %s: write failed", path);
    return CUZK_OK;
}
