/*
 * test_engine_pool.c - the partition storage pool (src/engine/pool.h) on a
 * real budget, with storages of synthetic circuits of three sizes: an
 * entry trimmed to its circuit's counts, the bytes it keeps and the rest
 * returned to the caller, a further
 * reservation when the caller's does not cover an entry (and the storage
 * freed when that does not fit), the smallest entry with room taken (the
 * same arrays, its bytes now the caller's), entries too small for a
 * circuit freed when none has room, the oldest dropped from a full pool,
 * and the pool as the budget's evictor: a reservation that does not fit
 * frees the oldest entries first, exactly as many as it needs. Entries of
 * a large circuit's size (lazily mapped, never touched): a small circuit
 * does not take one more than POOL_SLACK times its need, which stays for
 * the larger circuits, and a full pool drops its smallest entry, or the
 * new one when that is smaller still.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/r1cs.h"
#include "engine/pool.h"
#include "testutil.h"

#define MIB ((uint64_t)1 << 20)

/* The storage of a synthetic circuit of about `constraints` constraints,
 * as synthesis leaves it (capacities doubled past the counts). */
static cs_prover storage(size_t constraints)
{
    cs_synthetic shape = {constraints, constraints};
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, cs_synthetic_circuit(&shape), NULL, NULL), 0);
    assert_true(cs_prover_storage_bytes(&p) > 0);
    return p;
}

/* What an entry of that storage holds: trimmed to the circuit's counts,
 * strictly less than the storage as synthesized. */
static uint64_t entry_bytes(size_t constraints)
{
    cs_prover p = storage(constraints);
    uint64_t untrimmed = cs_prover_storage_bytes(&p);
    cs_prover_trim(&p);
    uint64_t bytes = cs_prover_storage_bytes(&p);
    size_t words = 2 * ((p.num_aux + 63) / 64) + (p.num_inputs + 63) / 64;
    assert_int_equal(bytes,
                     (3 * p.num_constraints + p.num_inputs + p.num_aux) * sizeof(fr_t) + words * 8);
    assert_true(bytes < untrimmed);
    cs_prover_free(&p);
    return bytes;
}

/* Which storage came back: the circuit of `constraints` it last held. */
static void assert_holds(const cs_prover *p, size_t constraints)
{
    cs_prover twin = storage(constraints);
    assert_int_equal(p->num_constraints, twin.num_constraints);
    assert_true(!memcmp(p->aux_assignment, twin.aux_assignment, p->num_aux * sizeof(fr_t)));
    cs_prover_free(&twin);
}

static cs_capacity shape_of(const cs_prover *p)
{
    return (cs_capacity){p->num_constraints - p->num_inputs, p->num_inputs, p->num_aux};
}

static void accounting_and_take(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 64 * MIB, NULL, NULL);
    assert_int_equal(pool_init(&pool, &b, 4, NULL), 0);
    cs_prover small = storage(2000), mid = storage(9000), large = storage(40000);
    uint64_t bs = entry_bytes(2000), bm = entry_bytes(9000), bl = entry_bytes(40000);
    assert_true(bs < bm && bm < bl);
    cs_capacity need_mid = shape_of(&mid), need_large = shape_of(&large);

    /* more reserved than the entry needs: the rest comes back */
    assert_int_equal(budget_reserve(&b, bm + 1000, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &mid, bm + 1000), 1000);
    budget_release(&b, 1000);
    assert_null(mid.a);
    /* less reserved: the entry reserves the difference */
    assert_int_equal(budget_reserve(&b, 100, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &small, 100), 0);
    assert_int_equal(budget_reserve(&b, bl, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &large, bl), 0);
    pool_stats s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 3);
    assert_int_equal(s.bytes, bs + bm + bl);
    assert_int_equal(budget_used(&b), bs + bm + bl);

    /* the smallest with room: mid for mid's shape, that very storage */
    cs_prover got;
    assert_int_equal(pool_take(&pool, &need_mid, false, &got), bm);
    assert_holds(&got, 9000);
    assert_true(cs_prover_fits(&got, &need_mid));
    assert_int_equal(budget_used(&b), bs + bm + bl); /* now the caller's */
    /* a circuit larger than every entry: none taken, the too small freed */
    cs_capacity huge = need_large;
    huge.aux *= 4;
    cs_prover none;
    assert_int_equal(pool_take(&pool, &huge, false, &none), 0);
    assert_null(none.a);
    s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 0);
    assert_int_equal(budget_used(&b), bm);
    /* mid's shape again finds large when only large has room */
    assert_int_equal(budget_reserve(&b, bl, 0, NULL, NULL, NULL, "t", NULL), 0);
    cs_prover again = storage(40000);
    assert_int_equal(pool_put(&pool, &again, bl), 0);
    assert_int_equal(pool_take(&pool, &need_mid, false, &none), bl);
    cs_prover_free(&none);
    budget_release(&b, bl);

    /* an entry whose extra bytes do not fit now is freed, not kept */
    assert_int_equal(budget_reserve(&b, 64 * MIB - bm, 0, NULL, NULL, NULL, "t", NULL), 0);
    cs_prover big = storage(40000);
    assert_int_equal(pool_put(&pool, &big, 0), 0);
    assert_null(big.a);
    assert_int_equal(pool_get_stats(&pool).entries, 0);
    assert_int_equal(budget_used(&b), 64 * MIB);
    /* the taken storage goes back with the bytes it came with */
    assert_int_equal(pool_put(&pool, &got, bm), 0);
    assert_int_equal(pool_get_stats(&pool).bytes, bm);
    budget_release(&b, 64 * MIB - bm);
    pool_destroy(&pool);
    assert_int_equal(budget_used(&b), 0);
    budget_destroy(&b);
}

