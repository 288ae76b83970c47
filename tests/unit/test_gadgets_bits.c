/*
 * test_gadgets_bits.c - Boolean, UInt32 and MultiEq against bellpepper's
 * tests: every operand kind (constant true/false, allocated true/false,
 * negated) through xor / and / or / ch / maj with values read from a
 * satisfied witness and bellpepper's counts (all constants: nothing; all
 * allocated: ch 1, maj 2); the exact rows bellpepper writes for each
 * AllocatedBit operation and each dispatch of a negated operand (which
 * variable lands in A, where ONE appears); u64 and field element bits;
 * UInt32 rewiring, xor, ch, maj and addmany (with bellpepper's counts and a
 * flipped result bit breaking the addition); MultiEq emitting a batch
 * exactly when 254 bits would be exceeded.
 */
#include "gadget_check.h"

#include "cuzk/gadgets/multieq.h"
#include "cuzk/gadgets/uint32.h"
#include "cuzk/gadgets/uint64.h"

/* ---- exact rows ---- */

typedef struct term_spec {
    uint32_t col; /* recorder numbering: inputs, then aux */
    int64_t coeff;
} term_spec;

static void fr_i64(fr_t *r, int64_t v)
{
    fr_from_u64(r, v < 0 ? (uint64_t)-v : (uint64_t)v);
    if (v < 0) fr_neg(r, r);
}

/* Row `row` of m is exactly the terms of spec[0..n). */
static void check_row(const cs_matrix *m, size_t row, const term_spec *spec, size_t n)
{
    assert_int_equal(m->ptr[row + 1] - m->ptr[row], n);
    for (size_t i = 0; i < n; i++) {
        fr_t want;
        fr_i64(&want, spec[i].coeff);
        bool found = false;
        for (uint64_t k = m->ptr[row]; k < m->ptr[row + 1]; k++)
            if (m->idx[k] == spec[i].col) found = fr_eq(&m->val[k], &want);
        assert_true(found);
    }
}

#define ROW(m, row, ...)                                                                           \
    do {                                                                                           \
        const term_spec s_[] = {__VA_ARGS__};                                                      \
        check_row(m, row, s_, sizeof(s_) / sizeof(s_[0]));                                         \
    } while (0)
#define EMPTY(m, row) assert_int_equal((m)->ptr[(row) + 1] - (m)->ptr[row], 0)

/* Operands a, b, c (aux 0, 1, 2 = columns 1, 2, 3) of kinds ka, kb, kc
 * (BOOL_IS or BOOL_NOT, all bits allocated true) through op. */
typedef struct shape_ctx {
    int op; /* 0 xor, 1 and, 2 ch, 3 maj, 4 enforce_equal(true, a) */
    int ka, kb, kc;
} shape_ctx;

static bool_var view(bool_var b, int kind)
{
    return kind == BOOL_NOT ? bool_not(b) : b;
}

static int shape_synth(cs_t *cs, void *p)
{
    const shape_ctx *x = p;
    bool_var a = view(bit_alloc(cs, 1), x->ka), b = view(bit_alloc(cs, 1), x->kb);
    bool_var c = view(bit_alloc(cs, 1), x->kc);
    if (x->op == 0) bool_xor(cs, a, b);
    if (x->op == 1) bool_and(cs, a, b);
    if (x->op == 2) bool_sha256_ch(cs, a, b, c);
    if (x->op == 3) bool_sha256_maj(cs, a, b, c);
    if (x->op == 4) bool_enforce_equal(cs, bool_const(1), a);
    return cs_status(cs);
}

static cs_r1cs record_shape(int op, int ka, int kb, int kc)
{
    shape_ctx x = {op, ka, kb, kc};
    cs_r1cs r;
    assert_int_equal(cs_record(&r, (cs_circuit){shape_synth, &x}, NULL), 0);
    return r;
}

enum { ONE = 0, A = 1, B = 2, C = 3, R = 4, R2 = 5 };

