/*
 * fingerprint.c - the SHA-256 stream of the canonical R1CS encoding. Terms
 * are buffered (64 KiB) so the hash runs on large blocks; coefficients 1
 * and -1, most of a Filecoin circuit, take one form byte instead of 32
 * bytes and a conversion out of Montgomery form. When OpenSSL fails (it
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

int fph_init(fph *h)
{
    h->n = 0;
    fr_neg(&h->minus_one, &FR_ONE);
    h->md = EVP_MD_CTX_new();
    if (!h->md || EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(h->md);
        h->md = NULL;
        return openssl_failed();
    }
    return 0;
}

void fph_free(fph *h)
{
    EVP_MD_CTX_free(h->md);
    h->md = NULL;
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

int fph_lc(fph *h, uint32_t count)
{
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

int fph_final(fph *h, size_t num_inputs, size_t num_aux, size_t num_constraints, uint8_t out[32])
{
    unsigned int len = 0;
    if (room(h, 24)) return CUZK_ENOMEM;
    put_le(h, num_inputs, 8);
    put_le(h, num_aux, 8);
    put_le(h, num_constraints, 8);
    if (EVP_DigestUpdate(h->md, h->buf, h->n) != 1 || EVP_DigestFinal_ex(h->md, out, &len) != 1)
        return openssl_failed();
    h->n = 0;
    return 0;
}
