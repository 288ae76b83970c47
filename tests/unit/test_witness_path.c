/*
 * test_witness_path.c - the witness-only path against the prover backend
 * on real Filecoin circuits: partition 0 of PoRep C1s (a sealed 2KiB
 * sector; sparse committed-capacity sectors of 8MiB and 512MiB, V1_1)
 * synthesized both ways. The witness and the densities from the recorded
 * shape (cs_synthesize_for_shape, also into the junk-filled storage of an
 * earlier partition, and twice into a smaller witness-only result's, whose
 * density bitmaps must keep the words of the storage's capacity) and a, b, c evaluated from the
 * shape (groth16_abc, which checks every constraint) equal the prover backend's byte for byte, and
 * the shape's fingerprint is cs_count's; a witness value altered by one fails the evaluation naming
 * the constraint. 512MiB is skipped under CUZK_TEST_QUICK. (Proof bytes of the two paths:
 * tests/integration/filecoin.sh on the CPU, gpu_prove_checks.c on the
 * device and its stand-in.)
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "groth16/prove_internal.h"
#include "testutil.h"

static void c1_of(vanilla_c1 *c1, uint64_t id)
{
    cuzk_err e = {0};
    fc_test_sector t = {.cfg = fc_porep_config_get(id), .seed = 3, .sector_id = 4, .miner = 1000};
    assert_non_null(t.cfg);
    int rc;
    if (t.cfg->sector_size == 2048) {
        fc_sealed s;
        rc = fc_seal_test_sector(&s, &t, NULL, NULL, &e);
        if (!rc) {
            rc = fc_test_sector_c1(c1, &s, t.seed, &e);
            fc_sealed_free(&s);
        }
    } else {
        t.cc = true;
        rc = fc_sparse_c1(c1, &t, &e);
    }
    if (rc) fail_msg("C1 of proof %llu: %s", (unsigned long long)id, e.msg);
}

static void assert_bits_equal(const cs_bitmap *x, const cs_bitmap *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cs_bitmap_get(x, i) != cs_bitmap_get(y, i)) fail_msg("density bit %zu differs", i);
}

/* Each density bitmap has the words of the prover's capacity (what the
 * next synthesis into the same storage writes up to). */
static void assert_bitmaps_hold_caps(const cs_prover *w)
{
    size_t aux = (w->cap_aux + 63) / 64 * sizeof(uint64_t);
    size_t in = (w->cap_inputs + 63) / 64 * sizeof(uint64_t);
    assert_true(malloc_usable_size(w->a_aux_density.words) >= aux);
    assert_true(malloc_usable_size(w->b_aux_density.words) >= aux);
    assert_true(malloc_usable_size(w->b_input_density.words) >= in);
}

/* w := the witness-only storage of a smaller circuit of its own shape. */
static void smaller_witness(cs_prover *w, size_t constraints)
{
    cuzk_err e = {0};
    cs_synthetic small = {constraints, 78};
    cs_circuit sc = cs_synthetic_circuit(&small);
    cs_shape *ss = NULL;
    assert_int_equal(cs_shape_record(&ss, sc, &e), 0);
    assert_int_equal(cs_synthesize_for_shape(w, sc, ss, NULL, &e), 0);
    assert_bitmaps_hold_caps(w);
    w->shape = NULL;
    cs_shape_free(ss);
}

