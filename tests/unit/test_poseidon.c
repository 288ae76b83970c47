/*
 * test_poseidon.c - native Poseidon and neptune's legacy Poseidon circuit.
 *
 * Native: neptune v11's own test vectors (poseidon.rs hash_values: the
 * hash of [0, 1, .., arity-1] for arities 2..36, Standard and
 * Strengthened), filecoin-hashers' binary tree over [1, 0, 0, 1], round
 * numbers against neptune's tables, the Grain LFSR constants against the
 * reference script's output shipped with neptune (t = 9), and the
 * optimized permutation against the plain one on random inputs.
 *
 * Circuit: neptune's constraint counts per arity and strength (circuit.rs
 * test_poseidon_hash) with the counter backend, the witness satisfying
 * every constraint with the output equal to the native hash, the R1CS not
 * depending on the values, tampered witness values breaking it, and the
 * fast replay giving the walk's R1CS and witness exactly.
 */
#include "gadget_check.h"

#include <openssl/sha.h>

#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"

static const poseidon_constants *get(unsigned arity, int strength)
{
    cuzk_err e;
    const poseidon_constants *c = poseidon_constants_get(arity, strength, &e);
    if (!c) print_message("%s\n", e.msg);
    assert_non_null(c);
    return c;
}

/* Canonical little-endian u64 limbs (neptune's scalar_from_u64s). */
static void assert_limbs(const fr_t *x, const uint64_t want[4])
{
    uint64_t l[4];
    fr_to_canonical(l, x);
    assert_memory_equal(l, want, sizeof(l));
}

/* ---- native ---- */

typedef struct vector {
    unsigned arity;
    uint64_t standard[4], strengthened[4];
} vector;

