/*
 * field_impl.h - the field API of fp.h / fr.h, written once (internal).
 *
 * Included by fp.c and fr.c after defining:
 *   F(x)       the name prefix, e.g. fp_##x
 *   F_T        the element type (fp_t)
 *   F_N        limb count
 *   F_BYTES    canonical byte length
 *   F_MOD      modulus limbs, F_MINV = -mod^-1 mod 2^64
 *   F_R2       R^2 mod modulus (to enter Montgomery form)
 *   F_R3       R^3 mod modulus (to return to it after inversion)
 *   F_S62      signed-62 limb count for the inversion (inv.h)
 *   F_MUL_ADX  optional: the mulx/adx multiplication on limb arrays, and
 *   F_ADD_X86, F_SUB_X86 the add/adc, sub/sbb addition and subtraction
 * and before it the constants F(ZERO_), F(ONE_) as F_ZERO / F_ONE.
 * sqrt is field specific and stays in fp.c / fr.c.
 *
 * Dispatch: with F_MUL_ADX, the multiplication, addition and subtraction
 * test the flag cuzk_ff_adx (cpu_x86.c) and inline the assembly; otherwise,
 * or when the CPU lacks BMI2/ADX, they run the portable code of mont.h.
 * (The addition needs no ADX, but one flag keeps the portable path whole
 * for the tests.)
 */

/* Not inlined: it would make F(mul) save registers before testing the flag. */
__attribute__((noinline)) void F(mul_portable)(F_T *r, const F_T *a, const F_T *b)
{
    mont_mul(r->l, a->l, b->l, F_MOD, F_MINV, F_N);
}

/* The portable addition and subtraction, out of line for the same reason. */
static __attribute__((noinline)) void F(add_portable)(uint64_t *r, const uint64_t *a,
                                                      const uint64_t *b)
{
    mont_add(r, a, b, F_MOD, F_N);
}
static __attribute__((noinline)) void F(sub_portable)(uint64_t *r, const uint64_t *a,
                                                      const uint64_t *b)
{
    mont_sub(r, a, b, F_MOD, F_N);
}

#ifdef F_MUL_ADX
void F(mul_adx)(F_T *r, const F_T *a, const F_T *b)
{
    F_MUL_ADX(r->l, a->l, b->l);
}

#define F_MUL(r, a, b)                                                                             \
    do {                                                                                           \
        if (__builtin_expect(cuzk_ff_adx, 1))                                                      \
            F_MUL_ADX((r)->l, (a)->l, (b)->l);                                                     \
        else                                                                                       \
            F(mul_portable)(r, a, b);                                                              \
    } while (0)
/* x86 or portable addition / subtraction of limb arrays. */
#define F_ADDSUB(x86, portable, r, a, b)                                                           \
    do {                                                                                           \
        if (__builtin_expect(cuzk_ff_adx, 1))                                                      \
            x86(r, a, b, F_MOD);                                                                   \
        else                                                                                       \
            portable(r, a, b);                                                                     \
    } while (0)
#else
#define F_MUL(r, a, b)                   F(mul_portable)(r, a, b)
#define F_ADDSUB(x86, portable, r, a, b) portable(r, a, b)
#endif

void F(add)(F_T *r, const F_T *a, const F_T *b)
{
    F_ADDSUB(F_ADD_X86, F(add_portable), r->l, a->l, b->l);
}
void F(sub)(F_T *r, const F_T *a, const F_T *b)
{
    F_ADDSUB(F_SUB_X86, F(sub_portable), r->l, a->l, b->l);
}
void F(dbl)(F_T *r, const F_T *a)
{
    F_ADDSUB(F_ADD_X86, F(add_portable), r->l, a->l, a->l);
}
/* -a = 0 - a (the subtraction leaves 0 for a = 0). */
void F(neg)(F_T *r, const F_T *a)
{
    F_ADDSUB(F_SUB_X86, F(sub_portable), r->l, F_ZERO.l, a->l);
}
void F(mul)(F_T *r, const F_T *a, const F_T *b)
{
    F_MUL(r, a, b);
}
void F(sqr)(F_T *r, const F_T *a)
{
    F_MUL(r, a, a);
}

bool F(is_zero)(const F_T *a)
{
    return mont_is_zero(a->l, F_N);
}
bool F(eq)(const F_T *a, const F_T *b)
{
    return memcmp(a->l, b->l, sizeof(a->l)) == 0;
}
bool F(is_one)(const F_T *a)
{
    return F(eq)(a, &F_ONE);
}

/* Bit k of the little-endian exponent e. */
static inline unsigned F(exp_bit)(const uint64_t *e, size_t k)
{
    return (unsigned)(e[k / 64] >> (k % 64)) & 1;
}

/*
 * Sliding windows of up to 5 bits, left to right: the odd powers a^1 ..
 * a^31 (15 products and a squaring), then one squaring per bit and one
 * product per window; a window starts and ends on a 1 bit, so runs of zeros
 * cost squarings only. For a 381-bit exponent: 380 squarings and about 80
 * products (bit by bit: about 190). F_MUL inlines the products.
 */
