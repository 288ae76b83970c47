/*
 * test_porep_circuit.c - the StackedDRG PoRep circuit against
 * rust-fil-proofs' counts and a real sealed sector.
 *
 * Counts (counter backend, the appended input constraints removed as
 * bellpepper's TestConstraintSystem counts): the 2KiB partition of
 * reference/filecoin.md (2,687,921 constraints, 2,685,673 aux, 40 inputs)
 * and the four shapes of storage-proofs-porep/tests/stacked_circuit.rs
 * (1 challenge, 2 layers: 8 nodes binary tree 22 inputs 1,206,212; 8
 * nodes 8-ary 1,199,620; 32 nodes 8-4 1,296,576; 64 nodes 8-4-2
 * 1,346,982); the 2KiB counts (8MiB and 512MiB when slow) are those of
 * porep_sizes.h's table too, which is checked on its own. A sealed 2KiB
 * sector (fc_seal, fc_sealed_c1 from a seed, through a c1.json file): its
 * witness satisfies every constraint, the circuit's public inputs equal
 * those computed natively (challenges and
 * graph parents), the circuit with values has the blank circuit's sizes
 * and densities, and a changed parent label breaks a constraint.
 *
 * A 2KiB synthesis costs about 2 s of CPU (1.5M constraints/s) and
 * several times that in wall time on the shared machine, so the default
 * run keeps to the 2KiB count, one test shape, one sealed sector and one
 * tampering; CUZK_TEST_QUICK (sanitizers) keeps the test shape and the
 * sealed sector; CUZK_TEST_SLOW=1 adds the other three test shapes, the
 * 8MiB and 512MiB counts, the V1, synthetic and non-interactive proofs,
 * the fingerprint of the circuit with values against the blank one and
 * more tamperings.
 */
#include "gadget_check.h"

#include <stdlib.h>
#include <unistd.h>

#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/porep_sizes.h"
#include "cuzk/filecoin/sdr.h"
#include "cuzk/filecoin/seal.h"

static bool slow(void)
{
    const char *v = getenv("CUZK_TEST_SLOW");
    return v && *v && strcmp(v, "0");
}

static cs_counts count_shape(const porep_shape *s)
{
    porep_circuit pc;
    porep_circuit_blank(&pc, s);
    return count_circuit(porep_circuit_get(&pc));
}

/* The blank 2KiB circuit's counts, counted once. */
static const cs_counts *blank_2kib(void)
{
    static cs_counts k;
    static bool done;
    if (!done) {
        porep_shape s;
        assert_int_equal(porep_shape_for_size(&s, 2048, NULL), CUZK_OK);
        k = count_shape(&s), done = true;
    }
    return &k;
}

/* The counts k of a partition of `size` against porep_sizes.h's table
 * (the GPU memory plan's: cuzk-bench plan, the daemon's device check). */
static void check_sizes_table(uint64_t size, const cs_counts *k)
{
    const porep_sizes *t = porep_sizes_find(size);
    assert_non_null(t);
    assert_int_equal(t->constraints, k->num_constraints + k->num_inputs);
    assert_int_equal(t->aux, k->num_aux);
    assert_int_equal(t->inputs, k->num_inputs);
    assert_int_equal(t->a_aux_density, k->a_aux_density);
    assert_int_equal(t->b_density, k->b_input_density + k->b_aux_density);
}

static void test_count_2kib(void **state)
{
    (void)state;
    if (quick()) return;
    porep_shape s;
    assert_int_equal(porep_shape_for_size(&s, 2048, NULL), CUZK_OK);
    cs_counts k = *blank_2kib();
    assert_int_equal(k.num_constraints, 2687921);
    assert_int_equal(k.num_aux, 2685673);
    assert_int_equal(k.num_inputs, 40);
    assert_int_equal(porep_num_public_inputs(&s) + 1, 40);
    check_sizes_table(2048, &k);
}

