/*
 * test_r1cs.c - the constraint system: linear combinations against a dense
 * coefficient model, bellperson's conventions (ONE, appended input
 * constraints, densities with merged and zero coefficients) on small
 * circuits whose R1CS is known by hand, and the backends against each
 * other: a * b = c on the prover's witness, counter = prover counts,
 * recorder rows evaluated = prover's a, b, c, keygen = recorder transposed,
 * counter fingerprint = fingerprint of the recorded matrices, batch =
 * sequential, with and without the capacity hint, the pre-compiled
 * evaluator = prover, and error reporting,
 * including every allocation failing in turn (outside sanitizer builds,
 * this executable replaces malloc to fail the k-th call and count what is
 * still live afterwards).
 */
#include "testutil.h"

#include "failalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <omp.h>
#include <openssl/evp.h>

#include "cuzk/r1cs.h"

static bool quick(void)
{
    return getenv("CUZK_TEST_QUICK") != NULL;
}

static void fr_u64(fr_t *r, uint64_t v)
{
    fr_from_u64(r, v);
}

/* ---- circuits ---- */

/* x^3 + x + k = y, y public. tamper: a wrong x^3 value. */
typedef struct cubic {
    uint64_t x, k;
    bool tamper, swap_var;
} cubic;

static int cubic_synth(cs_t *cs, void *ctx)
{
    const cubic *p = ctx;
    fr_t x, x2, x3, y, k;
    fr_u64(&x, p->x), fr_u64(&k, p->k);
    fr_sqr(&x2, &x);
    fr_mul(&x3, &x2, &x);
    fr_add(&y, &x3, &x);
    fr_add(&y, &y, &k);
    if (p->tamper) fr_add(&x3, &x3, &FR_ONE);
    cs_var vx = cs_alloc(cs, &x), vx2 = cs_alloc(cs, &x2), vx3 = cs_alloc(cs, &x3);
    cs_var vy = cs_alloc_input(cs, &y);
    cs_lc a = {0}, b = {0}, c = {0};
    lc_add_var(&a, vx), lc_add_var(&b, vx), lc_add_var(&c, vx2);
    cs_enforce(cs, &a, &b, &c);
    lc_clear(&a), lc_clear(&b), lc_clear(&c);
    lc_add_var(&a, vx2), lc_add_var(&b, p->swap_var ? vx2 : vx), lc_add_var(&c, vx3);
    cs_enforce(cs, &a, &b, &c);
    lc_clear(&a), lc_clear(&b), lc_clear(&c);
    lc_add_var(&a, vx3), lc_add_var(&a, vx), lc_add_term(&a, cs_one(), &k);
    lc_add_var(&b, cs_one());
    lc_add_var(&c, vy);
    return cs_enforce(cs, &a, &b, &c);
}

/* n (public) split into 64 booleans packed back with a 64-term (heap) lc. */
static int bits_synth(cs_t *cs, void *ctx)
{
    uint64_t n = *(const uint64_t *)ctx;
    fr_t nv, coeff = FR_ONE;
    fr_u64(&nv, n);
    cs_var vn = cs_alloc_input(cs, &nv);
    cs_lc a = {0}, b = {0}, zero = {0}, pack = {0};
    for (int i = 0; i < 64; i++) {
        cs_var bit = cs_alloc(cs, (n >> i) & 1 ? &FR_ONE : &FR_ZERO);
        lc_clear(&a), lc_clear(&b);
        lc_add_var(&a, bit);
        lc_add_var(&b, cs_one()), lc_sub_var(&b, bit);
        cs_enforce(cs, &a, &b, &zero);
        lc_add_term(&pack, bit, &coeff);
        fr_dbl(&coeff, &coeff);
    }
    lc_clear(&b), lc_clear(&a);
    lc_add_var(&b, cs_one());
    lc_add_var(&a, vn);
    cs_enforce(cs, &pack, &b, &a);
    lc_free(&pack);
    return 0;
}

/*
 * Duplicate and zero-coefficient terms. aux u = 3, v = 5, w = 7.
 * 0: (u + v - u [out of order] + u - u) * (ONE + w - w) = v
 *    -> A merges to v (u stays with coefficient 0), B to ONE (w with 0)
 * 1: (0 * w + ONE) * v = v, A built by lc_add_lc of two combinations.
 * So u and w are in no density; v in A-aux and B-aux; ONE in B-input.
 */
static int dup_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    fr_t u, v, w;
    fr_u64(&u, 3), fr_u64(&v, 5), fr_u64(&w, 7);
    cs_var vu = cs_alloc(cs, &u), vv = cs_alloc(cs, &v), vw = cs_alloc(cs, &w);
    cs_lc a = {0}, b = {0}, c = {0}, t = {0};
    lc_add_var(&a, vv), lc_add_var(&a, vu), lc_sub_var(&a, vu), lc_add_var(&a, vu);
    lc_sub_var(&a, vu);
    lc_add_var(&b, vw), lc_add_var(&b, cs_one()), lc_sub_var(&b, vw);
    lc_add_var(&c, vv);
    assert_int_equal(lc_len(&a), 2);
    assert_int_equal(lc_len(&b), 2);
    cs_enforce(cs, &a, &b, &c);
    lc_clear(&a), lc_clear(&b);
    lc_add_term(&a, vw, &FR_ZERO);
    lc_add_var(&t, cs_one());
    lc_add_lc(&a, &t);
    lc_add_var(&b, vv);
    return cs_enforce(cs, &a, &b, &c);
}

