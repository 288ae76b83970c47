/*
 * lc.c - linear combinations: up to CS_LC_INLINE terms inside the struct,
 * a heap array past that (capacity doubles), terms kept sorted by variable
 * (inputs first) with one term per variable.
 *
 * Like bellpepper's LinearCombination, adding a variable that is already
 * present adds to its coefficient, and a coefficient that cancels to zero
 * stays as a term (bellperson then skips it when it evaluates and tracks
 * density; so do our backends). Appending in increasing variable order,
 * the common case in gadgets, costs one comparison; a repeat of the last
 * touched variable is found through `hint` (bellpepper's last_inserted);
 * anything else is a binary search and an insertion. Combining two
 * combinations is one merge of two sorted lists, done from the back in
 * place. Keeping up to 4 terms inline matters: bellpepper's indexer made
 * 780 million heap allocations per 32 GiB partition before the same change.
 */
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

static cs_term *terms_mut(cs_lc *lc)
{
    return lc->heap ? lc->heap : lc->inl;
}

static size_t capacity(const cs_lc *lc)
{
    return lc->heap ? lc->cap : CS_LC_INLINE;
}

void lc_zero(cs_lc *lc)
{
    memset(lc, 0, sizeof(*lc));
}

void lc_clear(cs_lc *lc)
{
    lc->len = 0;
    lc->hint = 0;
    lc->status = 0;
}

void lc_free(cs_lc *lc)
{
    free(lc->heap);
    lc_zero(lc);
}

/* Room for need terms; on failure the lc is marked CUZK_ENOMEM. */
static int reserve(cs_lc *lc, size_t need)
{
    if (need <= capacity(lc)) return 0;
    if (need > UINT32_MAX) return lc->status = CUZK_ENOMEM;
    size_t cap = capacity(lc) * 2;
    if (cap < need) cap = need;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    cs_term *t =
        lc->heap ? realloc(lc->heap, cap * sizeof(cs_term)) : malloc(cap * sizeof(cs_term));
    if (!t) return lc->status = CUZK_ENOMEM;
    if (!lc->heap) memcpy(t, lc->inl, lc->len * sizeof(cs_term));
    lc->heap = t;
    lc->cap = (uint32_t)cap;
    return 0;
}

/* First position whose key is >= k. */
static uint32_t lower_bound(const cs_term *t, uint32_t n, uint64_t k)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cs_var_key(t[mid].var) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int upsert(cs_lc *lc, cs_var var, const fr_t *coeff)
{
    if (lc->status) return lc->status;
    cs_term *t = terms_mut(lc);
    uint32_t n = lc->len, pos = n;
    uint64_t k = cs_var_key(var);
    if (n > 0 && cs_var_key(t[n - 1].var) >= k) {
        pos = lc->hint < n && cs_var_key(t[lc->hint].var) == k ? lc->hint : lower_bound(t, n, k);
        if (cs_var_key(t[pos].var) == k) {
            fr_add(&t[pos].coeff, &t[pos].coeff, coeff);
            lc->hint = pos;
            return 0;
        }
    }
    if (reserve(lc, (size_t)n + 1)) return lc->status;
    t = terms_mut(lc);
    if (pos < n) memmove(&t[pos + 1], &t[pos], (n - pos) * sizeof(cs_term));
    t[pos].var = var;
    t[pos].coeff = *coeff;
    lc->len = n + 1;
    lc->hint = pos;
    return 0;
}

int lc_add_term(cs_lc *lc, cs_var var, const fr_t *coeff)
{
    return upsert(lc, var, coeff);
}

int lc_sub_term(cs_lc *lc, cs_var var, const fr_t *coeff)
{
    fr_t neg;
    fr_neg(&neg, coeff);
    return upsert(lc, var, &neg);
}

int lc_add_var(cs_lc *lc, cs_var var)
{
    return upsert(lc, var, &FR_ONE);
}

int lc_sub_var(cs_lc *lc, cs_var var)
{
    fr_t neg;
    fr_neg(&neg, &FR_ONE);
    return upsert(lc, var, &neg);
}

enum merge_op { MERGE_ADD, MERGE_SUB, MERGE_SCALED };

static void apply(fr_t *out, const fr_t *c, enum merge_op op, const fr_t *scale)
{
    if (op == MERGE_ADD)
        *out = *c;
    else if (op == MERGE_SUB)
        fr_neg(out, c);
    else
        fr_mul(out, c, scale);
}

