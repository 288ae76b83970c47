/*
 * batch_add_impl.h - batch-affine point addition, written once for G1 and
 * G2 (internal; included by msm_g1.c / msm_g2.c, see msm_impl.h for the
 * macros), and the bitmap-driven batch addition built on it.
 *
 * An affine addition P + Q needs 1/(x_Q - x_P). A batch collects up to
 * BAFF_CAP independent additions, keeps the running product of their
 * denominators, inverts it once and walks back (Montgomery's trick): each
 * addition then costs 5M+1S (prefix product, two multiplications to peel
 * its inverse off, slope, x3 = l^2 - x_P - x_Q, y3 = l (x_P - x3) - y_P)
 * plus 1/BAFF_CAP of an inversion, against 8M+2S for an XYZZ mixed
 * addition. Special cases are settled when an addition is pushed: either
 * input at infinity (a copy), P = -Q (infinity), P = Q (a doubling, slope
 * 3 x^2 / 2y, in the same batch).
 *
 * The outputs of a batch appear only when it is flushed, so an addition
 * may not read the output of another addition of the same batch; its own
 * output may alias its inputs.
 *
 * Run reduction (runs_reduce) sums many runs of points at once: every
 * level adds neighbours pairwise in all runs (one stream of batches),
 * halving each run, between two buffers. The bitmap batch addition gathers
 * the selected bases into one long run per thread (up to MSM_CHUNK points
 * at a time) and reduces it so.
 */

/*
 * Additions per inversion. An Fp inversion (safegcd) costs about 70
 * multiplications, so at 512 its share is negligible; the batch's working
 * set (denominators, prefix products, ops: 64 KiB for G1) stays near L1.
 * Measured at 2^17 points, c = 16: 256 and 512 alike, 1024 within noise,
 * 2048 10% slower.
 */
#define BAFF_CAP 512

/* op flags: negate a, negate b, the addition is a doubling */
enum { BAFF_NEG_A = 1, BAFF_NEG_B = 2, BAFF_DBL = 4 };

typedef struct G(baff_op) {
    G_AFF *out;
    const G_AFF *a, *b;
    unsigned flags;
} G(baff_op);

typedef struct G(baff) {
    G(baff_op) * ops;
    F_T *pre, *den; /* prefix products before each denominator; the denominators */
    F_T acc;        /* product of all denominators pushed */
    size_t n;
} G(baff);

static bool G(baff_init)(G(baff) * ctx)
{
    ctx->ops = malloc(BAFF_CAP * sizeof(*ctx->ops));
    ctx->pre = malloc(BAFF_CAP * sizeof(F_T));
    ctx->den = malloc(BAFF_CAP * sizeof(F_T));
    ctx->acc = F_ONE;
    ctx->n = 0;
    return ctx->ops && ctx->pre && ctx->den;
}

static void G(baff_free)(G(baff) * ctx)
{
    free(ctx->ops);
    free(ctx->pre);
    free(ctx->den);
}

static void G(aff_set_inf)(G_AFF *r)
{
    memset(r, 0, sizeof(*r));
}

/* All limbs zero, checked inline: usually the first limb decides. */
static inline bool G(limbs_zero)(const void *p, size_t bytes)
{
    const uint64_t *w = p;
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++)
        if (w[i]) return false;
    return true;
}
#define AFF_IS_INF(p) G(limbs_zero)(p, sizeof(G_AFF))
#define F_ZERO_INL(a) G(limbs_zero)(a, sizeof(F_T))

/* The y coordinate of p, negated when neg. */
static inline void G(y_signed)(F_T *r, const G_AFF *p, bool neg)
{
    if (neg)
        F_NEG(r, &p->y);
    else
        *r = p->y;
}

/* r = (neg ? -p : p) */
static inline void G(aff_signed)(G_AFF *r, const G_AFF *p, bool neg)
{
    if (neg)
        G(affine_neg)(r, p);
    else
        *r = *p;
}

/*
 * out = sa a + sb b for op's signs sa, sb, given t = 1 / den: 3M+1S, with
 * the signs folded into the choice of additions and subtractions (no
 * negation): with d = x_b - x_a and M = y_b - sa sb y_a, the slope is
 * l = sb M / d, so x3 = (M/d)^2 - x_a - x_b and
 * y3 = (M/d) (sb (x_a - x3)) - sa y_a. A doubling has its signed slope
 * 3 x_a^2 / (2 sa y_a) already (den from baff_push).
 */