static void test_alloc_rows(void **state)
{
    (void)state;
    fr_t m1, two;
    fr_neg(&m1, &FR_ONE), fr_dbl(&two, &FR_ONE);
    assert_true(fr_eq(&m1, &BOOL_FR_MINUS_ONE));
    assert_true(fr_eq(&two, &BOOL_FR_TWO));
    cs_r1cs r = record_shape(-1, BOOL_IS, BOOL_IS, BOOL_IS);
    assert_int_equal(r.num_constraints, 3 + 1);
    ROW(&r.a, 0, {ONE, 1}, {A, -1});
    ROW(&r.b, 0, {A, 1});
    EMPTY(&r.c, 0);
    cs_r1cs_free(&r);
}

static void test_xor_rows(void **state)
{
    (void)state;
    cs_r1cs r = record_shape(0, BOOL_IS, BOOL_IS, BOOL_IS);
    ROW(&r.a, 3, {A, 2});
    ROW(&r.b, 3, {B, 1});
    ROW(&r.c, 3, {A, 1}, {B, 1}, {R, -1});
    cs_r1cs_free(&r);
    /* Not(a) xor b = not(b xor a): b goes to A */
    r = record_shape(0, BOOL_NOT, BOOL_IS, BOOL_IS);
    ROW(&r.a, 3, {B, 2});
    ROW(&r.b, 3, {A, 1});
    cs_r1cs_free(&r);
}

static void test_and_rows(void **state)
{
    (void)state;
    cs_r1cs r = record_shape(1, BOOL_IS, BOOL_IS, BOOL_IS);
    ROW(&r.a, 3, {A, 1});
    ROW(&r.b, 3, {B, 1});
    ROW(&r.c, 3, {R, 1});
    cs_r1cs_free(&r);
    r = record_shape(1, BOOL_NOT, BOOL_IS, BOOL_IS); /* and_not(b, a) */
    ROW(&r.a, 3, {B, 1});
    ROW(&r.b, 3, {ONE, 1}, {A, -1});
    ROW(&r.c, 3, {R, 1});
    cs_r1cs_free(&r);
    r = record_shape(1, BOOL_NOT, BOOL_NOT, BOOL_IS); /* nor(a, b) */
    ROW(&r.a, 3, {ONE, 1}, {A, -1});
    ROW(&r.b, 3, {ONE, 1}, {B, -1});
    cs_r1cs_free(&r);
}

static void test_ch_maj_rows(void **state)
{
    (void)state;
    /* ch(a, not b, c): (1 - b - c) * a = ch - c */
    cs_r1cs r = record_shape(2, BOOL_IS, BOOL_NOT, BOOL_IS);
    assert_int_equal(r.num_constraints, 4 + 1);
    ROW(&r.a, 3, {ONE, 1}, {B, -1}, {C, -1});
    ROW(&r.b, 3, {A, 1});
    ROW(&r.c, 3, {R, 1}, {C, -1});
    cs_r1cs_free(&r);
    /* maj(a, b, not c): maj = aux 3, then bc = and_not(b, c) = aux 4,
     * then (2 bc - b - (1 - c)) * a = bc - maj */
    r = record_shape(3, BOOL_IS, BOOL_IS, BOOL_NOT);
    assert_int_equal(r.num_constraints, 5 + 1);
    ROW(&r.a, 3, {B, 1});
    ROW(&r.b, 3, {ONE, 1}, {C, -1});
    ROW(&r.c, 3, {R2, 1});
    ROW(&r.a, 4, {R2, 2}, {B, -1}, {C, 1}, {ONE, -1});
    ROW(&r.b, 4, {A, 1});
    ROW(&r.c, 4, {R2, 1}, {R, -1});
    cs_r1cs_free(&r);
    /* enforce_equal(true, not a): 0 * 0 = 1 - (1 - a), ONE cancels */
    r = record_shape(4, BOOL_NOT, BOOL_IS, BOOL_IS);
    EMPTY(&r.a, 3);
    ROW(&r.c, 3, {A, 1});
    cs_r1cs_free(&r);
}

