/*
 * test_poseidon_alloc.c - allocation failures in Poseidon: building
 * constants, and the circuit (replay and walk) and a Poseidon Merkle path
 * under the prover backend, with every allocation failing in turn: each
 * run returns CUZK_ENOMEM (or succeeds where the failure is absorbed) and
 * leaves nothing allocated.
 *
 * This executable replaces malloc (glibc's __libc_* entry points behind
 * it), so it is compiled to a skip under AddressSanitizer, which owns
 * malloc there. Cached objects (constants, circuit templates) are built
 * before counting starts, since they live for the whole process.
 */
#include "gadget_check.h"

#include "cuzk/gadgets/por.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/poseidon.h"

#if !defined(__SANITIZE_ADDRESS__)
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

/* Touched only while `counting`, by the single thread that runs the test. */
static bool counting;
static long fail_countdown; /* the allocation that sees 0 fails; -1: none */
static long live, calls;

static bool fail_now(void)
{
    if (!counting) return false;
    calls++;
    return fail_countdown >= 0 && fail_countdown-- == 0;
}

static void *counted(void *p, bool is_new)
{
    if (counting && p && is_new) live++;
    return p;
}

void *malloc(size_t n)
{
    return fail_now() ? NULL : counted(__libc_malloc(n), true);
}
void *calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : counted(__libc_calloc(n, size), true);
}
void *realloc(void *q, size_t n)
{
    return fail_now() ? NULL : counted(__libc_realloc(q, n), !q);
}
void free(void *p)
{
    if (counting && p) live--;
    __libc_free(p);
}

/* fn(arg) with the k-th allocation failing (-1: none); its status, after
 * checking nothing is left allocated. */
static int run_failing(int (*fn)(void *), void *arg, long k)
{
    live = 0, calls = 0, counting = true, fail_countdown = k;
    int rc = fn(arg);
    fail_countdown = -1;
    counting = false;
    assert_int_equal(live, 0);
    return rc;
}

/* Every allocation of fn failing in turn: ENOMEM or success, at least one
 * ENOMEM. */
static void every_failure(int (*fn)(void *), void *arg)
{
    assert_int_equal(run_failing(fn, arg, -1), 0);
    long total = calls, failures = 0;
    for (long k = 0; k < total; k++) {
        int rc = run_failing(fn, arg, k);
        assert_true(rc == 0 || rc == CUZK_ENOMEM);
        failures += rc == CUZK_ENOMEM;
    }
    assert_true(failures > 0);
}

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
    every_failure(constants_run, &arity);
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
        every_failure(circ_run, &x);
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
