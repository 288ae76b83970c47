/*
 * shape.c - the shape backend: A, B and C of a circuit recorded compactly
 * (layout in shape.h, five bytes an entry and a little over two bytes a
 * row per matrix) while the circuit is synthesized without values, and
 * what is done with them on the CPU: the prover backend's density bitmaps
 * and a, b, c of a witness, checked constraint by constraint.
 *
 * Recording forks like the prover (cs_run_units): every cs appends the
 * rows it enforces to an open segment of its own, the rows of a window
 * starting at the window's first constraint; a released child hands its
 * segments to its parent, which closes its own open segment first, so
 * that the parent's list stays in constraint order (units.c releases the
 * children in unit order). An aux column is tagged with bit 30 while the
 * number of inputs is unknown. Escaped coefficients are interned as they
 * come into the cs's table of distinct values (a hash table: a 32 GiB
 * PoRep partition has 45 million escaped entries, mostly Poseidon's, and
 * about 2,200 distinct values); a released child's indexes are mapped
 * into its parent's table. Once the circuit is done the segments are
 * joined one matrix at a time: the first segment's arrays grow in place
 * (realloc) to the whole matrix and the others are copied in and freed as
 * they go (and handed back to the system: TRIM_BYTES), so the peak is
 * about one copy of the shape; the aux columns are
 * renumbered after the inputs, the density bitmaps and the fingerprint
 * (cs_count's encoding) computed.
 *
 * Evaluation gives the prover's values byte for byte: field elements are
 * kept reduced, so the order of the additions does not matter; a
 * coefficient 2^k meets mostly bit values, so 0 and 1 cost no product.
 */
#include "r1cs/shape.h"

#include <malloc.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ff/field_inline.h"
#include "r1cs/cs_internal.h"
#include "r1cs/fingerprint.h"

#define AUX_TAG  ((uint32_t)1 << 30) /* while recording */
#define TAG_VARS ((size_t)1 << 30)   /* variables of a kind a record can name */
/*
 * A segment of this many bytes freed while joining is handed back to the
 * system at once (malloc_trim): glibc keeps freed blocks below its mmap
 * threshold, which grows to 32 MiB as large blocks come and go, in its
 * arenas, so a 32 GiB partition's segments (units of a few MiB each) stayed
 * resident beside the joined shape: 9.2 GB at the peak, 5.8 GB with this.
 */
#define TRIM_BYTES ((size_t)1 << 20)

/* The rows one cs recorded, from constraint row0 on. */
typedef struct seg_matrix {
    uint16_t *len;
    uint32_t *col;
    uint8_t *code;
    uint32_t *esc; /* the escaped entries' indexes into the owner's table */
    size_t cap_len, nnz, cap_col, cap_code, n_esc, cap_esc;
} seg_matrix;

/* Distinct field elements, found by an open-addressing hash. */
typedef struct val_table {
    fr_t *v;
    size_t n, cap;
    uint32_t *slot; /* index + 1, 0 empty */
    size_t n_slots; /* a power of two, at least twice n */
} val_table;

typedef struct shape_seg {
    size_t row0, rows;
    seg_matrix m[3];
} shape_seg;

typedef struct shape_cs {
    cs_t cs;
    struct shape_cs *parent;
    shape_seg **segs;
    size_t n_segs, cap_segs;
    shape_seg *cur; /* the open segment; NULL until the next row */
    val_table vals; /* what the segments' escape indexes point at */
} shape_cs;

/* ---- recording ---- */

/* ---- the table of escaped values ---- */

