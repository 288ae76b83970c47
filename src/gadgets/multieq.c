/*
 * multieq.c - bellpepper's MultiEq batching of equalities.
 *
 * The pending left-hand side of the addmany path is a list of packed terms
 * (key << 32 | k << 1 | negative, key i + 1 = aux i) standing for
 * +-2^k * variable; the ONE terms (constant and negated bits) of one
 * addition are summed as an integer and folded into the batch's ONE
 * coefficient with one multiplication by 2^shift. When the batch is emitted the list is sorted by a
 * natural merge sort (the terms of one operand arrive in ascending or
 * descending runs, so few passes are needed), equal keys are summed and
 * the combination is appended in variable order, which is cs_lc's order.
 * Terms from the generic multieq_enforce_equal are merged in on top, and
 * the right-hand side (fresh result bits in allocation order) is appended
 * directly.
 */
#include "cuzk/gadgets/multieq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static fr_t pow2_table[256];
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void pow2_init(void)
{
    pow2_table[0] = FR_ONE;
    for (size_t k = 1; k < 256; k++) fr_dbl(&pow2_table[k], &pow2_table[k - 1]);
}

const fr_t *fr_pow2(size_t k)
{
    pthread_once(&pow2_once, pow2_init);
    return &pow2_table[k];
}

void multieq_init(multieq *m, cs_t *cs)
{
    memset(m, 0, sizeof(*m));
    m->cs = cs;
    m->count_only = !cs_needs_constraints(cs);
    pthread_once(&pow2_once, pow2_init);
}

static void reverse(uint64_t *a, size_t n)
{
    for (size_t i = 0, j = n - 1; i < j; i++, j--) {
        uint64_t t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

static void merge(uint64_t *dst, const uint64_t *src, size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, w = lo;
    while (i < mid && j < hi) dst[w++] = src[j] < src[i] ? src[j++] : src[i++];
    while (i < mid) dst[w++] = src[i++];
    while (j < hi) dst[w++] = src[j++];
}

/* Sorts a[0..n) using tmp (n words) and runs (n + 1 offsets); returns the
 * buffer (a or tmp) that holds the result. */
static uint64_t *sort_terms(uint64_t *a, uint64_t *tmp, uint32_t *runs, size_t n)
{
    size_t nr = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        if (j < n && a[j] < a[i]) {
            while (j < n && a[j] < a[j - 1]) j++;
            reverse(a + i, j - i);
        } else {
            while (j < n && a[j] >= a[j - 1]) j++;
        }
        runs[nr++] = (uint32_t)i;
        i = j;
    }
    runs[nr] = (uint32_t)n;
    uint64_t *src = a, *dst = tmp;
    while (nr > 1) {
        size_t out = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nr ? runs[r + 2] : mid;
            merge(dst, src, lo, mid, hi);
            runs[out++] = (uint32_t)lo;
        }
        runs[out] = (uint32_t)n;
        nr = out;
        uint64_t *t = src;
        src = dst, dst = t;
    }
    return src;
}

/* The coefficient of a packed term: +-2^k. */
static void term_coeff(fr_t *c, uint64_t t)
{
    const fr_t *p = &pow2_table[(t >> 1) & 0xff];
    if (t & 1)
        fr_neg(c, p);
    else
        *c = *p;
}

/* Appends the sorted packed terms to lhs, one term per variable. */
static void append_terms(cs_lc *lhs, const uint64_t *t, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t key = (uint32_t)(t[i] >> 32);
        fr_t sum, c;
        term_coeff(&sum, t[i++]);
        for (; i < n && (uint32_t)(t[i] >> 32) == key; i++) {
            term_coeff(&c, t[i]);
            fr_add(&sum, &sum, &c);
        }
        lc_add_term(lhs, (cs_var){key - 1, CS_AUX}, &sum);
    }
}

/* Adds the current addition's ONE coefficient (an integer below
 * 10 * 2^32, at the addition's shift) to the batch's. */
static void fold_one(multieq *m)
{
    if (!m->one_cur) return;
    fr_t c;
    fr_from_u64(&c, m->one_cur);
    fr_mul(&c, &c, &pow2_table[m->shift]);
    fr_add(&m->one_sum, &m->one_sum, &c);
    m->one_cur = 0;
}

