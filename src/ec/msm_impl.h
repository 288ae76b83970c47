/*
 * msm_impl.h - Pippenger's multi-scalar multiplication and the split MSM,
 * written once for G1 and G2 (internal).
 *
 * Included by msm_g1.c / msm_g2.c after defining:
 *   G(x)         the name prefix (g1_##x), with G_AFF, G_JAC, G_XYZZ
 *   F_T, F_ADD, F_SUB, F_DBL, F_NEG, F_MUL, F_SQR, F_INV, F_IS_ZERO, F_EQ,
 *   F_ONE        the coordinate field
 *   MSM_CHUNK    points sorted and reduced at a time (sizes the buffers)
 *   MSM_NAIVE_MAX up to this many points a plain sum of scalar
 *                multiplications is cheaper than any window
 * and batch_add_impl.h.
 *
 * Algorithm. Scalars are folded and Booth-recoded (msm_internal.h) into
 * W = ceil(255 / c) signed digits in [-2^(c-1), 2^(c-1)]; digit d of point
 * P goes to bucket |d| - 1 as sign(d) P. A task is one window over one
 * range of points (msm_plan_parts). It walks its range in chunks: digits
 * are computed and counted per bucket, and each point's offset and sign
 * written into its bucket's run (runs in bucket order); all runs are then
 * summed at once by batch-affine levels (the first straight from the
 * bases, the next ones in runs_reduce), and each run's sum is added to its
 * bucket, again batched. So every addition is batch-affine whatever the
 * digit distribution: a bucket hit by every point (all scalars 1) is just
 * one long run. The buckets are then reduced (buckets_reduce: batch-affine
 * row and column sums, then short running sums in XYZZ coordinates) and
 * the windows combined by Horner's rule with c doublings each. Tasks run
 * on OpenMP threads, each with its own buffers.
 */

typedef struct G(msm_ws) {
    G(baff) baff;
    G_AFF *buf[2]; /* run sums level by level */
    G_AFF *acc;    /* bucket sums, valid where has[] is set */
    uint8_t *has;
    int32_t *digit; /* the chunk's digits */
    uint32_t *ridx; /* the chunk's runs: point offsets in the chunk << 1 | negated */
    uint32_t *cnt;  /* points per bucket in the chunk, then scatter cursors */
    uint32_t *start, *len, *nonempty, *active;
    uint32_t npos;     /* run entries in the chunk */
    const G_AFF **sum; /* each run's total, negated where sumneg[] is set */
    uint8_t *sumneg;
} G(msm_ws);

static void G(msm_ws_free)(G(msm_ws) * ws, int t)
{
    for (int i = 0; ws && i < t; i++) {
        G(msm_ws) *w = &ws[i];
        G(baff_free)(&w->baff);
        free(w->buf[0]), free(w->buf[1]), free(w->acc), free(w->has), free(w->digit);
        free(w->ridx), free(w->cnt), free(w->start), free(w->len), free(w->nonempty);
        free(w->active), free(w->sum), free(w->sumneg);
    }
    free(ws);
}

/* Buffers for chunks of `chunk` points and nb buckets; buf also holds the
 * buckets in buckets_reduce. */
static bool G(msm_ws_init)(G(msm_ws) * w, size_t chunk, size_t nb)
{
    size_t nbuf = chunk > nb ? chunk : nb;
    bool ok = G(baff_init)(&w->baff);
    w->buf[0] = malloc(nbuf * sizeof(G_AFF));
    w->buf[1] = malloc(nbuf * sizeof(G_AFF));
    w->acc = malloc(nb * sizeof(G_AFF));
    w->has = malloc(nb);
    w->digit = malloc(chunk * sizeof(int32_t));
    w->ridx = malloc(chunk * sizeof(uint32_t));
    w->cnt = calloc(nb, sizeof(uint32_t));
    w->start = malloc(nb * sizeof(uint32_t));
    w->len = malloc(nb * sizeof(uint32_t));
    w->nonempty = malloc(nb * sizeof(uint32_t));
    w->active = malloc(nb * sizeof(uint32_t));
    w->sum = malloc(nb * sizeof(G_AFF *));
    w->sumneg = malloc(nb);
    return ok && w->buf[0] && w->buf[1] && w->acc && w->has && w->digit && w->ridx && w->cnt &&
           w->start && w->len && w->nonempty && w->active && w->sum && w->sumneg;
}