static size_t val_hash(const fr_t *x, size_t mask)
{
    return (size_t)((x->l[0] ^ x->l[1] ^ x->l[2] ^ x->l[3]) * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

static int val_rehash(val_table *t, size_t n_slots)
{
    uint32_t *slot = calloc(n_slots, sizeof(uint32_t));
    if (!slot) return CUZK_ENOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = val_hash(&t->v[i], n_slots - 1);
        while (slot[h]) h = (h + 1) & (n_slots - 1);
        slot[h] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = slot, t->n_slots = n_slots;
    return 0;
}

/* *idx = x's index in t, added when new. */
static int val_intern(val_table *t, const fr_t *x, uint32_t *idx)
{
    if (2 * (t->n + 1) > t->n_slots && val_rehash(t, t->n_slots ? 2 * t->n_slots : 256))
        return CUZK_ENOMEM;
    size_t h = val_hash(x, t->n_slots - 1);
    for (; t->slot[h]; h = (h + 1) & (t->n_slots - 1))
        if (!memcmp(&t->v[t->slot[h] - 1], x, sizeof(fr_t))) {
            *idx = t->slot[h] - 1;
            return 0;
        }
    if (t->n >= UINT32_MAX || cs_vec_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof(fr_t)))
        return CUZK_ENOMEM;
    t->v[t->n] = *x;
    t->slot[h] = (uint32_t)(t->n + 1);
    *idx = (uint32_t)t->n++;
    return 0;
}

static void val_free(val_table *t)
{
    free(t->v), free(t->slot);
    memset(t, 0, sizeof(*t));
}

static void seg_matrix_free(seg_matrix *m)
{
    free(m->len), free(m->col), free(m->code), free(m->esc);
    memset(m, 0, sizeof(*m));
}

static void seg_free(shape_seg *s)
{
    if (!s) return;
    for (int i = 0; i < 3; i++) seg_matrix_free(&s->m[i]);
    free(s);
}

static void segs_free(shape_cs *r)
{
    for (size_t i = 0; i < r->n_segs; i++) seg_free(r->segs[i]);
    free(r->segs);
    r->segs = NULL, r->n_segs = r->cap_segs = 0, r->cur = NULL;
}

static int push_seg(shape_cs *r, shape_seg *s)
{
    int rc = cs_vec_reserve((void **)&r->segs, &r->cap_segs, r->n_segs + 1, sizeof(*r->segs));
    if (!rc) r->segs[r->n_segs++] = s;
    return rc;
}

/* +-2^k in Montgomery form by their low limb (open addressing, 2^11
 * slots for 510 values): a coefficient's code without converting it out
 * of Montgomery form, which took most of the recording's arithmetic. */
#define POW_SLOT_BITS 11
typedef struct pow_slot {
    fr_t v;
    uint8_t code, neg, used;
} pow_slot;
static pow_slot pow_slots[1 << POW_SLOT_BITS];
static pthread_once_t pow_once = PTHREAD_ONCE_INIT;

static size_t pow_hash(const fr_t *x)
{
    return (size_t)((x->l[0] * 0x9e3779b97f4a7c15ull) >> (64 - POW_SLOT_BITS));
}

static void pow_put(const fr_t *v, int k, int neg)
{
    size_t i = pow_hash(v);
    while (pow_slots[i].used) i = (i + 1) & ((1u << POW_SLOT_BITS) - 1);
    pow_slots[i] = (pow_slot){*v, (uint8_t)k, (uint8_t)neg, 1};
}

static void pow_init(void)
{
    fr_t p = FR_ONE, n;
    for (int k = 0; k < SHAPE_POWS; k++, fr_dbl(&p, &p)) {
        fr_neg(&n, &p);
        pow_put(&p, k, 0);
        pow_put(&n, k, 1);
    }
}

/* The code of a non-zero coefficient: k for +-2^k (*neg set when
 * negative), SHAPE_ESC otherwise. */
static uint8_t coeff_code(const fr_t *c, bool *neg)
{
    for (size_t i = pow_hash(c); pow_slots[i].used; i = (i + 1) & ((1u << POW_SLOT_BITS) - 1))
        if (fr_eq(&pow_slots[i].v, c)) return *neg = pow_slots[i].neg, pow_slots[i].code;
    *neg = false;
    return SHAPE_ESC;
}

static int record_row(cs_t *cs, val_table *vals, seg_matrix *m, size_t row, const cs_lc *lc,
                      char which)
{
    const cs_term *t = lc_terms(lc);
    uint32_t count = 0;
    for (uint32_t i = 0; i < lc->len; i++) count += !fr_is_zero(&t[i].coeff);
    if (count > SHAPE_MAX_LEN)
        return cs_fail(cs, CUZK_EUNSUPPORTED,
                       "shape: constraint %zu: %c has %u terms (a row holds at most %d)",
                       cs->num_constraints, which, count, SHAPE_MAX_LEN);
    size_t need = m->nnz + count;
    int rc = cs_vec_reserve((void **)&m->len, &m->cap_len, row + 1, sizeof(uint16_t));
    if (!rc) rc = cs_vec_reserve((void **)&m->col, &m->cap_col, need, sizeof(uint32_t));
    if (!rc) rc = cs_vec_reserve((void **)&m->code, &m->cap_code, need, sizeof(uint8_t));
    if (rc) return rc;
    m->len[row] = (uint16_t)count;
    for (uint32_t i = 0; i < lc->len; i++) {
        if (fr_is_zero(&t[i].coeff)) continue;
        if (t[i].var.index >= TAG_VARS)
            return cs_fail(cs, CUZK_EUNSUPPORTED,
                           "shape: constraint %zu: %c names variable %u (at most %zu of a kind)",
                           cs->num_constraints, which, t[i].var.index, TAG_VARS);
        bool neg;
        uint8_t code = coeff_code(&t[i].coeff, &neg);
        if (code == SHAPE_ESC) {
            rc = cs_vec_reserve((void **)&m->esc, &m->cap_esc, m->n_esc + 1, sizeof(uint32_t));
            if (!rc) rc = val_intern(vals, &t[i].coeff, &m->esc[m->n_esc]);
            if (rc) return rc;
            m->n_esc++;
        }
        m->col[m->nnz] =
            t[i].var.index | (t[i].var.kind == CS_AUX ? AUX_TAG : 0) | (neg ? SHAPE_NEG : 0);
        m->code[m->nnz++] = code;
    }
    return 0;
}

static int shape_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    (void)cs, (void)kind, (void)value;
    return 0;
}