/* ---- every operand kind ---- */

enum { T_TRUE, T_FALSE, T_ALLOC_TRUE, T_ALLOC_FALSE, T_NEG_TRUE, T_NEG_FALSE, T_KINDS };

static bool kind_value(int k)
{
    return k == T_TRUE || k == T_ALLOC_TRUE || k == T_NEG_FALSE;
}

static bool_var make_operand(cs_t *cs, int k)
{
    if (k == T_TRUE || k == T_FALSE) return bool_const(k == T_TRUE);
    bool_var b = bit_alloc(cs, k == T_ALLOC_TRUE || k == T_NEG_TRUE);
    return k >= T_NEG_TRUE ? bool_not(b) : b;
}

typedef struct kinds_ctx {
    int op, k[3];
    bool_var out;
    size_t before; /* constraints before the operation */
} kinds_ctx;

static int kinds_synth(cs_t *cs, void *p)
{
    kinds_ctx *x = p;
    bool_var v[3];
    for (int i = 0; i < 3; i++) v[i] = make_operand(cs, x->k[i]);
    x->before = cs_num_constraints(cs);
    if (x->op == 0) x->out = bool_xor(cs, v[0], v[1]);
    if (x->op == 1) x->out = bool_and(cs, v[0], v[1]);
    if (x->op == 2) x->out = bool_or(cs, v[0], v[1]);
    if (x->op == 3) x->out = bool_sha256_ch(cs, v[0], v[1], v[2]);
    if (x->op == 4) x->out = bool_sha256_maj(cs, v[0], v[1], v[2]);
    return cs_status(cs);
}

static bool expected(int op, bool a, bool b, bool c)
{
    bool table[5] = {a ^ b, a && b, a || b, (a && b) ^ (!a && c), (a && b) ^ (a && c) ^ (b && c)};
    return table[op];
}

static void check_kinds(int op, int k0, int k1, int k2)
{
    kinds_ctx x = {op, {k0, k1, k2}, {0}, 0};
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){kinds_synth, &x});
    assert_int_equal(witness_bool(&p, x.out),
                     expected(op, kind_value(k0), kind_value(k1), kind_value(k2)));
    size_t cost = p.num_constraints - p.num_inputs - x.before;
    bool c0 = k0 < T_ALLOC_TRUE, c1 = k1 < T_ALLOC_TRUE, c2 = k2 < T_ALLOC_TRUE;
    bool ternary = op >= 3;
    if (c0 && c1 && (c2 || !ternary)) assert_int_equal(cost, 0);
    if (!c0 && !c1 && (!c2 || !ternary)) assert_int_equal(cost, op == 4 ? 2 : 1);
    if (!ternary && (c0 || c1)) assert_int_equal(cost, 0);
    cs_prover_free(&p);
}

static void test_all_operand_kinds(void **state)
{
    (void)state;
    for (int op = 0; op < 5; op++)
        for (int a = 0; a < T_KINDS; a++)
            for (int b = 0; b < T_KINDS; b++)
                for (int c = 0; c < (op >= 3 ? T_KINDS : 1); c++) check_kinds(op, a, b, c);
}

/* ---- u64 and field bits ---- */

typedef struct bits_ctx {
    bool_var u[64], f[FR_NUM_BITS];
    fr_t value;
} bits_ctx;

static int bits_synth(cs_t *cs, void *p)
{
    bits_ctx *x = p;
    bool_alloc_u64_le(cs, x->u, 17234652694787248421u);
    bool_alloc_fr_le(cs, x->f, &x->value);
    return cs_status(cs);
}