static cs_circuit circuit(int (*fn)(cs_t *, void *), void *ctx)
{
    return (cs_circuit){fn, ctx};
}

/* ---- helpers ---- */

static void check_satisfied(const cs_prover *p, bool expect)
{
    bool all = true;
    for (size_t j = 0; j < p->num_constraints; j++) {
        fr_t ab;
        fr_mul(&ab, &p->a[j], &p->b[j]);
        all = all && fr_eq(&ab, &p->c[j]);
    }
    assert_true(all == expect);
}

/* The last num_inputs constraints are x_i * 0 = 0. */
static void check_input_constraints(const cs_prover *p)
{
    size_t first = p->num_constraints - p->num_inputs;
    assert_true(fr_is_one(&p->input_assignment[0]));
    for (size_t i = 0; i < p->num_inputs; i++) {
        assert_true(fr_eq(&p->a[first + i], &p->input_assignment[i]));
        assert_true(fr_is_zero(&p->b[first + i]) && fr_is_zero(&p->c[first + i]));
    }
}

static void check_bits(const cs_bitmap *m, size_t nbits, const char *expect)
{
    assert_int_equal(m->nbits, nbits);
    for (size_t i = 0; i < nbits; i++) assert_int_equal(cs_bitmap_get(m, i), expect[i] == '1');
}

static void prove_ok(cs_prover *p, cs_circuit c)
{
    cuzk_err e = {0};
    int rc = cs_synthesize_prover(p, c, NULL, &e);
    if (rc) fail_msg("%s", e.msg);
}

/* Counter and recorder agree with the prover on c. */
static void check_backends_agree(cs_circuit c)
{
    cs_prover p;
    cs_counts k;
    cs_r1cs r;
    prove_ok(&p, c);
    assert_int_equal(cs_count(&k, c, NULL), 0);
    assert_int_equal(cs_record(&r, c, NULL), 0);
    assert_int_equal(k.num_constraints, p.num_constraints);
    assert_int_equal(k.num_inputs, p.num_inputs);
    assert_int_equal(k.num_aux, p.num_aux);
    assert_int_equal(k.a_aux_density, cs_bitmap_popcount(&p.a_aux_density));
    assert_int_equal(k.b_input_density, cs_bitmap_popcount(&p.b_input_density));
    assert_int_equal(k.b_aux_density, cs_bitmap_popcount(&p.b_aux_density));
    assert_int_equal(r.num_constraints, p.num_constraints);
    size_t n = p.num_constraints;
    fr_t *abc = malloc(3 * n * sizeof(fr_t));
    assert_int_equal(
        cs_r1cs_eval(&r, p.input_assignment, p.aux_assignment, abc, abc + n, abc + 2 * n), 0);
    assert_memory_equal(abc, p.a, n * sizeof(fr_t));
    assert_memory_equal(abc + n, p.b, n * sizeof(fr_t));
    assert_memory_equal(abc + 2 * n, p.c, n * sizeof(fr_t));
    uint8_t fp[32];
    assert_int_equal(cs_r1cs_fingerprint(&r, fp, NULL), 0);
    assert_memory_equal(fp, k.fingerprint, 32);
    free(abc);
    cs_r1cs_free(&r);
    cs_prover_free(&p);
}

/* ---- bounded memory ---- */

static long peak_rss_kib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/*
 * The counter keeps nothing per constraint: counting 2^20 constraints
 * raises the peak RSS by far less than the 128 MiB the prover's a, b, c
 * and aux would take (4 x 2^20 x 32 bytes); its own state is 3 bits per
 * variable and a 64 KiB hash buffer. Runs first, while the peak is low;
 * AddressSanitizer's shadow memory would blur the figure, so not there.
 */
static void counter_memory_is_bounded(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    cs_synthetic syn = {.constraints = (size_t)1 << 20, .seed = 5};
    long before = peak_rss_kib();
    cs_counts k;
    assert_int_equal(cs_count(&k, cs_synthetic_circuit(&syn), NULL), 0);
    assert_true(k.num_constraints > 1000000);
    assert_true(peak_rss_kib() - before < 16 * 1024);
}

/* ---- linear combinations ---- */

/* Random adds, subs and merges over 12 variables against dense arrays. */
#define MODEL_VARS 12
static cs_var model_var(int i)
{
    return (cs_var){(uint32_t)(i % 6), i < 6 ? CS_INPUT : CS_AUX};
}

static void check_model(const cs_lc *lc, const fr_t *model, const bool *present)
{
    const cs_term *t = lc_terms(lc);
    size_t n = 0;
    for (int i = 0; i < MODEL_VARS; i++) {
        if (!present[i]) continue;
        assert_true(n < lc_len(lc));
        assert_int_equal(t[n].var.kind, model_var(i).kind);
        assert_int_equal(t[n].var.index, model_var(i).index);
        assert_true(fr_eq(&t[n].coeff, &model[i]));
        n++;
    }
    assert_int_equal(n, lc_len(lc));
}