static int shape_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    shape_cs *r = (shape_cs *)cs;
    if (!r->cur) {
        shape_seg *s = calloc(1, sizeof(*s));
        if (!s || push_seg(r, s)) {
            free(s);
            return CUZK_ENOMEM;
        }
        s->row0 = cs->num_constraints;
        r->cur = s;
    }
    shape_seg *s = r->cur;
    size_t row = cs->num_constraints - s->row0;
    int rc = record_row(cs, &r->vals, &s->m[0], row, a, 'A');
    if (!rc) rc = record_row(cs, &r->vals, &s->m[1], row, b, 'B');
    if (!rc) rc = record_row(cs, &r->vals, &s->m[2], row, c, 'C');
    if (!rc) s->rows = row + 1;
    return rc;
}

static const cs_ops shape_ops = {shape_alloc, shape_enforce};

/* ---- forks ---- */

/* Nothing to reserve; a child's window must have the room. */
static int shape_reserve(cs_t *cs, const cs_capacity *more)
{
    if (!((shape_cs *)cs)->parent) return 0;
    bool fits = more->inputs <= cs->lim_inputs - cs->num_inputs &&
                more->aux <= cs->lim_aux - cs->num_aux &&
                more->constraints <= cs->lim_constraints - cs->num_constraints;
    return fits ? 0 : CUZK_EINVAL;
}

static const cs_fork_ops shape_fork_ops;

static cs_t *shape_fork(cs_t *cs, const cs_capacity *at, const cs_capacity *size)
{
    shape_cs *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    cs_init_child(&c->cs, cs, &shape_ops, at, size);
    c->cs.fork_ops = &shape_fork_ops;
    c->parent = (shape_cs *)cs;
    return &c->cs;
}

/* The child's escape indexes mapped into the parent's table. */
static int remap_escapes(shape_cs *p, shape_cs *c)
{
    if (!c->vals.n) return 0;
    uint32_t *map = malloc(c->vals.n * sizeof(uint32_t));
    if (!map) return CUZK_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < c->vals.n && !rc; i++) rc = val_intern(&p->vals, &c->vals.v[i], &map[i]);
    for (size_t k = 0; k < c->n_segs && !rc; k++)
        for (int i = 0; i < 3; i++) {
            seg_matrix *m = &c->segs[k]->m[i];
            for (size_t j = 0; j < m->n_esc; j++) m->esc[j] = map[m->esc[j]];
        }
    free(map);
    return rc;
}

