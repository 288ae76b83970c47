/*
 * test_update_verify.c - the native SnapDeals check (update_verify.h) on
 * good and altered proofs.
 *
 * Good: a dense 2KiB update (fc_gen_update over random replica and data)
 * and a sparse 8MiB one (4 partitions of 10 challenges, 128 apex leaves)
 * pass. Each kind of fault is refused with CUZK_EVERIFY and the message
 * naming partition, challenge, node and what: a tree-R-old / tree-R-new /
 * tree-D-new sibling or leaf changed, a sibling not below r, a path for
 * another node, a proof naming another root, an apex leaf or comm_c
 * changed, commitments not the proof's, and a wrong h (every rho changes:
 * the encoding fails). With faults in two partitions the first in order
 * is reported. A wrong partition count or path geometry is CUZK_EINVAL.
 */
#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/update_verify.h"

typedef struct fixture {
    update_shape s;
    fc_update u;
    update_public pub;
} fixture;

static void sparse_8mib(fixture *f)
{
    cuzk_err e;
    assert_int_equal(update_shape_for_size(&f->s, 8 << 20, &e), CUZK_OK);
    assert_int_equal(fc_sparse_update(&f->u, &f->s, f->s.hs[3], 21, &e), CUZK_OK);
    f->pub = fc_update_public(&f->u, 0);
}

static int verify(fixture *f, cuzk_err *e)
{
    return fc_update_verify(&f->s, &f->pub, f->u.parts, f->u.n_partitions, e);
}

/* f fails with CUZK_EVERIFY and a message starting with head and holding what. */
static void expect_fault(fixture *f, const char *head, const char *what)
{
    cuzk_err e = {0};
    int rc = verify(f, &e);
    if (rc != CUZK_EVERIFY || strncmp(e.msg, head, strlen(head)) || !strstr(e.msg, what))
        fail_msg("got %d \"%s\", want \"%s...%s\"", rc, e.msg, head, what);
}

static void test_good(void **state)
{
    (void)state;
    fixture f;
    sparse_8mib(&f);
    cuzk_err e;
    assert_int_equal(verify(&f, &e), CUZK_OK);
    fc_update_free(&f.u);

    cuzk_rng g;
    test_rng(&g);
    assert_int_equal(update_shape_for_size(&f.s, 2048, &e), CUZK_OK);
    fr_t *lab = malloc(2 * f.s.nodes * sizeof(fr_t));
    assert_non_null(lab);
    for (size_t i = 0; i < 2 * f.s.nodes; i++) fr_random(&lab[i], &g);
    vanilla_node comm_c;
    fr_t c;
    fr_random(&c, &g);
    fr_to_bytes_le(comm_c.b, &c);
    assert_int_equal(
        fc_gen_update(&f.u, &f.s, f.s.hs[3], lab, &comm_c, &lab[f.s.nodes], NULL, NULL, &e),
        CUZK_OK);
    f.pub = fc_update_public(&f.u, 0);
    assert_int_equal(verify(&f, &e), CUZK_OK);
    f.u.parts[0].challenges[9].d_new.hashes[2].b[5] ^= 4;
    expect_fault(&f, "update partition 0, challenge 9 (node ",
                 "the tree-D-new path does not hash to comm_d_new");
    fc_update_free(&f.u);
    free(lab);
}

typedef void alter_fn(fixture *f, vanilla_update_challenge *ch);

static void r_old_sibling(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->r_old.hashes[0].b[0] ^= 1;
}
static void r_old_leaf(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->r_old.leaf.b[7] ^= 0x10;
}
static void r_new_sibling(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->r_new.hashes[3 * 7 + 2].b[1] ^= 1; /* level 3 */
}
static void d_new_sibling(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->d_new.hashes[0].b[0] ^= 1;
}
static void d_new_upper(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->d_new.hashes[17].b[0] ^= 1; /* the partition path, above the apex row 9 */
}
static void not_canonical(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    memset(ch->r_old.hashes[1].b, 0xff, 32);
}
static void other_node(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->d_new.index ^= 1;
}
static void root_field(fixture *f, vanilla_update_challenge *ch)
{
    (void)f;
    ch->r_new.root.b[0] ^= 1;
}