static void lc_against_model(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    for (int round = 0; round < 300; round++) {
        cs_lc lc = {0}, other = {0};
        fr_t model[MODEL_VARS] = {0}, omodel[MODEL_VARS] = {0}, c, s;
        bool present[MODEL_VARS] = {0}, opresent[MODEL_VARS] = {0};
        int ops = 1 + (int)(cuzk_rng_u64(&g) % 20);
        for (int k = 0; k < ops; k++) {
            int i = (int)(cuzk_rng_u64(&g) % MODEL_VARS), j = (int)(cuzk_rng_u64(&g) % MODEL_VARS);
            fr_random(&c, &g);
            if (cuzk_rng_u64(&g) & 1) {
                lc_add_term(&lc, model_var(i), &c);
                fr_add(&model[i], &model[i], &c);
            } else {
                lc_sub_term(&lc, model_var(i), &c);
                fr_sub(&model[i], &model[i], &c);
            }
            present[i] = true;
            lc_add_term(&other, model_var(j), &c);
            fr_add(&omodel[j], &omodel[j], &c);
            opresent[j] = true;
        }
        check_model(&lc, model, present);
        fr_random(&s, &g);
        int op = (int)(cuzk_rng_u64(&g) % 3);
        if (op == 0)
            lc_add_lc(&lc, &other);
        else if (op == 1)
            lc_sub_lc(&lc, &other);
        else
            lc_add_scaled_lc(&lc, &s, &other);
        for (int i = 0; i < MODEL_VARS; i++) {
            fr_t d = omodel[i];
            if (op == 1) fr_neg(&d, &d);
            if (op == 2) fr_mul(&d, &d, &s);
            fr_add(&model[i], &model[i], &d);
            present[i] = present[i] || opresent[i];
        }
        check_model(&lc, model, present);
        lc_add_scaled_lc(&lc, &s, &lc); /* aliased: every coefficient times 1 + s */
        fr_add(&s, &s, &FR_ONE);
        for (int i = 0; i < MODEL_VARS; i++) fr_mul(&model[i], &model[i], &s);
        check_model(&lc, model, present);
        lc_sub_lc(&lc, &lc);
        memset(model, 0, sizeof(model));
        check_model(&lc, model, present);
        lc_free(&lc), lc_free(&other);
    }
}

static void lc_inline_then_heap(void **state)
{
    (void)state;
    cs_lc lc;
    lc_zero(&lc);
    fr_t c;
    for (uint32_t i = 0; i < CS_LC_INLINE; i++) {
        fr_u64(&c, 10 + i);
        assert_int_equal(lc_add_term(&lc, (cs_var){i, CS_AUX}, &c), 0);
    }
    assert_null(lc.heap);      /* 4 terms: no heap allocation */
    lc_add_var(&lc, cs_one()); /* 5th term, smallest key: goes first */
    assert_non_null(lc.heap);
    assert_int_equal(lc_len(&lc), 5);
    const cs_term *t = lc_terms(&lc);
    assert_int_equal(t[0].var.kind, CS_INPUT);
    for (uint32_t i = 0; i < CS_LC_INLINE; i++) {
        fr_u64(&c, 10 + i);
        assert_int_equal(t[i + 1].var.index, i);
        assert_true(fr_eq(&t[i + 1].coeff, &c));
    }
    for (uint32_t i = 4; i < 1000; i++) lc_add_var(&lc, (cs_var){i, CS_AUX});
    assert_int_equal(lc_len(&lc), 1001);
    cs_term *heap = lc.heap;
    lc_clear(&lc); /* reuse keeps the storage */
    assert_int_equal(lc_len(&lc), 0);
    assert_ptr_equal(lc.heap, heap);
    lc_add_var(&lc, (cs_var){3, CS_AUX});
    cs_lc copy = {0};
    assert_int_equal(lc_copy(&copy, &lc), 0);
    assert_int_equal(lc_len(&copy), 1);
    assert_null(copy.heap);
    lc_scale(&lc, &c);
    assert_true(fr_eq(&lc_terms(&lc)[0].coeff, &c));
    lc_free(&lc), lc_free(&copy);
    assert_null(lc.heap);
}

static void lc_eval_skips_nothing_it_should_not(void **state)
{
    (void)state;
    fr_t in[2], aux[3], v, e, t;
    fr_u64(&in[0], 1), fr_u64(&in[1], 9);
    fr_u64(&aux[0], 2), fr_u64(&aux[1], 3), fr_u64(&aux[2], 4);
    cs_lc lc = {0};
    fr_u64(&t, 7);
    lc_add_term(&lc, (cs_var){2, CS_AUX}, &t);
    lc_add_var(&lc, (cs_var){1, CS_INPUT});
    lc_add_term(&lc, (cs_var){0, CS_AUX}, &FR_ZERO);
    lc_eval(&v, &lc, in, aux);
    fr_u64(&e, 7 * 4 + 9);
    assert_true(fr_eq(&v, &e));
    lc_free(&lc);
}

