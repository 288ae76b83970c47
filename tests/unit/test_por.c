/*
 * test_por.c - Merkle inclusion circuits over Poseidon trees.
 *
 * Counts: every Poseidon case of rust-fil-proofs'
 * storage-proofs-core/tests/por_circuit.rs (64 leaves per base tree, root
 * public or private) with the counter backend, and the 530 constraints of
 * one arity-8 level. Witness: paths of native trees (built here with
 * poseidon_hash, base trees contiguous as merkletree lays them out) for the
 * 8-0-0, 8-8-0 and 8-8-2 shapes satisfy every constraint, the public
 * inputs are the challenge and the root, and a wrong sibling or position
 * breaks the proof; the same for por_no_challenge_input with several
 * challenges against one root.
 *
 * SHA-256 trees (tree-D): rust-fil-proofs' SHA-256 counts for arities 2,
 * 4, 8, reference/filecoin.md's 45,382 per binary level, and a path of a
 * native binary tree (SHA-256 of the children's little-endian bytes, the
 * digest's top two bits cleared).
 */
#include "gadget_check.h"

#include "cuzk/gadgets/por.h"
#include "cuzk/gadgets/sha256.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"

/* ---- a native tree ---- */

#define MAX_LEAVES 1024

typedef struct tree {
    por_shape shape;
    size_t leaves;
    fr_t leaf[MAX_LEAVES];
    fr_t root;
} tree;

static size_t shape_leaves(const por_shape *s)
{
    size_t n = 1, levels = por_shape_levels(s);
    for (size_t i = 0; i < levels; i++) n *= por_shape_arity(s, i);
    return n;
}

/* Hashes level by level; when challenge is given, records its path
 * (index, siblings: level i at siblings[i * 15]). */
static void tree_walk(tree *t, size_t challenge, por_level *path, fr_t *siblings)
{
    static fr_t nodes[MAX_LEAVES];
    memcpy(nodes, t->leaf, t->leaves * sizeof(fr_t));
    size_t n = t->leaves, levels = por_shape_levels(&t->shape);
    for (size_t i = 0; i < levels; i++) {
        unsigned a = por_shape_arity(&t->shape, i);
        if (path) {
            size_t group = challenge / a * a;
            path[i].index = (uint32_t)(challenge % a);
            path[i].siblings = &siblings[i * 15];
            for (unsigned k = 0, m = 0; k < a; k++)
                if (k != path[i].index) siblings[i * 15 + m++] = nodes[group + k];
            challenge /= a;
        }
        for (size_t p = 0; p < n / a; p++) poseidon_hash(&nodes[p], poseidon_std(a), &nodes[p * a]);
        n /= a;
    }
    t->root = nodes[0];
}

static void tree_random(tree *t, por_shape s, cuzk_rng *g)
{
    t->shape = s;
    t->leaves = shape_leaves(&s);
    assert_true(t->leaves <= MAX_LEAVES);
    for (size_t i = 0; i < t->leaves; i++) fr_random(&t->leaf[i], g);
    tree_walk(t, 0, NULL, NULL);
}

/* ---- PoRCircuit ---- */

typedef struct por_ctx {
    por_shape shape;
    bool sha, private_root;
    const fr_t *leaf, *root;
    por_level path[POR_MAX_LEVELS];
} por_ctx;

static int por_synth(cs_t *cs, void *p)
{
    por_ctx *x = p;
    por_hasher h = x->sha ? por_sha256_hasher() : por_poseidon_hasher();
    por_root leaf = {.value = x->leaf}, root = {.value = x->root};
    return por_circuit(cs, &h, &x->shape, &leaf, x->path, &root, x->private_root);
}

/* A blank circuit (no values) of the shape. */
static cs_counts count_por(por_shape s, bool private_root, bool sha)
{
    por_ctx x = {.shape = s, .private_root = private_root, .sha = sha};
    return count_circuit((cs_circuit){por_synth, &x});
}

