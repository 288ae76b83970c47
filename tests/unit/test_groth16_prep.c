/*
 * test_groth16_prep.c - prep_msm of the Groth16 provers
 * (groth16_jobs_prepare, prove_internal.h), which the CPU and GPU provers
 * share: on a prover view with random densities and a bit-heavy
 * assignment (zeros, ones and random values), large enough for several
 * parallel blocks (and a partial last one), the ones bitmaps, the tails
 * and their positions, and the gathered A and B scalars of the jobs that
 * do not split (bit-heavy and mostly random assignments give both kinds)
 * equal those of a naive sequential pass, and the sizes and tails that
 * groth16_jobs_count gives without making the jobs (the GPU plan's count)
 * equal the jobs'; a shape that does not match the parameters is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "groth16/prove_internal.h"
#include "testutil.h"

typedef struct view {
    cs_prover w;
    groth16_params pk; /* only the counts */
} view;

static void random_bitmap(cs_bitmap *m, size_t n, cuzk_rng *g)
{
    m->nbits = n;
    m->words = calloc(n / 64 + 1, sizeof(uint64_t));
    for (size_t i = 0; i < n; i++)
        if (cuzk_rng_u64(g) % 4) m->words[i / 64] |= (uint64_t)1 << (i % 64);
}

/* zeros, ones and random values; dense: mostly random (jobs that do not
 * split) */
static void random_scalar(fr_t *s, bool dense, cuzk_rng *g)
{
    uint64_t r = cuzk_rng_u64(g) % 10;
    if (r < (dense ? 1u : 4u))
        *s = FR_ZERO;
    else if (r < (dense ? 2u : 8u))
        *s = FR_ONE;
    else
        fr_random(s, g);
}

static void make_view(view *v, size_t n_in, size_t n_aux, bool dense, cuzk_rng *g)
{
    memset(v, 0, sizeof *v);
    cs_prover *w = &v->w;
    w->num_inputs = n_in;
    w->num_aux = n_aux;
    w->input_assignment = malloc(sizeof(fr_t) * n_in);
    w->aux_assignment = malloc(sizeof(fr_t) * n_aux);
    for (size_t i = 0; i < n_in; i++) random_scalar(&w->input_assignment[i], dense, g);
    for (size_t i = 0; i < n_aux; i++) random_scalar(&w->aux_assignment[i], dense, g);
    random_bitmap(&w->a_aux_density, n_aux, g);
    random_bitmap(&w->b_input_density, n_in, g);
    random_bitmap(&w->b_aux_density, n_aux, g);
    v->pk.vk.n_ic = n_in;
    v->pk.n_l = n_aux;
    v->pk.n_a = n_in + cs_bitmap_popcount(&w->a_aux_density);
    v->pk.n_b_g1 = v->pk.n_b_g2 =
        cs_bitmap_popcount(&w->b_input_density) + cs_bitmap_popcount(&w->b_aux_density);
}

static void free_view(view *v)
{
    cs_prover *w = &v->w;
    free(w->input_assignment), free(w->aux_assignment);
    free(w->a_aux_density.words), free(w->b_input_density.words), free(w->b_aux_density.words);
}

/* The job against a sequential classification of scalars[0..n); own: the
 * job's gathered scalars (A, B: sa, sb), made only when it does not split;
 * NULL for L, whose scalars are the aux assignment itself. */
static void check_job(const groth16_msm_job *j, const fr_t *scalars, size_t n, bool gathered,
                      const fr_t *own)
{
    assert_int_equal(j->n, n);
    if (gathered && j->split) {
        assert_null(own);
        assert_null(j->scalars);
    } else {
        if (gathered) assert_ptr_equal(j->scalars, own);
        assert_memory_equal(j->scalars, scalars, n * sizeof(fr_t));
    }
    size_t tail = 0;
    for (size_t i = 0; i < n; i++) {
        bool one = fr_eq(&scalars[i], &FR_ONE);
        assert_int_equal((j->ones[i / 64] >> (i % 64)) & 1, one);
        if (one || fr_is_zero(&scalars[i])) continue;
        if (j->split) {
            assert_memory_equal(&j->tail[tail], &scalars[i], sizeof(fr_t));
            assert_int_equal(j->tail_idx[tail], i);
        }
        tail++;
    }
    assert_int_equal(j->n_tail, tail);
    assert_int_equal(j->split, msm_split_worthwhile(tail, n));
}

/* inputs (all, or by density) then aux by density, sequentially */
static size_t naive_gather(fr_t *out, const cs_prover *w, const cs_bitmap *in_d,
                           const cs_bitmap *aux_d)
{
    size_t k = 0;
    for (size_t i = 0; i < w->num_inputs; i++)
        if (!in_d || cs_bitmap_get(in_d, i)) out[k++] = w->input_assignment[i];
    for (size_t i = 0; i < w->num_aux; i++)
        if (cs_bitmap_get(aux_d, i)) out[k++] = w->aux_assignment[i];
    return k;
}

static void test_prepare(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    const size_t sizes[] = {0, 1, 63, 64, 1000, 3 * 65536 + 12345};
    size_t split = 0, whole = 0;
    for (int dense = 0; dense < 2; dense++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            view v;
            make_view(&v, 70, sizes[s], dense, &g); /* inputs over a bitmap word */
            groth16_jobs j;
            cuzk_err err;
            assert_int_equal(groth16_jobs_prepare(&j, &v.pk, &v.w, &err), CUZK_OK);
            fr_t *want = malloc(sizeof(fr_t) * (70 + sizes[s]));
            check_job(&j.l, v.w.aux_assignment, sizes[s], false, NULL);
            size_t na = naive_gather(want, &v.w, NULL, &v.w.a_aux_density);
            check_job(&j.a, want, na, true, j.sa);
            size_t nb = naive_gather(want, &v.w, &v.w.b_input_density, &v.w.b_aux_density);
            check_job(&j.b, want, nb, true, j.sb);
            split += j.a.split + j.b.split, whole += !j.a.split + !j.b.split;
            size_t n[3], nt[3];
            groth16_jobs_count(&v.w, n, nt);
            const groth16_msm_job *jobs[3] = {&j.l, &j.a, &j.b};
            for (int k = 0; k < 3; k++) {
                assert_int_equal(n[k], jobs[k]->n);
                assert_int_equal(nt[k], jobs[k]->n_tail);
            }
            groth16_jobs_free(&j);
            free(want);
            free_view(&v);
        }
    assert_true(split > 0 && whole > 0); /* both kinds of job were checked */
}

static void test_wrong_shape(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    view v;
    make_view(&v, 3, 500, false, &g);
    v.pk.n_a++;
    groth16_jobs j;
    cuzk_err err;
    assert_int_equal(groth16_jobs_prepare(&j, &v.pk, &v.w, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "does not match"));
    assert_null(j.sa);
    free_view(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prepare),
        cmocka_unit_test(test_wrong_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
