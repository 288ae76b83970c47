/*
 * fingerprint.h - the canonical byte encoding of an R1CS (documented at
 * cs_counts in include/cuzk/r1cs.h) streamed into SHA-256, shared by the
 * counter backend and cs_r1cs_fingerprint so both give the same digest.
 */
#ifndef CUZK_R1CS_FINGERPRINT_H
#define CUZK_R1CS_FINGERPRINT_H

#include <openssl/evp.h>

#include "cuzk/fr.h"

/* Bytes buffered before each SHA-256 update: 64 KiB. */
#define FPH_BUF 65536

typedef struct fph {
    EVP_MD_CTX *md;
    fr_t minus_one;
    size_t n;
    uint8_t buf[FPH_BUF];
} fph;

/* 0 or CUZK_ENOMEM. */
int fph_init(fph *h);
void fph_free(fph *h);
/* Starts a combination of count non-zero terms. */
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
/* Appends the three sizes and writes the digest. */
int fph_final(fph *h, size_t num_inputs, size_t num_aux, size_t num_constraints, uint8_t out[32]);

#endif