/* storage-proofs-core/tests/por_circuit.rs, Poseidon cases. */
static void test_por_counts(void **state)
{
    (void)state;
    static const struct {
        por_shape s;
        size_t public_root, private_root;
    } cases[] = {
        {{2, 0, 0, 6}, 1887, 1886}, {{4, 0, 0, 3}, 1164, 1163}, {{8, 0, 0, 2}, 1063, 1062},
        {{8, 2, 0, 2}, 1377, 0},    {{8, 4, 2, 2}, 1764, 0},    {{8, 8, 0, 2}, 1593, 0},
        {{8, 8, 2, 2}, 1907, 0},    {{8, 2, 4, 2}, 1764, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cs_counts k = count_por(cases[i].s, false, false);
        assert_int_equal(k.num_constraints, cases[i].public_root);
        assert_int_equal(k.num_inputs, 3);
        if (!cases[i].private_root) continue;
        k = count_por(cases[i].s, true, false);
        assert_int_equal(k.num_constraints, cases[i].private_root);
        assert_int_equal(k.num_inputs, 2);
    }
    /* reference/filecoin.md: a Poseidon tree level of arity 8 costs 530. */
    cs_counts one = count_por((por_shape){8, 0, 0, 1}, true, false);
    cs_counts two = count_por((por_shape){8, 0, 0, 2}, true, false);
    assert_int_equal(two.num_constraints - one.num_constraints, 530);
    /* Invalid shapes fail cleanly. */
    static const por_shape bad[] = {{3, 0, 0, 2}, {8, 0, 2, 2},  {8, 6, 0, 1},
                                    {8, 0, 0, 0}, {32, 0, 0, 1}, {8, 0, 0, 65}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        por_ctx x = {.shape = bad[i]};
        cs_counts k;
        assert_int_equal(cs_count(&k, (cs_circuit){por_synth, &x}, NULL), CUZK_EINVAL);
    }
}

/* Proves the path of challenge (with level 0's position xor-ed with
 * flip) and says whether every constraint holds. */
static void prove_path(const tree *t, size_t challenge, bool private_root, uint32_t flip,
                       bool *satisfied)
{
    static fr_t siblings[POR_MAX_LEVELS * 15];
    por_ctx x = {.shape = t->shape, .private_root = private_root};
    static tree copy;
    copy = *t;
    tree_walk(&copy, challenge, x.path, siblings);
    x.path[0].index ^= flip;
    challenge ^= flip;
    x.leaf = &t->leaf[challenge];
    x.root = &t->root;
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){por_synth, &x}, NULL, NULL), 0);
    *satisfied = count_unsatisfied(p.num_constraints, p.a, p.b, p.c) == 0;
    fr_t ch;
    fr_from_u64(&ch, challenge);
    assert_int_equal(p.num_inputs, private_root ? 2 : 3);
    assert_true(fr_eq(&p.input_assignment[1], &ch));
    if (!private_root) assert_true(fr_eq(&p.input_assignment[2], &t->root));
    cs_prover_free(&p);
}

static void test_por_paths(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const por_shape shapes[] = {{8, 0, 0, 2}, {8, 8, 0, 2}, {8, 8, 2, 1}, {2, 0, 0, 4}};
    static tree t;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        tree_random(&t, shapes[s], &g);
        for (int k = 0; k < (quick() ? 1 : 3); k++) {
            size_t c = (size_t)(cuzk_rng_u64(&g) % t.leaves);
            bool ok;
            prove_path(&t, c, k & 1, 0, &ok);
            assert_true(ok);
            /* The leaf claimed at another position of its group. */
            prove_path(&t, c, k & 1, 1, &ok);
            assert_false(ok);
            /* A different leaf at the challenged position is not included. */
            fr_t saved = t.leaf[c];
            fr_random(&t.leaf[c], &g);
            prove_path(&t, c, k & 1, 0, &ok);
            assert_false(ok);
            t.leaf[c] = saved;
        }
    }
}

/* ---- traces ahead ---- */

enum { AHEAD_PATHS = 5 };

typedef struct ahead_ctx {
    const tree *t;
    por_level path[AHEAD_PATHS][POR_MAX_LEVELS];
    fr_t sib[AHEAD_PATHS][POR_MAX_LEVELS * 15];
    const fr_t *leaf[AHEAD_PATHS];
    const fr_t *ahead_leaf[AHEAD_PATHS]; /* what is traced ahead (NULL: nothing) */
    bool queued;
    size_t left;
} ahead_ctx;

/* AHEAD_PATHS PoRCircuits in a row, their hashes traced ahead first when
 * ahead_leaf is set. */
static int ahead_synth(cs_t *cs, void *p)
{
    ahead_ctx *x = p;
    por_hasher h = por_poseidon_hasher();
    const por_level *paths[AHEAD_PATHS];
    for (size_t i = 0; i < AHEAD_PATHS; i++) paths[i] = x->path[i];
    por_ahead pa = {NULL};
    x->queued =
        x->ahead_leaf[0] && por_ahead_paths(&pa, &x->t->shape, x->ahead_leaf, paths, AHEAD_PATHS);
    for (size_t i = 0; i < AHEAD_PATHS; i++) {
        por_root leaf = {.value = x->leaf[i]}, root = {.value = &x->t->root};
        por_circuit(cs, &h, &x->t->shape, &leaf, x->path[i], &root, true);
    }
    x->left = por_ahead_end(&pa);
    return cs_status(cs);
}