/* ---- small circuits ---- */

static void cubic_prover(void **state)
{
    (void)state;
    cubic ctx = {.x = 3, .k = 5};
    cs_prover p;
    prove_ok(&p, circuit(cubic_synth, &ctx));
    assert_int_equal(p.num_inputs, 2);
    assert_int_equal(p.num_aux, 3);
    assert_int_equal(p.num_constraints, 3 + 2);
    fr_t y;
    fr_u64(&y, 27 + 3 + 5);
    assert_true(fr_eq(&p.input_assignment[1], &y));
    check_satisfied(&p, true);
    check_input_constraints(&p);
    check_bits(&p.a_aux_density, 3, "111");
    check_bits(&p.b_input_density, 2, "10");
    check_bits(&p.b_aux_density, 3, "100");
    cs_prover_free(&p);
    ctx.tamper = true;
    prove_ok(&p, circuit(cubic_synth, &ctx));
    check_satisfied(&p, false);
    cs_prover_free(&p);
}

static void bits_prover(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint64_t n = cuzk_rng_u64(&g);
    cs_prover p;
    prove_ok(&p, circuit(bits_synth, &n));
    assert_int_equal(p.num_inputs, 2);
    assert_int_equal(p.num_aux, 64);
    assert_int_equal(p.num_constraints, 64 + 1 + 2);
    check_satisfied(&p, true);
    check_input_constraints(&p);
    char all[65];
    memset(all, '1', 64);
    check_bits(&p.a_aux_density, 64, all);
    check_bits(&p.b_aux_density, 64, all);
    check_bits(&p.b_input_density, 2, "10");
    cs_prover_free(&p);
    uint64_t bad = n; /* a witness bit flipped breaks the packing */
    cs_prover q;
    prove_ok(&q, circuit(bits_synth, &bad));
    q.aux_assignment[5] = fr_is_zero(&q.aux_assignment[5]) ? FR_ONE : FR_ZERO;
    cs_r1cs r;
    assert_int_equal(cs_record(&r, circuit(bits_synth, &bad), NULL), 0);
    cs_r1cs_eval(&r, q.input_assignment, q.aux_assignment, q.a, q.b, q.c);
    check_satisfied(&q, false);
    cs_r1cs_free(&r);
    cs_prover_free(&q);
}

static void duplicates_and_zeros(void **state)
{
    (void)state;
    cs_prover p;
    prove_ok(&p, circuit(dup_synth, NULL));
    assert_int_equal(p.num_constraints, 2 + 1);
    check_satisfied(&p, true);
    fr_t five;
    fr_u64(&five, 5);
    assert_true(fr_eq(&p.a[0], &five) && fr_is_one(&p.b[0]));
    check_bits(&p.a_aux_density, 3, "010");
    check_bits(&p.b_aux_density, 3, "010");
    check_bits(&p.b_input_density, 1, "1");
    cs_prover_free(&p);
    cs_r1cs r; /* zero coefficients are not recorded */
    assert_int_equal(cs_record(&r, circuit(dup_synth, NULL), NULL), 0);
    assert_int_equal(r.a.nnz, 1 + 1 + 1);
    assert_int_equal(r.b.nnz, 1 + 1 + 0);
    cs_r1cs_free(&r);
}

static void backends_agree(void **state)
{
    (void)state;
    cubic ctx = {.x = 11, .k = 5};
    uint64_t n = 0x0123456789abcdefULL;
    cs_synthetic syn = {.constraints = quick() ? 2000 : 20000, .seed = 7};
    check_backends_agree(circuit(cubic_synth, &ctx));
    check_backends_agree(circuit(bits_synth, &n));
    check_backends_agree(circuit(dup_synth, NULL));
    check_backends_agree(cs_synthetic_circuit(&syn));
}

/* Expected popcounts of the synthetic circuit: all aux are in A and B
 * (bits in boolean constraints, packed words in no B, XOR outputs in C
 * only), and ONE is the only input in B. */
static void synthetic_shape(void **state)
{
    (void)state;
    cs_synthetic syn = {.constraints = 129 * 10, .seed = 1};
    cs_counts k;
    assert_int_equal(cs_count(&k, cs_synthetic_circuit(&syn), NULL), 0);
    assert_int_equal(k.num_inputs, 2);
    assert_int_equal(k.num_aux, 10 * 129 - 65);
    assert_int_equal(k.num_constraints, 10 * 129 - 64 + 2);
    assert_int_equal(k.b_input_density, 1);
    assert_int_equal(k.a_aux_density, 10 * 64);
    assert_int_equal(k.b_aux_density, 10 * 64);
    cs_prover p;
    prove_ok(&p, cs_synthetic_circuit(&syn));
    check_satisfied(&p, true);
    cs_prover_free(&p);
}

