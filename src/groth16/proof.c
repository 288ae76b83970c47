/*
 * proof.c - the 192-byte Groth16 proof encoding (A G1 compressed || B G2
 * compressed || C G1 compressed) and the owners' free functions.
 */
#include "cuzk/groth16.h"

#include <stdlib.h>
#include <string.h>

void groth16_proof_encode(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof *proof)
{
    g1_affine_compress(out, &proof->a);
    g2_affine_compress(out + G1_COMPRESSED_BYTES, &proof->b);
    g1_affine_compress(out + G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES, &proof->c);
}

int groth16_proof_decode(groth16_proof *proof, const uint8_t *in, size_t len, cuzk_err *err)
{
    if (len != GROTH16_PROOF_BYTES)
        return cuzk_errf(err, CUZK_ELENGTH, "proof is %zu bytes, expected %d", len,
                         GROTH16_PROOF_BYTES);
    int rc = g1_affine_uncompress(&proof->a, in, G1_COMPRESSED_BYTES, err);
    if (rc) return cuzk_err_prefix(err, "proof A: ");
    rc = g2_affine_uncompress(&proof->b, in + G1_COMPRESSED_BYTES, G2_COMPRESSED_BYTES, err);
    if (rc) return cuzk_err_prefix(err, "proof B: ");
    rc = g1_affine_uncompress(&proof->c, in + G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES,
                              G1_COMPRESSED_BYTES, err);
    if (rc) return cuzk_err_prefix(err, "proof C: ");
    if (g1_affine_is_inf(&proof->a) || g2_affine_is_inf(&proof->b) || g1_affine_is_inf(&proof->c))
        return cuzk_errf(err, CUZK_EIDENTITY, "proof: a point is the identity");
    return CUZK_OK;
}

void groth16_vk_free(groth16_vk *vk)
{
    free(vk->ic);
    memset(vk, 0, sizeof(*vk));
}

void groth16_params_free(groth16_params *p)
{
    groth16_vk_free(&p->vk);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    memset(p, 0, sizeof(*p));
}
