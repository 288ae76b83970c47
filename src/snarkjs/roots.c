/*
 * roots.c - the map between snarkjs' roots of unity (from 5) and ours (from
 * 7), see roots.h.
 */
#include "snarkjs/roots.h"

#include "cuzk/fr.h"

/* The odd K with omega7 = omega5^K for the 2^log_n-th roots of unity from
 * 7 and 5 (both primitive), by Pohlig-Hellman one bit at a time. */
static uint64_t root_log(unsigned log_n)
{
    /* (r - 1) / 2^32 */
    static const uint64_t t[4] = {0xfffe5bfeffffffff, 0x09a1d80553bda402, 0x299d7d483339d808,
                                  0x0000000073eda753};
    fr_t g5, g7, g5_inv;
    fr_from_u64(&g5, 5);
    fr_from_u64(&g7, 7);
    fr_pow(&g5, &g5, t, 4);
    fr_pow(&g7, &g7, t, 4);
    for (unsigned i = log_n; i < 32; i++) fr_sqr(&g5, &g5), fr_sqr(&g7, &g7);
    fr_inv(&g5_inv, &g5);
    uint64_t k = 0;
    for (unsigned i = 0; i < log_n; i++) {
        fr_t x, y;
        fr_pow(&x, &g5_inv, &k, 1);
        fr_mul(&x, &x, &g7);
        y = x;
        for (unsigned j = 0; j + 1 + i < log_n; j++) fr_sqr(&y, &y);
        if (!fr_is_one(&y)) k |= 1ull << i;
    }
    return k;
}

/* k^-1 mod 2^bits for odd k (Newton: each step doubles the correct bits). */
static uint64_t inverse_mod_pow2(uint64_t k, unsigned bits)
{
    uint64_t x = k; /* correct to 3 bits for odd k */
    for (int i = 0; i < 5; i++) x *= 2 - k * x;
    return bits >= 64 ? x : x & ((1ull << bits) - 1);
}

unsigned snarkjs_log2(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n) l++;
    return l;
}

uint64_t snarkjs_root_map(unsigned log_n)
{
    return inverse_mod_pow2(root_log(log_n), log_n);
}