/* bellpepper's test_u64_into_boolean_vec_le and test_field_into_allocated_bits_le. */
static void test_u64_and_field_bits(void **state)
{
    (void)state;
    bits_ctx x;
    uint8_t be[32];
    /* 9147677615426976802526883532204139322118074541891858454835346926874644257775 */
    test_hex(be, 32, "143966ecc1a8456c7f7a991e3585257a42e9aee8763a0979363b4cc1a3211bef");
    assert_true(fr_from_bytes_be(&x.value, be));
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){bits_synth, &x});
    assert_int_equal(p.num_constraints - p.num_inputs, 64 + 255);
    const int u_true[] = {0, 1, 2, 4, 5, 20}, u_false[] = {3, 21, 22};
    for (size_t i = 0; i < 6; i++) assert_true(witness_bool(&p, x.u[63 - u_true[i]]));
    for (size_t i = 0; i < 3; i++) assert_false(witness_bool(&p, x.u[63 - u_false[i]]));
    const int f_true[] = {2, 4, 20, 23}, f_false[] = {0, 1, 3, 5};
    for (size_t i = 0; i < 4; i++) assert_true(witness_bool(&p, x.f[254 - f_true[i]]));
    for (size_t i = 0; i < 4; i++) assert_false(witness_bool(&p, x.f[254 - f_false[i]]));
    cs_prover_free(&p);
}

/* ---- UInt32 ---- */

static uint32_t witness_u32(const cs_prover *p, const u32_var *w)
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) v |= (uint32_t)witness_bool(p, w->bits[i]) << i;
    return v;
}

static void test_u32_rewiring(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int t = 0; t < 50; t++) {
        uint32_t v = (uint32_t)cuzk_rng_u64(&g);
        u32_var a, r;
        bool_var be[32];
        u32_const(&a, v);
        u32_into_bits_be(be, &a);
        for (int i = 0; i < 32; i++) assert_int_equal(be[i].value, (v >> (31 - i)) & 1);
        u32_from_bits_be(&r, be);
        assert_int_equal(r.value, v);
        for (unsigned by = 0; by < 40; by++) {
            u32_rotr(&r, &a, by);
            uint32_t s = by % 32, want = s ? v >> s | v << (32 - s) : v;
            assert_int_equal(r.value, want);
            for (int i = 0; i < 32; i++) assert_int_equal(r.bits[i].value, (want >> i) & 1);
            u32_shr(&r, &a, by);
            for (int i = 0; i < 32; i++) assert_int_equal(r.bits[i].value, ((v >> s) >> i) & 1);
        }
    }
}

typedef struct u32_ctx {
    int op; /* 0 xor, 1 ch, 2 maj, 3 addmany (a^b)+c+d, 4 addmany of constants */
    uint32_t a, b, c, d;
    u32_var out;
    size_t result_bit0; /* aux index of addmany's result bit 0 */
} u32_ctx;

static int u32_synth(cs_t *cs, void *p)
{
    u32_ctx *x = p;
    u32_var a, b, c, d, t[3];
    u32_alloc(cs, &a, x->a);
    u32_const(&b, x->b);
    if (x->op == 4) u32_const(&a, x->a);
    if (x->op == 4 || x->op == 3)
        u32_const(&c, x->c);
    else
        u32_alloc(cs, &c, x->c);
    if (x->op == 0) u32_xor(cs, &t[0], &a, &b), u32_xor(cs, &x->out, &t[0], &c);
    if (x->op == 1) u32_sha256_ch(cs, &x->out, &a, &b, &c);
    if (x->op == 2) u32_sha256_maj(cs, &x->out, &a, &b, &c);
    if (x->op >= 3) {
        if (x->op == 3) u32_alloc(cs, &d, x->d), u32_xor(cs, &t[0], &a, &b);
        if (x->op == 4) u32_const(&d, x->d), t[0] = a;
        t[1] = c, t[2] = d;
        x->result_bit0 = cs_num_aux(cs);
        multieq me;
        multieq_init(&me, cs);
        u32_addmany(&me, &x->out, t, 3);
        multieq_finish(&me);
    }
    return cs_status(cs);
}

static uint32_t u32_expected(const u32_ctx *x)
{
    switch (x->op) {
    case 0:
        return x->a ^ x->b ^ x->c;
    case 1:
        return (x->a & x->b) ^ (~x->a & x->c);
    case 2:
        return (x->a & x->b) ^ (x->a & x->c) ^ (x->b & x->c);
    case 3:
        return (x->a ^ x->b) + x->c + x->d;
    default:
        return x->a + x->b + x->c + x->d - x->b;
    }
}