/* Paths' hashes traced ahead (por_ahead_paths: level by level across the
 * paths, in the IFMA lanes) give the witness of the same circuits traced
 * one by one, byte for byte, every queued trace taken; a trace queued for
 * another leaf than the circuit's is passed by (the hashes trace
 * themselves: the same witness again) and left untaken. */
static void test_por_ahead(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    bool lanes = poseidon_use_lanes(true);
    static const por_shape shapes[] = {{8, 0, 0, 3}, {8, 8, 2, 1}};
    static tree t;
    static ahead_ctx x;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        tree_random(&t, shapes[s], &g);
        memset(&x, 0, sizeof x);
        x.t = &t;
        for (size_t i = 0; i < AHEAD_PATHS; i++) {
            size_t c = (size_t)(cuzk_rng_u64(&g) % t.leaves);
            static tree copy;
            copy = t;
            tree_walk(&copy, c, x.path[i], x.sib[i]);
            x.leaf[i] = &t.leaf[c];
        }
        cs_prover plain, ahead, wrong;
        prove_satisfied(&plain, (cs_circuit){ahead_synth, &x});
        memcpy(x.ahead_leaf, x.leaf, sizeof x.leaf);
        prove_satisfied(&ahead, (cs_circuit){ahead_synth, &x});
        assert_int_equal(x.queued, lanes);
        assert_int_equal(x.left, 0);
        assert_int_equal(plain.num_aux, ahead.num_aux);
        assert_memory_equal(plain.aux_assignment, ahead.aux_assignment,
                            plain.num_aux * sizeof(fr_t));
        fr_t other;
        fr_random(&other, &g);
        x.ahead_leaf[2] = &other; /* path 2's traces are another leaf's */
        prove_satisfied(&wrong, (cs_circuit){ahead_synth, &x});
        assert_memory_equal(plain.aux_assignment, wrong.aux_assignment,
                            plain.num_aux * sizeof(fr_t));
        if (lanes) assert_int_equal(x.left, por_shape_levels(&t.shape));
        cs_prover_free(&plain), cs_prover_free(&ahead), cs_prover_free(&wrong);
    }
    print_message("por_ahead_paths: lanes %s\n", lanes ? "on" : "off (nothing queued)");
}

/* ---- por_no_challenge_input ---- */

typedef struct nci_ctx {
    const tree *t;
    size_t challenges[8], n;
    size_t before; /* constraints before the first path */
} nci_ctx;

/* storage-proofs-core's test_por_no_challenge_input: one root, then per
 * challenge the leaf, the challenge bits and the siblings, then the path. */
static int nci_synth(cs_t *cs, void *p)
{
    nci_ctx *x = p;
    static fr_t sib_values[POR_MAX_LEVELS * 15];
    const por_shape *s = &x->t->shape;
    size_t levels = por_shape_levels(s), nbits = por_shape_bits(s);
    num_var root = num_alloc(cs, &x->t->root);
    por_hasher h = por_poseidon_hasher();
    x->before = cs_num_constraints(cs);
    for (size_t k = 0; k < x->n; k++) {
        size_t c = x->challenges[k];
        num_var leaf = num_alloc(cs, &x->t->leaf[c]);
        bool_var bits[POR_MAX_LEVELS * 4];
        for (size_t i = 0; i < nbits; i++) bits[i] = bit_alloc(cs, (c >> i) & 1);
        por_level path[POR_MAX_LEVELS];
        static tree copy;
        copy = *x->t;
        tree_walk(&copy, c, path, sib_values);
        num_var sib[POR_MAX_LEVELS * 15];
        size_t m = 0;
        for (size_t i = 0; i < levels; i++)
            for (unsigned j = 0; j + 1 < por_shape_arity(s, i); j++)
                sib[m++] = num_alloc(cs, &path[i].siblings[j]);
        int rc = por_no_challenge_input(cs, &h, s, bits, &leaf, sib, &root);
        if (rc) return rc;
    }
    return cs_status(cs);
}