/* The child's segments follow the parent's (released in unit order). */
static void shape_release(cs_t *child)
{
    shape_cs *c = (shape_cs *)child, *p = c->parent;
    p->cur = NULL;
    if (!p->cs.status && remap_escapes(p, c)) cs_fail(&p->cs, CUZK_ENOMEM, "shape: out of memory");
    for (size_t i = 0; i < c->n_segs; i++) {
        if (!p->cs.status && !push_seg(p, c->segs[i])) continue;
        cs_fail(&p->cs, CUZK_ENOMEM, "shape: out of memory"); /* kept when failed already */
        seg_free(c->segs[i]);
    }
    free(c->segs);
    val_free(&c->vals);
    free(c);
}

static const cs_fork_ops shape_fork_ops = {shape_reserve, shape_fork, shape_release};

/* ---- joining the segments ---- */

/* Where each segment's entries and escapes start in the joined matrix. */
static size_t *segment_offsets(shape_cs *r, int i)
{
    size_t *at = malloc(2 * r->n_segs * sizeof(size_t));
    if (!at) return NULL;
    for (size_t k = 0, e = 0, x = 0; k < r->n_segs; k++) {
        at[2 * k] = e, at[2 * k + 1] = x;
        e += r->segs[k]->m[i].nnz, x += r->segs[k]->m[i].n_esc;
    }
    return at;
}

/* The first segment's arrays grown to the whole matrix and moved to out. */
static int adopt_first(shape_matrix *out, seg_matrix *first, size_t rows)
{
    size_t nnz = out->nnz, n_esc = out->n_esc;
    if (cs_vec_resize((void **)&first->len, &first->cap_len, rows, sizeof(uint16_t)) ||
        cs_vec_resize((void **)&first->col, &first->cap_col, nnz ? nnz : 1, sizeof(uint32_t)) ||
        cs_vec_resize((void **)&first->code, &first->cap_code, nnz ? nnz : 1, sizeof(uint8_t)) ||
        cs_vec_resize((void **)&first->esc, &first->cap_esc, n_esc ? n_esc : 1, sizeof(uint32_t)))
        return CUZK_ENOMEM;
    out->len = first->len, out->col = first->col, out->code = first->code;
    out->esc_val = first->esc;
    first->len = NULL, first->col = NULL, first->code = NULL, first->esc = NULL;
    return 0;
}

/* Block starts of entries and escapes from the lengths and codes. */
static void block_starts(shape_matrix *m, size_t rows)
{
    size_t blocks = shape_blocks(rows);
    uint64_t pos = 0;
    for (size_t b = 0; b < blocks; b++) {
        m->start[b] = pos;
        for (size_t r = b * SHAPE_BLOCK; r < rows && r < (b + 1) * SHAPE_BLOCK; r++)
            pos += m->len[r];
    }
    m->start[blocks] = pos;
#pragma omp parallel for schedule(dynamic, 1024)
    for (size_t b = 0; b < blocks; b++) {
        uint64_t n = 0;
        for (uint64_t e = m->start[b]; e < m->start[b + 1]; e++) n += m->code[e] == SHAPE_ESC;
        m->esc_start[b + 1] = n;
    }
    m->esc_start[0] = 0;
    for (size_t b = 0; b < blocks; b++) m->esc_start[b + 1] += m->esc_start[b];
}

/* memcpy, where an empty array may be NULL. */
static void copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
}

/* Matrix i of every segment into out (segments' parts freed as copied). */
static int join_matrix(shape_matrix *out, shape_cs *r, int i, size_t rows, size_t num_inputs)
{
    for (size_t k = 0; k < r->n_segs; k++)
        out->nnz += r->segs[k]->m[i].nnz, out->n_esc += r->segs[k]->m[i].n_esc;
    size_t blocks = shape_blocks(rows);
    out->start = malloc((blocks + 1) * sizeof(uint64_t));
    out->esc_start = malloc((blocks + 1) * sizeof(uint64_t));
    size_t *at = segment_offsets(r, i);
    if (!out->start || !out->esc_start || !at || adopt_first(out, &r->segs[0]->m[i], rows)) {
        free(at);
        return CUZK_ENOMEM;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t k = 0; k < r->n_segs; k++) {
        shape_seg *s = r->segs[k];
        seg_matrix *m = &s->m[i];
        size_t e = at[2 * k], x = at[2 * k + 1];
        if (k) {
            copy(out->len + s->row0, m->len, s->rows * sizeof(uint16_t));
            copy(out->col + e, m->col, m->nnz * sizeof(uint32_t));
            copy(out->code + e, m->code, m->nnz);
            copy(out->esc_val + x, m->esc, m->n_esc * sizeof(uint32_t));
        }
        for (size_t j = e; j < e + m->nnz; j++) {
            uint32_t c = out->col[j];
            if (c & AUX_TAG)
                out->col[j] = (c & SHAPE_NEG) | (uint32_t)(num_inputs + (c & (AUX_TAG - 1)));
        }
        size_t bytes = m->cap_len * sizeof(uint16_t) + m->cap_col * 5 + m->cap_esc * 4;
        seg_matrix_free(m);
        if (bytes >= TRIM_BYTES) malloc_trim(0);
    }
    free(at);
    block_starts(out, rows);
    return 0;
}

