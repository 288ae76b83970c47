/*
 * test_update_circuit.c - the Empty Sector Update circuit against
 * rust-fil-proofs.
 *
 * Counts (counter backend; constraints without bellperson's appended
 * input constraints, as TestConstraintSystem and BenchCS count them):
 * every size of storage-proofs-update/tests/circuit.rs (1KiB..32KiB;
 * 2KiB = reference/filecoin.md's 1,705,039) with 5 inputs; 8KiB, 16KiB,
 * 32KiB and the 32GiB count (81,049,499) run with CUZK_TEST_LARGE set.
 *
 * Witness (2KiB, as tests/circuit.rs builds it): random TreeROld labels
 * and TreeDNew data, the new replica encoded with phi and rho and the
 * vanilla proof of partition 0 by the library's generator (gen.h), its
 * encoding checked node by node; every constraint holds with update_public_inputs' inputs, a wrong
 * apex leaf breaks it and a leaf_r_new that is not the encoding is refused.
 *
 * Shapes and public inputs: constants.rs' table, k_and_h_select packing
 * and its errors; the native challenges lie in partition k's range and
 * use the digest bits in order.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/poseidon.h"

static update_shape shape_of(uint64_t size)
{
    update_shape s;
    cuzk_err e;
    int rc = update_shape_for_size(&s, size, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    return s;
}

static cs_counts count_blank(uint64_t size)
{
    update_shape s = shape_of(size);
    update_circuit uc;
    update_circuit_blank(&uc, &s);
    return count_circuit(update_circuit_get(&uc));
}

/* ---- a native update ---- */

/* One partition of an update as tests/circuit.rs builds it: TreeROld over
 * random labels, TreeDNew over random data, the encoding into TreeRNew
 * and partition k's vanilla proof, made by the library's generator
 * (gen.h: fc_gen_update). */
typedef struct update_case {
    update_shape s;
    update_public pub;
    vanilla_update_partition v;
} update_case;

/* The encoding written out node by node, to check the generator's. */
static void check_encoding(const fc_update *u, const fr_t *r_old, const fr_t *d_new)
{
    fr_t phi, comm_d, comm_r_old;
    assert_true(fr_from_bytes_le(&comm_d, u->comm_d_new.b));
    assert_true(fr_from_bytes_le(&comm_r_old, u->comm_r_old.b));
    update_phi(&phi, &comm_d, &comm_r_old);
    for (uint64_t i = 0; i < u->shape.nodes; i++) {
        fr_t rho, want;
        update_rho(&rho, &phi, i >> (u->shape.challenge_bits - u->h));
        fr_mul(&want, &d_new[i], &rho);
        fr_add(&want, &want, &r_old[i]);
        assert_true(fr_eq(&want, &u->replica_new[i]));
    }
}