static G(msm_ws) * G(msm_ws_alloc)(int t, size_t chunk, size_t nb)
{
    G(msm_ws) *ws = calloc((size_t)t, sizeof(*ws));
    bool ok = ws != NULL;
    for (int i = 0; ok && i < t; i++) ok = G(msm_ws_init)(&ws[i], chunk, nb);
    if (!ok) G(msm_ws_free)(ws, t), ws = NULL;
    return ws;
}

/* Digits of points [c0, c1) in window w, counted per bucket in cnt. */
static void G(chunk_digits)(G(msm_ws) * ws, const msm_scalar *sc, size_t c0, size_t c1, unsigned w,
                            unsigned c)
{
    for (size_t i = c0; i < c1; i++) {
        int32_t d = msm_digit(&sc[i], w, c);
        ws->digit[i - c0] = d;
        if (d) ws->cnt[(d < 0 ? -d : d) - 1]++;
    }
}

/*
 * Lays the runs out in bucket order (so that later passes walk the run
 * buffers and the buckets forwards): start, len, the lists of non-empty
 * buckets and of runs of length >= 2 (*nact of them); cnt becomes the
 * scatter cursor. Returns the number of non-empty buckets.
 */
static size_t G(chunk_layout)(G(msm_ws) * ws, size_t nb, size_t *nact)
{
    uint32_t pos = 0;
    size_t nne = 0, na = 0;
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t n = ws->cnt[b];
        if (n == 0) continue;
        ws->nonempty[nne++] = b;
        ws->start[b] = ws->cnt[b] = pos;
        ws->len[b] = n;
        if (n >= 2)
            ws->active[na++] = b;
        else
            ws->sum[b] = &ws->buf[0][pos];
        pos += n;
    }
    ws->npos = pos;
    *nact = na;
    return nne;
}

/* Cache lines of a point, fetched this many points ahead of their use. */
#define PREFETCH_AHEAD 8
#define PREFETCH_POINT(p)                                                                          \
    (__builtin_prefetch(p), __builtin_prefetch((const char *)(p) + sizeof(G_AFF) - 1))

/* The base of run entry e (offset in the chunk at c0 << 1 | negated). */
static inline const G_AFF *G(run_base)(const G_AFF *bases, const uint32_t *idx, size_t c0,
                                       uint32_t e)
{
    size_t i = c0 + (e >> 1);
    return &bases[idx ? idx[i] : i];
}

/*
 * Writes each point's offset and sign into its run; a run of one point is
 * its own sum, read straight from the bases.
 */
static void G(chunk_scatter)(G(msm_ws) * ws, const G_AFF *bases, const uint32_t *idx, size_t c0,
                             size_t c1)
{
    for (size_t i = c0; i < c1; i++) {
        int32_t d = ws->digit[i - c0];
        if (d == 0) continue;
        uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1;
        ws->ridx[ws->cnt[b]++] = (uint32_t)(i - c0) << 1 | (d < 0);
        if (ws->len[b] == 1) {
            ws->sum[b] = &bases[idx ? idx[i] : i];
            ws->sumneg[b] = d < 0;
        }
    }
}

/* Pushes the pairs of one run of entries r[0 .. l) (at run position p of
 * the chunk's npos) into out, fetching the bases of later pairs ahead. */
static void G(run_pairs)(G(msm_ws) * ws, G_AFF *out, uint32_t p, uint32_t l, const G_AFF *bases,
                         const uint32_t *idx, size_t c0)
{
    const uint32_t *r = ws->ridx;
    for (uint32_t q = p; q + 1 < p + l; q += 2) {
        if (q + PREFETCH_AHEAD + 1 < ws->npos) {
            PREFETCH_POINT(G(run_base)(bases, idx, c0, r[q + PREFETCH_AHEAD]));
            PREFETCH_POINT(G(run_base)(bases, idx, c0, r[q + PREFETCH_AHEAD + 1]));
        }
        G(baff_push)
        (&ws->baff, &out[(q - p) / 2], G(run_base)(bases, idx, c0, r[q]), r[q] & 1,
         G(run_base)(bases, idx, c0, r[q + 1]), r[q + 1] & 1);
    }
    if (l & 1)
        G(aff_signed)(&out[l / 2], G(run_base)(bases, idx, c0, r[p + l - 1]), r[p + l - 1] & 1);
}