/* ---- densities and fingerprint ---- */

static int new_bits(uint64_t **w, size_t nbits)
{
    *w = calloc(nbits / 64 + 1, sizeof(uint64_t));
    return *w ? 0 : CUZK_ENOMEM;
}

static void mark_columns(const shape_matrix *m, size_t num_inputs, uint64_t *in_bits,
                         uint64_t *aux_bits)
{
    for (size_t k = 0; k < m->nnz; k++) {
        size_t col = m->col[k] & SHAPE_COL;
        if (col >= num_inputs)
            bit_set(aux_bits, col - num_inputs);
        else if (in_bits)
            bit_set(in_bits, col);
    }
}

/* The encodings of every coefficient a shape holds: +-2^k by sign and
 * code, and the escaped values (converting each entry's coefficient out
 * of Montgomery form took most of the hashing). */
typedef struct coeff_encs {
    fph_coeff pow[2][SHAPE_POWS];
    fph_coeff *vals;
} coeff_encs;

static int hash_row(fph *h, const cs_shape *s, const coeff_encs *enc, const shape_matrix *m,
                    size_t row, uint64_t e, uint64_t *x)
{
    int rc = fph_lc(h, m->len[row]);
    for (uint64_t k = e; k < e + m->len[row] && !rc; k++) {
        uint8_t code = m->code[k];
        const fph_coeff *c = code == SHAPE_ESC ? &enc->vals[m->esc_val[(*x)++]]
                                               : &enc->pow[(m->col[k] & SHAPE_NEG) != 0][code];
        size_t col = m->col[k] & SHAPE_COL;
        rc = col < s->num_inputs ? fph_term_coded(h, CS_INPUT, (uint32_t)col, c)
                                 : fph_term_coded(h, CS_AUX, (uint32_t)(col - s->num_inputs), c);
    }
    return rc;
}

/* Block k of the fingerprint (FPH_BLOCK constraints from k FPH_BLOCK)
 * hashed on its own into out, with h. */
static int hash_block(fph *h, const cs_shape *s, const coeff_encs *enc, size_t k, uint8_t out[32])
{
    size_t r0 = k * FPH_BLOCK,
           r1 = r0 + FPH_BLOCK < s->num_constraints ? r0 + FPH_BLOCK : s->num_constraints;
    uint64_t e[3], x[3];
    for (int i = 0; i < 3; i++) /* FPH_BLOCK is a multiple of SHAPE_BLOCK */
        e[i] = s->m[i].start[r0 / SHAPE_BLOCK], x[i] = s->m[i].esc_start[r0 / SHAPE_BLOCK];
    int rc = 0;
    for (size_t r = r0; r < r1 && !rc; r++)
        for (int i = 0; i < 3 && !rc; i++) {
            rc = hash_row(h, s, enc, &s->m[i], r, e[i], &x[i]);
            e[i] += s->m[i].len[r];
        }
    return rc ? rc : fph_block_digest(h, out);
}

/* Frees the n hashers of fingerprint. */
static void hashers_free(fph *hs, int n)
{
    for (int t = 0; t < n; t++) fph_free(&hs[t]);
    free(hs);
}

/* The fingerprint (fingerprint.h): its blocks hashed in parallel, by a
 * hasher a thread made before the team starts (so that nothing in the
 * team allocates: a failed allocation would leave OpenSSL's error state
 * in a pool thread). */