/* porep_sizes.h's table on its own: every size there, its domain the
 * least power of two holding its constraints (2^27 at 32 and 64 GiB),
 * its witness and parameter lengths as bellperson lays them out. */
static void test_sizes_table(void **state)
{
    (void)state;
    const uint64_t sizes[] = {2048, 8ULL << 20, 512ULL << 20, 32ULL << 30, 64ULL << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const porep_sizes *t = porep_sizes_find(sizes[i]);
        assert_non_null(t);
        unsigned lg = porep_sizes_domain_log(t);
        assert_true(((size_t)1 << lg) >= t->constraints &&
                    ((size_t)1 << (lg - 1)) < t->constraints);
        if (sizes[i] >= (32ULL << 30)) assert_int_equal(lg, 27);
        assert_int_equal(porep_sizes_witness_bytes(t), (t->inputs + t->aux) * sizeof(fr_t));
        groth16_params pk;
        porep_sizes_params(t, &pk);
        assert_int_equal(pk.n_h, ((size_t)1 << lg) - 1);
        assert_int_equal(pk.n_l, t->aux);
        assert_int_equal(pk.n_a, t->inputs + t->a_aux_density);
        assert_true(pk.n_b_g1 == t->b_density && pk.n_b_g2 == t->b_density);
        assert_true(t->shape_bytes > 30 * t->constraints && t->shape_bytes < 45 * t->constraints);
    }
    assert_null(porep_sizes_find(4096));
}

/* reference/filecoin.md: 8MiB and 512MiB (slow; 32GiB and 64GiB are
 * counted by `cuzk circuit-info`, minutes each). */
static void test_count_8mib_512mib(void **state)
{
    (void)state;
    if (!slow()) return;
    static const struct {
        uint64_t size;
        size_t constraints, aux;
    } want[] = {{8ULL << 20, 3844929, 3842449}, {512ULL << 20, 4423433, 4420837}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        porep_shape s;
        assert_int_equal(porep_shape_for_size(&s, want[i].size, NULL), CUZK_OK);
        cs_counts k = count_shape(&s);
        assert_int_equal(k.num_constraints, want[i].constraints);
        assert_int_equal(k.num_aux, want[i].aux);
        assert_int_equal(k.num_inputs, 40);
        check_sizes_table(want[i].size, &k);
    }
}

/* tests/stacked_circuit.rs: nodes = 8 x base tree count, 2 layers, one
 * challenge. */
static void check_test_shape(unsigned base, unsigned sub, unsigned top, size_t constraints)
{
    porep_shape s;
    uint64_t nodes = 8 * (sub ? sub : 1) * (top ? top : 1);
    assert_int_equal(porep_shape_make(&s, nodes, 2, 1, base, sub, top, NULL), CUZK_OK);
    cs_counts k = count_shape(&s);
    assert_int_equal(k.num_inputs, 22);
    assert_int_equal(k.num_constraints, constraints);
}

static void test_count_stacked_circuit_rs(void **state)
{
    (void)state;
    check_test_shape(8, 0, 0, 1199620);
    if (!slow()) return;
    check_test_shape(2, 0, 0, 1206212);
    check_test_shape(8, 4, 0, 1296576);
    check_test_shape(8, 4, 2, 1346982);
}

static void test_shape_errors(void **state)
{
    (void)state;
    porep_shape s;
    cuzk_err err;
    assert_int_equal(porep_shape_for_size(&s, 4096, &err), CUZK_EINVAL);
    assert_int_equal(porep_shape_make(&s, 64, 3, 2, 8, 0, 0, &err), CUZK_EINVAL);
    assert_int_equal(porep_shape_make(&s, 32, 2, 2, 8, 0, 0, &err), CUZK_EINVAL);
    assert_int_equal(porep_shape_make(&s, 64, 2, 2, 8, 0, 2, &err), CUZK_EINVAL);
    assert_int_equal(porep_shape_make(&s, 64, 2, 0, 8, 0, 0, &err), CUZK_EINVAL);
    assert_int_equal(porep_shape_make(&s, 1ULL << 30, 11, 18, 8, 8, 0, &err), CUZK_OK);
    assert_int_equal(s.tree_r.base_levels, 9);
    assert_int_equal(s.tree_d.base_levels, 30);
}