/*
 * The first level of every run of two or more points: neighbouring signed
 * bases added straight from the base array into buf[0]. Leaves in active
 * the runs still longer than one point; sets the sums of the others.
 */
static size_t G(runs_first_level)(G(msm_ws) * ws, const G_AFF *bases, const uint32_t *idx,
                                  size_t c0, size_t nact)
{
    size_t keep = 0;
    for (size_t k = 0; k < nact; k++) {
        uint32_t b = ws->active[k], l = ws->len[b];
        G_AFF *out = &ws->buf[0][ws->start[b]];
        G(run_pairs)(ws, out, ws->start[b], l, bases, idx, c0);
        ws->len[b] = (l + 1) / 2;
        ws->sumneg[b] = 0;
        if (ws->len[b] == 1)
            ws->sum[b] = out;
        else
            ws->active[keep++] = b;
    }
    G(baff_flush)(&ws->baff);
    return keep;
}

/* Adds each non-empty run's total into its bucket; resets the counters. */
static void G(chunk_merge)(G(msm_ws) * ws, size_t nne)
{
    for (size_t k = 0; k < nne; k++) {
        if (k + PREFETCH_AHEAD < nne) {
            uint32_t ahead = ws->nonempty[k + PREFETCH_AHEAD];
            PREFETCH_POINT(&ws->acc[ahead]);
            PREFETCH_POINT(ws->sum[ahead]);
        }
        uint32_t b = ws->nonempty[k];
        ws->cnt[b] = 0;
        if (ws->has[b]) {
            G(baff_push)(&ws->baff, &ws->acc[b], &ws->acc[b], false, ws->sum[b], ws->sumneg[b]);
        } else {
            G(aff_signed)(&ws->acc[b], ws->sum[b], ws->sumneg[b]);
            ws->has[b] = 1;
        }
    }
    G(baff_flush)(&ws->baff);
}

/* Buckets below 2^REDUCE_SPLIT_BITS are reduced by plain running sums. */
#define REDUCE_SPLIT_BITS 8

/* tot = sum_{i >= lo} (i - lo + 1) p[i] by running sums (NULL = nothing):
 * an XYZZ mixed addition (8M+2S) and an XYZZ addition (12M+2S) per point. */
static void G(running_sum)(G_JAC *r, const G_AFF *const *p, size_t lo, size_t m)
{
    G_XYZZ run, tot;
    G(xyzz_set_inf)(&run);
    G(xyzz_set_inf)(&tot);
    for (size_t i = m; i-- > lo;) {
        if (p[i] && !AFF_IS_INF(p[i])) G(xyzz_add_affine)(&run, &run, p[i]);
        if (!G(xyzz_is_inf)(&run)) G(xyzz_add)(&tot, &tot, &run);
    }
    G(xyzz_to_jac)(r, &tot);
}

/*
 * Copies the present buckets into nr runs, run j holding the buckets
 * j rs + i is for i < len, and sums every run (sum[j], NULL if empty).
 */
static void G(bucket_runs)(G(msm_ws) * ws, size_t nr, size_t rs, size_t is, size_t len)
{
    uint32_t pos = 0;
    size_t nact = 0;
    for (size_t j = 0; j < nr; j++) {
        ws->start[j] = pos;
        for (size_t i = 0; i < len; i++)
            if (ws->has[j * rs + i * is]) ws->buf[0][pos++] = ws->acc[j * rs + i * is];
        ws->len[j] = pos - ws->start[j];
        ws->sum[j] = ws->len[j] ? &ws->buf[0][ws->start[j]] : NULL;
        if (ws->len[j] >= 2) ws->active[nact++] = (uint32_t)j;
    }
    G(runs_reduce)(&ws->baff, ws->buf, ws->start, ws->len, ws->active, nact, ws->sum);
}

