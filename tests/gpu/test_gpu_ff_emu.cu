/*
 * test_gpu_ff_emu.cu - the device field arithmetic of src/gpu/ff run on the
 * host, checked against the CPU library (fp.h, fr.h) on inputs chosen to
 * stress the carry chains, not only on uniformly random ones.
 *
 * mont.cuh keeps the accumulator of a product in two N-limb arrays and
 * drops carry fix-ups that its bounds say are zero, so a wrong bound shows up
 * only on operands with long runs of all-ones / all-zero limbs or close to
 * p. The raw Montgomery limbs are therefore drawn from a pattern pool
 * (0, 1, 2^32 - 1, 2^31, random) and from the values next to p, 2^(32k)
 * and 0, and every pair of them is multiplied, squared, added, subtracted and negated, and
 * multiplied with the second value plus the largest multiple of p that fits N limbs (mont.cuh
 * allows an unreduced second factor); then long dependent chains of products and squarings run from
 * random starts. Fp2 products (Karatsuba over three Fp products) run on pairs of those values as
 * coordinates. Needs no GPU (label "unit").
 */
#include "gpu/ff/fp2.cuh"
#include "gpu/util/capi.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

static int failures;
static cuzk_rng rng;

/* The host operations of one field, with its device type D. */
struct fp_ops {
    typedef fp_t H;
    typedef fp_d D;
    static void mul(H *r, const H *a, const H *b) { fp_mul(r, a, b); }
    static void sqr(H *r, const H *a) { fp_sqr(r, a); }
    static void add(H *r, const H *a, const H *b) { fp_add(r, a, b); }
    static void sub(H *r, const H *a, const H *b) { fp_sub(r, a, b); }
    static void neg(H *r, const H *a) { fp_neg(r, a); }
    static void dbl(H *r, const H *a) { fp_dbl(r, a); }
    static void random(H *r) { fp_random(r, &rng); }
    static const char *name() { return "fp"; }
};
struct fr_ops {
    typedef fr_t H;
    typedef fr_d D;
    static void mul(H *r, const H *a, const H *b) { fr_mul(r, a, b); }
    static void sqr(H *r, const H *a) { fr_sqr(r, a); }
    static void add(H *r, const H *a, const H *b) { fr_add(r, a, b); }
    static void sub(H *r, const H *a, const H *b) { fr_sub(r, a, b); }
    static void neg(H *r, const H *a) { fr_neg(r, a); }
    static void dbl(H *r, const H *a) { fr_dbl(r, a); }
    static void random(H *r) { fr_random(r, &rng); }
    static const char *name() { return "fr"; }
};

template <class D> static bool below_p(const D &x)
{
    for (int i = D::N - 1; i >= 0; i--)
        if (x.v[i] != D::params::mod(i)) return x.v[i] < D::params::mod(i);
    return false;
}

/* x - k for a small k (x >= k) */
template <class D> static D minus_small(D x, uint32_t k)
{
    for (int i = 0; i < D::N && k; i++) {
        uint32_t old = x.v[i];
        x.v[i] -= k;
        k = old < k;
    }
    return x;
}

/* Raw Montgomery limbs < p that load the carry chains. */
template <class D> static std::vector<D> edge_values(void)
{
    std::vector<D> out;
    D p, z = D::zero();
    for (int i = 0; i < D::N; i++) p.v[i] = D::params::mod(i);
    for (uint32_t k = 1; k <= 3; k++) out.push_back(minus_small(p, k)); /* p - 1 .. p - 3 */
    out.push_back(z);
    D one_raw = z, r_mod_p = D::one();
    one_raw.v[0] = 1;
    out.push_back(one_raw);
    out.push_back(r_mod_p);
    for (int k = 1; k < D::N; k++) {
        D ones = z, pow2 = z, p_minus = p;
        for (int i = 0; i < k; i++) ones.v[i] = 0xffffffff; /* 2^(32k) - 1 */
        pow2.v[k] = 1;                                      /* 2^(32k) */
        for (int i = 0; i < k; i++) p_minus.v[i] = 0;       /* p rounded down */
        out.push_back(ones);
        out.push_back(pow2);
        if (below_p(p_minus) && !(p_minus == p)) out.push_back(p_minus);
    }
    /* p with its top limb decremented and all lower limbs all-ones */
    D top = z;
    top.v[D::N - 1] = D::params::mod(D::N - 1) - 1;
    for (int i = 0; i < D::N - 1; i++) top.v[i] = 0xffffffff;
    out.push_back(top);
    return out;
}