static int fingerprint(cs_shape *s)
{
    _Static_assert(FPH_BLOCK % SHAPE_BLOCK == 0, "a fingerprint block is whole shape blocks");
    size_t nb = (s->num_constraints + FPH_BLOCK - 1) / FPH_BLOCK;
    int nt = omp_get_max_threads(), made = 0;
    if ((size_t)nt > nb) nt = nb ? (int)nb : 1;
    coeff_encs *enc = malloc(sizeof(*enc));
    uint8_t(*digests)[32] = malloc((nb ? nb : 1) * 32);
    fph *hs = calloc((size_t)nt, sizeof(fph));
    if (enc) enc->vals = malloc((s->n_vals + 1) * sizeof(fph_coeff));
    while (hs && made < nt && !fph_init_block(&hs[made])) made++;
    if (!enc || !enc->vals || !digests || made < nt) {
        free(enc ? enc->vals : NULL), free(enc), free(digests);
        if (hs) hashers_free(hs, made);
        return CUZK_ENOMEM;
    }
    for (int k = 0; k < SHAPE_POWS; k++) {
        fr_t neg;
        fr_neg(&neg, &s->pow2[k]);
        fph_coeff_encode(&hs[0], &s->pow2[k], &enc->pow[0][k]);
        fph_coeff_encode(&hs[0], &neg, &enc->pow[1][k]);
    }
    for (size_t v = 0; v < s->n_vals; v++) fph_coeff_encode(&hs[0], &s->vals[v], &enc->vals[v]);
    int rc = 0;
#pragma omp parallel num_threads(nt)
    {
        fph *h = &hs[omp_get_thread_num()];
        int mine = 0;
#pragma omp for schedule(dynamic, 1)
        for (size_t k = 0; k < nb; k++)
            if (!mine) mine = hash_block(h, s, enc, k, digests[k]);
        if (mine) {
#pragma omp atomic write
            rc = mine;
        }
    }
    if (!rc)
        rc = fph_join((const uint8_t(*)[32])digests, nb, s->num_inputs, s->num_aux,
                      s->num_constraints, s->fingerprint);
    hashers_free(hs, made);
    free(enc->vals), free(enc), free(digests);
    return rc;
}

static size_t matrix_bytes(const shape_matrix *m, size_t rows)
{
    return 2 * (shape_blocks(rows) + 1) * sizeof(uint64_t) + rows * sizeof(uint16_t) +
           m->nnz * (sizeof(uint32_t) + 1) + m->n_esc * sizeof(uint32_t);
}

/* The recorded segments into s. */
static int shape_finish(cs_shape *s, shape_cs *r, cuzk_err *err)
{
    size_t rows = 0;
    for (size_t k = 0; k < r->n_segs; k++) {
        if (r->segs[k]->row0 != rows)
            return cuzk_errf(err, CUZK_EINVAL,
                             "shape: segment %zu starts at constraint %zu, not %zu", k,
                             r->segs[k]->row0, rows);
        rows += r->segs[k]->rows;
    }
    if (rows != s->num_constraints)
        return cuzk_errf(err, CUZK_EINVAL, "shape: %zu constraints recorded of %zu", rows,
                         s->num_constraints);
    if (s->num_inputs + s->num_aux > SHAPE_COL)
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "shape: %zu variables do not fit 31-bit columns",
                         s->num_inputs + s->num_aux);
    int rc = 0; /* cs_run enforces ONE's input constraint: there is a segment */
    for (int i = 0; i < 3 && !rc; i++) rc = join_matrix(&s->m[i], r, i, rows, s->num_inputs);
    s->vals = r->vals.v, s->n_vals = r->vals.n;
    r->vals.v = NULL;
    if (!rc)
        rc = new_bits(&s->a_aux, s->num_aux) || new_bits(&s->b_input, s->num_inputs) ||
                     new_bits(&s->b_aux, s->num_aux)
                 ? CUZK_ENOMEM
                 : 0;
    if (rc) return cuzk_errf(err, rc, "shape: out of memory joining %zu constraints", rows);
    mark_columns(&s->m[0], s->num_inputs, NULL, s->a_aux);
    mark_columns(&s->m[1], s->num_inputs, s->b_input, s->b_aux);
    if (fingerprint(s)) return cuzk_errf(err, CUZK_ENOMEM, "shape: SHA-256 failed");
    s->bytes = sizeof(*s) + s->n_vals * sizeof(fr_t) +
               (2 * (s->num_aux / 64 + 1) + s->num_inputs / 64 + 1) * sizeof(uint64_t);
    for (int i = 0; i < 3; i++) s->bytes += matrix_bytes(&s->m[i], rows);
    return 0;
}

