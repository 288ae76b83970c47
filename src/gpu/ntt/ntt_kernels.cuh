/*
 * ntt_kernels.cuh - the device side of the Fr NTT (see ntt.cu for the plan).
 *
 * ntt_pass runs m consecutive radix-2 stages (global bits b .. b+m-1) on
 * tiles held in shared memory. A tile is the 2^m elements whose indices
 * differ only in those bits (the "rows" k), times 2^L "lanes": L further
 * index bits taken where memory is contiguous (bits 0.. when b > 0, bits
 * m.. when b = 0), so that every warp reads whole 32-byte sectors in runs.
 * The tile is stored as 8 word planes ([word][element]) so that threads
 * touching consecutive elements hit distinct banks.
 *
 * The butterfly of stage j (span 2^j) on index i (bit j clear) uses
 * omega^e with e = (i mod 2^j) * 2^(n-1-j), the same exponent for the
 * Gentleman-Sande (DIF: natural in, bit-reversed out) and Cooley-Tukey
 * (DIT: bit-reversed in, natural out) orders. Twiddles come from one table
 * tw[k] = w^k, k = 0 .. 2^(T-1), of the largest size T built so far
 * (w = its root), read at k = e * 2^(T-n); the inverse root uses
 * w^-k = -w^(2^(T-1) - k), folded into the butterfly as a swapped
 * subtraction, so one table serves both directions.
 */
#ifndef CUZK_GPU_NTT_KERNELS_CUH
#define CUZK_GPU_NTT_KERNELS_CUH

#include "gpu/ff/mont.cuh"

/* Threads per block of ntt_pass: 256, 512 or 1024 (gpu_ntt_set_block);
 * a 64 KiB tile per block leaves 3 blocks on an SM, so the block size sets
 * how many warps hide the latency of the product's carry chains. */
#define NTT_THREADS  256
#define NTT_TILE_LOG 11 /* 2^11 elements of 32 bytes: 64 KiB of shared memory */

struct ntt_pass_t {
    uint32_t n;    /* log2 of the transform size */
    uint32_t b;    /* lowest index bit of the stages of this pass */
    uint32_t m;    /* number of stages (bits b .. b+m-1) */
    uint32_t lb;   /* lowest index bit of the lanes */
    uint32_t L;    /* number of lane bits */
    uint32_t ts;   /* table shift: log2(table size) - n */
    uint32_t half; /* 2^(log2(table size) - 1): index of -1 in the table */
};

HD uint32_t ntt_tile_ix(const ntt_pass_t &ps, uint32_t k, uint32_t l)
{
    return ps.lb == 0 ? (k << ps.L) | l : (l << ps.m) | k;
}

HD void ntt_smem_load(uint32_t *sm, uint32_t T, uint32_t e, fr_d *x)
{
#pragma unroll
    for (int w = 0; w < 8; w++) x->v[w] = sm[w * T + e];
}

HD void ntt_smem_store(uint32_t *sm, uint32_t T, uint32_t e, const fr_d &x)
{
#pragma unroll
    for (int w = 0; w < 8; w++) sm[w * T + e] = x.v[w];
}

/* One butterfly of local stage s on pair q of the tile. */
template <bool DIF, bool INV>
HD void ntt_butterfly(uint32_t *sm, uint32_t T, const ntt_pass_t &ps, uint32_t base, uint32_t q,
                      uint32_t s, const fr_d *__restrict__ tw)
{
    uint32_t kq, l;
    if (ps.lb == 0) {
        kq = q >> ps.L;
        l = q & ((1u << ps.L) - 1);
    } else {
        kq = q & ((1u << (ps.m - 1)) - 1);
        l = q >> (ps.m - 1);
    }
    uint32_t k0 = ((kq >> s) << (s + 1)) | (kq & ((1u << s) - 1));
    uint32_t e0 = ntt_tile_ix(ps, k0, l), e1 = ntt_tile_ix(ps, k0 | (1u << s), l);
    uint32_t j = ps.b + s;
    uint32_t gi = base | (k0 << ps.b) | (l << ps.lb);
    uint32_t ti = ((gi & ((1u << j) - 1)) << (ps.n - 1 - j)) << ps.ts;
    fr_d w = tw[INV ? ps.half - ti : ti];
    fr_d x0, x1;
    ntt_smem_load(sm, T, e0, &x0);
    ntt_smem_load(sm, T, e1, &x1);
    if (DIF) {
        fr_d d = INV ? x1 - x0 : x0 - x1;
        x0 = x0 + x1;
        x1 = d * w;
    } else {
        fr_d t = x1 * w;
        x1 = INV ? x0 + t : x0 - t;
        x0 = INV ? x0 - t : x0 + t;
    }
    ntt_smem_store(sm, T, e0, x0);
    ntt_smem_store(sm, T, e1, x1);
}

/* Index bits of the tile: the stage bits [b, b+m), the lane bits
 * [lb, lb+L); block blk supplies the other bits, low ones first. */
HD uint32_t ntt_tile_base(const ntt_pass_t &ps, uint32_t blk)
{
    const uint32_t f1 = ps.lb == 0 ? ps.b - ps.L : 0;
    const uint32_t hstart = ps.lb == 0 ? ps.b + ps.m : ps.m + ps.L;
    return ((blk & ((1u << f1) - 1)) << ps.L) | ((blk >> f1) << hstart);
}

