/*
 * params.cuh - BLS12-381 field constants for the device, as 32-bit limbs.
 *
 * The device keeps Fp and Fr in the same Montgomery form as the CPU
 * (R = 2^384 mod p, R = 2^256 mod r), so an fp_t (6 x 64-bit limbs) and the
 * device Fp (12 x 32-bit limbs) have identical bytes on a little-endian
 * machine, likewise fr_t (4 x 64) and the device Fr (8 x 32). The values
 * below are the CPU constants of reference/groth16.md split into 32-bit
 * halves; M0 = -m^-1 mod 2^32 is the low half of -m^-1 mod 2^64.
 */
#ifndef CUZK_GPU_FF_PARAMS_CUH
#define CUZK_GPU_FF_PARAMS_CUH

#include <stdint.h>

struct fp_params {
    static constexpr int N = 12;
    /* products and squares are __noinline__ calls (mont.cuh) */
    static constexpr bool call_products = true;
    /* -p^-1 mod 2^32 (low half of 0x89f3fffcfffcfffd) */
    static constexpr uint32_t M0 = 0xfffcfffd;
    __host__ __device__ static constexpr uint32_t row_m0() { return M0; }
    /* p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
     *       1eabfffeb153ffffb9feffffffffaaab */
    __host__ __device__ static constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[N] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                   0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                   0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return m[i];
    }
    /* 2^384 mod p: Montgomery form of 1 */
    __host__ __device__ static constexpr uint32_t one(int i)
    {
        constexpr uint32_t m[N] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                   0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                   0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return m[i];
    }
};

#ifdef __CUDACC__
/* Fr's M0 for the device products, read from constant memory (mont.cuh
 * split_row): knowing M0 = -1, ptxas turns m = t_0 M0 into -t_0 and then
 * splits every multiply-add of the m r rows in two (IMAD.X + IMAD.HI.U32.X
 * instead of one IMAD.WIDE.U32.X: 576 more instructions in an NTT pass);
 * from a constant bank it cannot. Measured on the H200: Fr products 53.8
 * -> 60.7 G/s, NTT 2^24 5.25 -> 4.88 ms. */
static __constant__ uint32_t fr_m0_dev = 0xffffffff;
#endif

struct fr_params {
    static constexpr int N = 8;
    static constexpr bool call_products = false;
    /* -r^-1 mod 2^32 (low half of 0xfffffffeffffffff) */
    static constexpr uint32_t M0 = 0xffffffff;
    /* M0 for the rows of a product: the device reads it (see above) */
    __host__ __device__ static uint32_t row_m0()
    {
#ifdef __CUDA_ARCH__
        return fr_m0_dev;
#else
        return M0;
#endif
    }
    /* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
    __host__ __device__ static constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[N] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return m[i];
    }
    /* 2^256 mod r: Montgomery form of 1 */
    __host__ __device__ static constexpr uint32_t one(int i)
    {
        constexpr uint32_t m[N] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return m[i];
    }
};

#endif
