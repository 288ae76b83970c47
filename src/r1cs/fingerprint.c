/*
 * fingerprint.c - the canonical R1CS encoding hashed with SHA-256 in
 * blocks of FPH_BLOCK constraints, the digest a SHA-256 of the blocks'
 * digests and the sizes (so the blocks of a recorded shape hash in
 * parallel: one SHA-256 stream over a 32 GiB Window PoSt partition's
 * encoding would take ~24 s of one core, scaled from 200 sectors' 2 s).
 * Terms are buffered (64 KiB) so the hash runs on large blocks;
 * coefficients 1 and -1, most of a Filecoin circuit, take one form byte
 * instead of 32 bytes and a conversion out of Montgomery form. When OpenSSL fails (it
 * can only run out of memory here) its error queue is cleared: the failure
 * is reported as CUZK_ENOMEM, and queued entries would hold memory.
 */
#include "r1cs/fingerprint.h"

#include <openssl/err.h>
#include <string.h>

#include "cuzk/err.h"

static int openssl_failed(void)
{
    ERR_clear_error();
    return CUZK_ENOMEM;
}

static EVP_MD_CTX *sha256_new(void)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(md);
        md = NULL;
    }
    return md;
}

int fph_init_block(fph *h)
{
    h->n = 0, h->lcs = 0, h->outer = NULL;
    fr_neg(&h->minus_one, &FR_ONE);
    h->md = sha256_new();
    return h->md ? 0 : openssl_failed();
}

int fph_init(fph *h)
{
    if (fph_init_block(h)) return CUZK_ENOMEM;
    h->outer = sha256_new();
    if (!h->outer) {
        fph_free(h);
        return openssl_failed();
    }
    return 0;
}

void fph_free(fph *h)
{
    EVP_MD_CTX_free(h->md), EVP_MD_CTX_free(h->outer);
    h->md = h->outer = NULL;
}

/* Makes room for need more bytes. */
static int room(fph *h, size_t need)
{
    if (h->n + need <= FPH_BUF) return 0;
    if (EVP_DigestUpdate(h->md, h->buf, h->n) != 1) return openssl_failed();
    h->n = 0;
    return 0;
}

static void put_le(fph *h, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) h->buf[h->n++] = (uint8_t)(v >> (8 * i));
}

int fph_block_digest(fph *h, uint8_t out[32])
{
    unsigned int len = 0;
    if (EVP_DigestUpdate(h->md, h->buf, h->n) != 1 || EVP_DigestFinal_ex(h->md, out, &len) != 1 ||
        EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1)
        return openssl_failed();
    h->n = 0, h->lcs = 0;
    return 0;
}

/* A stream's block closed: its digest into the outer hash. */
static int close_block(fph *h)
{
    uint8_t d[32];
    if (fph_block_digest(h, d)) return CUZK_ENOMEM;
    return EVP_DigestUpdate(h->outer, d, 32) == 1 ? 0 : openssl_failed();
}

int fph_lc(fph *h, uint32_t count)
{
    if (h->outer && h->lcs == 3 * (uint64_t)FPH_BLOCK && close_block(h)) return CUZK_ENOMEM;
    h->lcs++;
    if (room(h, 4)) return CUZK_ENOMEM;
    put_le(h, count, 4);
    return 0;
}

void fph_coeff_encode(const fph *h, const fr_t *c, fph_coeff *out)
{
    out->form = fr_is_one(c) ? 0 : fr_eq(c, &h->minus_one) ? 1 : 2;
    if (out->form == 2) fr_to_bytes_le(out->bytes, c);
}

int fph_term_coded(fph *h, uint32_t kind, uint32_t index, const fph_coeff *c)
{
    if (room(h, 4 + 1 + 1 + FR_BYTES)) return CUZK_ENOMEM;
    put_le(h, index, 4);
    h->buf[h->n++] = (uint8_t)kind;
    h->buf[h->n++] = c->form;
    if (c->form == 2) {
        memcpy(&h->buf[h->n], c->bytes, FR_BYTES);
        h->n += FR_BYTES;
    }
    return 0;
}

int fph_term(fph *h, uint32_t kind, uint32_t index, const fr_t *coeff)
{
    fph_coeff c;
    fph_coeff_encode(h, coeff, &c);
    return fph_term_coded(h, kind, index, &c);
}

/* The sizes after the block digests, and the digest. */
static int finish(EVP_MD_CTX *outer, size_t num_inputs, size_t num_aux, size_t num_constraints,
                  uint8_t out[32])
{
    uint8_t sizes[24];
    uint64_t v[3] = {num_inputs, num_aux, num_constraints};
    for (int k = 0; k < 24; k++) sizes[k] = (uint8_t)(v[k / 8] >> (8 * (k % 8)));
    unsigned int len = 0;
    if (EVP_DigestUpdate(outer, sizes, sizeof sizes) != 1 ||
        EVP_DigestFinal_ex(outer, out, &len) != 1)
        return openssl_failed();
    return 0;
}

int fph_final(fph *h, size_t num_inputs, size_t num_aux, size_t num_constraints, uint8_t out[32])
{
    if (h->lcs && close_block(h)) return CUZK_ENOMEM;
    return finish(h->outer, num_inputs, num_aux, num_constraints, out);
}

int fph_join(const uint8_t (*blocks)[32], size_t n, size_t num_inputs, size_t num_aux,
             size_t num_constraints, uint8_t out[32])
{
    EVP_MD_CTX *outer = sha256_new();
    if (!outer) return openssl_failed();
    int rc = n && EVP_DigestUpdate(outer, blocks, 32 * n) != 1 ? openssl_failed() : 0;
    if (!rc) rc = finish(outer, num_inputs, num_aux, num_constraints, out);
    EVP_MD_CTX_free(outer);
    return rc;
}