/* Global index of tile element e (e = ntt_tile_ix(k, l)). */
HD uint32_t ntt_tile_global(const ntt_pass_t &ps, uint32_t base, uint32_t e)
{
    uint32_t k = ps.lb == 0 ? e >> ps.L : e & ((1u << ps.m) - 1);
    uint32_t l = ps.lb == 0 ? e & ((1u << ps.L) - 1) : e >> ps.m;
    return base | (k << ps.b) | (l << ps.lb);
}

/* Local stage s of the i-th step of a pass (DIF runs its bits downwards). */
HD uint32_t ntt_stage(bool dif, const ntt_pass_t &ps, uint32_t i)
{
    return dif ? ps.m - 1 - i : i;
}

template <bool DIF, bool INV, unsigned TH>
__global__ void __launch_bounds__(TH) ntt_pass(fr_d *x, const fr_d *__restrict__ tw, ntt_pass_t ps)
{
    extern __shared__ uint32_t sm[];
    const uint32_t T = 1u << (ps.m + ps.L);
    const uint32_t base = ntt_tile_base(ps, blockIdx.x);
    for (uint32_t e = threadIdx.x; e < T; e += TH)
        ntt_smem_store(sm, T, e, x[ntt_tile_global(ps, base, e)]);
    for (uint32_t i = 0; i < ps.m; i++) {
        __syncthreads();
        for (uint32_t q = threadIdx.x; q < T / 2; q += TH)
            ntt_butterfly<DIF, INV>(sm, T, ps, base, q, ntt_stage(DIF, ps, i), tw);
    }
    __syncthreads();
    for (uint32_t e = threadIdx.x; e < T; e += TH) {
        fr_d v;
        ntt_smem_load(sm, T, e, &v);
        x[ntt_tile_global(ps, base, e)] = v;
    }
}

/* The passes of a 2^n transform with a twiddle table of 2^tw_log:
 * ceil(n / NTT_MAX_STAGES) groups of nearly equal size, returned in run
 * order (DIF: top bits first; DIT: bottom first). Lanes fill the tile to
 * 2^NTT_TILE_LOG elements without overlapping the stage bits. */
#define NTT_MAX_STAGES 10
#define NTT_MAX_PASSES 3
static inline unsigned ntt_plan(ntt_pass_t *out, unsigned n, unsigned tw_log, bool dif)
{
    unsigned passes = (n + NTT_MAX_STAGES - 1) / NTT_MAX_STAGES, ms[NTT_MAX_PASSES];
    for (unsigned p = 0; p < passes; p++) ms[p] = n / passes + (p < n % passes);
    for (unsigned i = 0; i < passes; i++) {
        unsigned p = dif ? i : passes - 1 - i, b = 0; /* p = 0: the top bits */
        for (unsigned q = p + 1; q < passes; q++) b += ms[q];
        ntt_pass_t *ps = &out[i];
        ps->n = n;
        ps->b = b;
        ps->m = ms[p];
        ps->lb = b == 0 ? ps->m : 0;
        ps->L = NTT_TILE_LOG - ps->m;
        if (ps->L > n - ps->m) ps->L = n - ps->m;
        if (b > 0 && ps->L > b) ps->L = b;
        ps->ts = tw_log - n;
        ps->half = 1u << (tw_log - 1);
    }
    return passes;
}

/* tw[k] = w^k for k < count: each thread starts at w^(first) and steps. */
#define NTT_TW_CHUNK 64
__global__ void ntt_twiddle_gen(fr_d *tw, fr_d w, uint64_t count)
{
    uint64_t first = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * NTT_TW_CHUNK;
    if (first >= count) return;
    fr_d v = w.pow(first);
    for (uint64_t k = first; k < count && k < first + NTT_TW_CHUNK; k++) {
        tw[k] = v;
        v *= w;
    }
}

/* x[i] *= lo[e mod 2^14] * hi[e >> 14], e = i, or bitrev(i) when bitrev. */
#define NTT_SCALE_LO 14
HD uint32_t ntt_bitrev_index(uint32_t i, uint32_t n)
{
#ifdef __CUDA_ARCH__
    return __brev(i) >> (32 - n);
#else
    uint32_t r = 0;
    for (uint32_t b = 0; b < n; b++) r |= ((i >> b) & 1) << (n - 1 - b);
    return r;
#endif
}

HD void ntt_scale_item(uint32_t i, fr_d *x, uint32_t n, bool bitrev, const fr_d *lo, const fr_d *hi)
{
    uint32_t e = bitrev ? ntt_bitrev_index(i, n) : i;
    x[i] = x[i] * (lo[e & ((1u << NTT_SCALE_LO) - 1)] * hi[e >> NTT_SCALE_LO]);
}

__global__ void ntt_scale(fr_d *x, uint32_t n, bool bitrev, const fr_d *__restrict__ lo,
                          const fr_d *__restrict__ hi)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (1u << n)) ntt_scale_item(i, x, n, bitrev, lo, hi);
}

/* In-place bit-reversal permutation. */
HD void ntt_bitrev_item(uint32_t i, fr_d *x, uint32_t n)
{
    uint32_t j = ntt_bitrev_index(i, n);
    if (i < j) {
        fr_d t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

__global__ void ntt_bitrev(fr_d *x, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (1u << n)) ntt_bitrev_item(i, x, n);
}

/* a = (a b - c) * zinv, the division by Z = 7^n - 1 on the coset. */
__global__ void ntt_h_pointwise(fr_d *a, const fr_d *__restrict__ b, const fr_d *__restrict__ c,
                                uint32_t count, fr_d zinv)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    a[i] = (a[i] * b[i] - c[i]) * zinv;
}

#endif
