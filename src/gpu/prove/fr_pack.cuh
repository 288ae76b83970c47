/*
 * fr_pack.cuh - the packed form in which field elements cross to the
 * device when most of them are 0 or 1 (staging.cu's prove_upload_fr): a
 * witness of a 32 GiB PoRep partition is 98.7% zeros and ones, so its
 * 4.2 GB cross as ~2% of that and are expanded on the device.
 *
 * A run of nv elements (Montgomery form) packs into, for its blocks of 64
 * (nb = ceil(nv / 64)): nb words of "is one" bits, nb words of "is
 * another value" bits, nb 32-bit counts of the other values before each
 * block (padded to 8 bytes), then those other values in order. A zero has
 * neither bit. fr_pack_get reads element i back; the host packs
 * (fr_pack, here: C too, for the benchmark), the device expands
 * (prove_unpack_fr, fr_pack.cu).
 */
#ifndef CUZK_GPU_PROVE_FR_PACK_CUH
#define CUZK_GPU_PROVE_FR_PACK_CUH

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "cuzk/fr.h"
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#define FR_PACK_HD __host__ __device__ __forceinline__
#else
#define FR_PACK_HD static inline
#endif

/* The bytes before the other values of a packed run of nv elements. */
FR_PACK_HD size_t fr_pack_header(size_t nv)
{
    size_t nb = (nv + 63) / 64;
    return nb * 16 + ((nb * 4 + 7) & ~(size_t)7);
}

FR_PACK_HD unsigned fr_pack_popc(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return (unsigned)__popcll(x);
#else
    return (unsigned)__builtin_popcountll(x);
#endif
}

/* Where element i of the packed run p of nv elements is: the address of
 * its 4 limbs when it is another value, else NULL with *is_one saying
 * whether it is 1 (else 0). */
FR_PACK_HD const uint64_t *fr_pack_find(const char *p, size_t nv, size_t i, bool *is_one)
{
    size_t nb = (nv + 63) / 64, b = i / 64;
    unsigned bit = (unsigned)(i % 64);
    const uint64_t *ones = (const uint64_t *)p, *other = ones + nb;
    const uint32_t *before = (const uint32_t *)(other + nb);
    uint64_t m = other[b], below = bit ? m & ((~(uint64_t)0) >> (64 - bit)) : 0;
    *is_one = ones[b] >> bit & 1;
    if (!(m >> bit & 1)) return NULL;
    return (const uint64_t *)(p + fr_pack_header(nv)) +
           4 * (size_t)(before[b] + fr_pack_popc(below));
}

/* Element i (4 limbs into out) of the packed run p of nv elements; one:
 * the Montgomery form of 1. */
FR_PACK_HD void fr_pack_get(uint64_t out[4], const char *p, size_t nv, size_t i,
                            const uint64_t one[4])
{
    bool is_one;
    const uint64_t *v = fr_pack_find(p, nv, i, &is_one);
    for (int k = 0; k < 4; k++) out[k] = v ? v[k] : is_one ? one[k] : 0;
}

/* Bit i of *nonzero / *one: v[i] is not zero / is the Montgomery one,
 * i < n <= 64, branch-free (a block of the packed form). */
static inline void fr_pack_bits(const fr_t *v, size_t n, uint64_t *nonzero, uint64_t *one)
{
    const uint64_t *o = FR_ONE.l;
    uint64_t nz = 0, on = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *x = v[i].l;
        uint64_t z = x[0] | x[1] | x[2] | x[3];
        uint64_t e = (x[0] ^ o[0]) | (x[1] ^ o[1]) | (x[2] ^ o[2]) | (x[3] ^ o[3]);
        nz |= (uint64_t)(z != 0) << i;
        on |= (uint64_t)(e == 0) << i;
    }
    *nonzero = nz, *one = on;
}

/* The bytes v[0 .. nv) packs into. */
static inline size_t fr_pack_size(const fr_t *v, size_t nv)
{
    size_t k = 0;
    for (size_t b = 0; b < nv; b += 64) {
        uint64_t nz, on;
        fr_pack_bits(v + b, nv - b < 64 ? nv - b : 64, &nz, &on);
        k += fr_pack_popc(nz & ~on);
    }
    return fr_pack_header(nv) + k * sizeof(fr_t);
}

/* v[0 .. nv) packed into out: its bytes, or 0 when they would pass cap.
 * A block's bits first, then its other values copied by their bits (a
 * branch per element made this 3x slower than a memcpy of the run; now
 * about as fast, writing ~2% of a PoRep witness). */
static inline size_t fr_pack(char *out, size_t cap, const fr_t *v, size_t nv)
{
    size_t nb = (nv + 63) / 64, head = fr_pack_header(nv), k = 0;
    if (head > cap) return 0;
    size_t room = (cap - head) / sizeof(fr_t);
    uint64_t *ones = (uint64_t *)out, *other = ones + nb;
    uint32_t *before = (uint32_t *)(other + nb);
    fr_t *vals = (fr_t *)(out + head);
    for (size_t b = 0; b < nb; b++) {
        const fr_t *p = v + b * 64;
        uint64_t nz, on;
        fr_pack_bits(p, nv - b * 64 < 64 ? nv - b * 64 : 64, &nz, &on);
        uint64_t m = nz & ~on;
        before[b] = (uint32_t)k;
        ones[b] = on, other[b] = m;
        if (k + fr_pack_popc(m) > room) return 0;
        for (; m; m &= m - 1) vals[k++] = p[__builtin_ctzll(m)];
    }
    return head + k * sizeof(fr_t);
}

#endif