static void fingerprint_stable_and_sensitive(void **state)
{
    (void)state;
    cubic base = {.x = 3, .k = 5}, coeff = {.x = 3, .k = 6},
          var = {.x = 3, .k = 5, .swap_var = true};
    cs_counts k1, k2, k3, k4;
    assert_int_equal(cs_count(&k1, circuit(cubic_synth, &base), NULL), 0);
    assert_int_equal(cs_count(&k2, circuit(cubic_synth, &base), NULL), 0);
    assert_memory_equal(k1.fingerprint, k2.fingerprint, 32);
    base.x = 4; /* values are not part of the R1CS */
    assert_int_equal(cs_count(&k2, circuit(cubic_synth, &base), NULL), 0);
    assert_memory_equal(k1.fingerprint, k2.fingerprint, 32);
    assert_int_equal(cs_count(&k3, circuit(cubic_synth, &coeff), NULL), 0);
    assert_memory_not_equal(k1.fingerprint, k3.fingerprint, 32);
    assert_int_equal(cs_count(&k4, circuit(cubic_synth, &var), NULL), 0);
    assert_memory_not_equal(k1.fingerprint, k4.fingerprint, 32);
    assert_memory_not_equal(k3.fingerprint, k4.fingerprint, 32);
}

/* The documented encoding (r1cs.h, cs_counts) written out by hand. */
typedef struct enc {
    uint8_t *b;
    size_t n, cap;
} enc;

static void put(enc *e, uint64_t v, int bytes)
{
    if (e->n + 8 > e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4096;
        e->b = realloc(e->b, e->cap);
        assert_non_null(e->b);
    }
    for (int i = 0; i < bytes; i++) e->b[e->n++] = (uint8_t)(v >> (8 * i));
}

/* One term: index, kind, form (0 = coefficient 1, 2 = small value v). */
static void term(enc *e, uint32_t index, int kind, uint64_t v)
{
    put(e, index, 4), put(e, (uint64_t)kind, 1), put(e, v == 1 ? 0 : 2, 1);
    if (v != 1) put(e, v, 8), put(e, 0, 8), put(e, 0, 8), put(e, 0, 8);
}

/* The fingerprint by its definition (r1cs.h, cs_counts) from the
 * encoding e, ends[k] its bytes up to constraint k's end (k < cons): the
 * SHA-256 of the SHA-256 digests of its blocks of 65536 constraints, then
 * the sizes. */
static void fingerprint_of(const enc *e, const size_t *ends, uint64_t inputs, uint64_t aux,
                           uint64_t cons, uint8_t out[32])
{
    enc outer = {0};
    for (uint64_t r0 = 0; r0 < cons; r0 += 65536) {
        uint64_t r1 = r0 + 65536 < cons ? r0 + 65536 : cons;
        size_t from = r0 ? ends[r0 - 1] : 0;
        uint8_t d[32];
        unsigned int len = 0;
        assert_int_equal(EVP_Digest(e->b + from, ends[r1 - 1] - from, d, &len, EVP_sha256(), NULL),
                         1);
        for (int i = 0; i < 32; i++) put(&outer, d[i], 1);
    }
    put(&outer, inputs, 8), put(&outer, aux, 8), put(&outer, cons, 8);
    unsigned int len = 0;
    assert_int_equal(EVP_Digest(outer.b, outer.n, out, &len, EVP_sha256(), NULL), 1);
    free(outer.b);
}

static void fingerprint_known_answer(void **state)
{
    (void)state;
    enc e = {0};
    size_t ends[5];
    /* x * x = x2 */
    put(&e, 1, 4), term(&e, 0, CS_AUX, 1), put(&e, 1, 4), term(&e, 0, CS_AUX, 1);
    put(&e, 1, 4), term(&e, 1, CS_AUX, 1), ends[0] = e.n;
    /* x2 * x = x3 */
    put(&e, 1, 4), term(&e, 1, CS_AUX, 1), put(&e, 1, 4), term(&e, 0, CS_AUX, 1);
    put(&e, 1, 4), term(&e, 2, CS_AUX, 1), ends[1] = e.n;
    /* (5 ONE + x + x3) * ONE = y */
    put(&e, 3, 4), term(&e, 0, CS_INPUT, 5), term(&e, 0, CS_AUX, 1), term(&e, 2, CS_AUX, 1);
    put(&e, 1, 4), term(&e, 0, CS_INPUT, 1), put(&e, 1, 4), term(&e, 1, CS_INPUT, 1);
    ends[2] = e.n;
    /* ONE * 0 = 0, y * 0 = 0 */
    put(&e, 1, 4), term(&e, 0, CS_INPUT, 1), put(&e, 0, 4), put(&e, 0, 4), ends[3] = e.n;
    put(&e, 1, 4), term(&e, 1, CS_INPUT, 1), put(&e, 0, 4), put(&e, 0, 4), ends[4] = e.n;
    uint8_t want[32];
    fingerprint_of(&e, ends, 2, 3, 5, want); /* inputs, aux, constraints */
    cubic ctx = {.x = 3, .k = 5};
    cs_counts k;
    assert_int_equal(cs_count(&k, circuit(cubic_synth, &ctx), NULL), 0);
    assert_memory_equal(k.fingerprint, want, 32);
    free(e.b);
}