/* neptune v11 src/poseidon.rs, hash_values_aux: Poseidon([0, 1, .., arity - 1]). */
static const vector VECTORS[] = {
    {2,
     {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
     {0x793dbaf54552cd69, 0x5278ecbf17040ea6, 0xc48b36ecc4cab748, 0x33d28a753baee41b}},
    {4,
     {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
     {0x4650ee190212aa9a, 0xe5113a254d6f5c7e, 0x54013bdaf68ba4c2, 0x09d8207c51ca3f43}},
    {8,
     {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
     {0x9f0c3c93c3fc894e, 0xe843d4cfba662df1, 0xd69aae8fe1cb63e8, 0x69e61465981ae17e}},
    {11,
     {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
     {0x778af344d8f9e8b7, 0xc94fe2ca3f46d433, 0x07abbcf9b406e8d8, 0x28bb83ff439753c0}},
    {16,
     {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
     {0x3cc2664c5fd6ae07, 0xd7431eaaa5e43189, 0x43ba5f418c6ef01d, 0x68d7856395aa217e}},
    {24,
     {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
     {0x1df1da58827cb39d, 0x0566756b7b80fb10, 0x222eb82c6666be3d, 0x086e4e81a35bfd92}},
    {36,
     {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
     {0x636401e9371dc311, 0x8f69e35a702ed188, 0x64d73b2ddc03d43b, 0x609f8c6fe45cc054}},
};

static void test_neptune_vectors(void **state)
{
    (void)state;
    for (size_t v = 0; v < sizeof(VECTORS) / sizeof(VECTORS[0]); v++) {
        fr_t in[POSEIDON_MAX_ARITY], opt, plain;
        for (unsigned i = 0; i < VECTORS[v].arity; i++) fr_from_u64(&in[i], i);
        for (int s = POSEIDON_STANDARD; s <= POSEIDON_STRENGTHENED; s++) {
            if (s && quick() && VECTORS[v].arity > 11) continue; /* slow to build there */
            const poseidon_constants *c = get(VECTORS[v].arity, s);
            poseidon_hash(&opt, c, in);
            poseidon_hash_plain(&plain, c, in);
            const uint64_t *want = s ? VECTORS[v].strengthened : VECTORS[v].standard;
            assert_limbs(&opt, want);
            assert_limbs(&plain, want);
        }
    }
    /* reference/filecoin.md's big-endian form of the arity-2 vector. */
    uint8_t want[32], got[32];
    test_hex(want, 32, "0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff");
    fr_t in[2], out;
    fr_from_u64(&in[0], 0), fr_from_u64(&in[1], 1);
    poseidon_hash(&out, poseidon_std(2), in);
    fr_to_bytes_be(got, &out);
    assert_memory_equal(got, want, 32);
}

/* filecoin-hashers poseidon.rs test_poseidon_hasher: a binary tree over [1, 0, 0, 1]. */
static void test_filecoin_binary_tree(void **state)
{
    (void)state;
    static const uint64_t node10[4] = {0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26,
                                       0x042f94ffbe786bc3};
    static const uint64_t root[4] = {0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae,
                                     0x1effebb7b26ad9eb};
    const poseidon_constants *c = poseidon_std(2);
    fr_t l[4] = {FR_ONE, FR_ZERO, FR_ZERO, FR_ONE}, n[2], r;
    poseidon_hash(&n[0], c, &l[0]);
    poseidon_hash(&n[1], c, &l[2]);
    poseidon_hash(&r, c, n);
    assert_limbs(&n[0], node10);
    assert_limbs(&r, root);
}

static void test_plain_equals_optimized(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const unsigned arities[] = {1, 2, 3, 4, 5, 8, 11, 16, 24, 36};
    int rounds = quick() ? 2 : 10;
    for (size_t a = 0; a < sizeof(arities) / sizeof(arities[0]); a++) {
        unsigned arity = arities[a];
        const poseidon_constants *c = get(arity, POSEIDON_STANDARD);
        for (int k = 0; k < rounds; k++) {
            fr_t in[POSEIDON_MAX_ARITY], a, b;
            for (unsigned i = 0; i < arity; i++) fr_random(&in[i], &g);
            poseidon_hash(&a, c, in);
            poseidon_hash_plain(&b, c, in);
            assert_true(fr_eq(&a, &b));
            poseidon_hash(&in[0], c, in); /* output aliasing the input */
            assert_true(fr_eq(&in[0], &a));
        }
    }
    /* A parallel batch equals one hash after another. */
    enum { N = 100 };
    const poseidon_constants *c = poseidon_std(8);
    fr_t *in = malloc(N * 8 * sizeof(fr_t)), out[N], one;
    assert_non_null(in);
    for (int i = 0; i < N * 8; i++) fr_random(&in[i], &g);
    poseidon_hash_many(out, c, in, N);
    for (int i = 0; i < N; i++) {
        poseidon_hash(&one, c, &in[8 * i]);
        assert_true(fr_eq(&one, &out[i]));
    }
    free(in);
}

/* The constants the batch tests run: arities in the lanes and one out
 * of them (16), both strengths, a custom tag (7 of them). */
enum { BATCH_CONSTANTS = 7 };
static void batch_constants(const poseidon_constants *cs[BATCH_CONSTANTS])
{
    cuzk_err e;
    const poseidon_constants *list[BATCH_CONSTANTS] = {
        get(1, POSEIDON_STANDARD),
        get(2, POSEIDON_STANDARD),
        get(8, POSEIDON_STANDARD),
        get(11, POSEIDON_STANDARD),
        get(16, POSEIDON_STANDARD),
        get(8, POSEIDON_STRENGTHENED),
        poseidon_constants_get_custom(2, 1, &e),
    };
    for (int k = 0; k < BATCH_CONSTANTS; k++) assert_non_null(cs[k] = list[k]);
}

/* m inputs for a batch of n: every third one at the field's edges (0, 1,
 * r - 1, r - 2, where lazy reductions go wrong first), the rest random. */
static void batch_inputs(fr_t *in, size_t m, size_t n, cuzk_rng *g)
{
    fr_t edge[4], minus_one;
    fr_neg(&minus_one, &FR_ONE);
    edge[0] = FR_ZERO, edge[1] = FR_ONE, edge[2] = minus_one;
    fr_sub(&edge[3], &minus_one, &FR_ONE);
    for (size_t i = 0; i < m; i++) {
        if (i % 3 == 0)
            in[i] = edge[(i / 3 + n) % 4];
        else
            fr_random(&in[i], g);
    }
}

/*
 * poseidon_hash_batch (eight lanes of AVX-512 IFMA where the CPU has them)
 * equals poseidon_hash for every batch size 1..17, the arities it runs in
 * lanes and one it does not (16), both strengths, a custom tag, and
 * inputs at the edges of the field (0, 1, r - 1, r - 2) where lazy
 * reductions go wrong first. Without the lanes both sides are the same
 * function, so the test says which it checked.
 */
static void test_batch_equals_hash(void **state)
{
    (void)state;
    print_message("poseidon_hash_batch: lanes %s\n", poseidon_use_lanes(true) ? "on" : "off");
    cuzk_rng g;
    test_rng(&g);
    const poseidon_constants *cs[BATCH_CONSTANTS];
    batch_constants(cs);
    enum { N = 17 };
    fr_t *in = malloc(N * 16 * sizeof(fr_t)), out[N], one;
    assert_non_null(in);
    for (size_t k = 0; k < BATCH_CONSTANTS; k++) {
        const poseidon_constants *c = cs[k];
        for (size_t n = 1; n <= N; n++) {
            batch_inputs(in, n * c->arity, n, &g);
            poseidon_hash_batch(out, c, in, n);
            for (size_t i = 0; i < n; i++) {
                poseidon_hash(&one, c, &in[i * c->arity]);
                if (!fr_eq(&one, &out[i]))
                    fail_msg("arity %u, batch of %zu: hash %zu differs", c->arity, n, i);
            }
        }
    }
    free(in);
}

/* neptune round_numbers.rs / lib.rs tests: (t, RP) and (arity, strengthened RP); RF = 8. */
static void test_round_numbers(void **state)
{
    (void)state;
    static const unsigned standard[][2] = {
        {2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},  {9, 57},  {10, 57},
        {11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57}, {16, 59}, {17, 59}, {25, 59}, {37, 60}};
    static const unsigned strengthened[][2] = {{1, 69},  {2, 69},  {3, 70},  {4, 70}, {5, 70},
                                               {6, 70},  {7, 72},  {8, 72},  {9, 72}, {10, 72},
                                               {11, 72}, {16, 74}, {24, 74}, {36, 75}};
    unsigned rf, rp;
    for (size_t i = 0; i < sizeof(standard) / sizeof(standard[0]); i++) {
        assert_int_equal(poseidon_round_numbers(standard[i][0], POSEIDON_STANDARD, &rf, &rp), 0);
        assert_int_equal(rf, 8);
        assert_int_equal(rp, standard[i][1]);
    }
    for (size_t i = 0; i < sizeof(strengthened) / sizeof(strengthened[0]); i++) {
        unsigned t = strengthened[i][0] + 1;
        assert_int_equal(poseidon_round_numbers(t, POSEIDON_STRENGTHENED, &rf, &rp), 0);
        assert_int_equal(rf, 8);
        assert_int_equal(rp, strengthened[i][1]);
    }
    assert_int_equal(poseidon_round_numbers(1, POSEIDON_STANDARD, &rf, &rp), CUZK_EINVAL);
    assert_int_equal(poseidon_round_numbers(38, POSEIDON_STANDARD, &rf, &rp), CUZK_EINVAL);
    assert_null(poseidon_constants_get(0, POSEIDON_STANDARD, NULL));
    assert_null(poseidon_constants_get(37, POSEIDON_STANDARD, NULL));
    assert_null(poseidon_constants_get(2, 7, NULL));
}

/*
 * neptune's parameters/round_constants-1-1-255-9-8-57-73EDA7...01.txt, the
 * output of the Poseidon authors' create_rcs_grain.sage for t = 9, RF = 8,
 * RP = 57: its first and last values, and the SHA-256 of all 585 as 32-byte
 * big-endian strings, concatenated.
 */
static void test_grain_constants(void **state)
{
    (void)state;
    const poseidon_constants *c = poseidon_std(8);
    assert_int_equal(c->width, 9);
    size_t n = (size_t)(c->full_rounds + c->partial_rounds) * c->width;
    assert_int_equal(n, 585);
    uint8_t be[32], want[32];
    test_hex(want, 32, "6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9");
    fr_to_bytes_be(be, &c->round_constants[0]);
    assert_memory_equal(be, want, 32);
    test_hex(want, 32, "3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c");
    fr_to_bytes_be(be, &c->round_constants[584]);
    assert_memory_equal(be, want, 32);
    uint8_t *all = malloc(n * 32), digest[32];
    assert_non_null(all);
    for (size_t i = 0; i < n; i++) fr_to_bytes_be(all + 32 * i, &c->round_constants[i]);
    SHA256(all, n * 32, digest);
    free(all);
    test_hex(want, 32, "53d16e2f1c0141cbfd5d8bfa4cb69abcbbd056d13a523f929a93e981434ee9f7");
    assert_memory_equal(digest, want, 32);
}

/* The Cauchy matrix 1/(i + t + j) and its inverse (the sparse factorisation
 * is checked by the optimized permutation agreeing with the plain one). */
static void test_matrices(void **state)
{
    (void)state;
    const poseidon_constants *c = poseidon_std(4);
    size_t t = c->width;
    fr_t d, inv;
    fr_from_u64(&d, 2 + t + 3);
    fr_inv(&inv, &d);
    assert_true(fr_eq(&c->mds[2 * t + 3], &inv));
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            fr_t acc = FR_ZERO, x;
            for (size_t k = 0; k < t; k++) {
                fr_mul(&x, &c->mds[i * t + k], &c->mds_inv[k * t + j]);
                fr_add(&acc, &acc, &x);
            }
            assert_true(fr_eq(&acc, i == j ? &FR_ONE : &FR_ZERO));
        }
}

/* ---- circuit ---- */

typedef struct hash_ctx {
    const poseidon_constants *c;
    bool walk; /* poseidon_gadget_hash_walk instead of the replay */
    fr_t in[POSEIDON_MAX_ARITY];
    num_var out;
} hash_ctx;

static int hash_synth(cs_t *cs, void *p)
{
    hash_ctx *x = p;
    num_var in[POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < x->c->arity; i++) in[i] = num_alloc(cs, &x->in[i]);
    x->out = (x->walk ? poseidon_gadget_hash_walk : poseidon_gadget_hash)(cs, x->c, in);
    return cs_status(cs);
}

/* neptune circuit.rs test_poseidon_hash (arity 11, which it does not list,
 * from its formula 3 (t RF + RP - 1) + t RF + RP - arity). */
static void test_gadget_counts(void **state)
{
    (void)state;
    static const unsigned counts[][3] = {{2, 311, 367},   {4, 377, 433},  {8, 505, 565},
                                         {11, 598, 658},  {16, 761, 821}, {24, 1009, 1069},
                                         {36, 1385, 1445}};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        for (int s = POSEIDON_STANDARD; s <= POSEIDON_STRENGTHENED; s++) {
            if (s && quick() && counts[i][0] > 11) continue;
            hash_ctx x = {.c = get(counts[i][0], s)};
            cs_counts k = count_circuit((cs_circuit){hash_synth, &x});
            assert_int_equal(k.num_constraints, counts[i][1 + s]);
            assert_int_equal(poseidon_gadget_constraints(x.c), counts[i][1 + s]);
            assert_int_equal(k.num_inputs, 1);
        }
}

static void test_gadget_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const unsigned arities[] = {2, 4, 8, 11, 16};
    for (size_t a = 0; a < sizeof(arities) / sizeof(arities[0]); a++) {
        hash_ctx x = {.c = poseidon_std(arities[a])}, y = x;
        for (unsigned i = 0; i < x.c->arity; i++) fr_random(&x.in[i], &g);
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){hash_synth, &x});
        fr_t want;
        poseidon_hash(&want, x.c, x.in);
        assert_int_equal(x.out.var.kind, CS_AUX);
        assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &want));
        assert_int_equal(x.out.var.index, p.num_aux - 1);
        /* The R1CS does not depend on the values. */
        for (unsigned i = 0; i < y.c->arity; i++) fr_random(&y.in[i], &g);
        cs_counts kx = count_circuit((cs_circuit){hash_synth, &x});
        cs_counts ky = count_circuit((cs_circuit){hash_synth, &y});
        assert_memory_equal(kx.fingerprint, ky.fingerprint, 32);
        /* Tampering with an input, an S-box power, a round output, the result. */
        size_t idx[4] = {0, x.c->arity + 1, p.num_aux / 2, p.num_aux - 1};
        tamper_breaks(&p, (cs_circuit){hash_synth, &x}, idx, 4);
        cs_prover_free(&p);
    }
}

/* The replay is the walk: same R1CS (fingerprint, densities) and the same
 * witness, for every listed arity and both strengths. */
static void test_replay_equals_walk(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const unsigned arities[] = {1, 2, 4, 8, 11, 16, 24, 36};
    for (size_t a = 0; a < sizeof(arities) / sizeof(arities[0]); a++)
        for (int s = POSEIDON_STANDARD; s <= POSEIDON_STRENGTHENED; s++) {
            if (s && quick() && arities[a] > 11) continue;
            hash_ctx x = {.c = get(arities[a], s)}, y;
            for (unsigned i = 0; i < x.c->arity; i++) fr_random(&x.in[i], &g);
            y = x;
            y.walk = true;
            cs_counts kx = count_circuit((cs_circuit){hash_synth, &x});
            cs_counts ky = count_circuit((cs_circuit){hash_synth, &y});
            assert_memory_equal(&kx, &ky, sizeof(kx));
            cs_prover px, py;
            prove_satisfied(&px, (cs_circuit){hash_synth, &x});
            prove_satisfied(&py, (cs_circuit){hash_synth, &y});
            assert_int_equal(px.num_aux, py.num_aux);
            assert_memory_equal(px.aux_assignment, py.aux_assignment, px.num_aux * sizeof(fr_t));
            assert_true(fr_eq(&x.out.value, &px.aux_assignment[x.out.var.index]));
            cs_prover_free(&px);
            cs_prover_free(&py);
        }
}

/* A hash's trace is the values neptune's circuit allocates for it: the
 * walk's aux after the preimage, poseidon_trace_len of them. The traces of
 * a batch (eight in the IFMA lanes where the CPU has them, each value
 * converted back in the lanes) equal poseidon_trace's one by one for
 * batch sizes 1..17, arities in and out of the lanes, both strengths, a
 * custom tag and the field's edges. */
static void test_trace(void **state)
{
    (void)state;
    print_message("poseidon_trace_batch: lanes %s\n", poseidon_use_lanes(true) ? "on" : "off");
    cuzk_rng g;
    test_rng(&g);
    const poseidon_constants *cs[BATCH_CONSTANTS];
    batch_constants(cs);
    enum { N = 17 };
    for (size_t k = 0; k < BATCH_CONSTANTS; k++) {
        const poseidon_constants *c = cs[k];
        size_t len = poseidon_trace_len(c);
        assert_int_equal(len, poseidon_gadget_constraints(c));
        fr_t *in = malloc(N * c->arity * sizeof(fr_t)), *batch = malloc(N * len * sizeof(fr_t)),
             *one = malloc(len * sizeof(fr_t));
        assert_true(in && batch && one);
        hash_ctx x = {.c = c, .walk = true};
        for (unsigned i = 0; i < c->arity; i++) fr_random(&x.in[i], &g);
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){hash_synth, &x});
        assert_int_equal(p.num_aux, c->arity + len);
        poseidon_trace(one, c, x.in);
        assert_memory_equal(one, &p.aux_assignment[c->arity], len * sizeof(fr_t));
        cs_prover_free(&p);
        for (size_t n = 1; n <= N; n++) {
            batch_inputs(in, n * c->arity, n, &g);
            poseidon_trace_batch(batch, c, in, n);
            for (size_t i = 0; i < n; i++) {
                poseidon_trace(one, c, &in[i * c->arity]);
                if (memcmp(one, &batch[i * len], len * sizeof(fr_t)))
                    fail_msg("arity %u, batch of %zu: trace %zu differs", c->arity, n, i);
            }
        }
        free(in), free(batch), free(one);
    }
}