/* A random value whose limbs come from a pool of carry-heavy patterns. */
template <class D> static D pattern_value(void)
{
    static const uint32_t pool[] = {0, 1, 0xffffffff, 0x80000000, 0xfffffffe};
    D x;
    for (;;) {
        for (int i = 0; i < D::N; i++) {
            uint32_t r = (uint32_t)cuzk_rng_u64(&rng);
            x.v[i] = (r & 7) < 5 ? pool[r & 7] : (uint32_t)(r >> 3) * 2654435761u;
        }
        x.v[D::N - 1] %= D::params::mod(D::N - 1) + 1;
        if (below_p(x)) return x;
    }
}

template <class D, class H> static D to_d(const H &h)
{
    static_assert(sizeof(D) == sizeof(H), "layout");
    D d;
    memcpy(&d, &h, sizeof d);
    return d;
}
template <class H, class D> static H to_h(const D &d)
{
    H h;
    memcpy(&h, &d, sizeof h);
    return h;
}

/* All operations on one pair against the CPU; returns the mismatches. */
template <class O> static int check_pair(const typename O::D &x, const typename O::D &y)
{
    typedef typename O::H H;
    typedef typename O::D D;
    H a = to_h<H>(x), b = to_h<H>(y), c;
    int bad = 0;
    O::mul(&c, &a, &b);
    bad += !(to_d<D>(c) == x * y);
    bad += !(to_d<D>(c) == D::mul_inline(x, y));
    O::sqr(&c, &a);
    bad += !(to_d<D>(c) == x.sqr());
    bad += !(to_d<D>(c) == D::sqr_inline(x));
    O::add(&c, &a, &b);
    bad += !(to_d<D>(c) == x + y);
    O::sub(&c, &a, &b);
    bad += !(to_d<D>(c) == x - y);
    O::neg(&c, &a);
    bad += !(to_d<D>(c) == x.neg());
    O::dbl(&c, &a);
    bad += !(to_d<D>(c) == x.dbl());
    return bad;
}

/* y + k p for the largest k that keeps it below 2^(32N) */
template <class D> static D plus_multiple_of_p(D y)
{
    for (;;) {
        D z;
        uint32_t cc = 0;
        for (int i = 0; i < D::N; i++) z.v[i] = addc_cc(y.v[i], D::params::mod(i), cc);
        if (cc) return y;
        y = z;
    }
}

/* The second factor may be any N-limb value: x (y + k p) == x y. */
template <class O> static int check_unreduced_factor(const std::vector<typename O::D> &v)
{
    typedef typename O::H H;
    typedef typename O::D D;
    int bad = 0;
    for (const D &x : v)
        for (const D &y : v) {
            H a = to_h<H>(x), b = to_h<H>(y), c;
            O::mul(&c, &a, &b);
            bad += !(to_d<D>(c) == D::mul_inline(x, plus_multiple_of_p(y)));
        }
    return bad;
}