/* The pool as the budget's only evictor. */
static uint64_t evict_pool(void *pool, uint64_t need, int priority, uint64_t waited_ms)
{
    (void)priority, (void)waited_ms;
    return pool_evict(pool, need);
}

static void full_pool_and_eviction(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 64 * MIB, evict_pool, &pool);
    assert_int_equal(pool_init(&pool, &b, 3, NULL), 0);
    cs_prover st[4];
    uint64_t bytes[4];
    for (int i = 0; i < 4; i++) {
        st[i] = storage(3000 * (size_t)(i + 1));
        bytes[i] = entry_bytes(3000 * (size_t)(i + 1));
        assert_int_equal(budget_reserve(&b, bytes[i], 0, NULL, NULL, NULL, "t", NULL), 0);
        assert_int_equal(pool_put(&pool, &st[i], bytes[i]), 0);
    }
    /* the fourth put dropped the oldest */
    pool_stats s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 3);
    assert_int_equal(s.bytes, bytes[1] + bytes[2] + bytes[3]);
    assert_int_equal(budget_used(&b), s.bytes);
    /* a reservation short of bytes[1] + 1: entries 1 and 2 go, 3 stays */
    uint64_t free_now = 64 * MIB - s.bytes;
    assert_int_equal(budget_reserve(&b, free_now + bytes[1] + 1, 0, NULL, NULL, NULL, "t", NULL),
                     0);
    s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.bytes, bytes[3]);
    assert_int_equal(budget_used(&b), free_now + bytes[1] + 1 + bytes[3]);
    cs_prover got;
    cs_capacity any = {0, 0, 0};
    assert_int_equal(pool_take(&pool, &any, false, &got), bytes[3]);
    assert_holds(&got, 12000);
    cs_prover_free(&got);
    budget_release(&b, budget_used(&b));
    pool_destroy(&pool);
    /* a pool of no entries keeps nothing */
    assert_int_equal(pool_init(&pool, &b, 0, NULL), 0);
    cs_prover one = storage(1000);
    assert_int_equal(budget_reserve(&b, 5000, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &one, 5000), 5000);
    assert_null(one.a);
    assert_int_equal(pool_get_stats(&pool).entries, 0);
    budget_release(&b, 5000);
    pool_destroy(&pool);
    budget_destroy(&b);
}

/* Witness-only storage: the assignments and bitmaps of a synthesis,
 * without a, b, c (what cs_synthesize_witness_into leaves). */
static cs_prover witness_storage(size_t constraints)
{
    cs_prover p = storage(constraints);
    free(p.a), free(p.b), free(p.c);
    p.a = p.b = p.c = NULL;
    p.cap_constraints = 0;
    return p;
}

/* The two paths never share storage: a witness-only circuit takes only
 * witness storage (without a, b, c it could not hold the other's
 * circuit), the prover's path only storage with a, b, c; what does not
 * fit the path asked for is freed. */
static void witness_and_prover_storage(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 64 * MIB, NULL, NULL);
    assert_int_equal(pool_init(&pool, &b, 4, NULL), 0);
    cs_prover wit = witness_storage(9000), full = storage(9000);
    cs_capacity need = shape_of(&full);
    uint64_t bw = cs_prover_storage_bytes(&wit), bf = entry_bytes(9000);
    assert_true(bw < bf);
    assert_int_equal(budget_reserve(&b, bw + bf, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &wit, bw), 0);
    assert_int_equal(pool_put(&pool, &full, bf), 0);
    cs_prover got;
    assert_int_equal(pool_take(&pool, &need, true, &got), bw);
    assert_null(got.a);
    assert_int_equal(got.cap_constraints, 0);
    assert_holds(&got, 9000);
    /* the prover's path: the full storage, although the witness one is smaller */
    assert_int_equal(pool_put(&pool, &got, bw), 0);
    assert_int_equal(pool_take(&pool, &need, false, &got), bf);
    assert_non_null(got.a);
    /* the witness storage does not fit the prover's path: freed */
    cs_prover none;
    assert_int_equal(pool_take(&pool, &need, false, &none), 0);
    assert_int_equal(pool_get_stats(&pool).entries, 0);
    assert_int_equal(budget_used(&b), bf);
    /* nor the full storage the witness path */
    assert_int_equal(pool_put(&pool, &got, bf), 0);
    assert_int_equal(pool_take(&pool, &need, true, &none), 0);
    assert_null(none.aux_assignment);
    assert_int_equal(budget_used(&b), 0);
    pool_destroy(&pool);
    budget_destroy(&b);
}