static void G(baff_finish)(const G(baff_op) * op, const F_T *t)
{
    const G_AFF *a = op->a, *b = op->b;
    bool na = op->flags & BAFF_NEG_A, nb = op->flags & BAFF_NEG_B, dbl = op->flags & BAFF_DBL;
    F_T l, x3, y3;
    if (dbl) {
        F_SQR(&l, &a->x); /* 3 x^2 */
        F_DBL(&y3, &l);
        F_ADD(&l, &l, &y3);
        nb = false;
    } else if (na == nb) {
        F_SUB(&l, &b->y, &a->y);
    } else {
        F_ADD(&l, &b->y, &a->y);
    }
    F_MUL(&l, &l, t);
    F_SQR(&x3, &l);
    F_SUB(&x3, &x3, &a->x);
    F_SUB(&x3, &x3, &b->x);
    if (nb)
        F_SUB(&y3, &x3, &a->x);
    else
        F_SUB(&y3, &a->x, &x3);
    F_MUL(&y3, &y3, &l);
    if (na)
        F_ADD(&op->out->y, &y3, &a->y);
    else
        F_SUB(&op->out->y, &y3, &a->y);
    op->out->x = x3;
}

/* Completes the pending additions: one inversion, then 2M to peel each
 * inverse off the prefix products, and the points. */
static void G(baff_flush)(G(baff) * ctx)
{
    if (ctx->n == 0) return;
    F_T inv;
    F_INV(&inv, &ctx->acc);
    for (size_t k = ctx->n; k-- > 0;) {
        F_T t;
        F_MUL(&t, &inv, &ctx->pre[k]); /* 1 / den[k] */
        F_MUL(&inv, &inv, &ctx->den[k]);
        G(baff_finish)(&ctx->ops[k], &t);
    }
    ctx->n = 0;
    ctx->acc = F_ONE;
}

/*
 * Queues *out = (neg_a ? -*a : *a) + (neg_b ? -*b : *b), or settles it now
 * when an input is infinity or a = -b. out may alias a or b (it is written
 * before the flush only in those cases, from its own inputs).
 */
static void G(baff_push)(G(baff) * ctx, G_AFF *out, const G_AFF *a, bool neg_a, const G_AFF *b,
                         bool neg_b)
{
    if (AFF_IS_INF(b) || AFF_IS_INF(a)) {
        if (AFF_IS_INF(b))
            G(aff_signed)(out, a, neg_a);
        else
            G(aff_signed)(out, b, neg_b);
        return;
    }
    F_T d;
    unsigned flags = (neg_a ? BAFF_NEG_A : 0) | (neg_b ? BAFF_NEG_B : 0);
    F_SUB(&d, &b->x, &a->x);
    if (F_ZERO_INL(&d)) { /* b = a or b = -a */
        F_T ya, yb;
        G(y_signed)(&ya, a, neg_a);
        G(y_signed)(&yb, b, neg_b);
        if (!F_EQ(&yb, &ya) || F_IS_ZERO(&ya)) {
            G(aff_set_inf)(out);
            return;
        }
        flags |= BAFF_DBL;
        F_DBL(&d, &ya);
    }
    size_t k = ctx->n++;
    ctx->ops[k] = (G(baff_op)){out, a, b, flags};
    ctx->den[k] = d;
    ctx->pre[k] = ctx->acc;
    F_MUL(&ctx->acc, &ctx->acc, &d);
    if (ctx->n == BAFF_CAP) G(baff_flush)(ctx);
}

/*
 * Sums runs of points: run s holds len[s] points at buf[0] + start[s];
 * active lists the nact runs of length >= 2 (it and len are overwritten).
 * On return sum[s] points at the total of each listed run (in buf[0] or
 * buf[1]).
 */
static void G(runs_reduce)(G(baff) * ctx, G_AFF *buf[2], const uint32_t *start, uint32_t *len,
                           uint32_t *active, size_t nact, const G_AFF **sum)
{
    for (int src = 0; nact > 0; src ^= 1) {
        G_AFF *in = buf[src], *out = buf[src ^ 1];
        for (size_t i = 0; i < nact; i++) {
            uint32_t s = active[i], st = start[s], l = len[s];
            for (uint32_t j = 0; 2 * j + 1 < l; j++)
                G(baff_push)(ctx, &out[st + j], &in[st + 2 * j], false, &in[st + 2 * j + 1], false);
            if (l & 1) out[st + l / 2] = in[st + l - 1];
        }
        G(baff_flush)(ctx);
        size_t keep = 0;
        for (size_t i = 0; i < nact; i++) {
            uint32_t s = active[i];
            len[s] = (len[s] + 1) / 2;
            if (len[s] == 1)
                sum[s] = &out[start[s]];
            else
                active[keep++] = s;
        }
        nact = keep;
    }
}

