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
 *   F_MUL_FAST an optional faster multiplication with the portable signature
 * and before it the constants F(ZERO_), F(ONE_) as F_ZERO / F_ONE.
 * sqrt is field specific and stays in fp.c / fr.c.
 */

void F(mul_portable)(F_T *r, const F_T *a, const F_T *b)
{
    mont_mul(r->l, a->l, b->l, F_MOD, F_MINV, F_N);
}

void F(add)(F_T *r, const F_T *a, const F_T *b) { mont_add(r->l, a->l, b->l, F_MOD, F_N); }
void F(sub)(F_T *r, const F_T *a, const F_T *b) { mont_sub(r->l, a->l, b->l, F_MOD, F_N); }
void F(dbl)(F_T *r, const F_T *a) { mont_add(r->l, a->l, a->l, F_MOD, F_N); }
void F(neg)(F_T *r, const F_T *a) { mont_neg(r->l, a->l, F_MOD, F_N); }
void F(mul)(F_T *r, const F_T *a, const F_T *b) { F_MUL_FAST(r, a, b); }
void F(sqr)(F_T *r, const F_T *a) { F_MUL_FAST(r, a, a); }

bool F(is_zero)(const F_T *a) { return mont_is_zero(a->l, F_N); }
bool F(eq)(const F_T *a, const F_T *b) { return memcmp(a->l, b->l, sizeof(a->l)) == 0; }
bool F(is_one)(const F_T *a) { return F(eq)(a, &F_ONE); }

void F(pow)(F_T *r, const F_T *a, const uint64_t *e, size_t n)
{
    F_T acc = F_ONE, base = *a;
    for (size_t i = n; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            F(sqr)(&acc, &acc);
            if ((e[i] >> b) & 1) F(mul)(&acc, &acc, &base);
        }
    *r = acc;
}

/* Exponent mod - 2 for Fermat inversion; mod is odd and > 2 so only the low limb changes. */
static void F(mod_minus)(uint64_t e[F_N], uint64_t k)
{
    memcpy(e, F_MOD, sizeof(uint64_t) * F_N);
    e[0] -= k;
}

bool F(inv)(F_T *r, const F_T *a)
{
    if (F(is_zero)(a)) {
        *r = F_ZERO;
        return false;
    }
    uint64_t e[F_N];
    F(mod_minus)(e, 2);
    F(pow)(r, a, e, F_N);
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