/*
 * lc op= other: a backward merge into lc's own array grown to len + other
 * len, then the result (which ends at the array's end) moves to the front.
 * Writing position w never passes the unread part of lc: w - i equals the
 * number of other's unread terms plus the merges so far.
 */
/* lc op= lc: every term meets itself, so the coefficients scale by 2, 0 or
 * 1 + scale (terms stay, as in a merge). */
static int merge_self(cs_lc *lc, enum merge_op op, const fr_t *scale)
{
    fr_t f = FR_ZERO;
    if (op == MERGE_ADD) fr_dbl(&f, &FR_ONE);
    if (op == MERGE_SCALED) fr_add(&f, &FR_ONE, scale);
    lc_scale(lc, &f);
    return 0;
}

static int merge(cs_lc *lc, const cs_lc *other, enum merge_op op, const fr_t *scale)
{
    if (lc->status) return lc->status;
    if (other == lc) return merge_self(lc, op, scale);
    if (other->status) return lc->status = other->status;
    size_t n = lc->len, m = other->len;
    if (m == 0) return 0;
    if (reserve(lc, n + m)) return lc->status;
    cs_term *t = terms_mut(lc);
    const cs_term *o = lc_terms(other);
    ptrdiff_t i = (ptrdiff_t)n - 1, j = (ptrdiff_t)m - 1, w = (ptrdiff_t)(n + m) - 1;
    while (j >= 0) {
        uint64_t ko = cs_var_key(o[j].var);
        if (i >= 0 && cs_var_key(t[i].var) > ko) {
            t[w--] = t[i--];
            continue;
        }
        fr_t c;
        apply(&c, &o[j].coeff, op, scale);
        if (i >= 0 && cs_var_key(t[i].var) == ko) {
            fr_add(&t[w].coeff, &t[i].coeff, &c);
            t[w--].var = t[i--].var;
        } else {
            t[w].var = o[j].var;
            t[w--].coeff = c;
        }
        j--;
    }
    while (i >= 0 && w > i) t[w--] = t[i--];
    size_t first = (size_t)(w - i), len = n + m - first;
    if (first) memmove(t, &t[first], len * sizeof(cs_term));
    lc->len = (uint32_t)len;
    lc->hint = (uint32_t)len - 1;
    return 0;
}

int lc_add_lc(cs_lc *lc, const cs_lc *other)
{
    return merge(lc, other, MERGE_ADD, NULL);
}
int lc_sub_lc(cs_lc *lc, const cs_lc *other)
{
    return merge(lc, other, MERGE_SUB, NULL);
}
int lc_add_scaled_lc(cs_lc *lc, const fr_t *coeff, const cs_lc *other)
{
    return merge(lc, other, MERGE_SCALED, coeff);
}

void lc_scale(cs_lc *lc, const fr_t *coeff)
{
    cs_term *t = terms_mut(lc);
    for (uint32_t i = 0; i < lc->len; i++) fr_mul(&t[i].coeff, &t[i].coeff, coeff);
}

int lc_copy(cs_lc *dst, const cs_lc *src)
{
    lc_clear(dst);
    if (src->status) return dst->status = src->status;
    if (reserve(dst, src->len)) return dst->status;
    memcpy(terms_mut(dst), lc_terms(src), src->len * sizeof(cs_term));
    dst->len = src->len;
    return 0;
}

void lc_eval(fr_t *out, const cs_lc *lc, const fr_t *input, const fr_t *aux)
{
    fr_t acc = FR_ZERO, tmp;
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        const fr_t *x = t[i].var.kind == CS_INPUT ? &input[t[i].var.index] : &aux[t[i].var.index];
        if (fr_is_zero(&t[i].coeff)) continue;
        if (fr_is_one(&t[i].coeff)) {
            fr_add(&acc, &acc, x);
        } else {
            fr_mul(&tmp, x, &t[i].coeff);
            fr_add(&acc, &acc, &tmp);
        }
    }
    *out = acc;
}

void lc_mark_density(const cs_lc *lc, uint64_t *input_bits, uint64_t *aux_bits)
{
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        uint64_t *bits = t[i].var.kind == CS_INPUT ? input_bits : aux_bits;
        if (bits && !fr_is_zero(&t[i].coeff)) bit_set(bits, t[i].var.index);
    }
}