/* ---- bitmap batch addition -------------------------------------------- */

/* Bitmap words per scheduling block: 2^10 words = 2^16 bases, enough blocks
 * for many threads at 2^20 bases (a thread keeps gathering across blocks). */
#define BITMAP_BLOCK_WORDS 1024

/* One thread's state: the gathered bases, and the sum of earlier runs. */
typedef struct G(bitmap_ws) {
    G(baff) baff;
    G_AFF *buf[2];
    uint32_t n;
    G_XYZZ sum;
} G(bitmap_ws);

/* Adds the gathered run into ws->sum and empties it. */
static void G(bitmap_ws_drain)(G(bitmap_ws) * ws)
{
    if (ws->n == 0) return;
    uint32_t start = 0, len = ws->n, active = 0;
    const G_AFF *sum = &ws->buf[0][0];
    G(runs_reduce)(&ws->baff, ws->buf, &start, &len, &active, len >= 2, &sum);
    if (!G(affine_is_inf)(sum)) G(xyzz_add_affine)(&ws->sum, &ws->sum, sum);
    ws->n = 0;
}

/* Gathers the bases base64[j] whose bit j is set. */
static void G(bitmap_ws_gather)(G(bitmap_ws) * ws, const G_AFF *base64, uint64_t bits)
{
    for (; bits; bits &= bits - 1) {
        ws->buf[0][ws->n++] = base64[__builtin_ctzll(bits)];
        if (ws->n == MSM_CHUNK) G(bitmap_ws_drain)(ws);
    }
}

static void G(bitmap_ws_free)(G(bitmap_ws) * ws, int t)
{
    for (int i = 0; i < t; i++) {
        G(baff_free)(&ws[i].baff);
        free(ws[i].buf[0]);
        free(ws[i].buf[1]);
    }
    free(ws);
}

static G(bitmap_ws) * G(bitmap_ws_alloc)(int t)
{
    G(bitmap_ws) *ws = calloc((size_t)t, sizeof(*ws));
    bool ok = ws != NULL;
    for (int i = 0; ok && i < t; i++) {
        ok = G(baff_init)(&ws[i].baff);
        ws[i].buf[0] = malloc(MSM_CHUNK * sizeof(G_AFF));
        ws[i].buf[1] = malloc(MSM_CHUNK * sizeof(G_AFF));
        ok = ok && ws[i].buf[0] && ws[i].buf[1];
        G(xyzz_set_inf)(&ws[i].sum);
    }
    if (!ok && ws) G(bitmap_ws_free)(ws, t), ws = NULL;
    return ws;
}

/* Sums the bases selected by the bitmap words (the last word masked to n). */
int G(batch_add_bitmap)(G_JAC *r, const G_AFF *bases, const uint64_t *bitmap, size_t n, int threads,
                        cuzk_err *err)
{
    size_t words = n / 64, blocks = (words + BITMAP_BLOCK_WORDS - 1) / BITMAP_BLOCK_WORDS;
    int t = msm_threads(threads);
    if ((size_t)t > blocks) t = blocks ? (int)blocks : 1;
    G(bitmap_ws) *ws = G(bitmap_ws_alloc)(t);
    if (!ws) return cuzk_errf(err, CUZK_ENOMEM, "batch addition of %zu bases: out of memory", n);
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
    for (size_t k = 0; k < blocks; k++) {
        G(bitmap_ws) *mine = &ws[omp_get_thread_num()];
        size_t w1 = (k + 1) * BITMAP_BLOCK_WORDS;
        for (size_t w = k * BITMAP_BLOCK_WORDS; w < w1 && w < words; w++)
            G(bitmap_ws_gather)(mine, bases + 64 * w, bitmap[w]);
    }
    if (n % 64)
        G(bitmap_ws_gather)(&ws[0], bases + 64 * words, bitmap[words] & ((1ull << (n % 64)) - 1));
    G_XYZZ total;
    G(xyzz_set_inf)(&total);
    for (int i = 0; i < t; i++) {
        G(bitmap_ws_drain)(&ws[i]);
        G(xyzz_add)(&total, &total, &ws[i].sum);
    }
    G(xyzz_to_jac)(r, &total);
    G(bitmap_ws_free)(ws, t);
    return CUZK_OK;
}