template <class O> static void test_field(int chain_len)
{
    typedef typename O::H H;
    typedef typename O::D D;
    std::vector<D> v = edge_values<D>();
    for (int i = 0; i < 40; i++) v.push_back(pattern_value<D>());
    int bad = 0;
    for (const D &x : v)
        for (const D &y : v) bad += check_pair<O>(x, y);
    bad += check_unreduced_factor<O>(v);
    if (bad) {
        failures++;
        printf("FAIL %s: %d mismatches on %zu edge / pattern values\n", O::name(), bad, v.size());
    }
    bad = 0;
    for (int s = 0; s < 8; s++) {
        H a, b, c;
        O::random(&a);
        O::random(&b);
        D x = to_d<D>(a), y = to_d<D>(b);
        for (int k = 0; k < chain_len; k++) {
            O::mul(&c, &a, &b);
            a = c;
            x = x * y;
            O::sqr(&b, &b);
            y = y.sqr();
            bad += check_pair<O>(x, y) + !(to_d<D>(a) == x) + !(to_d<D>(b) == y);
        }
    }
    if (bad) {
        failures++;
        printf("FAIL %s: %d mismatches in product chains\n", O::name(), bad);
    }
    /* the square's own carry chains (sqr_inline): many more values */
    bad = 0;
    for (int k = 0; k < 100000; k++) {
        H a, c;
        D x = k % 2 ? pattern_value<D>() : D();
        if (k % 2)
            a = to_h<H>(x);
        else
            O::random(&a), x = to_d<D>(a);
        O::sqr(&c, &a);
        bad += !(to_d<D>(c) == D::sqr_inline(x));
    }
    if (bad) {
        failures++;
        printf("FAIL %s: %d wrong squares\n", O::name(), bad);
    }
    printf("emu %s: %zu^2 edge / pattern pairs, 8 chains of %d products and 10^5 squares match "
           "the CPU\n",
           O::name(), v.size(), chain_len);
}

/* Fp2 products (two reductions, mul_inline / the call) on pairs of edge
 * and pattern values as coordinates, then a dependent chain. */
static void test_fp2(int chain_len)
{
    std::vector<fp_d> v = edge_values<fp_d>();
    for (int i = 0; i < 8; i++) v.push_back(pattern_value<fp_d>());
    int bad = 0;
    for (const fp_d &x : v)
        for (const fp_d &y : v) {
            fp2_d a = {x, y}, b = {y, x}, c = {x, x};
            fp2_t ha = to_h<fp2_t>(a), hb = to_h<fp2_t>(b), hc = to_h<fp2_t>(c), r;
            fp2_mul(&r, &ha, &hb);
            bad += !(to_d<fp2_d>(r) == a * b) + !(to_d<fp2_d>(r) == fp2_d::mul_inline(a, b));
            fp2_mul(&r, &ha, &hc);
            bad += !(to_d<fp2_d>(r) == a * c);
            fp2_sqr(&r, &ha);
            bad += !(to_d<fp2_d>(r) == a.sqr());
        }
    fp2_t ha, hb, r;
    fp_random(&ha.c0, &rng);
    fp_random(&ha.c1, &rng);
    fp_random(&hb.c0, &rng);
    fp_random(&hb.c1, &rng);
    fp2_d a = to_d<fp2_d>(ha), b = to_d<fp2_d>(hb);
    for (int k = 0; k < chain_len; k++) {
        fp2_mul(&r, &ha, &hb);
        ha = r;
        a = a * b;
        bad += !(to_d<fp2_d>(ha) == a);
    }
    if (bad) {
        failures++;
        printf("FAIL fp2: %d mismatches\n", bad);
    }
    printf("emu fp2: %zu^2 edge / pattern coordinate pairs and a chain of %d products match "
           "the CPU\n",
           v.size(), chain_len);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&rng, seed);
    int chain = getenv("CUZK_TEST_QUICK") ? 200 : 2000;
    test_field<fp_ops>(chain);
    test_field<fr_ops>(chain);
    test_fp2(chain);
    printf(failures ? "test_gpu_ff_emu: %d FAILURES\n" : "test_gpu_ff_emu: all passed\n", failures);
    return failures ? 1 : 0;
}