/*
 * r = sum_b (b + 1) acc[b]. With b = u V + v (V = 2^h, h about half the
 * bucket bits), this is V sum_u u T_u + sum_v (v + 1) V_v for the row sums
 * T_u = sum_v acc[uV + v] and column sums V_v = sum_u acc[uV + v]: two
 * batch-affine passes over the buckets and two short running sums, about
 * half the cost of running sums over all buckets.
 */
static void G(buckets_reduce)(G_JAC *r, G(msm_ws) * ws, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1);
    if (c - 1 < REDUCE_SPLIT_BITS) {
        for (size_t b = 0; b < nb; b++) ws->sum[b] = ws->has[b] ? &ws->acc[b] : NULL;
        G(running_sum)(r, ws->sum, 0, nb);
        return;
    }
    unsigned h = (c - 1) / 2;
    size_t v = (size_t)1 << h, u = nb / v;
    G_JAC lo;
    G(bucket_runs)(ws, u, v, 1, v);
    G(running_sum)(r, ws->sum, 1, u);
    for (unsigned i = 0; i < h; i++) G(jac_dbl)(r, r);
    G(bucket_runs)(ws, v, 1, v, u);
    G(running_sum)(&lo, ws->sum, 0, v);
    G(jac_add)(r, r, &lo);
}

/* One task: window w over points [lo, hi), into *r (not yet shifted). */
static void G(window_task)(G(msm_ws) * ws, G_JAC *r, const G_AFF *bases, const uint32_t *idx,
                           const msm_scalar *sc, size_t lo, size_t hi, unsigned w, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1);
    memset(ws->has, 0, nb);
    for (size_t c0 = lo; c0 < hi; c0 += MSM_CHUNK) {
        size_t c1 = hi - c0 < MSM_CHUNK ? hi : c0 + MSM_CHUNK, nact;
        G(chunk_digits)(ws, sc, c0, c1, w, c);
        size_t nne = G(chunk_layout)(ws, nb, &nact);
        G(chunk_scatter)(ws, bases, idx, c0, c1);
        nact = G(runs_first_level)(ws, bases, idx, c0, nact);
        G(runs_reduce)(&ws->baff, ws->buf, ws->start, ws->len, ws->active, nact, ws->sum);
        G(chunk_merge)(ws, nne);
    }
    G(buckets_reduce)(r, ws, c);
}

/* r = sum_w 2^(cw) sum_p part[w][p] (Horner). */
static void G(windows_combine)(G_JAC *r, const G_JAC *part, unsigned windows, unsigned parts,
                               unsigned c)
{
    G(jac_set_inf)(r);
    for (unsigned w = windows; w-- > 0;) {
        for (unsigned i = 0; i < c && !G(jac_is_inf)(r); i++) G(jac_dbl)(r, r);
        for (unsigned p = 0; p < parts; p++) G(jac_add)(r, r, &part[w * parts + p]);
    }
}

/* Pippenger over n folded scalars and the bases idx[i] (or i). */
static int G(msm_core)(G_JAC *r, const G_AFF *bases, const uint32_t *idx, const msm_scalar *sc,
                       size_t n, int threads, unsigned c, cuzk_err *err)
{
    unsigned parts = msm_plan_parts(n, threads, c), windows = msm_windows(c);
    size_t tasks = (size_t)windows * parts, per = (n + parts - 1) / parts;
    int t = msm_threads(threads);
    if ((size_t)t > tasks) t = (int)tasks;
    G_JAC *part = malloc(tasks * sizeof(G_JAC));
    G(msm_ws) *ws = G(msm_ws_alloc)(t, per < MSM_CHUNK ? per : MSM_CHUNK, (size_t)1 << (c - 1));
    if (!part || !ws) {
        free(part), G(msm_ws_free)(ws, t);
        return cuzk_errf(err, CUZK_ENOMEM, "MSM of %zu points: out of memory", n);
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
    for (size_t k = 0; k < tasks; k++) {
        size_t p = k % parts, lo = p * per, hi = lo + per < n ? lo + per : n;
        G(msm_ws) *mine = &ws[omp_get_thread_num()];
        G(window_task)(mine, &part[k], bases, idx, sc, lo, hi, (unsigned)(k / parts), c);
    }
    G(windows_combine)(r, part, windows, parts, c);
    free(part);
    G(msm_ws_free)(ws, t);
    return CUZK_OK;
}

/* Folds the scalars (of idx[i], or all) and runs Pippenger. */
static int G(msm_folded)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, const uint32_t *idx,
                         size_t n, int threads, unsigned c, cuzk_err *err)
{
    if (n == 0) {
        G(jac_set_inf)(r);
        return CUZK_OK;
    }
    msm_scalar *sc = n <= SIZE_MAX / sizeof(msm_scalar) ? malloc(n * sizeof(msm_scalar)) : NULL;
    if (!sc) return cuzk_errf(err, CUZK_ENOMEM, "MSM of %zu points: out of memory", n);
    msm_scalars_fold(sc, scalars, idx, n, threads);
    int rc = G(msm_core)(r, bases, idx, sc, n, threads, c, err);
    free(sc);
    return rc;
}

