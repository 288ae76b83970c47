/*
 * matrix.c - dense Fr matrices for Poseidon's preprocessing (see matrix.h).
 * Sizes are tiny (n <= 37) and everything runs once per arity, so the code
 * is the plain cubic algorithms; the inverse is unique, so any elimination
 * order yields neptune's values.
 */
#include "matrix.h"

#include <stdlib.h>
#include <string.h>

void pmat_mul(fr_t *out, const fr_t *a, const fr_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            fr_t acc = FR_ZERO, t;
            for (size_t k = 0; k < n; k++) {
                fr_mul(&t, &a[i * n + k], &b[k * n + j]);
                fr_add(&acc, &acc, &t);
            }
            out[i * n + j] = acc;
        }
}

/* row[r] -= f * row[p] over columns of w and of the shadow s. */
static void eliminate_row(fr_t *w, fr_t *s, size_t n, size_t r, size_t p, const fr_t *f)
{
    fr_t t;
    for (size_t j = 0; j < n; j++) {
        fr_mul(&t, f, &w[p * n + j]);
        fr_sub(&w[r * n + j], &w[r * n + j], &t);
        fr_mul(&t, f, &s[p * n + j]);
        fr_sub(&s[r * n + j], &s[r * n + j], &t);
    }
}

static void swap_rows(fr_t *m, size_t n, size_t a, size_t b)
{
    for (size_t j = 0; j < n; j++) {
        fr_t t = m[a * n + j];
        m[a * n + j] = m[b * n + j];
        m[b * n + j] = t;
    }
}

/* Column c of w: pivot (swapped to row c), normalised, eliminated elsewhere. */
static bool reduce_column(fr_t *w, fr_t *s, size_t n, size_t c)
{
    size_t p = c;
    while (p < n && fr_is_zero(&w[p * n + c])) p++;
    if (p == n) return false;
    swap_rows(w, n, p, c);
    swap_rows(s, n, p, c);
    fr_t inv;
    fr_inv(&inv, &w[c * n + c]);
    for (size_t j = 0; j < n; j++) {
        fr_mul(&w[c * n + j], &w[c * n + j], &inv);
        fr_mul(&s[c * n + j], &s[c * n + j], &inv);
    }
    for (size_t r = 0; r < n; r++) {
        if (r == c || fr_is_zero(&w[r * n + c])) continue;
        fr_t f = w[r * n + c];
        eliminate_row(w, s, n, r, c, &f);
    }
    return true;
}

bool pmat_invert(fr_t *out, const fr_t *a, size_t n, bool *oom)
{
    *oom = false;
    fr_t *w = malloc(n * n * sizeof(fr_t));
    if (!w) {
        *oom = true;
        return false;
    }
    memcpy(w, a, n * n * sizeof(fr_t));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) out[i * n + j] = i == j ? FR_ONE : FR_ZERO;
    bool ok = true;
    for (size_t c = 0; c < n && ok; c++) ok = reduce_column(w, out, n, c);
    free(w);
    return ok;
}

void pmat_apply(fr_t *out, const fr_t *m, const fr_t *v, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        fr_t acc = FR_ZERO, t;
        for (size_t i = 0; i < n; i++) {
            fr_mul(&t, &m[i * n + j], &v[i]);
            fr_add(&acc, &acc, &t);
        }
        out[j] = acc;
    }
}

void pmat_minor00(fr_t *out, const fr_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = 1; j < n; j++) out[(i - 1) * (n - 1) + (j - 1)] = a[i * n + j];
}
