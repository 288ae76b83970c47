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
 *
 * ntt_pass_r8 (below; the default) runs the same passes and tiles with 8
 * elements per thread in registers and 3 stages between exchanges.
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

/* In-place bit-reversal permutation, one pair a thread (the reference for
 * the tiled kernel below; the host tests use it). */
HD void ntt_bitrev_item(uint32_t i, fr_d *x, uint32_t n)
{
    uint32_t j = ntt_bitrev_index(i, n);
    if (i < j) {
        fr_d t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/*
 * The same permutation by tiles, for n >= 2 K: index i = h | mid | l with
 * h the top K bits, l the bottom K; bitrev(i) = rev(l) | rev(mid) |
 * rev(h). Block mid (with mid <= mid' = rev(mid)) loads the 2^K x 2^K
 * tiles (h, l) of mid and of mid' (rows along l: runs of 2^K contiguous
 * elements), then writes each tile's slots from the other tile transposed
 * and reversed: slot (h, l) of tile t takes element (rev(l), rev(h)) of
 * tile 1 - t. Reads and writes of device memory are whole runs, where the
 * pair swap reads and writes one element per 32-byte sector at scattered
 * places. Shared memory: word planes, rows padded to 2^K + 1 words so
 * that the transposed reads spread over the banks.
 */
#define NTT_BR_K       4
#define NTT_BR_THREADS (1u << (2 * NTT_BR_K))

/* Global index of slot (h, l) of the tile of mid (h, l < 2^K). */
HD uint32_t ntt_br_global(uint32_t n, uint32_t mid, uint32_t h, uint32_t l)
{
    return (h << (n - NTT_BR_K)) | (mid << NTT_BR_K) | l;
}

/* The partner tile of mid (n - 2K middle bits). */
HD uint32_t ntt_br_partner(uint32_t n, uint32_t mid)
{
    const uint32_t mb = n - 2 * NTT_BR_K;
    return mb ? ntt_bitrev_index(mid, mb) : 0;
}

/* Shared-memory word of tile slot (h, l), word w. */
HD uint32_t ntt_br_word(uint32_t t, uint32_t w, uint32_t h, uint32_t l)
{
    constexpr uint32_t S = 1u << NTT_BR_K, P = S * (S + 1);
    return (t * 8 + w) * P + h * (S + 1) + l;
}

#define NTT_BR_SMEM_WORDS (2 * 8 * (1u << NTT_BR_K) * ((1u << NTT_BR_K) + 1))

/* Thread `thread` of block mid, before the barrier: its slot of each tile
 * into shared memory, less the same slot of sub (NULL: none). */
HD void ntt_br_load(const fr_d *x, const fr_d *sub, uint32_t *sm, uint32_t n, uint32_t mid,
                    uint32_t thread)
{
    const uint32_t mid2 = ntt_br_partner(n, mid), mids[2] = {mid, mid2};
    const uint32_t h = thread >> NTT_BR_K, l = thread & ((1u << NTT_BR_K) - 1);
    for (uint32_t t = 0; t < (mid == mid2 ? 1u : 2u); t++) {
        const uint32_t g = ntt_br_global(n, mids[t], h, l);
        fr_d v = x[g];
        if (sub) v = v - sub[g];
#pragma unroll
        for (int w = 0; w < 8; w++) sm[ntt_br_word(t, w, h, l)] = v.v[w];
    }
}

/* ... after it: its slot of each tile from the other tile's (rev l, rev h). */
HD void ntt_br_store(fr_d *x, const uint32_t *sm, uint32_t n, uint32_t mid, uint32_t thread)
{
    const uint32_t mid2 = ntt_br_partner(n, mid), mids[2] = {mid, mid2};
    const uint32_t h = thread >> NTT_BR_K, l = thread & ((1u << NTT_BR_K) - 1);
    const uint32_t rh = ntt_bitrev_index(h, NTT_BR_K), rl = ntt_bitrev_index(l, NTT_BR_K);
    const uint32_t tiles = mid == mid2 ? 1 : 2;
    for (uint32_t t = 0; t < tiles; t++) {
        fr_d v;
#pragma unroll
        for (int w = 0; w < 8; w++) v.v[w] = sm[ntt_br_word(tiles - 1 - t, w, rl, rh)];
        x[ntt_br_global(n, mids[t], h, l)] = v;
    }
}

/* 2^(n - 2K) blocks of NTT_BR_THREADS; a block whose mid exceeds its
 * partner's leaves the pair to the partner's block. x := bitrev(x - sub)
 * (sub NULL: bitrev(x)). */
__global__ void __launch_bounds__(NTT_BR_THREADS)
    ntt_bitrev_tiled(fr_d *x, const fr_d *__restrict__ sub, uint32_t n)
{
    __shared__ uint32_t sm[NTT_BR_SMEM_WORDS];
    if (blockIdx.x > ntt_br_partner(n, blockIdx.x)) return;
    ntt_br_load(x, sub, sm, n, blockIdx.x, threadIdx.x);
    __syncthreads();
    ntt_br_store(x, sm, n, blockIdx.x, threadIdx.x);
}

/*
 * The register pass (radix 8, the default; gpu_ntt_set_radix): the same
 * tile as ntt_pass, T / 8 threads, each holding 8 elements in registers.
 * The m stages of the pass form G = ceil(m / 3) groups of consecutive
 * stages: group 0 the g0 = m - 3 (G - 1) lowest, group q >= 1 the stages
 * [g0 + 3 (q - 1), g0 + 3 q). Every group owns 3 consecutive row bits,
 * its "register bits" (group 0: its g0 stage bits and 3 - g0 passive row
 * bits above them): a thread's 8 elements are the 8 values of those bits,
 * the thread number filling the other tile bits, lowest first (so
 * consecutive threads read consecutive memory where the tile has it).
 * A group runs its stages on the registers (4 independent butterflies a
 * stage); between groups the tile goes through shared memory once
 * (store, barrier, load under the next group's bits). The first group
 * reads device memory and the last writes it directly: 2 G - 3 barriers
 * against m + 1 for ntt_pass, and no shared round trip at either end.
 *
 * Twiddles: stage a of a group (global bit j = jb + a, jb the global bit
 * of register bit 0) has exponent (low + r 2^jb) 2^(n-1-j) for the
 * butterfly whose register index has r = its bits below a, low = the
 * thread's global index mod 2^jb: 2^a table loads per stage, 7 per group.
 * When jb = 0 (group 0 of the pass with b = 0) low = 0 for every thread
 * and the butterflies with r = 0 have twiddle 1: they skip the product
 * (7 of 12 for a 3-stage group; the result is the same field element).
 * A scaling (1/n, coset powers) rides on the loads of the first pass of
 * a DIF forward transform or the stores of the last pass of a DIF inverse
 * (ntt_scale_t), saving the separate ntt_scale pass; the callers never
 * scale around a DIT transform.
 *
 * Shared memory holds the tile as two planes of 16-byte words (words 0-3,
 * 4-7 of each element), element e at ntt_r8_swz(e): e with its bits 0-2
 * XORed by its bits 3-5. A 16-byte access serves 8 threads per cycle,
 * which must hit distinct 16-byte bank groups (address mod 8). Their
 * varying tile bits are the 3 lowest bits outside the 3 consecutive
 * register bits {a, a+1, a+2}: {0,1,2} (a >= 3), {3,4,5}, {0,4,5} or
 * {0,1,5}, all below 6 and distinct mod 3, and bit i < 6 flips address
 * bit (i mod 3), so the 8 addresses are distinct mod 8 for every group
 * (test_gpu_emu checks it for every plan).
 */
#define NTT_R8_THREADS 256 /* 2^NTT_TILE_LOG / 8 */
/* 2 blocks of 64 KiB per SM: at most 128 registers a thread (ptxas gave
 * a DIT instantiation 168 without the bound: 1 block per SM). At 128
 * (split-accumulator products) ptxas spills nothing in the DIF kernels of
 * passes with b > 0, 16 bytes in that of the pass with b = 0, 4 in DIT's,
 * 44-52 with a scaling; -DNTT_R8_MIN_BLOCKS=1 in CMAKE_CUDA_FLAGS lifts
 * the bound (158-194 registers, no spills) for a comparison. */
#ifndef NTT_R8_MIN_BLOCKS
#define NTT_R8_MIN_BLOCKS 2
#endif

HD uint32_t ntt_r8_groups(const ntt_pass_t &ps)
{
    return (ps.m + 2) / 3;
}

/* Lowest stage (= lowest register bit) of group q, and its stage count. */
HD uint32_t ntt_r8_low(const ntt_pass_t &ps, uint32_t q)
{
    return q == 0 ? 0 : ps.m - 3 * (ntt_r8_groups(ps) - q);
}

HD uint32_t ntt_r8_stages(const ntt_pass_t &ps, uint32_t q)
{
    return q == 0 ? ps.m - 3 * (ntt_r8_groups(ps) - 1) : 3;
}

/* Tile element u of thread t in group q: the register bits sit at tile
 * bit p0 (row bits start at tile bit L when the lanes are below them). */
HD uint32_t ntt_r8_elem(const ntt_pass_t &ps, uint32_t q, uint32_t t, uint32_t u)
{
    const uint32_t p0 = (ps.lb == 0 ? ps.L : 0) + ntt_r8_low(ps, q);
    return ((t >> p0) << (p0 + 3)) | (u << p0) | (t & ((1u << p0) - 1));
}

HD uint32_t ntt_r8_swz(uint32_t e)
{
    return e ^ ((e >> 3) & 7);
}

/* a - b + p for a, b < p, not reduced (in (0, 2p)): only ever the second
 * factor of a product, which may be any value below 2^256 (mont.cuh).
 * Two carry chains against the reduced difference's two and a mask. */
HD fr_d ntt_sub_lazy(const fr_d &a, const fr_d &b)
{
    uint32_t t[8], cc = 0;
    t[0] = add_cc(a.v[0], fr_params::mod(0), cc);
#pragma unroll
    for (int i = 1; i < 7; i++) t[i] = addc_cc(a.v[i], fr_params::mod(i), cc);
    t[7] = addc(a.v[7], fr_params::mod(7), cc); /* a + p < 2p < 2^256 */
    fr_d r;
    r.v[0] = sub_cc(t[0], b.v[0], cc);
#pragma unroll
    for (int i = 1; i < 7; i++) r.v[i] = subc_cc(t[i], b.v[i], cc);
    r.v[7] = subc(t[7], b.v[7], cc); /* a + p - b > 0 */
    return r;
}

/* One radix-2 butterfly; ONE: the twiddle is 1 (w unused). The DIF
 * difference goes into the product unreduced (the product's result is
 * reduced, so the bytes are the same). */
template <bool DIF, bool INV, bool ONE> HD void ntt_r8_bfly(fr_d &x0, fr_d &x1, const fr_d &w)
{
    if (DIF && ONE) {
        fr_d d = x0 - x1;
        x0 = x0 + x1;
        x1 = d;
    } else if (DIF) {
        fr_d d = INV ? ntt_sub_lazy(x1, x0) : ntt_sub_lazy(x0, x1);
        x0 = x0 + x1;
        x1 = w * d; /* a * b keeps a whole, consumes b limb by limb */
    } else {
        fr_d t = ONE ? x1 : x1 * w;
        x1 = INV && !ONE ? x0 + t : x0 - t;
        x0 = INV && !ONE ? x0 - t : x0 + t;
    }
}

/* Stage A of a group on the registers: butterflies (u, u + 2^A) for the
 * 4 u with bit A clear; ONE: low = 0 and jb = 0. */
template <bool DIF, bool INV, bool ONE, int A>
HD void ntt_r8_stage(fr_d *v, const ntt_pass_t &ps, uint32_t low, uint32_t jb,
                     const fr_d *__restrict__ tw)
{
    const uint32_t j = jb + A;
    fr_d w[1 << A];
#pragma unroll
    for (int r = ONE ? 1 : 0; r < (1 << A); r++) {
        uint32_t ti = ((low + ((uint32_t)r << jb)) << (ps.n - 1 - j)) << ps.ts;
        w[r] = tw[INV ? ps.half - ti : ti];
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int u = ((k >> A) << (A + 1)) | (k & ((1 << A) - 1)), r = u & ((1 << A) - 1);
        if (ONE && r == 0)
            ntt_r8_bfly<DIF, INV, true>(v[u], v[u + (1 << A)], w[0]);
        else
            ntt_r8_bfly<DIF, INV, false>(v[u], v[u + (1 << A)], w[r]);
    }
}

/* The stages of group q (DIF downwards, DIT upwards); gi0 is the global
 * index of the thread's element 0. */
template <bool DIF, bool INV, bool ONE>
HD void ntt_r8_group(fr_d *v, const ntt_pass_t &ps, uint32_t q, uint32_t gi0,
                     const fr_d *__restrict__ tw)
{
    const uint32_t g = ntt_r8_stages(ps, q), jb = ps.b + ntt_r8_low(ps, q);
    const uint32_t low = gi0 & ((1u << jb) - 1);
    if (DIF) {
        if (g > 2) ntt_r8_stage<DIF, INV, ONE, 2>(v, ps, low, jb, tw);
        if (g > 1) ntt_r8_stage<DIF, INV, ONE, 1>(v, ps, low, jb, tw);
        ntt_r8_stage<DIF, INV, ONE, 0>(v, ps, low, jb, tw);
    } else {
        ntt_r8_stage<DIF, INV, ONE, 0>(v, ps, low, jb, tw);
        if (g > 1) ntt_r8_stage<DIF, INV, ONE, 1>(v, ps, low, jb, tw);
        if (g > 2) ntt_r8_stage<DIF, INV, ONE, 2>(v, ps, low, jb, tw);
    }
}

/* Group q of the pass with b = 0 has twiddle-1 butterflies (ONE). */
HD bool ntt_r8_one(const ntt_pass_t &ps, uint32_t q)
{
    return ps.b == 0 && q == 0;
}

template <bool DIF, bool INV, bool ONE>
HD void ntt_r8_run(fr_d *v, const ntt_pass_t &ps, uint32_t base, uint32_t q, uint32_t t,
                   const fr_d *__restrict__ tw)
{
    uint32_t gi0 = ntt_tile_global(ps, base, ntt_r8_elem(ps, q, t, 0));
    ntt_r8_group<DIF, INV, ONE>(v, ps, q, gi0, tw);
}

/* A scaling folded into a pass, as ntt_scale_item: x[i] times
 * lo[e mod 2^14] hi[e >> 14], e = i or bitrev(i); on the loads of the
 * first pass or the stores of the last. */
struct ntt_scale_t {
    const fr_d *lo, *hi; /* lo == NULL: none */
    uint32_t bitrev;
};

HD void ntt_r8_scale(const ntt_scale_t &sc, const ntt_pass_t &ps, uint32_t base, uint32_t q,
                     uint32_t t, fr_d *v)
{
    if (!sc.lo) return;
#pragma unroll
    for (int u = 0; u < 8; u++) {
        uint32_t i = ntt_tile_global(ps, base, ntt_r8_elem(ps, q, t, u));
        uint32_t e = sc.bitrev ? ntt_bitrev_index(i, ps.n) : i;
        fr_d lo = sc.lo[e & ((1u << NTT_SCALE_LO) - 1)], hi = sc.hi[e >> NTT_SCALE_LO];
        v[u] = v[u] * (lo * hi);
    }
}

HD void ntt_r8_load(const fr_d *x, const ntt_pass_t &ps, uint32_t base, uint32_t q, uint32_t t,
                    fr_d *v)
{
#pragma unroll
    for (int u = 0; u < 8; u++) v[u] = x[ntt_tile_global(ps, base, ntt_r8_elem(ps, q, t, u))];
}

HD void ntt_r8_store(fr_d *x, const ntt_pass_t &ps, uint32_t base, uint32_t q, uint32_t t,
                     const fr_d *v)
{
#pragma unroll
    for (int u = 0; u < 8; u++) x[ntt_tile_global(ps, base, ntt_r8_elem(ps, q, t, u))] = v[u];
}

/* The tile in shared memory: plane h (words 4h .. 4h+3) of element e at
 * sm[h T + ntt_r8_swz(e)]. */
HD void ntt_r8_smem_store(uint4 *sm, const ntt_pass_t &ps, uint32_t q, uint32_t t, const fr_d *v)
{
    const uint32_t T = 1u << (ps.m + ps.L);
#pragma unroll
    for (int u = 0; u < 8; u++) {
        uint32_t s = ntt_r8_swz(ntt_r8_elem(ps, q, t, u));
        sm[s] = make_uint4(v[u].v[0], v[u].v[1], v[u].v[2], v[u].v[3]);
        sm[T + s] = make_uint4(v[u].v[4], v[u].v[5], v[u].v[6], v[u].v[7]);
    }
}

HD void ntt_r8_smem_load(const uint4 *sm, const ntt_pass_t &ps, uint32_t q, uint32_t t, fr_d *v)
{
    const uint32_t T = 1u << (ps.m + ps.L);
#pragma unroll
    for (int u = 0; u < 8; u++) {
        uint32_t s = ntt_r8_swz(ntt_r8_elem(ps, q, t, u));
        uint4 a = sm[s], b = sm[T + s];
        v[u].v[0] = a.x, v[u].v[1] = a.y, v[u].v[2] = a.z, v[u].v[3] = a.w;
        v[u].v[4] = b.x, v[u].v[5] = b.y, v[u].v[6] = b.z, v[u].v[7] = b.w;
    }
}

/* Group q after group i of the pass (DIF: top group first). */
HD uint32_t ntt_r8_group_at(bool dif, const ntt_pass_t &ps, uint32_t i)
{
    return dif ? ntt_r8_groups(ps) - 1 - i : i;
}

/* What a launch of ntt_pass_r8 does besides the stages: nothing, or the
 * scaling on its loads (the first pass of a DIF forward transform) or on
 * its stores (the last of a DIF inverse). Separate instantiations (as for
 * BOTTOM): the scaling's products cost the plain kernel spills (ptxas). */
enum { NTT_R8_PLAIN, NTT_R8_SCALE_IN, NTT_R8_SCALE_OUT };

/* Launched with T / 8 threads and 32 T bytes of shared memory. Group i
 * reads the tile from device memory (i = 0) or from shared memory, where
 * group i - 1 left it (the barrier before its store waits for the loads
 * of the exchange before). One copy of the group code in the loop; only
 * BOTTOM kernels (the pass with b = 0) have the twiddle-1 group too, for
 * DIF after the loop (its last group): ptxas spilled 52 bytes a thread
 * with it inside the loop, 12-16 so (and none without it: the passes with
 * b > 0 have kernels of their own). */
template <bool DIF, bool INV, int SC, bool BOTTOM>
__global__ void __launch_bounds__(NTT_R8_THREADS, NTT_R8_MIN_BLOCKS)
    ntt_pass_r8(fr_d *x, const fr_d *__restrict__ tw, ntt_pass_t ps, ntt_scale_t sc)
{
    extern __shared__ uint4 sm4[];
    const uint32_t base = ntt_tile_base(ps, blockIdx.x), t = threadIdx.x;
    const uint32_t G = ntt_r8_groups(ps);
    fr_d v[8];
    uint32_t q = 0;
    for (uint32_t i = 0; i < G; i++) {
        uint32_t next = ntt_r8_group_at(DIF, ps, i);
        if (i == 0) {
            ntt_r8_load(x, ps, base, next, t, v);
            if (SC == NTT_R8_SCALE_IN) ntt_r8_scale(sc, ps, base, next, t, v);
        } else {
            if (i > 1) __syncthreads();
            ntt_r8_smem_store(sm4, ps, q, t, v);
            __syncthreads();
            ntt_r8_smem_load(sm4, ps, next, t, v);
        }
        q = next;
        bool one = BOTTOM && ntt_r8_one(ps, q);
        if (DIF && one) break; /* the pass's last group: after the loop */
        if (one)
            ntt_r8_run<DIF, INV, true>(v, ps, base, q, t, tw);
        else
            ntt_r8_run<DIF, INV, false>(v, ps, base, q, t, tw);
    }
    if (DIF && BOTTOM && ntt_r8_one(ps, q)) ntt_r8_run<DIF, INV, true>(v, ps, base, q, t, tw);
    if (SC == NTT_R8_SCALE_OUT) ntt_r8_scale(sc, ps, base, q, t, v);
    ntt_r8_store(x, ps, base, q, t, v);
}

/* a = a b zinv: A B divided by Z = 7^n - 1 on the coset. */
__global__ void ntt_h_pointwise(fr_d *a, const fr_d *__restrict__ b, uint32_t count, fr_d zinv)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    a[i] = a[i] * b[i] * zinv;
}

/* The same product into b's row, a's factor first (the H step in pieces:
 * b on the device, a a piece at a time). */
__global__ void ntt_h_pointwise_b(fr_d *b, const fr_d *__restrict__ a, uint32_t count, fr_d zinv)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    b[i] = a[i] * b[i] * zinv;
}

/* x = x - c (the H step in pieces: c's coefficients a piece at a time). */
__global__ void ntt_h_sub(fr_d *x, const fr_d *__restrict__ c, uint32_t count)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    x[i] = x[i] - c[i];
}

#endif
