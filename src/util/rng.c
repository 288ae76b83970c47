/* rng.c - xoshiro256** seeded through splitmix64, and getrandom(2). */
#include "cuzk/rng.h"
#include "cuzk/err.h"

#include <string.h>
#include <sys/random.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cuzk_rng_seed(cuzk_rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++) g->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cuzk_rng_u64(cuzk_rng *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void cuzk_rng_bytes(cuzk_rng *g, void *out, size_t n)
{
    unsigned char *p = out;
    while (n) {
        uint64_t v = cuzk_rng_u64(g);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

int cuzk_os_random(void *out, size_t n)
{
    unsigned char *p = out;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got <= 0) return CUZK_EIO;
        p += got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}