/* c1 written as c1.json and read back (the file cuzk-seal --c1 writes). */
static void through_json(vanilla_c1 *c1)
{
    char path[] = "/tmp/test_porep_circuit_c1_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cuzk_err err;
    vanilla_c1 back;
    assert_int_equal(vanilla_c1_write_file(path, c1, &err), CUZK_OK);
    assert_int_equal(vanilla_c1_read(&back, path, VANILLA_C1_AUTO, &err), CUZK_OK);
    unlink(path);
    vanilla_c1_free(c1);
    *c1 = back;
}

/* Public inputs of a 32GiB V1_1 partition: the layout (each challenge's
 * tree-D, u64, tree-R and tree-C inputs equal, parents below the sector's
 * nodes) and the errors. */
static void test_public_inputs_32gib(void **state)
{
    (void)state;
    porep_public pub = {.cfg = fc_porep_config_get(8)};
    cuzk_rng g;
    test_rng(&g);
    cuzk_rng_bytes(&g, pub.replica_id, 32), cuzk_rng_bytes(&g, pub.seed, 32);
    pub.replica_id[31] &= 0x3f;
    pub.comm_d[0] = 1, pub.comm_r[0] = 2;
    porep_shape s;
    assert_int_equal(porep_shape_for_size(&s, 32ULL << 30, NULL), CUZK_OK);
    size_t n = porep_num_public_inputs(&s);
    assert_int_equal(n, 327);
    fr_t in[327], two;
    cuzk_err err;
    assert_int_equal(porep_public_inputs(in, &pub, 9, &err), CUZK_OK);
    fr_from_u64(&two, 2);
    assert_true(fr_eq(&in[2], &two));
    for (size_t i = 0; i < 18; i++) {
        const fr_t *c = &in[POREP_INPUTS_FIXED + 18 * i];
        for (int j = 15; j < 18; j++) assert_true(fr_eq(&c[0], &c[j]));
        for (int j = 0; j < 15; j++) {
            uint64_t v[4];
            fr_to_canonical(v, &c[j]);
            assert_true(v[0] < (1ULL << 30) && !v[1] && !v[2] && !v[3]);
        }
    }
    assert_int_equal(porep_public_inputs(in, &pub, 10, &err), CUZK_EINVAL);
    memset(pub.comm_r, 0xff, 32);
    assert_int_equal(porep_public_inputs(in, &pub, 0, &err), CUZK_ENONCANONICAL);
}

/* A 2KiB sector of registered proof id sealed from random data (test
 * seed), and its C1 for a random seed. */
static void sealed_c1(vanilla_c1 *c1, uint64_t id)
{
    cuzk_rng g;
    test_rng(&g);
    const fc_porep_config *cfg = fc_porep_config_get(id);
    uint8_t *data = malloc(cfg->nodes * 32), seed[32];
    assert_non_null(data);
    fc_seal_random_data(data, cfg->nodes, cuzk_rng_u64(&g));
    fc_seal_input in = {.cfg = cfg, .sector_id = 42, .data = data};
    fc_prover_id_from_miner(in.prover_id, 1000);
    cuzk_rng_bytes(&g, in.ticket, 32);
    cuzk_rng_bytes(&g, seed, 32);
    fc_sealed s;
    cuzk_err err;
    assert_int_equal(fc_seal(&s, &in, NULL, NULL, &err), CUZK_OK);
    assert_int_equal(fc_sealed_c1(c1, &s, seed, &err), CUZK_OK);
    fc_sealed_free(&s);
    free(data);
}

/* The circuit of c1 is satisfied, its inputs are the native ones, and it
 * has the blank circuit's sizes and densities (and fingerprint, slow). */
