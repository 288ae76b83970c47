/*
 * shape_cache.cu - circuit shapes (cs_shape, r1cs.h) kept on the device,
 * and a, b, c of a device witness computed from them (gpu_shape_eval_dev).
 *
 * A shape is uploaded on first use into one device allocation (its
 * matrices, escape table and powers of two, laid out as shape.h's structs
 * with device pointers, plus the word the check reports through) and
 * stays there, keyed by the shape's pointer and checked against its
 * fingerprint and counts, so a shape freed and another recorded at the
 * same address is never mistaken for the old one. When an allocation
 * fails, the least recently used other shapes go first, then the
 * parameter cache's room is made by prove_dev_alloc. Each device has a
 * cache of its own (device.cuh), picked by the current device and guarded
 * by its prover lock as the parameter cache is (srs_cache.cu).
 *
 * When the start's plan streams the shape (residency.cu rule 4's modes
 * with the shape streamed, prove_shape_mode), an entry holds only its
 * escape table, powers of two and check word, and every evaluation
 * uploads the slices of the host shape that its rows need (each
 * matrix's block starts and escape starts rebased to the slice, row
 * lengths, columns, codes, escape indexes) into the slot's shape ring,
 * as many rows at a time as fit, and evaluates them as a shape of its own
 * (the same kernels: a slice starts on a block). The ring has two halves:
 * slice k + 1's copy runs on the ring's own stream under slice k's
 * kernels, each copy after the kernels that last read its half (an
 * event), each kernel after its slice's copy (another); the rebased
 * starts go up from a page-locked buffer per half, which the host reuses
 * once that half's previous copy is done. The copies are counted as
 * shape bytes (GROTH16_XFER_SHAPE).
 */
#include <string.h>

#include "gpu/prove/shape_eval.cuh"

#define SHAPE_SLOTS 8

struct shape_entry {
    const cs_shape *s; /* NULL: free slot */
    size_t rows, inputs, aux;
    uint8_t fingerprint[32];
    bool streamed;            /* only vals, pow2 and first in mem: slices through the ring */
    const void *pinned[3][4]; /* a streamed entry's page-locked host arrays (host_pin.cu) */
    void *mem;
    size_t bytes;
    shape_view view;
    unsigned long long *first; /* the check's result word, in mem */
    uint64_t used;             /* shape_clock at the last use */
};
static shape_entry shape_devs[CU_MAX_SLOTS][SHAPE_SLOTS];
static uint64_t shape_clock[CU_MAX_SLOTS];

/* Each slot's mode (prove_shape_mode) and ring for streamed shapes: two
 * halves of cap / 2 bytes, the copy stream, per half the event of its
 * copy and of the kernels that read it, and the host buffer of its
 * rebased starts (made on first use and kept, as the stream ring's). */
struct shape_ring {
    bool on;
    size_t want, cap;
    void *mem;
    cudaStream_t st;
    cudaEvent_t copied[2], read[2];
    uint64_t *starts[2];
    size_t starts_cap;
};
static shape_ring shape_rings[CU_MAX_SLOTS];

static bool shape_matches(const shape_entry *x, const cs_shape *s, bool streamed)
{
    return x->s == s && x->streamed == streamed && x->rows == s->num_constraints &&
           x->inputs == s->num_inputs && x->aux == s->num_aux &&
           !memcmp(x->fingerprint, s->fingerprint, 32);
}

static void shape_drop(shape_entry *x)
{
    cu_free(x->mem);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++)
            if (x->pinned[i][k]) prove_unpin(x->pinned[i][k]);
    memset(x, 0, sizeof *x);
}

/* A streamed entry's large host arrays (row lengths, columns, codes,
 * escape indexes) page-locked once, so that its slices cross by DMA at
 * the link's rate; an array that cannot be locked is copied from
 * pageable memory (slower, the same bytes). */
static void shape_pin(shape_entry *x, const cs_shape *s)
{
    for (int i = 0; i < 3; i++) {
        const shape_matrix *m = &s->m[i];
        const void *p[4] = {m->len, m->col, m->code, m->esc_val};
        size_t n[4] = {s->num_constraints * sizeof(uint16_t), m->nnz * sizeof(uint32_t), m->nnz,
                       m->n_esc * sizeof(uint32_t)};
        for (int k = 0; k < 4; k++)
            if (prove_pin(p[k], n[k], "a circuit shape")) x->pinned[i][k] = p[k];
    }
}

