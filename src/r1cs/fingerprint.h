/*
 * fingerprint.h - the canonical byte encoding of an R1CS (documented at
 * cs_counts in include/cuzk/r1cs.h) hashed with SHA-256 in blocks of
 * FPH_BLOCK constraints, shared by the counter backend, cs_r1cs_fingerprint
 * and the recorded shape so all give the same digest. A stream (fph_init)
 * closes a block every FPH_BLOCK constraints by itself; a caller that
 * hashes blocks in parallel hashes each on its own (fph_init_block,
 * fph_block_digest) and joins the digests in order (fph_join).
 */
#ifndef CUZK_R1CS_FINGERPRINT_H
#define CUZK_R1CS_FINGERPRINT_H

#include <openssl/evp.h>

#include "cuzk/fr.h"

/* Bytes buffered before each SHA-256 update: 64 KiB. */
#define FPH_BUF 65536
/* Constraints a block digest covers (the last block may have fewer). */
#define FPH_BLOCK 65536

typedef struct fph {
    EVP_MD_CTX *md;    /* the block's */
    EVP_MD_CTX *outer; /* the block digests' (NULL: one block, fph_init_block) */
    fr_t minus_one;
    uint64_t lcs; /* combinations started in the block */
    size_t n;
    uint8_t buf[FPH_BUF];
} fph;

/* A whole R1CS's stream. 0 or CUZK_ENOMEM. */
int fph_init(fph *h);
/* One block's (its constraints then fph_block_digest). 0 or CUZK_ENOMEM. */
int fph_init_block(fph *h);
void fph_free(fph *h);
/* Starts a combination of count non-zero terms (A, B and C of each
 * constraint in turn). */
int fph_lc(fph *h, uint32_t count);
/* One non-zero term. */
int fph_term(fph *h, uint32_t kind, uint32_t index, const fr_t *coeff);
/* A coefficient's encoding (form byte: 0 for 1, 1 for -1, 2 for anything
 * else, then its canonical bytes), for a caller that meets few distinct
 * coefficients many times: encoded once, written by fph_term_coded. */
typedef struct fph_coeff {
    uint8_t form;
    uint8_t bytes[FR_BYTES]; /* form 2 only */
} fph_coeff;
void fph_coeff_encode(const fph *h, const fr_t *c, fph_coeff *out);
int fph_term_coded(fph *h, uint32_t kind, uint32_t index, const fph_coeff *c);
/* The block's digest into out (an fph_init_block stream). */
int fph_block_digest(fph *h, uint8_t out[32]);
/* Closes the last block, appends the three sizes and writes the digest. */
int fph_final(fph *h, size_t num_inputs, size_t num_aux, size_t num_constraints, uint8_t out[32]);
/* The same digest from the blocks' digests, in order (n = the constraints
 * divided by FPH_BLOCK, rounded up). */
int fph_join(const uint8_t (*blocks)[32], size_t n, size_t num_inputs, size_t num_aux,
             size_t num_constraints, uint8_t out[32]);

#endif