static void case_make(update_case *uc, const update_shape *s, uint64_t k, cuzk_rng *g)
{
    uc->s = *s;
    size_t n = s->nodes;
    fr_t *lab = malloc(2 * n * sizeof(fr_t)), c;
    assert_non_null(lab);
    for (size_t i = 0; i < 2 * n; i++) fr_random(&lab[i], g);
    vanilla_node comm_c;
    fr_random(&c, g);
    fr_to_bytes_le(comm_c.b, &c);
    fc_update u;
    cuzk_err e;
    int rc = fc_gen_update(&u, s, s->hs[3], lab, &comm_c, &lab[n], NULL, NULL, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(u.n_partitions, s->partitions);
    check_encoding(&u, lab, &lab[n]);
    uc->pub = fc_update_public(&u, k);
    uc->v = u.parts[k];
    memset(&u.parts[k], 0, sizeof(u.parts[k]));
    fc_update_free(&u);
    free(lab);
}

static int prove(cs_prover *p, update_circuit *c)
{
    return cs_synthesize_prover(p, update_circuit_get(c), NULL, NULL);
}

/* The circuit of uc satisfied, with update_public_inputs' inputs and
 * (when asked) the blank circuit's R1CS (same fingerprint). */
static void check_satisfied(update_case *uc, update_circuit *c, bool fingerprint)
{
    cuzk_err e;
    int rc = update_circuit_init(c, &uc->s, &uc->v, &uc->pub, &e);
    if (rc) print_message("%s\n", e.msg);
    assert_int_equal(rc, 0);
    if (fingerprint) {
        update_circuit blank;
        update_circuit_blank(&blank, &uc->s);
        cs_counts kb = count_circuit(update_circuit_get(&blank));
        cs_counts kv = count_circuit(update_circuit_get(c));
        assert_memory_equal(kb.fingerprint, kv.fingerprint, 32);
    }
    cs_prover p;
    prove_satisfied(&p, update_circuit_get(c));
    fr_t want[UPDATE_PUBLIC_INPUTS];
    assert_int_equal(update_public_inputs(want, &uc->s, &uc->pub, NULL), 0);
    assert_int_equal(p.num_inputs, 1 + UPDATE_PUBLIC_INPUTS);
    for (int i = 0; i < UPDATE_PUBLIC_INPUTS; i++)
        assert_true(fr_eq(&p.input_assignment[1 + i], &want[i]));
    cs_prover_free(&p);
}

static void test_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_case uc;
    update_shape s = shape_of(2048);
    case_make(&uc, &s, 0, &g);
    update_circuit c;
    check_satisfied(&uc, &c, true);
    /* The same partition proof through its bincode blob. */
    void *blob;
    size_t len;
    update_case parsed = uc;
    assert_int_equal(vanilla_update_encode(&blob, &len, &uc.v, NULL), 0);
    assert_int_equal(vanilla_update_parse(&parsed.v, 2048, blob, len, NULL), 0);
    check_satisfied(&parsed, &c, false);
    vanilla_update_free(&parsed.v);
    free(blob);
    assert_int_equal(update_circuit_init(&c, &uc.s, &uc.v, &uc.pub, NULL), 0);
    if (quick()) {
        vanilla_update_free(&uc.v);
        return;
    }
    /* A wrong apex leaf breaks the apex tree and tree-D proofs. */
    cs_prover p;
    uc.v.apex_leafs[5].b[2] ^= 1;
    assert_int_equal(prove(&p, &c), 0);
    assert_true(count_unsatisfied(p.num_constraints, p.a, p.b, p.c) > 0);
    cs_prover_free(&p);
    uc.v.apex_leafs[5].b[2] ^= 1;
    /* A leaf_r_new that is not the encoding is refused, as the circuit asserts. */
    uc.v.challenges[4].r_new.leaf.b[0] ^= 1;
    assert_int_equal(prove(&p, &c), CUZK_EINVAL);
    uc.v.challenges[4].r_new.leaf.b[0] ^= 1;
    vanilla_update_free(&uc.v);
}

/* Partition 1 of a 16KiB sector (two partitions, 8-8-0 tree-R: the
 * partition path, partition bits in the challenges, digest index k * 1 +
 * j); 6.3M constraints, so only with CUZK_TEST_LARGE. */
static void test_witness_partition(void **state)
{
    (void)state;
    if (!getenv("CUZK_TEST_LARGE")) {
        print_message("16KiB witness skipped (set CUZK_TEST_LARGE)\n");
        return;
    }
    cuzk_rng g;
    test_rng(&g);
    update_case uc;
    update_shape s = shape_of(16384);
    case_make(&uc, &s, 1, &g);
    update_circuit c;
    check_satisfied(&uc, &c, true);
    uc.v.challenges[3].d_new.hashes[8].b[0] ^= 1; /* the partition path (level 8) */
    assert_int_equal(update_circuit_init(&c, &uc.s, &uc.v, &uc.pub, NULL), CUZK_EINVAL);
    vanilla_update_free(&uc.v);
}

/* tests/circuit.rs test_empty_sector_update_circuit_{1,2,4,8,16,32}kib. */
static void test_rust_counts(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        size_t constraints;
    } cases[] = {
        {1024, 1248389}, {2048, 1705039},  {4096, 2165109},
        {8192, 2620359}, {16384, 6300021}, {32768, 6760091},
    };
    /* 8KiB, 16KiB and 32KiB (15.7M constraints, mostly SHA-256) only when asked. */
    size_t first = quick() ? 1 : 0, n = quick() ? 2 : getenv("CUZK_TEST_LARGE") ? 6 : 3;
    for (size_t i = first; i < n; i++) {
        cs_counts k = count_blank(cases[i].size);
        assert_int_equal(k.num_constraints, cases[i].constraints);
        assert_int_equal(k.num_inputs, 1 + UPDATE_PUBLIC_INPUTS);
    }
}

/* tests/circuit_poseidon.rs: EmptySectorUpdate-Poseidon 1KiB and 8KiB;
 * 32GiB (22,305,906) with CUZK_TEST_LARGE. */