/* bellpepper's uint32 tests, with their constraint counts. */
static void test_u32_ops(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    /* a, c allocated (64) + xor with a constant (0) + xor (32); ch / maj
     * with b constant fold to one AND per bit (32); addmany of 3: a and d
     * allocated (64), 34 result bits + one MultiEq batch; constants: only
     * the allocation of a (32), then nothing. */
    const size_t cost[5] = {96, 96, 96, 64 + 34 + 1, 32};
    for (int t = 0; t < (quick() ? 5 : 40); t++) {
        for (int op = 0; op < 5; op++) {
            u32_ctx x = {.op = op,
                         .a = (uint32_t)cuzk_rng_u64(&g),
                         .b = (uint32_t)cuzk_rng_u64(&g),
                         .c = (uint32_t)cuzk_rng_u64(&g),
                         .d = (uint32_t)cuzk_rng_u64(&g)};
            cs_prover p;
            prove_satisfied(&p, (cs_circuit){u32_synth, &x});
            assert_int_equal(x.out.value, u32_expected(&x));
            assert_int_equal(witness_u32(&p, &x.out), u32_expected(&x));
            assert_int_equal(p.num_constraints - p.num_inputs, cost[op]);
            for (int i = 0; op == 4 && i < 32; i++) assert_true(bool_is_const(x.out.bits[i]));
            if (op == 3 && t < 3) tamper_breaks(&p, (cs_circuit){u32_synth, &x}, &x.result_bit0, 1);
            cs_prover_free(&p);
        }
    }
}

/* ---- MultiEq ---- */

typedef struct meq_ctx {
    int adds;       /* two-operand additions of allocated words */
    size_t rows[2]; /* constraint index of each emitted batch */
    int emitted;
} meq_ctx;

static int meq_synth(cs_t *cs, void *p)
{
    meq_ctx *x = p;
    multieq me;
    multieq_init(&me, cs);
    for (int i = 0; i < x->adds; i++) {
        u32_var ops[2], r;
        u32_alloc(cs, &ops[0], 0x80000000u + i), u32_alloc(cs, &ops[1], 0x9abcdef0u * i);
        size_t before = me.ops;
        u32_addmany(&me, &r, ops, 2);
        if (me.ops != before) x->rows[x->emitted++] = cs_num_constraints(cs) - 1;
    }
    size_t before = me.ops;
    multieq_finish(&me);
    if (before == 0 || me.ops == 0) x->rows[x->emitted++] = cs_num_constraints(cs) - 1;
    return cs_status(cs);
}

/* 33-bit equalities: 7 fit in 254 bits (231), the 8th emits the batch
 * right after its own result bits; the end emits the rest. */
static void test_multieq_batches(void **state)
{
    (void)state;
    meq_ctx x = {8, {0}, 0};
    cs_r1cs r;
    assert_int_equal(cs_record(&r, (cs_circuit){meq_synth, &x}, NULL), 0);
    assert_int_equal(r.num_constraints - r.num_inputs, 8 * (64 + 33) + 2);
    assert_int_equal(x.emitted, 2);
    assert_int_equal(x.rows[0], 8 * (64 + 33));
    assert_int_equal(x.rows[1], 8 * (64 + 33) + 1);
    ROW(&r.b, x.rows[0], {ONE, 1});
    /* batch 1: 7 x 33 result bits on the right; batch 2: one addition */
    assert_int_equal(r.c.ptr[x.rows[0] + 1] - r.c.ptr[x.rows[0]], 7 * 33);
    assert_int_equal(r.c.ptr[x.rows[1] + 1] - r.c.ptr[x.rows[1]], 33);
    assert_int_equal(r.a.ptr[x.rows[1] + 1] - r.a.ptr[x.rows[1]], 64);
    cs_r1cs_free(&r);
    meq_ctx y = {8, {0}, 0};
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){meq_synth, &y});
    cs_prover_free(&p);
}

