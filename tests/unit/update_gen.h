/*
 * update_gen.h - a 2KiB SnapDeals partition for tests: random replica
 * labels and data through fc_gen_update (gen.h), so the update circuit's
 * encoding checks hold. Its circuit is partition 0's over *u; free with
 * update_gen_free.
 */
#ifndef CUZK_TESTS_UPDATE_GEN_H
#define CUZK_TESTS_UPDATE_GEN_H

#include <stdlib.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/update_circuit.h"
#include "testutil.h"

typedef struct update_gen {
    update_shape s;
    fc_update u;
    update_public pub;
    update_circuit uc;
    fr_t *lab;
} update_gen;

static inline cs_circuit update_gen_2kib(update_gen *t, cuzk_rng *g)
{
    cuzk_err e;
    assert_int_equal(update_shape_for_size(&t->s, 2048, NULL), 0);
    size_t n = t->s.nodes;
    fr_t c;
    t->lab = malloc(2 * n * sizeof(fr_t));
    assert_non_null(t->lab);
    for (size_t i = 0; i < 2 * n; i++) fr_random(&t->lab[i], g);
    vanilla_node comm_c;
    fr_random(&c, g);
    fr_to_bytes_le(comm_c.b, &c);
    if (fc_gen_update(&t->u, &t->s, t->s.hs[3], t->lab, &comm_c, &t->lab[n], NULL, NULL, &e))
        fail_msg("update: %s", e.msg);
    t->pub = fc_update_public(&t->u, 0);
    if (update_circuit_init(&t->uc, &t->s, &t->u.parts[0], &t->pub, &e))
        fail_msg("update: %s", e.msg);
    return update_circuit_get(&t->uc);
}

static inline void update_gen_free(update_gen *t)
{
    fc_update_free(&t->u);
    free(t->lab);
}

#endif