static void test_por_no_challenge_input(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    static const por_shape shapes[] = {{8, 0, 0, 2}, {8, 8, 0, 1}, {8, 4, 2, 1}, {8, 8, 2, 1}};
    static tree t;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        tree_random(&t, shapes[s], &g);
        nci_ctx x = {.t = &t, .n = quick() ? 2 : 4};
        for (size_t k = 0; k < x.n; k++) x.challenges[k] = cuzk_rng_u64(&g) % t.leaves;
        cs_prover p;
        prove_satisfied(&p, (cs_circuit){nci_synth, &x});
        /* Per path: bits, leaf and siblings are the caller's; the gadget
         * costs insert + hash per level and the root equality. */
        size_t per_path = 0, levels = por_shape_levels(&t.shape);
        for (size_t i = 0; i < levels; i++) {
            unsigned a = por_shape_arity(&t.shape, i);
            per_path += (a == 8   ? 22
                         : a == 4 ? 8
                                  : 2) +
                        poseidon_gadget_constraints(poseidon_std(a));
        }
        per_path += 1 + por_shape_bits(&t.shape);
        assert_int_equal(p.num_constraints - p.num_inputs - x.before, x.n * per_path);
        assert_int_equal(p.num_inputs, 1);
        cs_prover_free(&p);
        /* A wrong leaf breaks it. */
        fr_t saved = t.leaf[x.challenges[0]];
        fr_random(&t.leaf[x.challenges[0]], &g);
        assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){nci_synth, &x}, NULL, NULL), 0);
        assert_true(count_unsatisfied(p.num_constraints, p.a, p.b, p.c) > 0);
        cs_prover_free(&p);
        t.leaf[x.challenges[0]] = saved;
    }
}

/* ---- SHA-256 trees ---- */

static void sha_node(fr_t *out, const fr_t *children, unsigned arity)
{
    uint8_t msg[POR_MAX_ARITY * 32], d[32];
    for (unsigned i = 0; i < arity; i++) fr_to_bytes_le(&msg[32 * i], &children[i]);
    sha256_native(d, msg, 32 * (size_t)arity);
    d[31] &= 0x3f;
    assert_true(fr_from_bytes_le(out, d));
}

/* storage-proofs-core/tests/por_circuit.rs (SHA-256, 64 leaves) and
 * reference/filecoin.md's tree-D level. */
static void test_por_sha_counts(void **state)
{
    (void)state;
    cs_counts one = count_por((por_shape){2, 0, 0, 1}, true, true);
    cs_counts two = count_por((por_shape){2, 0, 0, 2}, true, true);
    assert_int_equal(two.num_constraints - one.num_constraints, 45382);
    if (quick()) return;
    static const struct {
        por_shape s;
        size_t constraints;
    } cases[] = {{{2, 0, 0, 6}, 272295}, {{4, 0, 0, 3}, 216258}, {{8, 0, 0, 2}, 250987}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cs_counts k = count_por(cases[i].s, false, true);
        assert_int_equal(k.num_constraints, cases[i].constraints);
        assert_int_equal(k.num_inputs, 3);
    }
}

static void test_por_sha_path(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    fr_t leaves[8], l1[4], l2[2], root;
    for (int i = 0; i < 8; i++) fr_random(&leaves[i], &g);
    for (int i = 0; i < 4; i++) sha_node(&l1[i], &leaves[2 * i], 2);
    for (int i = 0; i < 2; i++) sha_node(&l2[i], &l1[2 * i], 2);
    sha_node(&root, l2, 2);
    size_t c = cuzk_rng_u64(&g) % 8;
    por_ctx x = {.shape = {2, 0, 0, 3}, .sha = true, .leaf = &leaves[c], .root = &root};
    x.path[0] = (por_level){(uint32_t)(c & 1), &leaves[c ^ 1]};
    x.path[1] = (por_level){(uint32_t)((c >> 1) & 1), &l1[(c >> 1) ^ 1]};
    x.path[2] = (por_level){(uint32_t)((c >> 2) & 1), &l2[(c >> 2) ^ 1]};
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){por_synth, &x});
    fr_t ch;
    fr_from_u64(&ch, c);
    assert_true(fr_eq(&p.input_assignment[1], &ch));
    assert_true(fr_eq(&p.input_assignment[2], &root));
    cs_prover_free(&p);
    fr_t wrong = leaves[c];
    fr_add(&wrong, &wrong, &FR_ONE);
    x.leaf = &wrong;
    assert_int_equal(cs_synthesize_prover(&p, (cs_circuit){por_synth, &x}, NULL, NULL), 0);
    assert_true(count_unsatisfied(p.num_constraints, p.a, p.b, p.c) > 0);
    cs_prover_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_por_counts),     cmocka_unit_test(test_por_paths),
        cmocka_unit_test(test_por_ahead),      cmocka_unit_test(test_por_no_challenge_input),
        cmocka_unit_test(test_por_sha_counts), cmocka_unit_test(test_por_sha_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