void prove_shape_mode(int dev, bool streamed, size_t ring)
{
    shape_ring *r = &shape_rings[dev];
    r->on = streamed, r->want = ring;
    if (!streamed || r->cap > ring) prove_shape_ring_release(dev);
}

void prove_shape_ring_release(int dev)
{
    shape_ring *r = &shape_rings[dev];
    if (r->st) cudaStreamSynchronize(r->st); /* no copy into what is freed */
    cu_free(r->mem), r->mem = NULL, r->cap = 0;
}

/* r ready for slices: its memory, stream, events and starts buffers. */
static int ring_ready(shape_ring *r, cuzk_err *err)
{
    if (!r->st) {
        CU(cu_stream_new(&r->st), err, "shape ring stream");
        for (int h = 0; h < 2; h++) {
            CU(cu_event_new(&r->copied[h], false), err, "shape event");
            CU(cu_event_new(&r->read[h], false), err, "shape event");
        }
    }
    size_t starts = r->want / 2 / 4; /* a slice's starts: at most a quarter of its bytes */
    if (r->starts_cap < starts) {
        for (int h = 0; h < 2; h++) {
            if (r->starts[h]) cudaEventSynchronize(r->copied[h]), cudaFreeHost(r->starts[h]);
            r->starts[h] = NULL;
        }
        r->starts_cap = 0;
        for (int h = 0; h < 2; h++)
            CU(cudaHostAlloc((void **)&r->starts[h], starts, cudaHostAllocDefault), err,
               "shape ring starts buffer");
        r->starts_cap = starts;
    }
    return prove_dev_grow(&r->mem, &r->cap, r->want, NULL, err);
}

size_t prove_shape_evict(int dev, const cs_shape *keep)
{
    size_t freed = 0;
    for (int i = 0; i < SHAPE_SLOTS; i++) {
        shape_entry *x = &shape_devs[dev][i];
        if (!x->s || x->s == keep) continue;
        freed += x->bytes;
        shape_drop(x);
    }
    return freed;
}

/* cudaMalloc, evicting other shapes (least recently used first) and then
 * the parameter cache's entries but keep_pk's while the device is short. */
static int shape_dev_alloc(int dev, void **p, size_t bytes, const cs_shape *keep,
                           const groth16_params *keep_pk, cuzk_err *err)
{
    for (;;) {
        if (cu_malloc(p, bytes) == cudaSuccess) return CUZK_OK;
        cudaGetLastError();
        shape_entry *lru = NULL;
        for (int i = 0; i < SHAPE_SLOTS; i++) {
            shape_entry *x = &shape_devs[dev][i];
            if (x->s && x->s != keep && (!lru || x->used < lru->used)) lru = x;
        }
        if (!lru) break;
        shape_drop(lru);
    }
    return prove_dev_alloc(p, bytes, keep_pk, err);
}

/* Where each array of s goes in one allocation, and its size. */
typedef struct shape_plan {
    size_t at[3][6], vals, pow2, first, bytes;
} shape_plan;

static size_t plan_put(size_t *end, size_t bytes)
{
    size_t at = *end;
    *end = cu_align256(at + bytes);
    return at;
}

/* The bytes of a matrix's six arrays (start, len, col, code, esc_start,
 * esc_val) for `rows` rows in `blocks` blocks, nnz entries, n_esc escapes:
 * the whole matrix's, or a streamed slice's. */
static void matrix_lens(size_t len[6], size_t rows, size_t blocks, size_t nnz, size_t n_esc)
{
    len[0] = len[4] = (blocks + 1) * sizeof(uint64_t);
    len[1] = rows * sizeof(uint16_t);
    len[2] = nnz * sizeof(uint32_t);
    len[3] = nnz;
    len[5] = n_esc * sizeof(uint32_t);
}

/* d: a matrix of nnz entries and n_esc escapes whose arrays lie at base +
 * at[k] (matrix_lens' order). */
static void matrix_at(shape_matrix *d, char *base, const size_t at[6], size_t nnz, size_t n_esc)
{
    d->nnz = nnz, d->n_esc = n_esc;
    d->start = (uint64_t *)(base + at[0]);
    d->len = (uint16_t *)(base + at[1]);
    d->col = (uint32_t *)(base + at[2]);
    d->code = (uint8_t *)(base + at[3]);
    d->esc_start = (uint64_t *)(base + at[4]);
    d->esc_val = (uint32_t *)(base + at[5]);
}