/* bellpepper's accumulate(): lhs * ONE = rhs, then an empty batch. */
static void emit(multieq *m)
{
    if (m->count_only) {
        cs_enforce_skip(m->cs, 1);
        m->bits_used = 0;
        m->ops++;
        return;
    }
    fold_one(m);
    lc_clear(&m->lhs);
    if (m->has_one) lc_add_term(&m->lhs, cs_one(), &m->one_sum);
    if (m->len) append_terms(&m->lhs, sort_terms(m->terms, m->tmp, m->runs, m->len), m->len);
    lc_add_lc(&m->lhs, &m->lhs_extra);
    cs_lc one = {0};
    lc_add_var(&one, cs_one());
    cs_enforce(m->cs, &m->lhs, &one, &m->rhs);
    lc_clear(&m->lhs_extra), lc_clear(&m->rhs);
    m->len = 0;
    m->has_one = false;
    m->one_sum = FR_ZERO;
    m->bits_used = 0;
    m->ops++;
}

/* Makes the pending batch fit num_bits more, emitting it first if needed. */
static size_t reserve_bits(multieq *m, size_t num_bits)
{
    if (FR_CAPACITY <= m->bits_used + num_bits) emit(m);
    if (FR_CAPACITY <= num_bits)
        cs_fail(m->cs, CUZK_EINVAL, "multieq: an equality of %zu bits exceeds the capacity %d",
                num_bits, FR_CAPACITY);
    size_t shift = m->bits_used;
    m->bits_used += num_bits;
    return shift;
}

int multieq_enforce_equal(multieq *m, size_t num_bits, const cs_lc *lhs, const cs_lc *rhs)
{
    size_t shift = reserve_bits(m, num_bits);
    if (cs_status(m->cs) || m->count_only) return cs_status(m->cs);
    lc_add_scaled_lc(&m->lhs_extra, &pow2_table[shift], lhs);
    lc_add_scaled_lc(&m->rhs, &pow2_table[shift], rhs);
    return cs_status(m->cs);
}

size_t multieq_begin(multieq *m, size_t num_bits)
{
    fold_one(m);
    m->shift = reserve_bits(m, num_bits);
    return m->shift;
}

static int grow(multieq *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *t = realloc(m->terms, cap * sizeof(*t));
    if (t) m->terms = t;
    uint64_t *s = realloc(m->tmp, cap * sizeof(*s));
    if (s) m->tmp = s;
    uint32_t *r = realloc(m->runs, (cap + 1) * sizeof(*r));
    if (r) m->runs = r;
    if (!t || !s || !r || cap > UINT32_MAX)
        return cs_fail(m->cs, CUZK_ENOMEM, "multieq: %zu pending terms", m->len);
    m->cap = cap;
    return 0;
}

static void push(multieq *m, uint32_t key, size_t k, unsigned negative)
{
    if (m->len == m->cap && grow(m)) return;
    m->terms[m->len++] = (uint64_t)key << 32 | (uint64_t)k << 1 | negative;
}

void multieq_lhs_bool(multieq *m, bool_var b, size_t k)
{
    if (m->count_only) return;
    if (b.kind == BOOL_IS) {
        push(m, b.var + 1, k, 0);
        return;
    }
    if (b.kind == BOOL_NOT) push(m, b.var + 1, k, 1);
    if (b.kind == BOOL_NOT || b.value) {
        m->one_cur += (uint64_t)1 << (k - m->shift);
        m->has_one = true;
    }
}

void multieq_rhs_bit(multieq *m, bool_var bit, size_t k)
{
    if (m->count_only) return;
    lc_add_term(&m->rhs, bool_cs_var(bit), &pow2_table[k]);
}

int multieq_finish(multieq *m)
{
    if (m->bits_used > 0 && !cs_status(m->cs)) emit(m);
    free(m->terms), free(m->tmp), free(m->runs);
    lc_free(&m->lhs_extra), lc_free(&m->lhs), lc_free(&m->rhs);
    int rc = cs_status(m->cs);
    memset(m, 0, sizeof(*m));
    return rc;
}