/* HashType::Custom(CType::Arbitrary(id)): tag id * 2^40 (SnapDeals, id 1);
 * neptune's hash_type.rs: the Merkle tag of arity 8 is 0xff. */
static void test_custom_tag(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const uint64_t tag_ff[4] = {0xff, 0, 0, 0}, tag_2_40[4] = {UINT64_C(1) << 40, 0, 0, 0};
    assert_limbs(&poseidon_std(8)->domain_tag, tag_ff);
    const poseidon_constants *c = poseidon_constants_get_custom(2, 1, NULL);
    assert_non_null(c);
    assert_ptr_equal(c, poseidon_constants_get_custom(2, 1, NULL));
    assert_limbs(&c->domain_tag, tag_2_40);
    assert_null(poseidon_constants_get_custom(2, 0, NULL));
    assert_null(poseidon_constants_get_custom(2, 257, NULL));
    hash_ctx x = {.c = c};
    fr_random(&x.in[0], &g), fr_random(&x.in[1], &g);
    fr_t a, b, merkle;
    poseidon_hash(&a, c, x.in);
    poseidon_hash_plain(&b, c, x.in);
    poseidon_hash(&merkle, poseidon_std(2), x.in);
    assert_true(fr_eq(&a, &b));
    assert_false(fr_eq(&a, &merkle));
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){hash_synth, &x});
    assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &a));
    assert_int_equal(p.num_constraints - p.num_inputs, 311);
    cs_prover_free(&p);
}