static shape_plan shape_layout(const cs_shape *s, bool streamed)
{
    shape_plan p;
    size_t end = 0, blocks = shape_blocks(s->num_constraints), len[6];
    for (int i = 0; i < 3 && !streamed; i++) {
        matrix_lens(len, s->num_constraints, blocks, s->m[i].nnz, s->m[i].n_esc);
        for (int k = 0; k < 6; k++) p.at[i][k] = plan_put(&end, len[k]);
    }
    p.vals = plan_put(&end, s->n_vals * sizeof(fr_t));
    p.pow2 = plan_put(&end, SHAPE_POWS * sizeof(fr_t));
    p.first = plan_put(&end, sizeof(unsigned long long));
    p.bytes = end;
    return p;
}

size_t prove_shape_bytes_for(const cs_shape *s)
{
    return shape_layout(s, false).bytes;
}

extern "C" size_t gpu_shape_upload_bytes(const cs_shape *s)
{
    return prove_shape_bytes_for(s);
}

static int shape_load(int dev, shape_entry *x, const cs_shape *s, const groth16_params *keep_pk,
                      cuzk_err *err)
{
    bool streamed = shape_rings[dev].on;
    shape_plan p = shape_layout(s, streamed);
    int rc = shape_dev_alloc(dev, &x->mem, p.bytes, s, keep_pk, err);
    if (rc) return rc;
    x->s = s, x->rows = s->num_constraints, x->inputs = s->num_inputs, x->aux = s->num_aux;
    memcpy(x->fingerprint, s->fingerprint, 32);
    x->streamed = streamed;
    x->bytes = p.bytes;
    char *base = (char *)x->mem;
    size_t blocks = shape_blocks(s->num_constraints);
    for (int i = 0; !rc && !streamed && i < 3; i++) {
        const shape_matrix *m = &s->m[i];
        shape_matrix *d = &x->view.m[i];
        const void *src[6] = {m->start, m->len, m->col, m->code, m->esc_start, m->esc_val};
        size_t len[6];
        matrix_lens(len, s->num_constraints, blocks, m->nnz, m->n_esc);
        for (int k = 0; !rc && k < 6; k++)
            if (len[k])
                rc = prove_upload(STAGE_FG, GROTH16_XFER_PARAMS, base + p.at[i][k], src[k], len[k],
                                  err);
        matrix_at(d, base, p.at[i], m->nnz, m->n_esc);
    }
    if (!rc && s->n_vals)
        rc = prove_upload(STAGE_FG, GROTH16_XFER_PARAMS, base + p.vals, s->vals,
                          s->n_vals * sizeof(fr_t), err);
    if (!rc)
        rc = prove_upload(STAGE_FG, GROTH16_XFER_PARAMS, base + p.pow2, s->pow2, sizeof s->pow2,
                          err);
    if (rc) {
        shape_drop(x);
        return rc;
    }
    if (streamed) shape_pin(x, s);
    x->view.vals = (const fr_d *)(base + p.vals);
    x->view.pow2 = (const fr_d *)(base + p.pow2);
    x->view.rows = s->num_constraints;
    x->view.cols = s->num_inputs + s->num_aux;
    x->first = (unsigned long long *)(base + p.first);
    return CUZK_OK;
}

/* s's entry on device dev, uploaded when missing (keep_pk's parameters
 * kept if room must be made). */
static int shape_get(shape_entry **out, int dev, const cs_shape *s, const groth16_params *keep_pk,
                     cuzk_err *err)
{
    shape_entry *slots = shape_devs[dev], *x = NULL;
    for (int i = 0; i < SHAPE_SLOTS && !x; i++)
        if (shape_matches(&slots[i], s, shape_rings[dev].on)) x = &slots[i];
    for (int i = 0; i < SHAPE_SLOTS; i++) /* a stale entry at s's address */
        if (slots[i].s == s && &slots[i] != x) shape_drop(&slots[i]);
    if (!x) {
        for (int i = 0; i < SHAPE_SLOTS; i++) /* a free slot, else the least recently used */
            if (!x || !slots[i].s || (x->s && slots[i].used < x->used)) x = &slots[i];
        if (x->s) shape_drop(x);
        int rc = shape_load(dev, x, s, keep_pk, err);
        if (rc) return rc;
    }
    x->used = ++shape_clock[dev];
    *out = x;
    return CUZK_OK;
}