/* m squarings x_{i+1} = x_i^2 from x_0 = 3, every thousandth (i = 7 mod
 * 1000) as (5 x_i) x_i = x_{i+1}. */
static int chain_synth(cs_t *cs, void *ctx)
{
    size_t m = *(const size_t *)ctx;
    fr_t x, five;
    fr_u64(&x, 3), fr_u64(&five, 5);
    cs_var v = cs_alloc(cs, &x);
    int rc = 0;
    for (size_t i = 0; i < m && !rc; i++) {
        bool k5 = i % 1000 == 7;
        fr_t y;
        fr_sqr(&y, &x);
        if (k5) fr_mul(&y, &y, &five);
        cs_var w = cs_alloc(cs, &y);
        cs_lc a = {0}, b = {0}, c = {0};
        if (k5)
            lc_add_term(&a, v, &five);
        else
            lc_add_var(&a, v);
        lc_add_var(&b, v), lc_add_var(&c, w);
        rc = cs_enforce(cs, &a, &b, &c);
        lc_clear(&a), lc_clear(&b), lc_clear(&c);
        v = w, x = y;
    }
    return rc;
}

/* Across the block edges (65536 constraints, the input constraint
 * appended last): the definition computed here, the counter (its blocks
 * closed as the combinations stream), the recorder's matrices, and the
 * recorded shape (its blocks hashed in parallel) all agree. */
static void fingerprint_blocks(void **state)
{
    (void)state;
    const size_t totals[] = {65535, 65536, 65537, 2 * 65536 + 3};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
        size_t m = totals[t] - 1, cons = totals[t];
        enc e = {0};
        size_t *ends = malloc(cons * sizeof(size_t));
        assert_non_null(ends);
        for (size_t i = 0; i < m; i++) {
            put(&e, 1, 4), term(&e, (uint32_t)i, CS_AUX, i % 1000 == 7 ? 5 : 1);
            put(&e, 1, 4), term(&e, (uint32_t)i, CS_AUX, 1);
            put(&e, 1, 4), term(&e, (uint32_t)(i + 1), CS_AUX, 1), ends[i] = e.n;
        }
        put(&e, 1, 4), term(&e, 0, CS_INPUT, 1), put(&e, 0, 4), put(&e, 0, 4), ends[m] = e.n;
        uint8_t want[32], got[32];
        fingerprint_of(&e, ends, 1, m + 1, cons, want);
        cs_circuit c = circuit(chain_synth, &m);
        cs_counts k;
        assert_int_equal(cs_count(&k, c, NULL), 0);
        assert_int_equal(k.num_constraints, cons);
        assert_memory_equal(k.fingerprint, want, 32);
        cs_r1cs r;
        assert_int_equal(cs_record(&r, c, NULL), 0);
        assert_int_equal(cs_r1cs_fingerprint(&r, got, NULL), 0);
        assert_memory_equal(got, want, 32);
        cs_r1cs_free(&r);
        cs_shape *s;
        int saved = omp_get_max_threads();
        omp_set_num_threads(3);
        assert_int_equal(cs_shape_record(&s, c, NULL), 0);
        omp_set_num_threads(saved);
        cs_shape_fingerprint(s, got);
        assert_memory_equal(got, want, 32);
        cs_shape_free(s);
        free(ends), free(e.b);
    }
}

/* Keygen's rows by variable hold exactly the recorder's entries. */
static void keygen_is_transpose(void **state)
{
    (void)state;
    cs_synthetic syn = {.constraints = 600, .seed = 3};
    cs_r1cs r, t;
    assert_int_equal(cs_record(&r, cs_synthetic_circuit(&syn), NULL), 0);
    assert_int_equal(cs_keygen(&t, cs_synthetic_circuit(&syn), NULL), 0);
    assert_int_equal(t.layout, CS_BY_VARIABLE);
    const cs_matrix *rm[3] = {&r.a, &r.b, &r.c}, *tm[3] = {&t.a, &t.b, &t.c};
    size_t vars = r.num_inputs + r.num_aux;
    for (int m = 0; m < 3; m++) {
        assert_int_equal(tm[m]->rows, vars);
        assert_int_equal(tm[m]->nnz, rm[m]->nnz);
        size_t seen = 0;
        for (size_t v = 0; v < vars; v++) {
            for (uint64_t k = tm[m]->ptr[v]; k < tm[m]->ptr[v + 1]; k++) {
                uint32_t row = tm[m]->idx[k];
                bool found = false;
                for (uint64_t q = rm[m]->ptr[row]; q < rm[m]->ptr[row + 1]; q++)
                    found = found || (rm[m]->idx[q] == v && fr_eq(&rm[m]->val[q], &tm[m]->val[k]));
                assert_true(found);
                seen++;
            }
        }
        assert_int_equal(seen, rm[m]->nnz);
    }
    uint8_t fp[32];
    assert_int_equal(cs_r1cs_fingerprint(&t, fp, NULL), CUZK_EINVAL);
    assert_int_equal(cs_r1cs_eval(&t, NULL, NULL, NULL, NULL, NULL), CUZK_EINVAL);
    cs_r1cs_free(&r), cs_r1cs_free(&t);
}