static void test_challenge_faults(void **state)
{
    (void)state;
    static const struct {
        alter_fn *fn;
        const char *what;
    } cases[] = {
        {r_old_sibling, "the tree-R-old path does not hash to the root in comm_r_old"},
        {r_old_leaf, "the tree-R-old path does not hash to the root in comm_r_old"},
        {r_new_sibling, "the tree-R-new path does not hash to the root in comm_r_new"},
        {d_new_sibling, "the tree-D-new path does not hash to comm_d_new"},
        {d_new_upper, "the tree-D-new path does not hash to comm_d_new"},
        {not_canonical, "the tree-R-old path has a leaf or sibling >= r"},
        {other_node, "the tree-D-new path is for node "},
        {root_field, "the tree-R-new proof names another root"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        sparse_8mib(&f);
        vanilla_update_challenge *ch = &f.u.parts[2].challenges[5];
        char head[96];
        snprintf(head, sizeof head,
                 "update partition 2, challenge 5 (node %" PRIu64 "): ", ch->r_old.index);
        cases[i].fn(&f, ch);
        expect_fault(&f, head, cases[i].what);
        fc_update_free(&f.u);
    }
}

static void test_partition_faults(void **state)
{
    (void)state;
    fixture f;
    sparse_8mib(&f);
    f.u.parts[2].apex_leafs[7].b[3] ^= 1;
    expect_fault(&f, "update partition 2: ", "the apex leaves do not hash to comm_d_new");
    fc_update_free(&f.u);

    sparse_8mib(&f);
    f.u.parts[1].comm_c.b[0] ^= 1;
    expect_fault(&f,
                 "update partition 1: ", "comm_r_old is not Poseidon(comm_c, the tree-R-old root");
    fc_update_free(&f.u);

    sparse_8mib(&f);
    f.pub.comm_r_new = f.pub.comm_r_old;
    expect_fault(&f,
                 "update partition 0: ", "comm_r_new is not Poseidon(comm_c, the tree-R-new root");
    f.pub = fc_update_public(&f.u, 0);
    f.pub.comm_d_new.b[0] ^= 1;
    expect_fault(&f, "update partition 0: ", "the apex leaves do not hash to comm_d_new");
    f.pub = fc_update_public(&f.u, 0);
    f.pub.h = f.s.hs[2]; /* another rho for every group */
    char head[96];
    snprintf(head, sizeof head, "update partition 0, challenge 0 (node %" PRIu64 "): ",
             f.u.parts[0].challenges[0].r_new.index);
    expect_fault(&f, head, "the new replica leaf is not the encoding old + new data x rho (h = 9)");
    fc_update_free(&f.u);
}

static void test_first_in_order(void **state)
{
    (void)state;
    fixture f;
    sparse_8mib(&f);
    f.u.parts[3].challenges[1].r_old.hashes[4].b[0] ^= 1;
    f.u.parts[1].challenges[8].r_new.hashes[4].b[0] ^= 1;
    expect_fault(&f, "update partition 1, challenge 8 (node ", "tree-R-new");
    f.u.parts[1].comm_c.b[0] ^= 1;
    expect_fault(&f, "update partition 1: ", "comm_r_old");
    fc_update_free(&f.u);
}

static void test_shape_errors(void **state)
{
    (void)state;
    fixture f;
    sparse_8mib(&f);
    cuzk_err e;
    assert_int_equal(fc_update_verify(&f.s, &f.pub, f.u.parts, 3, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "3 partition proofs, the sector has 4"));
    f.u.parts[2].tree_d.levels--;
    assert_int_equal(verify(&f, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "update partition 2:"));
    f.u.parts[2].tree_d.levels++;
    f.pub.h = 3;
    assert_int_equal(verify(&f, &e), CUZK_EINVAL);
    assert_non_null(strstr(e.msg, "h = 3"));
    fc_update_free(&f.u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_challenge_faults),
        cmocka_unit_test(test_partition_faults),
        cmocka_unit_test(test_first_in_order),
        cmocka_unit_test(test_shape_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