static void check_size(uint64_t id)
{
    vanilla_c1 c1;
    c1_of(&c1, id);
    porep_circuit pc;
    cuzk_err e = {0};
    assert_int_equal(porep_circuit_init(&pc, &c1, 0, &e), 0);
    cs_circuit circ = porep_circuit_get(&pc);

    cs_prover full;
    assert_int_equal(cs_synthesize_prover(&full, circ, NULL, &e), 0);
    cs_counts counts;
    assert_int_equal(cs_count(&counts, circ, &e), 0);
    cs_shape *shape = NULL;
    assert_int_equal(cs_shape_record(&shape, circ, &e), 0);
    uint8_t fp[32];
    cs_shape_fingerprint(shape, fp);
    assert_memory_equal(fp, counts.fingerprint, 32);

    /* fresh, into the junk-filled storage of a bigger earlier result, and
     * twice into a smaller witness-only result's (its storage and bitmaps
     * grown, then reused as they are, as the engine's pool reuses them) */
    for (int into = 0; into < 3; into++) {
        cs_prover w = {0};
        if (into == 2) {
            smaller_witness(&w, full.num_constraints / 4);
            assert_int_equal(cs_synthesize_for_shape(&w, circ, shape, NULL, &e), 0);
            assert_bitmaps_hold_caps(&w);
        } else if (into) {
            cs_synthetic big = {2 * full.num_constraints, 77};
            assert_int_equal(cs_synthesize_prover(&w, cs_synthetic_circuit(&big), NULL, &e), 0);
            free(w.a), free(w.b), free(w.c);
            w.a = w.b = w.c = NULL, w.cap_constraints = 0;
            memset(w.aux_assignment, 0x5a, w.num_aux * sizeof(fr_t));
        }
        assert_int_equal(cs_synthesize_for_shape(&w, circ, shape, NULL, &e), 0);
        assert_bitmaps_hold_caps(&w);
        assert_ptr_equal(w.shape, shape);
        assert_int_equal(w.num_constraints, full.num_constraints);
        assert_int_equal(w.num_inputs, full.num_inputs);
        assert_int_equal(w.num_aux, full.num_aux);
        assert_memory_equal(w.input_assignment, full.input_assignment,
                            full.num_inputs * sizeof(fr_t));
        assert_memory_equal(w.aux_assignment, full.aux_assignment, full.num_aux * sizeof(fr_t));
        assert_bits_equal(&w.a_aux_density, &full.a_aux_density, full.num_aux);
        assert_bits_equal(&w.b_aux_density, &full.b_aux_density, full.num_aux);
        assert_bits_equal(&w.b_input_density, &full.b_input_density, full.num_inputs);
        size_t n = full.num_constraints;
        fr_t *abc = malloc(3 * n * sizeof(fr_t));
        assert_non_null(abc);
        assert_int_equal(groth16_abc(&w, abc, abc + n, abc + 2 * n, &e), 0);
        assert_memory_equal(abc, full.a, n * sizeof(fr_t));
        assert_memory_equal(abc + n, full.b, n * sizeof(fr_t));
        assert_memory_equal(abc + 2 * n, full.c, n * sizeof(fr_t));
        if (into == 1) {
            /* one aux value off by one: some constraint fails, named */
            size_t j = w.num_aux / 2;
            fr_add(&w.aux_assignment[j], &w.aux_assignment[j], &FR_ONE);
            assert_int_equal(groth16_abc(&w, abc, abc + n, abc + 2 * n, &e), CUZK_EINVAL);
            assert_non_null(strstr(e.msg, "is not satisfied"));
            /* another circuit's witness is refused by its counts */
            w.num_aux--;
            assert_int_equal(groth16_abc(&w, abc, abc + n, abc + 2 * n, &e), CUZK_EINVAL);
            assert_non_null(strstr(e.msg, "not of the recorded shape"));
            w.num_aux++;
        }
        free(abc);
        w.shape = NULL;
        cs_prover_free(&w);
    }
    cs_shape_free(shape);
    cs_prover_free(&full);
    vanilla_c1_free(&c1);
}

static void porep_2kib(void **state)
{
    (void)state;
    check_size(5); /* StackedDrg2KiBV1_1 */
}

static void porep_8mib(void **state)
{
    (void)state;
    check_size(6);
}

/* Not in the sanitizer build (CUZK_TEST_QUICK): 4.4M constraints. */
static void porep_512mib(void **state)
{
    (void)state;
    if (getenv("CUZK_TEST_QUICK")) skip();
    check_size(7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(porep_2kib),
        cmocka_unit_test(porep_8mib),
        cmocka_unit_test(porep_512mib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