static void witness_matches_prover(void **state)
{
    (void)state;
    cs_synthetic syn = {.constraints = 1000, .seed = 9};
    cs_prover p;
    cs_witness w;
    prove_ok(&p, cs_synthetic_circuit(&syn));
    assert_int_equal(cs_synthesize_witness(&w, cs_synthetic_circuit(&syn), NULL), 0);
    assert_int_equal(w.num_aux, p.num_aux);
    assert_int_equal(w.num_inputs, p.num_inputs);
    assert_memory_equal(w.aux_assignment, p.aux_assignment, p.num_aux * sizeof(fr_t));
    assert_memory_equal(w.input_assignment, p.input_assignment, p.num_inputs * sizeof(fr_t));
    cs_witness_free(&w);
    cs_prover_free(&p);
}

/* ---- batch ---- */

static void assert_same_prover(const cs_prover *x, const cs_prover *y)
{
    assert_int_equal(x->num_constraints, y->num_constraints);
    assert_int_equal(x->num_inputs, y->num_inputs);
    assert_int_equal(x->num_aux, y->num_aux);
    size_t n = x->num_constraints * sizeof(fr_t);
    assert_memory_equal(x->a, y->a, n);
    assert_memory_equal(x->b, y->b, n);
    assert_memory_equal(x->c, y->c, n);
    assert_memory_equal(x->input_assignment, y->input_assignment, x->num_inputs * sizeof(fr_t));
    assert_memory_equal(x->aux_assignment, y->aux_assignment, x->num_aux * sizeof(fr_t));
    const cs_bitmap *bx[3] = {&x->a_aux_density, &x->b_input_density, &x->b_aux_density};
    const cs_bitmap *by[3] = {&y->a_aux_density, &y->b_input_density, &y->b_aux_density};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(bx[i]->nbits, by[i]->nbits);
        for (size_t k = 0; k < bx[i]->nbits; k++)
            assert_int_equal(cs_bitmap_get(bx[i], k), cs_bitmap_get(by[i], k));
    }
}

#define BATCH 5

static void batch_equals_sequential(void **state)
{
    (void)state;
    cs_synthetic syn[BATCH];
    cs_circuit circuits[BATCH];
    cs_prover seq[BATCH], par[BATCH], hinted[BATCH];
    for (int i = 0; i < BATCH; i++) {
        syn[i] = (cs_synthetic){.constraints = (quick() ? 500 : 5000) * (size_t)(i + 1),
                                .seed = 100 + (uint64_t)i};
        circuits[i] = cs_synthetic_circuit(&syn[i]);
        prove_ok(&seq[i], circuits[i]);
    }
    assert_int_equal(cs_synthesize_batch(par, circuits, BATCH, NULL), 0);
    cs_capacity hint = {
        .constraints = syn[BATCH - 1].constraints, .inputs = 2, .aux = syn[BATCH - 1].constraints};
    assert_int_equal(cs_synthesize_batch_with_hint(hinted, circuits, BATCH, &hint, NULL), 0);
    for (int i = 0; i < BATCH; i++) {
        assert_same_prover(&seq[i], &par[i]);
        assert_same_prover(&seq[i], &hinted[i]);
        cs_prover_free(&seq[i]), cs_prover_free(&par[i]), cs_prover_free(&hinted[i]);
    }
}

/* ---- pre-compiled evaluator ---- */

static void pce_equals_prover(void **state)
{
    (void)state;
    cubic ctx = {.x = 6, .k = 5};
    cs_synthetic syn = {.constraints = quick() ? 3000 : 30000, .seed = 11};
    cs_circuit circuits[3] = {circuit(cubic_synth, &ctx), circuit(dup_synth, NULL),
                              cs_synthetic_circuit(&syn)};
    for (int i = 0; i < 3; i++) {
        cs_prover p, q;
        cs_r1cs r;
        cs_witness w;
        prove_ok(&p, circuits[i]);
        assert_int_equal(cs_record(&r, circuits[i], NULL), 0);
        assert_int_equal(cs_synthesize_witness(&w, circuits[i], NULL), 0);
        assert_int_equal(cs_prover_from_witness(&q, &r, &w, NULL), 0);
        assert_null(w.aux_assignment); /* taken */
        assert_same_prover(&p, &q);
        cs_prover_free(&p), cs_prover_free(&q), cs_r1cs_free(&r);
    }
    cs_r1cs r;
    cs_witness w;
    cs_prover q;
    cuzk_err e = {0};
    assert_int_equal(cs_record(&r, circuits[0], NULL), 0);
    assert_int_equal(cs_synthesize_witness(&w, circuits[2], NULL), 0);
    assert_int_equal(cs_prover_from_witness(&q, &r, &w, &e), CUZK_ELENGTH);
    assert_non_null(strstr(e.msg, "witness has 2 inputs and"));
    assert_null(q.a);
    assert_null(w.aux_assignment);
    cs_r1cs_free(&r);
}

/* ---- errors ---- */

static int missing_value_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    cs_alloc(cs, &FR_ONE);
    cs_alloc(cs, NULL);
    return cs_status(cs);
}