/* A streamed slice of matrix m: rows [a, b) (a on a block), its blocks'
 * entries [e0, e1) and escapes [x0, x1), and where each array goes in the
 * ring (shape_layout's order: start, len, col, code, esc_start, esc_val). */
struct shape_slice {
    size_t a, b, nb, e0, e1, x0, x1, len[6], at[6], bytes;
};

static shape_slice slice_of(const shape_matrix *m, size_t a, size_t b)
{
    shape_slice s;
    size_t b0 = a / SHAPE_BLOCK, b1 = shape_blocks(b), end = 0;
    s.a = a, s.b = b, s.nb = b1 - b0;
    s.e0 = m->start[b0], s.e1 = m->start[b1], s.x0 = m->esc_start[b0], s.x1 = m->esc_start[b1];
    matrix_lens(s.len, b - a, s.nb, s.e1 - s.e0, s.x1 - s.x0);
    for (int k = 0; k < 6; k++) s.at[k] = plan_put(&end, s.len[k]);
    s.bytes = end;
    return s;
}

/* The most rows from a (on a block) up to end whose slice fits cap bytes:
 * whole blocks, or the rest when it fits (a, when not even a block does). */
static size_t slice_end(const shape_matrix *m, size_t a, size_t end, size_t cap)
{
    if (slice_of(m, a, end).bytes <= cap) return end;
    size_t lo = a, hi = end; /* lo fits (empty), hi does not */
    while (hi - lo > SHAPE_BLOCK) {
        size_t mid = lo + (hi - lo) / 2 / SHAPE_BLOCK * SHAPE_BLOCK;
        if (mid == lo) mid += SHAPE_BLOCK;
        if (slice_of(m, a, mid).bytes <= cap)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Slice sl of matrix `which` of x's shape into half h of ring r (queued
 * on its stream after the kernels that last read that half), and v: a
 * view of it as a shape of its own (rows 0 .. b - a) beside x's escape
 * table. */
static int slice_up(shape_view *v, shape_ring *r, int h, const shape_entry *x, int which,
                    const shape_slice &sl, cuzk_err *err)
{
    const shape_matrix *m = &x->s->m[which];
    size_t b0 = sl.a / SHAPE_BLOCK;
    char *ring = (char *)r->mem + h * (r->cap / 2);
    uint64_t *starts = r->starts[h];
    if (2 * (sl.nb + 1) * sizeof(uint64_t) > r->starts_cap)
        return cuzk_errf(err, CUZK_EINVAL, "gpu prove: shape slice of %zu blocks past its buffer",
                         sl.nb);
    CU(cudaEventSynchronize(r->copied[h]), err, "shape slice copy"); /* its starts were sent */
    for (size_t k = 0; k <= sl.nb; k++) {
        starts[k] = m->start[b0 + k] - sl.e0;
        starts[sl.nb + 1 + k] = m->esc_start[b0 + k] - sl.x0;
    }
    const void *src[6] = {starts,          m->len + sl.a,      m->col + sl.e0,
                          m->code + sl.e0, starts + sl.nb + 1, m->esc_val + sl.x0};
    CU(cudaStreamWaitEvent(r->st, r->read[h], 0), err, "shape slice wait");
    for (int k = 0; k < 6; k++)
        if (sl.len[k])
            CU(xfer_copy_async(ring + sl.at[k], src[k], sl.len[k], GROTH16_XFER_SHAPE, r->st, NULL),
               err, "shape slice upload");
    CU(cudaEventRecord(r->copied[h], r->st), err, "shape slice event");
    *v = x->view;
    matrix_at(&v->m[which], ring, sl.at, sl.e1 - sl.e0, sl.x1 - sl.x0);
    v->rows = sl.b - sl.a;
    return CUZK_OK;
}

/* out := rows [lo, end) of matrix `which` of x's shape times w (lo on a
 * block): from the matrices on the device, or a streamed entry's slices
 * through the slot's ring, as many rows at a time as fit. */
static int eval_rows(const shape_entry *x, const wit_view *w, int which, size_t lo, size_t end,
                     fr_t *out, cuzk_err *err)
{
    if (!x->streamed) return shape_launch_eval(&x->view, w, which, lo, end, out, err);
    int dev;
    int rc = cu_slot(&dev, err);
    shape_ring *r = &shape_rings[dev];
    if (!rc) rc = ring_ready(r, err);
    const shape_matrix *m = &x->s->m[which];
    for (size_t a = lo, k = 0; !rc && a < end; k++) {
        int h = (int)(k % 2);
        size_t b = slice_end(m, a, end, r->cap / 2);
        if (b == a)
            return cuzk_errf(err, CUZK_ENOMEM,
                             "gpu prove: half the %zu-byte shape ring holds no block of rows from "
                             "%zu of matrix %d",
                             r->cap, a, which);
        shape_view v;
        rc = slice_up(&v, r, h, x, which, slice_of(m, a, b), err);
        if (!rc) CU(cudaStreamWaitEvent(cu_stream(), r->copied[h], 0), err, "shape slice wait");
        if (!rc) rc = shape_launch_eval(&v, w, which, 0, b - a, out + (a - lo), err);
        if (!rc) CU(cudaEventRecord(r->read[h], cu_stream()), err, "shape slice event");
        a = b;
    }
    return rc;
}

/* s's entry on the current device, its check word reset. */
static int shape_entry_for_check(shape_entry **x, const cs_shape *s, cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    if (!rc) rc = shape_get(x, dev, s, NULL, err);
    if (!rc)
        CU(cudaMemsetAsync((*x)->first, 0xff, sizeof *(*x)->first, cu_stream()), err,
           "shape check reset");
    return rc;
}

/* Waits for the check's kernels; its verdict. */
static int shape_verdict(const shape_entry *x, const cs_shape *s, cuzk_err *err)
{
    CU_WAIT(err, "shape_eval_kernel");
    unsigned long long first;
    CU(xfer_copy(&first, x->first, sizeof first, GROTH16_XFER_RESULTS), err, "shape check");
    if (first < s->num_constraints)
        return cuzk_errf(err, CUZK_EINVAL, "constraint %llu is not satisfied", first);
    return CUZK_OK;
}

extern "C" int gpu_shape_eval_dev(const cs_shape *s, const fr_t *w, fr_t *a, fr_t *b, fr_t *c,
                                  cuzk_err *err)
{
    shape_entry *x = NULL;
    int rc = shape_entry_for_check(&x, s, err);
    fr_t *out[3] = {a, b, c};
    size_t n = s->num_constraints;
    wit_view v = wit_dense(w, s->num_inputs + s->num_aux);
    for (int k = 0; !rc && k < 3; k++) rc = eval_rows(x, &v, k, 0, n, out[k], err);
    if (!rc) rc = shape_launch_check(a, b, c, n, 0, x->first, err);
    return rc ? rc : shape_verdict(x, s, err);
}

int prove_shape_rows(const cs_shape *s, const wit_view *w, int which, size_t lo, size_t end,
                     fr_t *out, cuzk_err *err)
{
    int dev;
    shape_entry *x = NULL;
    int rc = cu_slot(&dev, err);
    if (!rc) rc = shape_get(&x, dev, s, NULL, err);
    if (!rc) rc = eval_rows(x, w, which, lo, end, out, err);
    if (!rc) CU_WAIT(err, "shape_eval_kernel");
    return rc;
}

/* The copies of the check's pieces to the host, per device: a stream of
 * their own and events that order them after the pieces' kernels and
 * before a buffer set is used again (made on first use and kept, as the
 * stream ring's, stream.cu). */
struct shape_copier {
    cudaStream_t st;
    cudaEvent_t ready[2], copied[2];
};
static shape_copier copiers[CU_MAX_SLOTS]; /* under the device's prover lock */

static int copier_ready(shape_copier *c, cuzk_err *err)
{
    if (c->st) return CUZK_OK;
    for (int k = 0; k < 2; k++) {
        if (!c->ready[k]) CU(cu_event_new(&c->ready[k], false), err, "shape event");
        if (!c->copied[k]) CU(cu_event_new(&c->copied[k], false), err, "shape event");
    }
    CU(cu_stream_new(&c->st), err, "shape copy stream");
    return CUZK_OK;
}

/* Queues the copy of rows [lo, end) of a, b, c in buf (pieces of `piece`)
 * to host rows, after the kernels queued so far, on c's stream; buffer
 * set `set` is free again once c->copied[set] is reached. */
static int shape_piece_down(shape_copier *c, int set, char *host, size_t row_bytes, const fr_t *buf,
                            size_t piece, size_t lo, size_t end, cuzk_err *err)
{
    CU(cudaEventRecord(c->ready[set], cu_stream()), err, "shape piece event");
    CU(cudaStreamWaitEvent(c->st, c->ready[set], 0), err, "shape piece wait");
    for (int k = 0; k < 3; k++)
        CU(xfer_copy_async(host + k * row_bytes + lo * sizeof(fr_t), buf + k * piece,
                           (end - lo) * sizeof(fr_t), GROTH16_XFER_PARK, c->st, NULL),
           err, "shape piece download");
    CU(cudaEventRecord(c->copied[set], c->st), err, "shape piece event");
    return CUZK_OK;
}

int prove_shape_check_c(const cs_shape *s, const wit_view *w, const fr_t *a, const fr_t *b,
                        fr_t *tmp, size_t piece, cuzk_err *err)
{
    shape_entry *x = NULL;
    int rc = shape_entry_for_check(&x, s, err);
    size_t n = s->num_constraints;
    for (size_t lo = 0; !rc && lo < n; lo += piece) {
        size_t end = lo + piece < n ? lo + piece : n;
        rc = eval_rows(x, w, 2, lo, end, tmp, err);
        if (!rc) rc = shape_launch_check(a + lo, b + lo, tmp, end - lo, lo, x->first, err);
    }
    return rc ? rc : shape_verdict(x, s, err);
}

int prove_shape_check(const cs_shape *s, const wit_view *w, fr_t *tmp, size_t piece, char *host,
                      size_t row_bytes, cuzk_err *err)
{
    shape_entry *x = NULL;
    int rc = shape_entry_for_check(&x, s, err), dev = 0;
    shape_copier *c = NULL;
    if (!rc && host) rc = cu_slot(&dev, err);
    if (!rc && host) c = &copiers[dev], rc = copier_ready(c, err);
    size_t n = s->num_constraints;
    for (size_t lo = 0, k = 0; !rc && lo < n; lo += piece, k++) {
        size_t end = lo + piece < n ? lo + piece : n;
        int set = host ? (int)(k % 2) : 0; /* two sets when copying: evaluate one, copy the other */
        fr_t *buf = tmp + set * 3 * piece;
        if (host && k >= 2) CU(cudaEventSynchronize(c->copied[set]), err, "shape piece copy");
        for (int m = 0; !rc && m < 3; m++) rc = eval_rows(x, w, m, lo, end, buf + m * piece, err);
        if (!rc)
            rc = shape_launch_check(buf, buf + piece, buf + 2 * piece, end - lo, lo, x->first, err);
        if (!rc && host) rc = shape_piece_down(c, set, host, row_bytes, buf, piece, lo, end, err);
    }
    if (c && c->st) {
        cudaError_t e = cudaStreamSynchronize(c->st); /* the parked rows complete */
        if (e != cudaSuccess && !rc) rc = cu_fail(e, err, "shape piece copy", __FILE__, __LINE__);
    }
    return rc ? rc : shape_verdict(x, s, err);
}

int prove_shape_ready(const cs_shape *s, const groth16_params *keep, cuzk_err *err)
{
    int dev;
    shape_entry *x;
    int rc = cu_slot(&dev, err);
    return rc ? rc : shape_get(&x, dev, s, keep, err);
}

/* s's entries on device dev (its prover lock held; a device without one
 * is not touched). */
static void shape_forget_on(int dev, const void *s)
{
    bool any = false;
    for (int i = 0; i < SHAPE_SLOTS; i++) any |= shape_devs[dev][i].s == s;
    if (!any) return;
    if (cu_slot_enter(dev) != cudaSuccess) cudaGetLastError();
    for (int i = 0; i < SHAPE_SLOTS; i++)
        if (shape_devs[dev][i].s == s) shape_drop(&shape_devs[dev][i]);
    cudaGetLastError(); /* a lost device's frees fail: its memory went with it */
}

extern "C" void gpu_shape_forget(const cs_shape *s)
{
    prove_kept_forget(s);
    prove_each_device(shape_forget_on, s);
}

size_t prove_shape_bytes(int dev)
{
    size_t b = 0;
    for (int i = 0; i < SHAPE_SLOTS; i++) b += shape_devs[dev][i].bytes;
    return b + shape_rings[dev].cap;
}

extern "C" size_t gpu_shape_device_bytes(int device)
{
    if (device < 0 || device >= CU_MAX_DEVICES) return 0;
    prove_lock(device);
    size_t b = prove_shape_bytes(device);
    prove_unlock(device);
    return b;
}
