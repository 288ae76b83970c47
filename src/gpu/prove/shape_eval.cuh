/*
 * shape_eval.cuh - a, b, c of a witness from a circuit shape on the
 * device (shape_eval.cu's kernels, shape_cache.cu's host code): the
 * device view of a cs_shape and the per-entry step, host-compilable so
 * that the host build of the prover's tests (tests/gpuhost) runs the very
 * same code.
 *
 * One warp takes a block of SHAPE_BLOCK (32) rows of a matrix: a prefix
 * sum of the rows' lengths over the warp gives each lane its row's first
 * entry (and one of the rows' escaped entries its first escape index),
 * each lane adds up a row of at most SHAPE_LONG entries (most rows:
 * bits, XORs, Poseidon rounds), and every longer row (the packing and
 * MultiEq rows, up to hundreds of terms) is then summed by the whole warp,
 * 32 entries at a time, and reduced by shuffles. An entry costs an
 * addition for a coefficient of +-1, none or one for +-2^k on a bit value,
 * a product otherwise.
 */
#ifndef CUZK_GPU_PROVE_SHAPE_EVAL_CUH
#define CUZK_GPU_PROVE_SHAPE_EVAL_CUH

#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/wit_view.cuh"

extern "C" {
#include "r1cs/shape.h"
}

#define SHAPE_LONG  16 /* rows of more entries are summed by the whole warp */
#define SHAPE_WARPS 4  /* warps (row blocks) per thread block */

/* A shape's matrices on the device (shape.h's structs, device pointers). */
typedef struct shape_view {
    shape_matrix m[3];
    const fr_d *vals, *pow2; /* escaped values; 2^k for k < SHAPE_POWS */
    size_t rows, cols;       /* constraints; inputs + aux (w's length) */
} shape_view;

/* acc += coefficient of entry e times its witness value; x is the entry's
 * index among m's escaped entries when it is one. */
HD void shape_add_entry(fr_d &acc, const shape_view &v, const shape_matrix &m, const wit_view &w,
                        uint64_t e, uint64_t x)
{
    uint32_t col = m.col[e];
    unsigned code = m.code[e];
    fr_d in = wit_get(w, col & SHAPE_COL), t;
    if (code == 0) {
        t = in;
    } else if (code == SHAPE_ESC) {
        t = in * v.vals[m.esc_val[x]];
    } else if (in.is_zero()) {
        return;
    } else if (in == fr_d::one()) {
        t = v.pow2[code];
    } else {
        t = in * v.pow2[code];
    }
    acc = (col & SHAPE_NEG) ? acc - t : acc + t;
}

/* Queues out[r - lo] := row r of matrix `which` (0, 1, 2: A, B, C) times
 * the device witness w (v's arrays on the current device), for r in
 * [lo, end), on the default stream: lo a multiple of SHAPE_BLOCK, end one
 * too or v->rows. */
int shape_launch_eval(const shape_view *v, const wit_view *w, int which, size_t lo, size_t end,
                      fr_t *out, cuzk_err *err);
/* Queues *first := min(*first, lo + every j < n with a_j b_j != c_j)
 * (first is device memory, set by the caller). */
int shape_launch_check(const fr_t *a, const fr_t *b, const fr_t *c, size_t n, size_t lo,
                       unsigned long long *first, cuzk_err *err);

#endif
