/*
 * ec_impl.h - the group law of y^2 = x^3 + b, written once (internal).
 *
 * Included by g1.c (over Fp) and g2.c (over Fp2) after defining:
 *   G(x)           the name prefix, e.g. g1_##x (types G(affine_t), ...)
 *   FIELD_T        the coordinate field element type
 *   FIELD_ADD, FIELD_SUB, FIELD_DBL, FIELD_NEG, FIELD_MUL, FIELD_SQR,
 *   FIELD_INV, FIELD_IS_ZERO, FIELD_EQ   the field operations (fp_* / fp2_*)
 *   FIELD_ZERO, FIELD_ONE                the field constants
 *   CURVE_B        the curve constant b (a FIELD_T object)
 *
 * The curves have a = 0, which every formula below exploits. Formulas are
 * from the Explicit-Formulas Database (hyperelliptic.org/EFD, "g1p" = short
 * Weierstrass a = 0), the Jacobian ones with products in place of EFD's
 * squaring tricks (see jac_dbl); M and S count field multiplications and
 * squarings, additions are not counted. The EFD formulas assume distinct,
 * finite inputs; each function below handles the special cases first
 * (either input infinity, P + P, P + (-P)). Neither curve has points of order 2 (both
 * group orders are odd), so a doubling never meets y = 0.
 *
 * Infinity: affine (0, 0) (not on the curve since b != 0), Jacobian Z = 0,
 * XYZZ ZZ = 0.
 *
 * Scalar multiplication: jac_mul_limbs here (sliding window, any scalar
 * length, any curve point) and jac_mul_multi, the Straus back end that
 * g1.c and g2.c feed with their endomorphism splits of an Fr scalar. Both
 * are variable time: for public data and tests, not for secret scalars.
 */

typedef G(affine_t) G_AFF;
typedef G(jac_t) G_JAC;
typedef G(xyzz_t) G_XYZZ;

/* ---- affine ---------------------------------------------------------- */

bool G(affine_is_inf)(const G_AFF *p)
{
    return FIELD_IS_ZERO(&p->x) && FIELD_IS_ZERO(&p->y);
}

/* rhs = x^3 + b */
static void G(curve_rhs)(FIELD_T *rhs, const FIELD_T *x)
{
    FIELD_SQR(rhs, x);
    FIELD_MUL(rhs, rhs, x);
    FIELD_ADD(rhs, rhs, &CURVE_B);
}

bool G(affine_on_curve)(const G_AFF *p)
{
    if (G(affine_is_inf)(p)) return true;
    FIELD_T lhs, rhs;
    FIELD_SQR(&lhs, &p->y);
    G(curve_rhs)(&rhs, &p->x);
    return FIELD_EQ(&lhs, &rhs);
}

bool G(affine_eq)(const G_AFF *a, const G_AFF *b)
{
    return FIELD_EQ(&a->x, &b->x) && FIELD_EQ(&a->y, &b->y);
}

void G(affine_neg)(G_AFF *r, const G_AFF *p)
{
    r->x = p->x;
    FIELD_NEG(&r->y, &p->y); /* -0 = 0 keeps infinity */
}

/* ---- Jacobian: x = X/Z^2, y = Y/Z^3 ----------------------------------- */

void G(jac_set_inf)(G_JAC *r)
{
    r->x = FIELD_ONE;
    r->y = FIELD_ONE;
    r->z = FIELD_ZERO;
}