void F(pow)(F_T *r, const F_T *a, const uint64_t *e, size_t n)
{
    F_T odd[16], a2, acc = F_ONE;
    odd[0] = *a;
    F_MUL(&a2, a, a);
    for (int i = 1; i < 16; i++) F_MUL(&odd[i], &odd[i - 1], &a2);
    bool started = false;
    for (size_t i = 64 * n; i-- > 0;) {
        if (!F(exp_bit)(e, i)) {
            if (started) F_MUL(&acc, &acc, &acc);
            continue;
        }
        size_t j = i >= 4 ? i - 4 : 0; /* the window is bits i..j, j the lowest 1 */
        while (!F(exp_bit)(e, j)) j++;
        unsigned w = 0;
        for (size_t k = i + 1; k-- > j;) w = 2 * w + F(exp_bit)(e, k);
        if (started) {
            for (size_t k = j; k <= i; k++) F_MUL(&acc, &acc, &acc);
            F_MUL(&acc, &acc, &odd[w / 2]);
        } else {
            acc = odd[w / 2], started = true;
        }
        i = j;
    }
    *r = acc;
}

/* Exponent mod - k for small k; mod is odd and > k so only the low limb changes. */
static void F(mod_minus)(uint64_t e[F_N], uint64_t k)
{
    memcpy(e, F_MOD, sizeof(uint64_t) * F_N);
    e[0] -= k;
}

/*
 * Variable-time inversion (inv.h). a is x R in Montgomery form; inverting
 * that integer gives x^-1 R^-1, and a Montgomery product with R^3 gives
 * x^-1 R.
 */
bool F(inv)(F_T *r, const F_T *a)
{
    if (F(is_zero)(a)) {
        *r = F_ZERO;
        return false;
    }
    F_T t;
    s62_inverse(t.l, a->l, F_MOD, F_MINV, F_N, F_S62);
    F(mul)(r, &t, &F_R3);
    return true;
}

void F(batch_inv)(F_T *out, const F_T *in, size_t n)
{
    if (n == 0) return;
    if (out == in) { /* the forward pass stores prefixes in out: keep in */
        F_T *copy = malloc(n * sizeof(F_T));
        if (!copy) {
            for (size_t i = 0; i < n; i++) F(inv)(&out[i], &in[i]);
            return;
        }
        memcpy(copy, in, n * sizeof(F_T));
        F(batch_inv)(out, copy, n);
        free(copy);
        return;
    }
    /* prefix[i] = product of the non-zero in[0..i-1]; kept in out. */
    F_T acc = F_ONE;
    F_T *prefix = out;
    for (size_t i = 0; i < n; i++) {
        F_T x = in[i];
        prefix[i] = acc;
        if (!F(is_zero)(&x)) F(mul)(&acc, &acc, &x);
    }
    F(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        F_T x = in[i];
        if (F(is_zero)(&x)) {
            out[i] = F_ZERO;
            continue;
        }
        F_T inv_i;
        F(mul)(&inv_i, &acc, &prefix[i]);
        F(mul)(&acc, &acc, &x);
        out[i] = inv_i;
    }
}

int F(legendre)(const F_T *a)
{
    if (F(is_zero)(a)) return 0;
    uint64_t e[F_N];
    F(mod_minus)(e, 1);
    /* e = (mod - 1) / 2 */
    for (int i = 0; i < F_N; i++) e[i] = (e[i] >> 1) | (i + 1 < F_N ? e[i + 1] << 63 : 0);
    F_T t;
    F(pow)(&t, a, e, F_N);
    return F(is_one)(&t) ? 1 : -1;
}

bool F(from_canonical)(F_T *r, const uint64_t in[F_N])
{
    if (!mont_lt(in, F_MOD, F_N)) return false;
    F_T t;
    memcpy(t.l, in, sizeof(t.l));
    F(mul)(r, &t, &F_R2);
    return true;
}

void F(to_canonical)(uint64_t out[F_N], const F_T *a)
{
    static const F_T one_raw = {{1}};
    F_T t;
    F(mul)(&t, a, &one_raw);
    memcpy(out, t.l, sizeof(t.l));
}

void F(from_u64)(F_T *r, uint64_t v)
{
    uint64_t l[F_N] = {v};
    F(from_canonical)(r, l);
}

bool F(from_bytes_be)(F_T *r, const uint8_t in[F_BYTES])
{
    uint64_t l[F_N];
    mont_from_bytes_be(l, in, F_N);
    return F(from_canonical)(r, l);
}

void F(to_bytes_be)(uint8_t out[F_BYTES], const F_T *a)
{
    uint64_t l[F_N];
    F(to_canonical)(l, a);
    mont_to_bytes_be(out, l, F_N);
}

bool F(from_bytes_le)(F_T *r, const uint8_t in[F_BYTES])
{
    uint64_t l[F_N];
    mont_from_bytes_le(l, in, F_N);
    return F(from_canonical)(r, l);
}

void F(to_bytes_le)(uint8_t out[F_BYTES], const F_T *a)
{
    uint64_t l[F_N];
    F(to_canonical)(l, a);
    mont_to_bytes_le(out, l, F_N);
}

bool F(is_lexicographically_largest)(const F_T *a)
{
    /* a > (mod-1)/2  <=>  2a > mod - 1  <=>  2a >= mod (canonical a, mod odd). */
    uint64_t l[F_N + 1], two[F_N + 1], m[F_N + 1];
    F(to_canonical)(l, a);
    l[F_N] = 0;
    memcpy(m, F_MOD, sizeof(uint64_t) * F_N);
    m[F_N] = 0;
    mont_add_raw(two, l, l, F_N + 1);
    return !mont_lt(two, m, F_N + 1);
}

void F(random)(F_T *r, cuzk_rng *g)
{
    int top_bits = 64 - __builtin_clzll(F_MOD[F_N - 1]);
    uint64_t mask = top_bits == 64 ? ~0ull : (1ull << top_bits) - 1;
    uint64_t l[F_N];
    do {
        for (int i = 0; i < F_N; i++) l[i] = cuzk_rng_u64(g);
        l[F_N - 1] &= mask;
    } while (!F(from_canonical)(r, l));
}