/* First use from many threads at once (arity 13 is used nowhere else
 * here): one set of constants, and the same R1CS from every thread. */
static void test_concurrent_first_use(void **state)
{
    (void)state;
    enum { THREADS = 8 };
    const poseidon_constants *seen[THREADS];
    cs_counts counts[THREADS];
    int rcs[THREADS];
#pragma omp parallel for num_threads(THREADS)
    for (int i = 0; i < THREADS; i++) {
        seen[i] = poseidon_constants_get(13, POSEIDON_STANDARD, NULL);
        hash_ctx x = {.c = seen[i]};
        rcs[i] = seen[i] ? cs_count(&counts[i], (cs_circuit){hash_synth, &x}, NULL) : -1;
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(rcs[i], 0);
        assert_ptr_equal(seen[i], seen[0]);
        assert_memory_equal(&counts[i], &counts[0], sizeof(counts[0]));
    }
}

/* filecoin-hashers poseidon.rs test_hash_md / test_hash_md_circuit: 71 ones. */
static const uint64_t MD_71_ONES[4] = {0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622,
                                       0x59f42220e09ff6f7};

typedef struct md_ctx {
    size_t n;
    num_var out;
} md_ctx;

static int md_synth(cs_t *cs, void *p)
{
    md_ctx *x = p;
    num_var in[80];
    for (size_t i = 0; i < x->n; i++) in[i] = num_alloc(cs, &FR_ONE);
    x->out = poseidon_gadget_hash_md(cs, in, x->n);
    return cs_status(cs);
}

