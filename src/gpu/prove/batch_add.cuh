/*
 * batch_add.cuh - the per-thread part of the bitmap batch addition
 * (batch_add.cu), host-compilable so that the host build of the prover's
 * tests (tests/gpuhost) runs the very same code.
 *
 * n bits in W = ceil(n / 64) words; max_blocks x BA_THREADS threads at
 * most, thread t taking words [t per, (t + 1) per) with per = ceil(W /
 * threads), so the grid is ceil(W / (per BA_THREADS)) blocks. Each thread
 * adds the affine bases of its set bits into one XYZZ accumulator (8M+2S
 * per point, madd-2008-s); bits past n are ignored.
 */
#ifndef CUZK_GPU_PROVE_BATCH_ADD_CUH
#define CUZK_GPU_PROVE_BATCH_ADD_CUH

#include "gpu/prove/prove_gpu.cuh"

#define BA_THREADS 128 /* shared memory per block: 128 XYZZ points, 24 KiB (G1), 48 (G2) */
#define BA_BLOCKS  528 /* most blocks of a launch: 4 on each of the H200's 132 SMs */

/* Words per thread and blocks for n bits: at most max_blocks blocks (the
 * device's resident blocks: one wave, no tail of a few SMs working), or,
 * with per_max (0: none), at most per_max words a thread in as many
 * blocks as that takes, so that no block holds its SM for long: a lane
 * proof's blocks (yield.cu) then find SMs as the blocks end, where one
 * wave holds every SM for the whole launch (50-60 ms at 2^27 on the H200). */
HD void batch_add_shape(size_t n, unsigned max_blocks, size_t per_max, size_t *per,
                        unsigned *blocks)
{
    if (max_blocks < 1 || max_blocks > BA_BLOCKS) max_blocks = BA_BLOCKS;
    size_t nw = (n + 63) / 64, threads = (size_t)max_blocks * BA_THREADS;
    *per = nw ? (nw + threads - 1) / threads : 1;
    if (per_max && *per > per_max) *per = per_max;
    *blocks = (unsigned)((nw + *per * BA_THREADS - 1) / (*per * BA_THREADS));
}

/* The most blocks batch_add_shape gives n bits with per_max. */
HD size_t batch_add_blocks_max(size_t n, size_t per_max)
{
    size_t nw = (n + 63) / 64,
           b = per_max ? (nw + per_max * BA_THREADS - 1) / (per_max * BA_THREADS) : BA_BLOCKS;
    return b > BA_BLOCKS ? b : BA_BLOCKS;
}

HD unsigned lowest_bit(uint64_t m)
{
#ifdef __CUDA_ARCH__
    return (unsigned)__ffsll((long long)m) - 1;
#else
    return (unsigned)__builtin_ctzll(m);
#endif
}

/* Bitmap word w, bits past n cleared. */
HD uint64_t batch_add_word(const uint64_t *bits, size_t w, size_t n)
{
    uint64_t m = bits[w];
    if (w == (n - 1) / 64 && n % 64) m &= (1ull << (n % 64)) - 1;
    return m;
}

/* Thread t's sum (G1: F = fp_d, G2: F = fp2_d). One loop over the
 * thread's set bits, crossing words inside it: the lanes of a warp meet
 * at every addition, so a warp adds as often as its busiest lane has bits
 * in all (about the mean), not, word after word, as its busiest lane has
 * bits in that word (about 40 of 64 for half-set words against a mean of
 * 32, as a loop per word did). */
template <class F>
HD xyzz_d<F> batch_add_thread(size_t t, const affine_d<F> *bases, const uint64_t *bits, size_t n,
                              size_t per)
{
    size_t nw = (n + 63) / 64, w = t * per, w1 = w + per < nw ? w + per : nw;
    xyzz_d<F> acc = xyzz_d<F>::inf();
    uint64_t m = w < w1 ? batch_add_word(bits, w, n) : 0;
    for (;;) {
        while (!m && ++w < w1) m = batch_add_word(bits, w, n);
        if (!m) break;
        const affine_d<F> &p = bases[w * 64 + lowest_bit(m)];
        m &= m - 1;
        if (m) affine_prefetch(&bases[w * 64 + lowest_bit(m)]);
        acc.template add_affine<true>(p); /* paired: xyzz.cuh */
    }
    return acc;
}

#endif