bool G(jac_is_inf)(const G_JAC *p)
{
    return FIELD_IS_ZERO(&p->z);
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3: 4M+2S */
bool G(jac_eq)(const G_JAC *a, const G_JAC *b)
{
    bool ia = G(jac_is_inf)(a), ib = G(jac_is_inf)(b);
    if (ia || ib) return ia && ib;
    FIELD_T z1z1, z2z2, u1, u2, s1, s2;
    FIELD_SQR(&z1z1, &a->z);
    FIELD_SQR(&z2z2, &b->z);
    FIELD_MUL(&u1, &a->x, &z2z2);
    FIELD_MUL(&u2, &b->x, &z1z1);
    if (!FIELD_EQ(&u1, &u2)) return false;
    FIELD_MUL(&s1, &a->y, &z2z2);
    FIELD_MUL(&s1, &s1, &b->z);
    FIELD_MUL(&s2, &b->y, &z1z1);
    FIELD_MUL(&s2, &s2, &a->z);
    return FIELD_EQ(&s1, &s2);
}

/* Y^2 = X^3 + b Z^6 */
bool G(jac_on_curve)(const G_JAC *p)
{
    if (G(jac_is_inf)(p)) return true;
    FIELD_T lhs, rhs, z6;
    FIELD_SQR(&lhs, &p->y);
    FIELD_SQR(&z6, &p->z);
    FIELD_MUL(&z6, &z6, &p->z);
    FIELD_SQR(&z6, &z6);
    FIELD_MUL(&z6, &z6, &CURVE_B);
    FIELD_SQR(&rhs, &p->x);
    FIELD_MUL(&rhs, &rhs, &p->x);
    FIELD_ADD(&rhs, &rhs, &z6);
    return FIELD_EQ(&lhs, &rhs);
}

void G(jac_from_affine)(G_JAC *r, const G_AFF *p)
{
    if (G(affine_is_inf)(p)) {
        G(jac_set_inf)(r);
        return;
    }
    r->x = p->x;
    r->y = p->y;
    r->z = FIELD_ONE;
}

/* (X, Y) scaled by zinv = 1/Z: x = X zinv^2, y = Y zinv^3. */
static void G(jac_scale_to_affine)(G_AFF *r, const G_JAC *p, const FIELD_T *zinv)
{
    FIELD_T zinv2, zinv3;
    FIELD_SQR(&zinv2, zinv);
    FIELD_MUL(&zinv3, &zinv2, zinv);
    FIELD_MUL(&r->x, &p->x, &zinv2);
    FIELD_MUL(&r->y, &p->y, &zinv3);
}

void G(jac_to_affine)(G_AFF *r, const G_JAC *p)
{
    if (G(jac_is_inf)(p)) {
        r->x = FIELD_ZERO;
        r->y = FIELD_ZERO;
        return;
    }
    FIELD_T zinv;
    FIELD_INV(&zinv, &p->z);
    G(jac_scale_to_affine)(r, p, &zinv);
}

/*
 * Montgomery's trick: one inversion for the whole batch, 3(n-1)
 * multiplications more. r[i].x holds the prefix product of the non-zero Z
 * of p[0..i-1] during the forward pass. r must not overlap p.
 */
void G(jac_batch_to_affine)(G_AFF *r, const G_JAC *p, size_t n)
{
    FIELD_T acc = FIELD_ONE;
    for (size_t i = 0; i < n; i++) {
        r[i].x = acc;
        if (!G(jac_is_inf)(&p[i])) FIELD_MUL(&acc, &acc, &p[i].z);
    }
    FIELD_INV(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (G(jac_is_inf)(&p[i])) {
            r[i].x = FIELD_ZERO;
            r[i].y = FIELD_ZERO;
            continue;
        }
        FIELD_T zinv;
        FIELD_MUL(&zinv, &acc, &r[i].x); /* 1 / Z_i */
        FIELD_MUL(&acc, &acc, &p[i].z);  /* 1 / (Z_0 ... Z_{i-1}) */
        G(jac_scale_to_affine)(&r[i], &p[i], &zinv);
    }
}

void G(jac_neg)(G_JAC *r, const G_JAC *p)
{
    r->x = p->x;
    FIELD_NEG(&r->y, &p->y);
    r->z = p->z;
}

/*
 * dbl-2009-l with D = 4 X1 B taken as a product, 3M+4S:
 *   A = X1^2, B = Y1^2, C = B^2, D = 4 X1 B, E = 3A, F = E^2,
 *   X3 = F - 2D, Y3 = E (D - X3) - 8C, Z3 = 2 Y1 Z1.
 * (EFD's D = 2((X1 + B)^2 - A - C) trades the product for a squaring and
 * four additions; here fp_sqr is fp_mul and an Fp addition costs ~0.4 of a
 * product, so the product is cheaper. The same holds for Z3 in add / madd
 * below.) Infinity (Z1 = 0) gives Z3 = 0 without a branch.
 */
void G(jac_dbl)(G_JAC *r, const G_JAC *p)
{
    FIELD_T a, b, c, d, e, f, z3;
    FIELD_SQR(&a, &p->x);
    FIELD_SQR(&b, &p->y);
    FIELD_SQR(&c, &b);
    FIELD_MUL(&d, &p->x, &b);
    FIELD_DBL(&d, &d);
    FIELD_DBL(&d, &d);
    FIELD_DBL(&e, &a);
    FIELD_ADD(&e, &e, &a);
    FIELD_SQR(&f, &e);
    FIELD_MUL(&z3, &p->y, &p->z);
    FIELD_DBL(&r->z, &z3);
    FIELD_SUB(&r->x, &f, &d);
    FIELD_SUB(&r->x, &r->x, &d);
    FIELD_SUB(&d, &d, &r->x);
    FIELD_MUL(&r->y, &e, &d);
    FIELD_DBL(&c, &c);
    FIELD_DBL(&c, &c);
    FIELD_DBL(&c, &c);
    FIELD_SUB(&r->y, &r->y, &c);
}

/*
 * The shared tail of add-2007-bl and madd-2007-bl: given U1 (= X1 scaled),
 * S1, H = U2 - U1, rr = 2(S2 - S1) and I = (2H)^2, sets
 *   J = H I, V = U1 I, X3 = rr^2 - J - 2V, Y3 = rr (V - X3) - 2 S1 J.
 * 3M+1S. Z3 is left to the caller.
 */
static void G(jac_add_tail)(G_JAC *r, const FIELD_T *u1, const FIELD_T *s1, const FIELD_T *h,
                            const FIELD_T *rr, const FIELD_T *i)
{
    FIELD_T j, v, t;
    FIELD_MUL(&j, h, i);
    FIELD_MUL(&v, u1, i);
    FIELD_SQR(&r->x, rr);
    FIELD_SUB(&r->x, &r->x, &j);
    FIELD_SUB(&r->x, &r->x, &v);
    FIELD_SUB(&r->x, &r->x, &v);
    FIELD_SUB(&v, &v, &r->x);
    FIELD_MUL(&t, s1, &j);
    FIELD_DBL(&t, &t);
    FIELD_MUL(&r->y, rr, &v);
    FIELD_SUB(&r->y, &r->y, &t);
}

/*
 * add-2007-bl with Z3 = Z1 Z2 (2H) as products, 12M+4S:
 *   Z1Z1 = Z1^2, Z2Z2 = Z2^2, U1 = X1 Z2Z2, U2 = X2 Z1Z1, S1 = Y1 Z2 Z2Z2,
 *   S2 = Y2 Z1 Z1Z1, H = U2 - U1, I = (2H)^2, rr = 2(S2 - S1), then the tail,
 *   Z3 = Z1 Z2 2H (EFD: ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H, three additions more).
 * H = 0 means equal x: a doubling when rr = 0 too, otherwise P + (-P) = 0.
 */
void G(jac_add)(G_JAC *r, const G_JAC *a, const G_JAC *b)
{
    if (G(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (G(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    FIELD_T z1z1, z2z2, u1, u2, s1, s2, h, h2, i, rr, z3;
    FIELD_SQR(&z1z1, &a->z);
    FIELD_SQR(&z2z2, &b->z);
    FIELD_MUL(&u1, &a->x, &z2z2);
    FIELD_MUL(&u2, &b->x, &z1z1);
    FIELD_MUL(&s1, &a->y, &b->z);
    FIELD_MUL(&s1, &s1, &z2z2);
    FIELD_MUL(&s2, &b->y, &a->z);
    FIELD_MUL(&s2, &s2, &z1z1);
    FIELD_SUB(&h, &u2, &u1);
    FIELD_SUB(&rr, &s2, &s1);
    if (FIELD_IS_ZERO(&h)) {
        if (FIELD_IS_ZERO(&rr))
            G(jac_dbl)(r, a);
        else
            G(jac_set_inf)(r);
        return;
    }
    FIELD_DBL(&rr, &rr);
    FIELD_DBL(&h2, &h);
    FIELD_SQR(&i, &h2);
    FIELD_MUL(&z3, &a->z, &b->z);
    FIELD_MUL(&z3, &z3, &h2);
    G(jac_add_tail)(r, &u1, &s1, &h, &rr, &i);
    r->z = z3;
}

/*
 * madd-2007-bl (Z2 = 1) with Z3 = Z1 (2H) as a product, 8M+3S:
 *   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1, H = U2 - X1, I = (2H)^2,
 *   rr = 2(S2 - Y1), then the tail with U1 = X1, S1 = Y1, Z3 = Z1 2H
 *   (EFD: (Z1 + H)^2 - Z1Z1 - HH and I = 4HH, four additions more).
 */
void G(jac_add_affine)(G_JAC *r, const G_JAC *a, const G_AFF *b)
{
    if (G(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (G(jac_is_inf)(a)) {
        G(jac_from_affine)(r, b);
        return;
    }
    FIELD_T z1z1, u2, s2, h, h2, i, rr, x1 = a->x, y1 = a->y;
    FIELD_SQR(&z1z1, &a->z);
    FIELD_MUL(&u2, &b->x, &z1z1);
    FIELD_MUL(&s2, &b->y, &a->z);
    FIELD_MUL(&s2, &s2, &z1z1);
    FIELD_SUB(&h, &u2, &x1);
    FIELD_SUB(&rr, &s2, &y1);
    if (FIELD_IS_ZERO(&h)) {
        if (FIELD_IS_ZERO(&rr))
            G(jac_dbl)(r, a);
        else
            G(jac_set_inf)(r);
        return;
    }
    FIELD_DBL(&rr, &rr);
    FIELD_DBL(&h2, &h);
    FIELD_SQR(&i, &h2);
    FIELD_MUL(&r->z, &a->z, &h2);
    G(jac_add_tail)(r, &x1, &y1, &h, &rr, &i);
}

/* ---- scalar multiplication ------------------------------------------- */

static int G(scalar_bit)(const uint64_t *k, size_t i)
{
    return (int)((k[i / 64] >> (i % 64)) & 1);
}

/* Index of the highest set bit of k, or -1 when k = 0. */
static long G(scalar_top_bit)(const uint64_t *k, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (k[i]) return (long)(64 * i + 63 - (size_t)__builtin_clzll(k[i]));
    return -1;
}

/* Plain double-and-add: the cheapest for sparse scalars such as |x|. */
static void G(jac_mul_binary)(G_JAC *r, const G_JAC *p, const uint64_t *k, size_t n)
{
    G_JAC base = *p, acc;
    G(jac_set_inf)(&acc);
    for (long i = G(scalar_top_bit)(k, n); i >= 0; i--) {
        G(jac_dbl)(&acc, &acc);
        if (G(scalar_bit)(k, (size_t)i)) G(jac_add)(&acc, &acc, &base);
    }
    *r = acc;
}

/*
 * Left-to-right sliding window of EC_WINDOW bits over the odd multiples
 * P, 3P, ..., (2^EC_WINDOW - 1)P: about bits/(EC_WINDOW + 1) additions
 * plus 2^(EC_WINDOW-1) for the table. 4 bits: for a 255-bit scalar 8 + ~51
 * additions next to 255 doublings; 5 bits would save ~8 additions and cost
 * 8 more in the table.
 */
#define EC_WINDOW 4

void G(jac_mul_limbs)(G_JAC *r, const G_JAC *p, const uint64_t *k, size_t n)
{
    G_JAC odd[1 << (EC_WINDOW - 1)], p2, acc;
    odd[0] = *p;
    G(jac_dbl)(&p2, p);
    for (int i = 1; i < (1 << (EC_WINDOW - 1)); i++) G(jac_add)(&odd[i], &odd[i - 1], &p2);
    G(jac_set_inf)(&acc);
    long i = G(scalar_top_bit)(k, n);
    while (i >= 0) {
        if (!G(scalar_bit)(k, (size_t)i)) {
            G(jac_dbl)(&acc, &acc);
            i--;
            continue;
        }
        long j = i >= EC_WINDOW - 1 ? i - (EC_WINDOW - 1) : 0;
        while (!G(scalar_bit)(k, (size_t)j)) j++; /* the window ends in a 1 */
        unsigned w = 0;
        for (long t = i; t >= j; t--) {
            w = 2 * w + (unsigned)G(scalar_bit)(k, (size_t)t);
            G(jac_dbl)(&acc, &acc);
        }
        G(jac_add)(&acc, &acc, &odd[w >> 1]);
        i = j - 1;
    }
    *r = acc;
}

/*
 * Straus (interleaved) multiplication with width-EC_WNAF NAF digits:
 * r = sum_j k_j Q_j for m <= EC_MULTI_MAX points and scalars of n <= 2
 * limbs each (k_j at k + j n). One shared doubling per bit, one mixed
 * addition per non-zero digit (about bits/(EC_WNAF + 1) per scalar). The
 * caller passes, for each Q_j, the affine odd multiples Q_j, 3Q_j, ..,
 * (2^(EC_WNAF-1) - 1)Q_j (EC_TBL of them, at tbl + j EC_TBL). This is the
 * back end of jac_mul in g1.c (2 x 128 bits) and g2.c (4 x 64 bits), where
 * Q_j is an endomorphism image of P, so only P's table costs additions
 * (jac_odd_multiples) and the others are the endomorphism applied to it.
 */
#define EC_WNAF       4
#define EC_TBL        (1 << (EC_WNAF - 2))
#define EC_MULTI_MAX  4
#define EC_MULTI_BITS 129 /* NAF digits of a 2-limb scalar */

/*
 * P, 3P, .., (2 EC_TBL - 1)P in affine coordinates: EC_TBL - 1 additions
 * and one inversion (about 80 multiplications), repaid by the mixed
 * additions (7M+4S against 11M+5S) of the main loop.
 */
static void G(jac_odd_multiples)(G_AFF tbl[EC_TBL], const G_JAC *p)
{
    G_JAC tj[EC_TBL], p2;
    tj[0] = *p;
    G(jac_dbl)(&p2, p);
    for (int i = 1; i < EC_TBL; i++) G(jac_add)(&tj[i], &tj[i - 1], &p2);
    G(jac_batch_to_affine)(tbl, tj, EC_TBL);
}

/* t = t - d over 3 limbs, d small: adds -d sign-extended (two's complement). */
static void G(limbs_sub_small)(uint64_t t[3], int d)
{
    uint64_t ext = d > 0 ? ~(uint64_t)0 : 0, w[3] = {(uint64_t)(int64_t)-d, ext, ext};
    unsigned __int128 c = 0;
    for (int i = 0; i < 3; i++) {
        c += (unsigned __int128)t[i] + w[i];
        t[i] = (uint64_t)c;
        c >>= 64;
    }
}

/* NAF digits of k (n <= 2 limbs), least significant first; returns the count. */
static int G(wnaf)(int8_t naf[EC_MULTI_BITS], const uint64_t *k, size_t n)
{
    uint64_t t[3] = {0};
    memcpy(t, k, n * sizeof(uint64_t));
    int len = 0;
    while (t[0] | t[1] | t[2]) {
        int d = 0;
        if (t[0] & 1) {
            d = (int)(t[0] & ((1u << EC_WNAF) - 1));
            if (d >= 1 << (EC_WNAF - 1)) d -= 1 << EC_WNAF;
            G(limbs_sub_small)(t, d); /* now t = 0 mod 2^EC_WNAF */
        }
        naf[len++] = (int8_t)d;
        t[0] = (t[0] >> 1) | (t[1] << 63);
        t[1] = (t[1] >> 1) | (t[2] << 63);
        t[2] >>= 1;
    }
    return len;
}

static void G(jac_mul_multi)(G_JAC *r, const G_AFF *tbl, const uint64_t *k, size_t m, size_t n)
{
    int8_t naf[EC_MULTI_MAX][EC_MULTI_BITS];
    int len[EC_MULTI_MAX], top = 0;
    for (size_t j = 0; j < m; j++) {
        len[j] = G(wnaf)(naf[j], k + j * n, n);
        top = len[j] > top ? len[j] : top;
    }
    G_JAC acc;
    G_AFF neg;
    G(jac_set_inf)(&acc);
    for (int i = top - 1; i >= 0; i--) {
        G(jac_dbl)(&acc, &acc);
        for (size_t j = 0; j < m; j++) {
            int d = i < len[j] ? naf[j][i] : 0;
            if (d > 0) G(jac_add_affine)(&acc, &acc, &tbl[j * EC_TBL + (d >> 1)]);
            if (d < 0) {
                G(affine_neg)(&neg, &tbl[j * EC_TBL + ((-d) >> 1)]);
                G(jac_add_affine)(&acc, &acc, &neg);
            }
        }
    }
    *r = acc;
}

/* ---- XYZZ: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2 ------------------------- */

void G(xyzz_set_inf)(G_XYZZ *r)
{
    r->x = FIELD_ONE;
    r->y = FIELD_ONE;
    r->zz = FIELD_ZERO;
    r->zzz = FIELD_ZERO;
}

bool G(xyzz_is_inf)(const G_XYZZ *p)
{
    return FIELD_IS_ZERO(&p->zz);
}

/*
 * dbl-2008-s-1 with a = 0, 6M+3S:
 *   U = 2Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2, X3 = M^2 - 2S,
 *   Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
 * Infinity (ZZ1 = 0) gives ZZ3 = 0 without a branch.
 */
void G(xyzz_dbl)(G_XYZZ *r, const G_XYZZ *p)
{
    FIELD_T u, v, w, s, m, t;
    FIELD_DBL(&u, &p->y);
    FIELD_SQR(&v, &u);
    FIELD_MUL(&w, &u, &v);
    FIELD_MUL(&s, &p->x, &v);
    FIELD_SQR(&m, &p->x);
    FIELD_DBL(&t, &m);
    FIELD_ADD(&m, &m, &t);
    FIELD_MUL(&t, &w, &p->y);
    FIELD_MUL(&r->zz, &v, &p->zz);
    FIELD_MUL(&r->zzz, &w, &p->zzz);
    FIELD_SQR(&r->x, &m);
    FIELD_SUB(&r->x, &r->x, &s);
    FIELD_SUB(&r->x, &r->x, &s);
    FIELD_SUB(&s, &s, &r->x);
    FIELD_MUL(&r->y, &m, &s);
    FIELD_SUB(&r->y, &r->y, &t);
}

/*
 * The shared tail of add-2008-s and madd-2008-s: given U1, S1, P = U2 - U1
 * and R = S2 - S1, sets PP = P^2, PPP = P PP, Q = U1 PP,
 * X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP; 4M+2S. Returns PP and PPP
 * for the caller's ZZ3, ZZZ3.
 */
static void G(xyzz_add_tail)(G_XYZZ *r, FIELD_T *pp, FIELD_T *ppp, const FIELD_T *u1,
                             const FIELD_T *s1, const FIELD_T *pd, const FIELD_T *rd)
{
    FIELD_T q, t;
    FIELD_SQR(pp, pd);
    FIELD_MUL(ppp, pd, pp);
    FIELD_MUL(&q, u1, pp);
    FIELD_MUL(&t, s1, ppp);
    FIELD_SQR(&r->x, rd);
    FIELD_SUB(&r->x, &r->x, ppp);
    FIELD_SUB(&r->x, &r->x, &q);
    FIELD_SUB(&r->x, &r->x, &q);
    FIELD_SUB(&q, &q, &r->x);
    FIELD_MUL(&r->y, rd, &q);
    FIELD_SUB(&r->y, &r->y, &t);
}

/*
 * add-2008-s, 12M+2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1, P = U2 - U1,
 *   R = S2 - S1, then the tail, ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 */
void G(xyzz_add)(G_XYZZ *r, const G_XYZZ *a, const G_XYZZ *b)
{
    if (G(xyzz_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (G(xyzz_is_inf)(b)) {
        *r = *a;
        return;
    }
    FIELD_T u1, u2, s1, s2, pd, rd, pp, ppp, zz, zzz;
    FIELD_MUL(&u1, &a->x, &b->zz);
    FIELD_MUL(&u2, &b->x, &a->zz);
    FIELD_MUL(&s1, &a->y, &b->zzz);
    FIELD_MUL(&s2, &b->y, &a->zzz);
    FIELD_SUB(&pd, &u2, &u1);
    FIELD_SUB(&rd, &s2, &s1);
    if (FIELD_IS_ZERO(&pd)) {
        if (FIELD_IS_ZERO(&rd))
            G(xyzz_dbl)(r, a);
        else
            G(xyzz_set_inf)(r);
        return;
    }
    FIELD_MUL(&zz, &a->zz, &b->zz);
    FIELD_MUL(&zzz, &a->zzz, &b->zzz);
    G(xyzz_add_tail)(r, &pp, &ppp, &u1, &s1, &pd, &rd);
    FIELD_MUL(&r->zz, &zz, &pp);
    FIELD_MUL(&r->zzz, &zzz, &ppp);
}

/*
 * madd-2008-s (ZZ2 = ZZZ2 = 1), 8M+2S:
 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1, then the tail with
 *   U1 = X1, S1 = Y1, ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 */
void G(xyzz_add_affine)(G_XYZZ *r, const G_XYZZ *a, const G_AFF *b)
{
    if (G(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (G(xyzz_is_inf)(a)) {
        r->x = b->x;
        r->y = b->y;
        r->zz = FIELD_ONE;
        r->zzz = FIELD_ONE;
        return;
    }
    FIELD_T u2, s2, pd, rd, pp, ppp, x1 = a->x, y1 = a->y;
    FIELD_MUL(&u2, &b->x, &a->zz);
    FIELD_MUL(&s2, &b->y, &a->zzz);
    FIELD_SUB(&pd, &u2, &x1);
    FIELD_SUB(&rd, &s2, &y1);
    if (FIELD_IS_ZERO(&pd)) {
        if (FIELD_IS_ZERO(&rd))
            G(xyzz_dbl)(r, a);
        else
            G(xyzz_set_inf)(r);
        return;
    }
    G(xyzz_add_tail)(r, &pp, &ppp, &x1, &y1, &pd, &rd);
    FIELD_MUL(&r->zz, &a->zz, &pp);
    FIELD_MUL(&r->zzz, &a->zzz, &ppp);
}

/*
 * With Z = ZZZ: Z^2 = ZZZ^2 = ZZ^3, so X = x Z^2 = X' ZZ^2 and
 * Y = y Z^3 = Y' ZZZ^2. 2M+2S.
 */
void G(xyzz_to_jac)(G_JAC *r, const G_XYZZ *p)
{
    if (G(xyzz_is_inf)(p)) {
        G(jac_set_inf)(r);
        return;
    }
    FIELD_T zz2, zzz2, z = p->zzz;
    FIELD_SQR(&zz2, &p->zz);
    FIELD_SQR(&zzz2, &p->zzz);
    FIELD_MUL(&r->x, &p->x, &zz2);
    FIELD_MUL(&r->y, &p->y, &zzz2);
    r->z = z;
}