static void test_poseidon_counts(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        size_t constraints;
    } cases[] = {{1024, 32164}, {8192, 47974}, {32ull << 30, 22305906}};
    size_t n = getenv("CUZK_TEST_LARGE") ? 3 : 2;
    for (size_t i = 0; i < n; i++) {
        update_shape s;
        assert_int_equal(update_shape_for_size_poseidon(&s, cases[i].size, NULL), 0);
        update_circuit uc;
        update_circuit_blank(&uc, &s);
        cs_counts k = count_circuit(update_circuit_get(&uc));
        assert_int_equal(k.num_constraints, cases[i].constraints);
        assert_int_equal(k.num_inputs, 1 + UPDATE_PUBLIC_INPUTS);
    }
}

/* EmptySectorUpdate-Poseidon on 1KiB (8-4-0), as circuit_poseidon.rs
 * builds it: every constraint holds. */
static void test_poseidon_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_shape s;
    assert_int_equal(update_shape_for_size_poseidon(&s, 1024, NULL), 0);
    update_case uc;
    case_make(&uc, &s, 0, &g);
    update_circuit c;
    check_satisfied(&uc, &c, true);
    vanilla_update_free(&uc.v);
}

static void test_32gib_count(void **state)
{
    (void)state;
    if (!getenv("CUZK_TEST_LARGE")) {
        print_message("32GiB count skipped (set CUZK_TEST_LARGE)\n");
        return;
    }
    cs_counts k = count_blank(32ull << 30);
    assert_int_equal(k.num_constraints, 81049499);
    assert_int_equal(k.num_inputs, 5);
}

static void test_shapes(void **state)
{
    (void)state;
    update_shape s = shape_of(32ull << 30);
    assert_int_equal(s.partitions, 16);
    assert_int_equal(s.challenges, 86);
    assert_int_equal(s.apex_leafs, 128);
    assert_int_equal(s.hs[3], 10);
    assert_int_equal(por_shape_levels(&s.tree_r), 10);
    s = shape_of(1024);
    assert_int_equal(s.tree_r.base_levels, 1);
    assert_int_equal(s.tree_r.sub_arity, 4);
    assert_int_equal(update_shape_for_size(&s, 3000, NULL), CUZK_EINVAL);
    assert_int_equal(update_shape_for_size(&s, 64ull << 20, NULL), CUZK_EINVAL);
}

static void test_public_inputs(void **state)
{
    (void)state;
    update_shape s = shape_of(32ull << 30);
    update_public pub = {.k = 5, .h = 10};
    pub.comm_r_old.b[0] = 1;
    pub.comm_d_new.b[1] = 2;
    pub.comm_r_new.b[31] = 0x10;
    fr_t in[UPDATE_PUBLIC_INPUTS], want;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), 0);
    fr_from_u64(&want, 5 | 8 << 4); /* h = hs[3]: h_select 2^3 above 4 partition bits */
    assert_true(fr_eq(&in[0], &want));
    fr_from_u64(&want, 1);
    assert_true(fr_eq(&in[1], &want));
    fr_from_u64(&want, 512);
    assert_true(fr_eq(&in[2], &want));
    pub.h = 6;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_EINVAL);
    pub.h = 10, pub.k = 16;
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_EINVAL);
    pub.k = 0;
    memset(pub.comm_r_new.b, 0xff, 32);
    assert_int_equal(update_public_inputs(in, &s, &pub, NULL), CUZK_ENONCANONICAL);
}

static void test_challenges(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    update_shape s = shape_of(32ull << 30);
    fr_t comm_r_new;
    fr_random(&comm_r_new, &g);
    uint32_t c[86];
    for (uint64_t k = 0; k < s.partitions; k += 5) {
        update_challenges(c, &s, &comm_r_new, k);
        for (unsigned i = 0; i < s.challenges; i++) assert_int_equal(c[i] >> 26, k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rust_counts),
        cmocka_unit_test(test_32gib_count),
        cmocka_unit_test(test_poseidon_counts),
        cmocka_unit_test(test_poseidon_witness),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_public_inputs),
        cmocka_unit_test(test_challenges),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_witness_partition),
    };
    /* CUZK_TEST_FILTER=pattern runs only the matching tests (e.g. one large one). */
    if (getenv("CUZK_TEST_FILTER")) cmocka_set_test_filter(getenv("CUZK_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
