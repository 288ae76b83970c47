/*
 * wit_view.cuh - a witness on the device as its kernels read it (the
 * shape's evaluation, shape_eval.cuh; the device prep, prep_dev.cuh):
 * [inputs || aux] as they are, or kept packed, where the aux variables
 * stay in the form they cross in (staging.cu's prove_upload_fr_kept):
 * pieces of WIT_PIECE elements, each packed (fr_pack.cuh) when that takes
 * at most a quarter of it, else as it is, placed in the order they
 * arrived and found through a table of their offsets. A 32 GiB PoRep
 * partition's 3.9 GiB witness keeps in ~0.14 GiB, which gives the H step
 * of a 16 GiB device its second row (residency.cu rule 4).
 * Host-compilable, so the host build of the prover's tests runs it.
 */
#ifndef CUZK_GPU_PROVE_WIT_VIEW_CUH
#define CUZK_GPU_PROVE_WIT_VIEW_CUH

#include "gpu/prove/fr_pack.cuh"
#include "gpu/prove/prove_gpu.cuh"

#define WIT_PIECE_LOG 17 /* elements per piece: staging.cu's STAGE_PIECE bytes */
#define WIT_PIECE     ((size_t)1 << WIT_PIECE_LOG)
#define WIT_AS_IS     1 /* a piece's offset | WIT_AS_IS: it is not packed */

typedef struct wit_view {
    const fr_d *dense;  /* [inputs || aux] as they are; NULL: kept packed */
    const fr_d *in;     /* kept packed: the inputs, as they are */
    const uint64_t *at; /* kept packed: piece k's offset in bytes (| WIT_AS_IS) */
    const char *bytes;  /* kept packed: the pieces */
    size_t n_in, n;     /* inputs; inputs and aux */
} wit_view;

/* The view of a witness as it is at w, of n variables. */
static inline wit_view wit_dense(const void *w, size_t n)
{
    wit_view v = {(const fr_d *)w, NULL, NULL, NULL, 0, n};
    return v;
}

/* Pieces of n_aux elements kept packed, and the device bytes of their
 * offsets' table (kept on 16 bytes). */
HD size_t wit_pieces(size_t n_aux)
{
    return (n_aux + WIT_PIECE - 1) / WIT_PIECE;
}
HD size_t wit_table_bytes(size_t n_aux)
{
    return (wit_pieces(n_aux) * sizeof(uint64_t) + 15) & ~(size_t)15;
}

/* Variable v of the witness. */
HD fr_d wit_get(const wit_view &w, size_t v)
{
    if (w.dense) return w.dense[v];
    if (v < w.n_in) return w.in[v];
    size_t i = v - w.n_in, p = i >> WIT_PIECE_LOG, k = i & (WIT_PIECE - 1);
    uint64_t at = w.at[p];
    const char *base = w.bytes + (at & ~(uint64_t)WIT_AS_IS);
    const uint64_t *x;
    bool is_one = false;
    if (at & WIT_AS_IS) {
        x = (const uint64_t *)base + 4 * k;
    } else {
        size_t left = w.n - w.n_in - p * WIT_PIECE;
        x = fr_pack_find(base, left < WIT_PIECE ? left : WIT_PIECE, k, &is_one);
        if (!x) return is_one ? fr_d::one() : fr_d::zero();
    }
    fr_d r;
    for (int j = 0; j < 4; j++)
        r.v[2 * j] = (uint32_t)x[j], r.v[2 * j + 1] = (uint32_t)(x[j] >> 32);
    return r;
}

#endif
