/*
 * fixed_base_impl.h - many scalars times one base (parameter generation),
 * written once for G1 and G2 (internal; included after batch_add_impl.h).
 *
 * A table holds, for each of the W = ceil(255 / w) windows j, the points
 * d 2^(wj) P for d = 1 .. 2^(w-1); it is built in Jacobian coordinates
 * (w doublings between rows, one mixed addition per entry, rows in
 * parallel) and converted to affine once per row. Scalars are folded and
 * Booth-recoded exactly as for Pippenger (msm_internal.h), so each output
 * is a sum of at most W signed table entries. A block of outputs is
 * accumulated window by window: the additions of one window are
 * independent, so they run as batch-affine additions, and the outputs come
 * out affine with no final conversion.
 */

/* Outputs per block: one batch-affine flush per window and block. */
#define FB_BLOCK BAFF_CAP

/* rows[j] = 2^(wj) P as affine points, j < nrows. */
static bool G(fb_row_bases)(G_AFF *rows, const G_AFF *base, unsigned w, unsigned nrows)
{
    G_JAC *jac = malloc(nrows * sizeof(G_JAC));
    if (!jac) return false;
    G(jac_from_affine)(&jac[0], base);
    for (unsigned j = 1; j < nrows; j++) {
        jac[j] = jac[j - 1];
        for (unsigned i = 0; i < w; i++) G(jac_dbl)(&jac[j], &jac[j]);
    }
    G(jac_batch_to_affine)(rows, jac, nrows);
    free(jac);
    return true;
}

/* Row entries d rb for d = 1 .. size, through the Jacobian scratch tmp. */
static void G(fb_row_fill)(G_AFF *row, G_JAC *tmp, const G_AFF *rb, size_t size)
{
    G(jac_from_affine)(&tmp[0], rb);
    for (size_t d = 1; d < size; d++) G(jac_add_affine)(&tmp[d], &tmp[d - 1], rb);
    G(jac_batch_to_affine)(row, tmp, size);
}

/* The table of base for windows of w bits: nrows rows of 2^(w-1) entries. */
static G_AFF *G(fb_table)(const G_AFF *base, unsigned w, unsigned nrows, int t)
{
    size_t size = (size_t)1 << (w - 1);
    G_AFF *tab = malloc(nrows * size * sizeof(G_AFF)), *rows = malloc(nrows * sizeof(G_AFF));
    G_JAC *tmp = malloc((size_t)t * size * sizeof(G_JAC));
    bool ok = tab && rows && tmp && G(fb_row_bases)(rows, base, w, nrows);
    if (ok) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
        for (unsigned j = 0; j < nrows; j++) {
            G_JAC *mine = &tmp[(size_t)omp_get_thread_num() * size];
            G(fb_row_fill)(&tab[j * size], mine, &rows[j], size);
        }
    }
    free(rows), free(tmp);
    if (!ok) free(tab), tab = NULL;
    return tab;
}

/* out[i] = scalars[i] * P for one block of at most FB_BLOCK outputs. */
static void G(fb_block)(G(baff) * baff, G_AFF *out, const fr_t *scalars, size_t n, const G_AFF *tab,
                        unsigned w)
{
    msm_scalar sc[FB_BLOCK];
    size_t size = (size_t)1 << (w - 1);
    msm_scalars_fold(sc, scalars, NULL, n, 1);
    for (size_t i = 0; i < n; i++) G(aff_set_inf)(&out[i]);
    for (unsigned j = 0; j < msm_windows(w); j++) {
        for (size_t i = 0; i < n; i++) {
            int32_t d = msm_digit(&sc[i], j, w);
            if (d == 0) continue;
            const G_AFF *t = &tab[j * size + (size_t)abs(d) - 1];
            G(baff_push)(baff, &out[i], &out[i], false, t, d < 0);
        }
        G(baff_flush)(baff);
    }
}

int G(fixed_base_mul)(G_AFF *out, const G_AFF *base, const fr_t *scalars, size_t n, int threads,
                      cuzk_err *err)
{
    size_t blocks = (n + FB_BLOCK - 1) / FB_BLOCK;
    if (G(affine_is_inf)(base) || n == 0) {
        for (size_t i = 0; i < n; i++) G(aff_set_inf)(&out[i]);
        return CUZK_OK;
    }
    int t = msm_threads(threads);
    if ((size_t)t > blocks) t = (int)blocks;
    unsigned w = msm_fixed_window(n);
    G_AFF *tab = G(fb_table)(base, w, msm_windows(w), t);
    G(baff) *baff = calloc((size_t)t, sizeof(G(baff)));
    bool ok = tab && baff;
    for (int i = 0; ok && i < t; i++) ok = G(baff_init)(&baff[i]);
    if (ok) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
        for (size_t k = 0; k < blocks; k++) {
            size_t lo = k * FB_BLOCK, m = n - lo < FB_BLOCK ? n - lo : FB_BLOCK;
            G(fb_block)(&baff[omp_get_thread_num()], out + lo, scalars + lo, m, tab, w);
        }
    }
    for (int i = 0; baff && i < t; i++) G(baff_free)(&baff[i]);
    free(baff), free(tab);
    if (!ok)
        return cuzk_errf(err, CUZK_ENOMEM,
                         "fixed-base multiplication of %zu scalars: out of memory", n);
    return CUZK_OK;
}
