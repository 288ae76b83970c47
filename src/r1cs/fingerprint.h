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
/* Appends the three sizes and writes the digest. */
int fph_final(fph *h, size_t num_inputs, size_t num_aux, size_t num_constraints, uint8_t out[32]);

#endif