/* Witness-only storage of aux variables (and one input) with nothing
 * written: calloc maps it lazily, so a 128 MiB entry costs no time. */
static cs_prover lazy_witness(size_t aux)
{
    cs_prover p;
    memset(&p, 0, sizeof p);
    p.num_inputs = p.cap_inputs = 1, p.num_aux = p.cap_aux = aux;
    p.input_assignment = calloc(1, sizeof(fr_t));
    p.aux_assignment = calloc(aux, sizeof(fr_t));
    p.a_aux_density.words = calloc((aux + 63) / 64, 8);
    p.b_aux_density.words = calloc((aux + 63) / 64, 8);
    p.b_input_density.words = calloc(1, 8);
    assert_non_null(p.aux_assignment);
    return p;
}

static cs_capacity aux_need(size_t aux)
{
    return (cs_capacity){0, 1, aux};
}

/* Puts s with its bytes reserved first; returns them. */
static uint64_t put_reserved(budget *b, prover_pool *pool, cs_prover *s)
{
    uint64_t bytes = cs_prover_storage_bytes(s);
    assert_int_equal(budget_reserve(b, bytes, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(pool, s, bytes), 0);
    return bytes;
}

static void large_entries_stay_for_large_circuits(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 1024 * MIB, NULL, NULL);
    assert_int_equal(pool_init(&pool, &b, 4, NULL), 0);
    size_t aux = (size_t)4 << 20; /* 128 MiB of assignment, above POOL_SMALL */
    cs_prover big = lazy_witness(aux);
    uint64_t bytes = put_reserved(&b, &pool, &big);
    assert_true(bytes > POOL_SMALL);
    /* an eighth of it: not taken, and not freed either */
    cs_capacity eighth = aux_need(aux / 8), half = aux_need(aux / 2);
    cs_prover got;
    assert_int_equal(pool_take(&pool, &eighth, true, &got), 0);
    assert_null(got.aux_assignment);
    assert_int_equal(pool_get_stats(&pool).entries, 1);
    assert_int_equal(budget_used(&b), bytes);
    /* half of it: taken */
    assert_int_equal(pool_take(&pool, &half, true, &got), bytes);
    assert_int_equal(got.cap_aux, aux);
    /* a small entry suits any circuit it holds, however small */
    cs_prover small = lazy_witness(1000);
    uint64_t bs = put_reserved(&b, &pool, &small);
    cs_capacity tiny = aux_need(1);
    cs_prover got2;
    assert_int_equal(pool_take(&pool, &tiny, true, &got2), bs);
    cs_prover_free(&got2), cs_prover_free(&got);
    budget_release(&b, bs + bytes);
    pool_destroy(&pool);
    budget_destroy(&b);
}

static void full_pool_keeps_the_costly(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 1024 * MIB, NULL, NULL);
    assert_int_equal(pool_init(&pool, &b, 2, NULL), 0);
    size_t aux = (size_t)1 << 20;
    cs_prover first = lazy_witness(aux), second = lazy_witness(aux);
    const fr_t *second_at = second.aux_assignment; /* pool_put empties second */
    uint64_t each = put_reserved(&b, &pool, &first);
    put_reserved(&b, &pool, &second);
    /* a smaller one is not kept: freed, the caller's bytes all returned */
    cs_prover small = lazy_witness(1000);
    uint64_t bs = cs_prover_storage_bytes(&small);
    assert_int_equal(budget_reserve(&b, bs, 0, NULL, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &small, bs), bs);
    assert_null(small.aux_assignment);
    budget_release(&b, bs);
    /* nor when the caller reserved less: the further reservation undone */
    small = lazy_witness(1000);
    assert_int_equal(pool_put(&pool, &small, 0), 0);
    assert_int_equal(pool_get_stats(&pool).entries, 2);
    assert_int_equal(budget_used(&b), 2 * each);
    /* a larger one drops the smallest, the oldest of equal ones */
    cs_prover large = lazy_witness(2 * aux);
    uint64_t bl = put_reserved(&b, &pool, &large);
    pool_stats s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 2);
    assert_int_equal(s.bytes, each + bl);
    assert_int_equal(budget_used(&b), each + bl);
    assert_ptr_equal(pool.entries[0].storage.aux_assignment, second_at);
    /* an equal one drops the oldest of the smallest: second */
    cs_prover third = lazy_witness(aux);
    put_reserved(&b, &pool, &third);
    assert_int_equal(pool.entries[0].storage.cap_aux, 2 * aux);
    assert_int_equal(pool.entries[1].storage.cap_aux, aux);
    assert_int_equal(budget_used(&b), each + bl);
    pool_destroy(&pool);
    assert_int_equal(budget_used(&b), 0);
    budget_destroy(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accounting_and_take),
        cmocka_unit_test(full_pool_and_eviction),
        cmocka_unit_test(witness_and_prover_storage),
        cmocka_unit_test(large_entries_stay_for_large_circuits),
        cmocka_unit_test(full_pool_keeps_the_costly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