typedef struct generic_ctx {
    uint64_t x, y;
} generic_ctx;

/* multieq_enforce_equal on two 200-bit equalities x = y: two batches. */
static int generic_synth(cs_t *cs, void *p)
{
    const generic_ctx *g = p;
    fr_t xv, yv;
    fr_from_u64(&xv, g->x), fr_from_u64(&yv, g->y);
    cs_var xs = cs_alloc(cs, &xv), ys = cs_alloc(cs, &yv);
    cs_lc l = {0}, r = {0};
    lc_add_var(&l, xs), lc_add_var(&r, ys);
    multieq me;
    multieq_init(&me, cs);
    multieq_enforce_equal(&me, 200, &l, &r);
    multieq_enforce_equal(&me, 53, &r, &l);
    multieq_enforce_equal(&me, 200, &l, &r);
    lc_free(&l), lc_free(&r);
    return multieq_finish(&me);
}

static void test_multieq_generic(void **state)
{
    (void)state;
    generic_ctx ok = {12345, 12345}, bad = {12345, 12346};
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){generic_synth, &ok});
    assert_int_equal(p.num_constraints - p.num_inputs, 2);
    cs_prover_free(&p);
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){generic_synth, &bad}, NULL, NULL), 0);
    assert_int_equal(count_unsatisfied(p.num_constraints, p.a, p.b, p.c), 2);
    cs_prover_free(&p);
}

/* ---- addmany's packed path against a plain one ---- */

/* bellpepper's addmany written plainly: the sum and the result as
 * combinations, through the generic multieq_enforce_equal. */
static void plain_addmany(multieq *me, u32_var *r, const u32_var *ops, size_t n)
{
    cs_lc lhs = {0}, rhs = {0};
    uint64_t sum = 0;
    bool all_const = true;
    for (size_t i = 0; i < n; i++) {
        sum += ops[i].value;
        for (int j = 0; j < 32; j++) {
            bool_lc_add(&lhs, ops[i].bits[j], fr_pow2(j));
            all_const &= bool_is_const(ops[i].bits[j]);
        }
    }
    if (all_const) {
        u32_const(r, (uint32_t)sum);
        lc_free(&lhs);
        return;
    }
    size_t nbits = 0;
    for (uint64_t max = n * (uint64_t)UINT32_MAX; max; max >>= 1, nbits++) {
        bool_var b = bit_alloc(me->cs, (sum >> nbits) & 1);
        lc_add_term(&rhs, bool_cs_var(b), fr_pow2(nbits));
        if (nbits < 32) r->bits[nbits] = b;
    }
    multieq_enforce_equal(me, nbits, &lhs, &rhs);
    r->value = (uint32_t)sum;
    lc_free(&lhs), lc_free(&rhs);
}

typedef struct mix_ctx {
    bool plain;
    uint64_t seed;
} mix_ctx;

/* Random additions over a pool of words mixing constant, allocated and
 * negated bits (and repeated operands), 2..10 at a time. */
static int mix_synth(cs_t *cs, void *p)
{
    const mix_ctx *x = p;
    cuzk_rng g;
    cuzk_rng_seed(&g, x->seed);
    u32_var pool[16];
    for (int i = 0; i < 16; i++) {
        u32_alloc(cs, &pool[i], (uint32_t)cuzk_rng_u64(&g));
        for (int j = 0; j < 32; j++) {
            uint64_t c = cuzk_rng_u64(&g) % 4;
            if (c == 0) pool[i].bits[j] = bool_const(cuzk_rng_u64(&g) & 1);
            if (c == 1) pool[i].bits[j] = bool_not(pool[i].bits[j]);
        }
        u32_from_bits(&pool[i], pool[i].bits);
    }
    multieq me;
    multieq_init(&me, cs);
    for (int a = 0; a < 40; a++) {
        size_t n = 2 + cuzk_rng_u64(&g) % 9;
        u32_var ops[10];
        for (size_t i = 0; i < n; i++) ops[i] = pool[cuzk_rng_u64(&g) % 16];
        size_t dst = cuzk_rng_u64(&g) % 16;
        if (x->plain)
            plain_addmany(&me, &pool[dst], ops, n);
        else
            u32_addmany(&me, &pool[dst], ops, n);
    }
    return multieq_finish(&me);
}