static void check_witness(const vanilla_c1 *c1)
{
    porep_circuit pc;
    cuzk_err err;
    assert_int_equal(porep_circuit_init(&pc, c1, 0, &err), CUZK_OK);
    cs_prover p;
    prove_satisfied(&p, porep_circuit_get(&pc));
    porep_public pub;
    fr_t want[40];
    assert_int_equal(porep_public_from_c1(&pub, c1, &err), CUZK_OK);
    assert_int_equal(porep_public_inputs(want, &pub, 0, &err), CUZK_OK);
    assert_int_equal(p.num_inputs, 40);
    for (size_t i = 0; i < 39; i++) assert_true(fr_eq(&p.input_assignment[i + 1], &want[i]));
    if (!quick()) {
        const cs_counts *b = blank_2kib();
        assert_int_equal(p.num_constraints, b->num_constraints + b->num_inputs);
        assert_int_equal(p.num_aux, b->num_aux);
        assert_int_equal(cs_bitmap_popcount(&p.a_aux_density), b->a_aux_density);
        assert_int_equal(cs_bitmap_popcount(&p.b_input_density), b->b_input_density);
        assert_int_equal(cs_bitmap_popcount(&p.b_aux_density), b->b_aux_density);
    }
    cs_prover_free(&p);
    if (!slow()) return;
    cs_counts a = count_circuit(porep_circuit_get(&pc));
    assert_memory_equal(a.fingerprint, blank_2kib()->fingerprint, 32);
}

static void test_sealed_2kib(void **state)
{
    (void)state;
    vanilla_c1 c1;
    sealed_c1(&c1, 5); /* StackedDrg2KiBV1_1 */
    through_json(&c1);
    check_witness(&c1);
    vanilla_c1_free(&c1);
}

static void test_sealed_2kib_kinds(void **state)
{
    (void)state;
    if (!slow()) return;
    static const uint64_t ids[] = {0, 10, 15}; /* V1, synthetic, non-interactive */
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        vanilla_c1 c1;
        sealed_c1(&c1, ids[i]);
        check_witness(&c1);
        vanilla_c1_free(&c1);
    }
}

/* A wrong parent label, data leaf or path node breaks some constraint (the
 * challenge's own column rows and labels are not read: the circuit
 * recomputes them). */
static void test_tampered_vanilla(void **state)
{
    (void)state;
    if (quick()) return;
    vanilla_c1 c1;
    sealed_c1(&c1, 5);
    vanilla_porep_proof *p = &c1.part[0][1];
    vanilla_node *targets[] = {&p->drg[3].rows[1], &p->exp[5].rows[0], &p->comm_d.leaf,
                               &p->comm_r_last.hashes[2], &p->c_x.proof.hashes[9]};
    size_t n = slow() ? sizeof(targets) / sizeof(targets[0]) : 1;
    for (size_t i = 0; i < n; i++) {
        vanilla_node saved = *targets[i];
        targets[i]->b[0] ^= 1;
        porep_circuit pc;
        assert_int_equal(porep_circuit_init(&pc, &c1, 0, NULL), CUZK_OK);
        cs_prover pr;
        assert_int_equal(cs_synthesize_prover(&pr, porep_circuit_get(&pc), NULL, NULL), 0);
        assert_true(count_unsatisfied(pr.num_constraints, pr.a, pr.b, pr.c) > 0);
        cs_prover_free(&pr);
        *targets[i] = saved;
    }
    vanilla_c1_free(&c1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_2kib),        cmocka_unit_test(test_sizes_table),
        cmocka_unit_test(test_count_8mib_512mib), cmocka_unit_test(test_count_stacked_circuit_rs),
        cmocka_unit_test(test_shape_errors),      cmocka_unit_test(test_public_inputs_32gib),
        cmocka_unit_test(test_sealed_2kib),       cmocka_unit_test(test_sealed_2kib_kinds),
        cmocka_unit_test(test_tampered_vanilla),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
