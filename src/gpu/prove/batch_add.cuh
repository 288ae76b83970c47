/*
 * batch_add.cuh - the per-thread part of the bitmap batch addition
 * (batch_add.cu), host-compilable so that the host build of the prover's
 * tests (tests/gpuhost) runs the very same code.
 *
 * n bits in W = ceil(n / 64) words; BA_BLOCKS x BA_THREADS threads at
 * most, thread t taking words [t per, (t + 1) per) with per = ceil(W /
 * threads), so the grid is ceil(W / (per BA_THREADS)) blocks. Each thread
 * adds the affine bases of its set bits into one XYZZ accumulator (8M+2S
 * per point, madd-2008-s); bits past n are ignored.
 */
#ifndef CUZK_GPU_PROVE_BATCH_ADD_CUH
#define CUZK_GPU_PROVE_BATCH_ADD_CUH

#include "gpu/prove/prove_gpu.cuh"

#define BA_THREADS 128 /* shared memory per block: 128 XYZZ points, 24 KiB (G1), 48 (G2) */
#define BA_BLOCKS  528 /* 4 blocks on each of the H200's 132 SMs */

/* Words per thread and blocks for n bits. */
HD void batch_add_shape(size_t n, size_t *per, unsigned *blocks)
{
    size_t nw = (n + 63) / 64, threads = (size_t)BA_BLOCKS * BA_THREADS;
    *per = nw ? (nw + threads - 1) / threads : 1;
    *blocks = (unsigned)((nw + *per * BA_THREADS - 1) / (*per * BA_THREADS));
}

HD unsigned lowest_bit(uint64_t m)
{
#ifdef __CUDA_ARCH__
    return (unsigned)__ffsll((long long)m) - 1;
#else
    return (unsigned)__builtin_ctzll(m);
#endif
}

/* Thread t's sum (G1: F = fp_d, G2: F = fp2_d). */
template <class F>
HD xyzz_d<F> batch_add_thread(size_t t, const affine_d<F> *bases, const uint64_t *bits, size_t n,
                              size_t per)
{
    size_t nw = (n + 63) / 64, w0 = t * per, w1 = w0 + per < nw ? w0 + per : nw;
    xyzz_d<F> acc = xyzz_d<F>::inf();
    for (size_t w = w0; w < w1; w++) {
        uint64_t m = bits[w];
        if (w == nw - 1 && n % 64) m &= (1ull << (n % 64)) - 1;
        for (; m; m &= m - 1) acc.add_affine(bases[w * 64 + lowest_bit(m)]);
    }
    return acc;
}

#endif