/* sum k_i P_i one scalar multiplication at a time, for tiny n. */
static void G(msm_naive)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, const uint32_t *idx,
                         size_t n)
{
    G(jac_set_inf)(r);
    for (size_t i = 0; i < n; i++) {
        G_JAC p;
        G(jac_from_affine)(&p, &bases[idx ? idx[i] : i]);
        G(jac_mul)(&p, &p, &scalars[idx ? idx[i] : i]);
        G(jac_add)(r, r, &p);
    }
}

static int G(msm_indexed)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, const uint32_t *idx,
                          size_t n, int threads, cuzk_err *err)
{
    if (n <= MSM_NAIVE_MAX) {
        G(msm_naive)(r, bases, scalars, idx, n);
        return CUZK_OK;
    }
    return G(msm_folded)(r, bases, scalars, idx, n, threads, msm_plan_window(n, threads), err);
}

int G(msm)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, size_t n, int threads, cuzk_err *err)
{
    return G(msm_indexed)(r, bases, scalars, NULL, n, threads, err);
}

int G(msm_window)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, size_t n, int threads,
                  unsigned c, cuzk_err *err)
{
    if (c < 1 || c > MSM_MAX_WINDOW)
        return cuzk_errf(err, CUZK_EINVAL, "MSM window size %u is outside 1..%d", c,
                         MSM_MAX_WINDOW);
    return G(msm_folded)(r, bases, scalars, NULL, n, threads, c, err);
}

/* The split MSM: ones by bitmap batch addition, the tail by Pippenger. */
int G(msm_split)(G_JAC *r, const G_AFF *bases, const fr_t *scalars, size_t n, int threads,
                 cuzk_err *err)
{
    if (n > UINT32_MAX)
        return cuzk_errf(err, CUZK_EINVAL, "split MSM of %zu points: at most 2^32 - 1", n);
    size_t words = (n + 63) / 64, n_ones, n_tail;
    uint64_t *ones = malloc(words * sizeof(uint64_t) + 1),
             *tail = malloc(words * sizeof(uint64_t) + 1);
    if (!ones || !tail) {
        free(ones), free(tail);
        return cuzk_errf(err, CUZK_ENOMEM, "split MSM of %zu points: out of memory", n);
    }
    msm_classify_bits(scalars, n, ones, tail, &n_ones, &n_tail, threads);
    int rc = CUZK_OK;
    if (!msm_split_worthwhile(n_tail, n)) {
        rc = G(msm)(r, bases, scalars, n, threads, err);
    } else {
        uint32_t *idx = malloc(n_tail * sizeof(uint32_t) + 1);
        G_JAC rt;
        rc = idx ? CUZK_OK
                 : cuzk_errf(err, CUZK_ENOMEM, "split MSM of %zu points: out of memory", n);
        if (rc == CUZK_OK) msm_bitmap_indices(idx, tail, n, threads);
        if (rc == CUZK_OK) rc = G(batch_add_bitmap)(r, bases, ones, n, threads, err);
        if (rc == CUZK_OK) rc = G(msm_indexed)(&rt, bases, scalars, idx, n_tail, threads, err);
        if (rc == CUZK_OK) G(jac_add)(r, r, &rt);
        free(idx);
    }
    free(ones), free(tail);
    return rc;
}