int cs_shape_record(cs_shape **out, cs_circuit circuit, cuzk_err *err)
{
    *out = NULL;
    cs_shape *s = calloc(1, sizeof(*s));
    shape_cs *r = calloc(1, sizeof(*r));
    if (!s || !r) {
        free(s), free(r);
        return cuzk_errf(err, CUZK_ENOMEM, "shape: out of memory");
    }
    pthread_once(&pow_once, pow_init);
    cs_init(&r->cs, &shape_ops, false);
    r->cs.fork_ops = &shape_fork_ops;
    int rc = cs_run(&r->cs, circuit, err);
    if (!rc) {
        s->num_constraints = r->cs.num_constraints;
        s->num_inputs = r->cs.num_inputs;
        s->num_aux = r->cs.num_aux;
        s->pow2[0] = FR_ONE;
        for (int k = 1; k < SHAPE_POWS; k++) fr_dbl(&s->pow2[k], &s->pow2[k - 1]);
        rc = shape_finish(s, r, err);
    }
    segs_free(r);
    val_free(&r->vals);
    free(r);
    if (rc) {
        cs_shape_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void cs_shape_free(cs_shape *s)
{
    if (!s) return;
    for (int i = 0; i < 3; i++) {
        shape_matrix *m = &s->m[i];
        free(m->start), free(m->len), free(m->col), free(m->code), free(m->esc_start);
        free(m->esc_val);
    }
    free(s->vals), free(s->a_aux), free(s->b_input), free(s->b_aux);
    free(s);
}

size_t cs_shape_bytes(const cs_shape *s)
{
    return s->bytes;
}
size_t cs_shape_num_constraints(const cs_shape *s)
{
    return s->num_constraints;
}
size_t cs_shape_num_inputs(const cs_shape *s)
{
    return s->num_inputs;
}
size_t cs_shape_num_aux(const cs_shape *s)
{
    return s->num_aux;
}
void cs_shape_fingerprint(const cs_shape *s, uint8_t out[32])
{
    memcpy(out, s->fingerprint, 32);
}

/* ---- densities ---- */

/* *m := the shape's bits (nbits) in the words of cap >= nbits variables:
 * its own words where it has some and cap covers nbits (a bitmap held has
 * the words of the capacity it was made for, as the prover backend and
 * this function leave it; cs_synthesize_for_shape drops one made for
 * another), else new ones; the words past nbits zeroed, as the prover
 * leaves them. */
static int put_bitmap(cs_bitmap *m, size_t cap, const uint64_t *bits, size_t nbits)
{
    size_t words = (nbits + 63) / 64, cap_words = ((cap > nbits ? cap : nbits) + 63) / 64;
    if (!m->words || cap < nbits) {
        free(m->words);
        m->words = calloc(cap_words ? cap_words : 1, sizeof(uint64_t));
        if (!m->words) return CUZK_ENOMEM;
    } else {
        memset(m->words + words, 0, (cap_words - words) * sizeof(uint64_t));
    }
    memcpy(m->words, bits, words * sizeof(uint64_t));
    m->nbits = nbits;
    return 0;
}

/* Frees a bitmap made for another capacity than cap. */
static void drop_bitmap(cs_bitmap *m, size_t held, size_t cap)
{
    if (held == cap) return;
    free(m->words);
    m->words = NULL;
}

int cs_shape_densities(const cs_shape *s, cs_prover *p, cuzk_err *err)
{
    if (p->num_inputs != s->num_inputs || p->num_aux != s->num_aux)
        return cuzk_errf(err, CUZK_EINVAL,
                         "shape densities: the prover has %zu inputs and %zu aux, the shape %zu "
                         "and %zu",
                         p->num_inputs, p->num_aux, s->num_inputs, s->num_aux);
    if (put_bitmap(&p->a_aux_density, p->cap_aux, s->a_aux, s->num_aux) ||
        put_bitmap(&p->b_input_density, p->cap_inputs, s->b_input, s->num_inputs) ||
        put_bitmap(&p->b_aux_density, p->cap_aux, s->b_aux, s->num_aux))
        return cuzk_errf(err, CUZK_ENOMEM, "shape densities: out of memory for %zu aux",
                         s->num_aux);
    return 0;
}

int cs_synthesize_for_shape(cs_prover *out, cs_circuit circuit, const cs_shape *s,
                            const cs_capacity *hint, cuzk_err *err)
{
    size_t held_inputs = out->cap_inputs, held_aux = out->cap_aux;
    int rc = cs_synthesize_witness_into(out, circuit, hint, err);
    if (!rc) {
        /* the witness may have grown the storage past its bitmaps' words */
        drop_bitmap(&out->b_input_density, held_inputs, out->cap_inputs);
        drop_bitmap(&out->a_aux_density, held_aux, out->cap_aux);
        drop_bitmap(&out->b_aux_density, held_aux, out->cap_aux);
        rc = cs_shape_densities(s, out, err);
    }
    if (rc) {
        cs_prover_free(out);
        return rc;
    }
    out->shape = s;
    return CUZK_OK;
}

/* ---- evaluation ---- */

static inline bool limbs_eq(const fr_t *x, const fr_t *y)
{
    return !((x->l[0] ^ y->l[0]) | (x->l[1] ^ y->l[1]) | (x->l[2] ^ y->l[2]) | (x->l[3] ^ y->l[3]));
}

static inline bool limbs_zero(const fr_t *x)
{
    return !(x->l[0] | x->l[1] | x->l[2] | x->l[3]);
}

/* acc += (+-2^code or an escaped value) x for entry e; *esc counts the
 * escaped entries. */
static inline void add_entry(fr_t *acc, const cs_shape *s, const shape_matrix *m, uint64_t e,
                             const fr_t *x, uint64_t *esc)
{
    uint8_t code = m->code[e];
    bool neg = m->col[e] & SHAPE_NEG;
    fr_t t;
    if (code == 0) {
        if (neg)
            fr_sub_inline(acc, acc, x);
        else
            fr_add_inline(acc, acc, x);
        return;
    }
    if (code == SHAPE_ESC) {
        fr_mul_inline(&t, x, &s->vals[m->esc_val[(*esc)++]]);
        fr_add_inline(acc, acc, &t);
        return;
    }
    if (limbs_zero(x)) return;
    if (limbs_eq(x, &FR_ONE))
        t = s->pow2[code];
    else
        fr_mul_inline(&t, x, &s->pow2[code]);
    if (neg)
        fr_sub_inline(acc, acc, &t);
    else
        fr_add_inline(acc, acc, &t);
}

static void eval_matrix(const cs_shape *s, const shape_matrix *m, const fr_t *input,
                        const fr_t *aux, fr_t *out)
{
    size_t n = s->num_constraints, ni = s->num_inputs;
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t b = 0; b < shape_blocks(n); b++) {
        uint64_t e = m->start[b], x = m->esc_start[b];
        size_t end = (b + 1) * SHAPE_BLOCK < n ? (b + 1) * SHAPE_BLOCK : n;
        for (size_t r = b * SHAPE_BLOCK; r < end; r++) {
            fr_t acc = FR_ZERO;
            for (uint64_t k = e; k < e + m->len[r]; k++) {
                size_t col = m->col[k] & SHAPE_COL;
                add_entry(&acc, s, m, k, col < ni ? &input[col] : &aux[col - ni], &x);
            }
            e += m->len[r];
            out[r] = acc;
        }
    }
}

int cs_shape_eval(const cs_shape *s, const fr_t *input, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c,
                  cuzk_err *err)
{
    eval_matrix(s, &s->m[0], input, aux, a);
    eval_matrix(s, &s->m[1], input, aux, b);
    eval_matrix(s, &s->m[2], input, aux, c);
    size_t n = s->num_constraints, first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (size_t j = 0; j < n; j++) {
        fr_t ab;
        fr_mul_inline(&ab, &a[j], &b[j]);
        if (j < first && !limbs_eq(&ab, &c[j])) first = j;
    }
    if (first < n) return cuzk_errf(err, CUZK_EINVAL, "constraint %zu is not satisfied", first);
    return 0;
}