static void test_hash_md(void **state)
{
    (void)state;
    fr_t ones[80], out;
    for (int i = 0; i < 80; i++) ones[i] = FR_ONE;
    assert_int_equal(poseidon_hash_md(&out, ones, 71), 0);
    assert_limbs(&out, MD_71_ONES);
    md_ctx x = {.n = 71};
    cs_counts k = count_circuit((cs_circuit){md_synth, &x});
    assert_int_equal(k.num_constraints, 2770);
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){md_synth, &x});
    assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &out));
    cs_prover_free(&p);
    /* A short last chunk is padded with allocated zeros (no constraint). */
    x.n = 40;
    prove_satisfied(&p, (cs_circuit){md_synth, &x});
    assert_int_equal(poseidon_hash_md(&out, ones, 40), 0);
    assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &out));
    assert_int_equal(p.num_constraints - p.num_inputs, 2 * 1385);
    cs_prover_free(&p);
    assert_int_equal(poseidon_hash_md(&out, ones, 1), CUZK_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_neptune_vectors),        cmocka_unit_test(test_filecoin_binary_tree),
        cmocka_unit_test(test_plain_equals_optimized), cmocka_unit_test(test_round_numbers),
        cmocka_unit_test(test_grain_constants),        cmocka_unit_test(test_matrices),
        cmocka_unit_test(test_gadget_counts),          cmocka_unit_test(test_gadget_witness),
        cmocka_unit_test(test_replay_equals_walk),     cmocka_unit_test(test_custom_tag),
        cmocka_unit_test(test_concurrent_first_use),   cmocka_unit_test(test_hash_md),
        cmocka_unit_test(test_batch_equals_hash),      cmocka_unit_test(test_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