static int bad_index_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    cs_lc a = {0};
    cs_alloc(cs, &FR_ONE);
    lc_add_var(&a, (cs_var){1, CS_AUX});
    return cs_enforce(cs, &a, &a, &a);
}

static int failing_synth(cs_t *cs, void *ctx)
{
    (void)cs, (void)ctx;
    return CUZK_EUNSUPPORTED;
}

static int oom_lc_synth(cs_t *cs, void *ctx)
{
    (void)ctx;
    cs_lc a = {0};
    a.status = CUZK_ENOMEM; /* as left by a failed growth */
    return cs_enforce(cs, &a, &a, &a);
}

static void errors_are_reported(void **state)
{
    (void)state;
    cs_prover p;
    cs_counts k;
    cuzk_err e = {0};
    assert_int_equal(cs_synthesize_prover(&p, circuit(missing_value_synth, NULL), NULL, &e),
                     CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "aux variable 1 allocated without a value"));
    assert_null(p.a);
    /* the counter does not need values */
    assert_int_equal(cs_count(&k, circuit(missing_value_synth, NULL), NULL), 0);
    assert_int_equal(k.num_aux, 2);
    assert_int_equal(cs_count(&k, circuit(bad_index_synth, NULL), &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "constraint 0: A uses aux variable 1 but 1 are allocated"));
    assert_int_equal(cs_count(&k, circuit(failing_synth, NULL), &e), CUZK_EUNSUPPORTED);
    assert_int_equal(cs_count(&k, circuit(oom_lc_synth, NULL), &e), CUZK_ENOMEM);
    assert_non_null(strstr(e.msg, "constraint 0: A combination"));
    cs_capacity huge = {.constraints = (size_t)1 << 60, .inputs = 1, .aux = 1};
    assert_int_equal(cs_synthesize_prover(&p, circuit(bits_synth, &(uint64_t){1}), &huge, &e),
                     CUZK_ENOMEM);
    cs_synthetic ok = {.constraints = 300, .seed = 1};
    cs_circuit mixed[3] = {cs_synthetic_circuit(&ok), circuit(missing_value_synth, NULL),
                           cs_synthetic_circuit(&ok)};
    cs_prover out[3];
    assert_int_equal(cs_synthesize_batch(out, mixed, 3, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "circuit 1 of 3: "));
    for (int i = 0; i < 3; i++) assert_null(out[i].a);
}

/* ---- allocation failures ---- */

#if FAILALLOC_AVAILABLE
typedef struct backend_run {
    int backend; /* 0 prover, 1 counter, 2 recorder, 3 keygen, 4 witness */
    cs_circuit c;
} backend_run;

/* One backend on one circuit, freeing what it made. */
static int run_backend(void *arg)
{
    const backend_run *b = arg;
    cs_prover p;
    cs_counts n;
    cs_r1cs r;
    cs_witness w;
    int rc = 0;
    if (b->backend == 0 && !(rc = cs_synthesize_prover(&p, b->c, NULL, NULL))) cs_prover_free(&p);
    if (b->backend == 1) rc = cs_count(&n, b->c, NULL);
    if (b->backend == 2 && !(rc = cs_record(&r, b->c, NULL))) cs_r1cs_free(&r);
    if (b->backend == 3 && !(rc = cs_keygen(&r, b->c, NULL))) cs_r1cs_free(&r);
    if (b->backend == 4 && !(rc = cs_synthesize_witness(&w, b->c, NULL))) cs_witness_free(&w);
    return rc;
}

static void every_allocation_failure(void **state)
{
    (void)state;
    cs_synthetic syn = {.constraints = 300, .seed = 2};
    uint64_t n = 0xfeedfacecafebeefULL;
    cs_circuit circuits[2] = {cs_synthetic_circuit(&syn), circuit(bits_synth, &n)};
    for (int c = 0; c < 2; c++)
        for (int backend = 0; backend < 5; backend++) { /* OpenSSL absorbs some failures */
            backend_run b = {backend, circuits[c]};
            failalloc_every(run_backend, &b);
        }
}
#else
/* AddressSanitizer owns malloc in sanitizer builds. */
static void every_allocation_failure(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_memory_is_bounded),
        cmocka_unit_test(lc_against_model),
        cmocka_unit_test(lc_inline_then_heap),
        cmocka_unit_test(lc_eval_skips_nothing_it_should_not),
        cmocka_unit_test(cubic_prover),
        cmocka_unit_test(bits_prover),
        cmocka_unit_test(duplicates_and_zeros),
        cmocka_unit_test(backends_agree),
        cmocka_unit_test(synthetic_shape),
        cmocka_unit_test(fingerprint_stable_and_sensitive),
        cmocka_unit_test(fingerprint_known_answer),
        cmocka_unit_test(fingerprint_blocks),
        cmocka_unit_test(keygen_is_transpose),
        cmocka_unit_test(witness_matches_prover),
        cmocka_unit_test(batch_equals_sequential),
        cmocka_unit_test(pce_equals_prover),
        cmocka_unit_test(errors_are_reported),
        cmocka_unit_test(every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