static void test_addmany_matches_plain(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int t = 0; t < (quick() ? 3 : 20); t++) {
        mix_ctx fast = {false, cuzk_rng_u64(&g)}, plain = {true, fast.seed};
        cs_counts kf = count_circuit((cs_circuit){mix_synth, &fast});
        cs_counts kp = count_circuit((cs_circuit){mix_synth, &plain});
        assert_int_equal(kf.num_constraints, kp.num_constraints);
        assert_memory_equal(kf.fingerprint, kp.fingerprint, 32);
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){mix_synth, &fast});
        cs_prover_free(&p);
    }
}

/* ---- UInt64, bytes, bit numbering ---- */

typedef struct u64_ctx {
    uint64_t v;
    uint8_t bytes[3];
    u64_var w;
    bool_var le[24], be[24], rev[24];
} u64_ctx;

static int u64_synth(cs_t *cs, void *p)
{
    u64_ctx *x = p;
    u64_alloc(cs, &x->w, x->v);
    u64_pack_into_input(cs, &x->w);
    bool_alloc_bytes_le(cs, x->le, x->bytes, 3);
    bool_alloc_bytes_be(cs, x->be, x->bytes, 3);
    return cs_status(cs);
}

static void test_uint64_and_bytes(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    u64_ctx x = {.v = cuzk_rng_u64(&g), .bytes = {0x81, 0x3c, 0x07}};
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){u64_synth, &x});
    assert_int_equal(p.num_inputs, 2);
    assert_int_equal(p.num_constraints - p.num_inputs, 64 + 1 + 48);
    fr_t want;
    fr_from_u64(&want, x.v);
    assert_true(fr_eq(&p.input_assignment[1], &want));
    bool_var be[64];
    u64_var back;
    u64_into_bits_be(be, &x.w);
    u64_from_bits_be(&back, be);
    assert_int_equal(back.value, x.v);
    assert_int_equal(be[0].value, x.v >> 63);
    for (int i = 0; i < 24; i++) {
        assert_int_equal(witness_bool(&p, x.le[i]), (x.bytes[i / 8] >> (i % 8)) & 1);
        assert_int_equal(witness_bool(&p, x.be[i]), (x.bytes[i / 8] >> (7 - i % 8)) & 1);
    }
    /* reversing the numbering of big-endian bits gives little-endian ones;
     * 13 bits are padded with constant zeros to 16 */
    assert_int_equal(bool_reverse_bit_numbering(x.rev, x.be, 24), 24);
    for (int i = 0; i < 24; i++)
        assert_int_equal(witness_bool(&p, x.rev[i]), witness_bool(&p, x.le[i]));
    assert_int_equal(bool_reverse_bit_numbering(x.rev, x.be, 13), 16);
    for (int i = 0; i < 16; i++) {
        size_t src = i / 8 * 8 + 7 - i % 8;
        if (src < 13)
            assert_int_equal(x.rev[i].var, x.be[src].var);
        else
            assert_true(bool_is_const(x.rev[i]) && !x.rev[i].value);
    }
    cs_prover_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_rows),
        cmocka_unit_test(test_xor_rows),
        cmocka_unit_test(test_and_rows),
        cmocka_unit_test(test_ch_maj_rows),
        cmocka_unit_test(test_all_operand_kinds),
        cmocka_unit_test(test_u64_and_field_bits),
        cmocka_unit_test(test_u32_rewiring),
        cmocka_unit_test(test_u32_ops),
        cmocka_unit_test(test_multieq_batches),
        cmocka_unit_test(test_multieq_generic),
        cmocka_unit_test(test_addmany_matches_plain),
        cmocka_unit_test(test_uint64_and_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
