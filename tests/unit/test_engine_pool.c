/*
 * test_engine_pool.c - the partition storage pool (src/engine/pool.h) on a
 * real budget, with storages of synthetic circuits of three sizes: the
 * bytes an entry keeps and the rest returned to the caller, a further
 * reservation when the caller's does not cover an entry (and the storage
 * freed when that does not fit), the smallest entry with room taken (the
 * same arrays, its bytes now the caller's), entries too small for a
 * circuit freed when none has room, the oldest dropped from a full pool,
 * and the pool as the budget's evictor: a reservation that does not fit
 * frees the oldest entries first, exactly as many as it needs.
 */
#include <string.h>

#include "cuzk/r1cs.h"
#include "engine/pool.h"
#include "testutil.h"

#define MIB ((uint64_t)1 << 20)

/* The storage of a synthetic circuit of about `constraints` constraints. */
static cs_prover storage(size_t constraints)
{
    cs_synthetic shape = {constraints, constraints};
    cs_prover p;
    assert_int_equal(cs_synthesize_prover(&p, cs_synthetic_circuit(&shape), NULL, NULL), 0);
    assert_true(cs_prover_storage_bytes(&p) > 0);
    return p;
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
    uint64_t bs = cs_prover_storage_bytes(&small), bm = cs_prover_storage_bytes(&mid),
             bl = cs_prover_storage_bytes(&large);
    assert_true(bs < bm && bm < bl);
    cs_capacity need_mid = shape_of(&mid), need_large = shape_of(&large);
    fr_t *mid_a = mid.a;

    /* more reserved than the entry needs: the rest comes back */
    assert_int_equal(budget_reserve(&b, bm + 1000, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &mid, bm + 1000), 1000);
    budget_release(&b, 1000);
    assert_null(mid.a);
    /* less reserved: the entry reserves the difference */
    assert_int_equal(budget_reserve(&b, 100, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &small, 100), 0);
    assert_int_equal(budget_reserve(&b, bl, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &large, bl), 0);
    pool_stats s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 3);
    assert_int_equal(s.bytes, bs + bm + bl);
    assert_int_equal(budget_used(&b), bs + bm + bl);

    /* the smallest with room: mid for mid's shape, its very arrays */
    cs_prover got;
    assert_int_equal(pool_take(&pool, &need_mid, &got), bm);
    assert_ptr_equal(got.a, mid_a);
    assert_true(cs_prover_fits(&got, &need_mid));
    assert_int_equal(budget_used(&b), bs + bm + bl); /* now the caller's */
    /* a circuit larger than every entry: none taken, the too small freed */
    cs_capacity huge = need_large;
    huge.aux *= 4;
    cs_prover none;
    assert_int_equal(pool_take(&pool, &huge, &none), 0);
    assert_null(none.a);
    s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.taken, 1);
    assert_int_equal(s.fresh, 1);
    assert_int_equal(budget_used(&b), bm);
    /* mid's shape again finds large when only large has room */
    assert_int_equal(budget_reserve(&b, bl, NULL, NULL, "t", NULL), 0);
    cs_prover again = storage(40000);
    assert_int_equal(pool_put(&pool, &again, bl), 0);
    assert_int_equal(pool_take(&pool, &need_mid, &none), bl);
    cs_prover_free(&none);
    budget_release(&b, bl);

    /* an entry whose extra bytes do not fit now is freed, not kept */
    assert_int_equal(budget_reserve(&b, 64 * MIB - bm, NULL, NULL, "t", NULL), 0);
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

static void full_pool_and_eviction(void **state)
{
    (void)state;
    budget b;
    prover_pool pool;
    budget_init(&b, 64 * MIB, pool_evict, &pool);
    assert_int_equal(pool_init(&pool, &b, 3, NULL), 0);
    cs_prover st[4];
    uint64_t bytes[4];
    fr_t *a[4];
    for (int i = 0; i < 4; i++) {
        st[i] = storage(3000 * (size_t)(i + 1));
        bytes[i] = cs_prover_storage_bytes(&st[i]);
        a[i] = st[i].a;
        assert_int_equal(budget_reserve(&b, bytes[i], NULL, NULL, "t", NULL), 0);
        assert_int_equal(pool_put(&pool, &st[i], bytes[i]), 0);
    }
    /* the fourth put dropped the oldest */
    pool_stats s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 3);
    assert_int_equal(s.bytes, bytes[1] + bytes[2] + bytes[3]);
    assert_int_equal(budget_used(&b), s.bytes);
    /* a reservation short of bytes[1] + 1: entries 1 and 2 go, 3 stays */
    uint64_t free_now = 64 * MIB - s.bytes;
    assert_int_equal(budget_reserve(&b, free_now + bytes[1] + 1, NULL, NULL, "t", NULL), 0);
    s = pool_get_stats(&pool);
    assert_int_equal(s.entries, 1);
    assert_int_equal(s.bytes, bytes[3]);
    assert_int_equal(budget_used(&b), free_now + bytes[1] + 1 + bytes[3]);
    cs_prover got;
    cs_capacity any = {0, 0, 0};
    assert_int_equal(pool_take(&pool, &any, &got), bytes[3]);
    assert_ptr_equal(got.a, a[3]);
    cs_prover_free(&got);
    budget_release(&b, budget_used(&b));
    pool_destroy(&pool);
    /* a pool of no entries keeps nothing */
    assert_int_equal(pool_init(&pool, &b, 0, NULL), 0);
    cs_prover one = storage(1000);
    assert_int_equal(budget_reserve(&b, 5000, NULL, NULL, "t", NULL), 0);
    assert_int_equal(pool_put(&pool, &one, 5000), 5000);
    assert_null(one.a);
    assert_int_equal(pool_get_stats(&pool).entries, 0);
    budget_release(&b, 5000);
    pool_destroy(&pool);
    budget_destroy(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accounting_and_take),
        cmocka_unit_test(full_pool_and_eviction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
