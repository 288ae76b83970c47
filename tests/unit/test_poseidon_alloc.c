/*
 * test_poseidon_alloc.c - allocation failures in Poseidon: building
 * constants, and the circuit (replay and walk) and a Poseidon Merkle path
 * under the prover backend, with every allocation failing in turn: each
 * run returns CUZK_ENOMEM (or succeeds where the failure is absorbed) and
 * leaves nothing allocated.
 *
 * This executable replaces malloc (failalloc.h: glibc's __libc_* entry points behind
 * it), so it is compiled to a skip under AddressSanitizer, which owns
 * malloc there. Cached objects (constants, circuit templates) are built
 * before counting starts, since they live for the whole process.
 */
#include "gadget_check.h"
#include "failalloc.h"

#include "cuzk/gadgets/por.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"

#if FAILALLOC_AVAILABLE
static int constants_run(void *arg)
{
    poseidon_constants *c;
    int rc = poseidon_constants_new(&c, *(unsigned *)arg, POSEIDON_STANDARD, NULL);
    if (!rc) poseidon_constants_free(c);
    return rc;
}

static void constants_failures(void **state)
{
    (void)state;
    unsigned arity = 4;
    failalloc_every(constants_run, &arity);
}

typedef struct circ_arg {
    bool walk, por;
} circ_arg;

static int circ_synth(cs_t *cs, void *p)
{
    const circ_arg *x = p;
    const poseidon_constants *c = poseidon_std(8);
    fr_t v[8];
    num_var in[8];
    for (int i = 0; i < 8; i++) fr_from_u64(&v[i], (uint64_t)i), in[i] = num_alloc(cs, &v[i]);
    if (!x->por) {
        (x->walk ? poseidon_gadget_hash_walk : poseidon_gadget_hash)(cs, c, in);
        return cs_status(cs);
    }
    /* A two-level 8-ary path; the proof need not hold for this test. */
    por_hasher h = por_poseidon_hasher();
    por_shape s = {8, 0, 0, 2};
    por_level path[2] = {{3, &v[1]}, {5, &v[0]}};
    por_root leaf = {.value = &v[0]}, root = {.value = &v[7]};
    return por_circuit(cs, &h, &s, &leaf, path, &root, false);
}

static int circ_run(void *arg)
{
    cs_prover p;
    int rc = cs_synthesize_prover(&p, (cs_circuit){circ_synth, arg}, NULL, NULL);
    if (!rc) cs_prover_free(&p);
    return rc;
}

static void circuit_failures(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        circ_arg x = {.walk = k == 1, .por = k == 2};
        assert_int_equal(circ_run(&x), 0); /* builds the cached template */
        failalloc_every(circ_run, &x);
    }
}
#else
static void constants_failures(void **state)
{
    (void)state;
    skip();
}
static void circuit_failures(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constants_failures),
        cmocka_unit_test(circuit_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
