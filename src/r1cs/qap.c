/*
 * qap.c - the QAP backend: the columns u_i(tau), v_i(tau), w_i(tau) of
 * Groth16 setup accumulated while the circuit is synthesized, without the
 * matrices (r1cs.h: cs_qap_count, cs_qap_eval).
 *
 * Setup needs, per variable i, u_i = sum_j A[j][i] L_j(tau) (v over B, w
 * over C), with L_j(tau) the Lagrange basis at tau of constraint j. The
 * keygen backend records the whole R1CS and transposes it (at 32 GiB the
 * matrices alone would not fit); this backend adds coeff * L_j into the
 * column of each term's variable as constraint j is enforced, so memory
 * is three elements per variable plus the basis. It runs twice: a count
 * (no basis, nothing stored) sizes the domain and the columns, then the
 * evaluation, which fails when the synthesis differs from the count.
 *
 * Forks (cs_run_units): a child adds terms on the variables of its own
 * window straight into the shared columns (no other cs writes them); a
 * term on any other variable (ONE, inputs, variables allocated before the
 * units) goes into a small map of the child's, keyed by variable, that
 * the parent folds in when it releases the child (sequentially, after
 * the units). Field addition is exact, so the columns do not depend on
 * the order the sums are taken in: the result is the sequential one.
 */
#include "ff/field_inline.h"
#include "r1cs/cs_internal.h"

#include <stdlib.h>
#include <string.h>

enum { QAP_A, QAP_B, QAP_C };

/* Sums of terms on variables outside a child's window: open addressing
 * on key + 1 (0 marks a free slot), grown at half full. */
typedef struct qap_entry {
    uint64_t key;
    fr_t acc[3];
} qap_entry;

typedef struct qap_map {
    qap_entry *e;
    size_t cap, len;
} qap_map;

typedef struct qap_shared {
    const fr_t *lag; /* L_j(tau) per constraint; NULL while counting */
    fr_t *col[3];    /* u, v, w over [inputs || aux] */
    size_t ni, na, nc;
    fr_t minus_one;
} qap_shared;

typedef struct qap_cs {
    cs_t cs;
    qap_shared *sh;
    struct qap_cs *parent; /* NULL for the root */
    size_t in_lo, aux_lo;  /* the window starts (it ends at cs.lim_*) */
    qap_map out;           /* a child's sums outside its window */
} qap_cs;

/* ---- the outside map ---- */

static size_t map_slot(const qap_map *m, uint64_t key)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
    while (m->e[i].key && m->e[i].key != key + 1) i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_grow(qap_map *m)
{
    qap_map g = {calloc(m->cap ? 2 * m->cap : 64, sizeof(qap_entry)), m->cap ? 2 * m->cap : 64, 0};
    if (!g.e) return CUZK_ENOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->e[i].key) g.e[map_slot(&g, m->e[i].key - 1)] = m->e[i], g.len++;
    free(m->e);
    *m = g;
    return 0;
}

/* The sums of variable key, created zero. */
static fr_t *map_get(qap_map *m, uint64_t key)
{
    if (2 * (m->len + 1) > m->cap && map_grow(m)) return NULL;
    size_t i = map_slot(m, key);
    if (!m->e[i].key) {
        m->e[i].key = key + 1;
        m->len++;
    }
    return m->e[i].acc;
}

/* ---- accumulation ---- */

/* Whether column col ([inputs || aux]) is in q's window. */
static bool owns(const qap_cs *q, size_t col)
{
    if (col < q->sh->ni) return col >= q->in_lo && col < q->cs.lim_inputs;
    col -= q->sh->ni;
    return col >= q->aux_lo && col < q->cs.lim_aux;
}

/* acc += c l, with c = 1 and c = -1 as an addition and a subtraction. */
static inline void add_scaled(fr_t *acc, const fr_t *c, const fr_t *l, const fr_t *minus_one)
{
    fr_t t;
    if (!memcmp(c, &FR_ONE, sizeof(fr_t))) {
        fr_add_inline(acc, acc, l);
    } else if (!memcmp(c, minus_one, sizeof(fr_t))) {
        fr_sub(acc, acc, l);
    } else {
        fr_mul_inline(&t, c, l);
        fr_add_inline(acc, acc, &t);
    }
}

static int add_lc(qap_cs *q, int k, const cs_lc *lc, const fr_t *l)
{
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        if (fr_is_zero(&t[i].coeff)) continue;
        size_t col = t[i].var.kind == CS_INPUT ? t[i].var.index : q->sh->ni + t[i].var.index;
        bool own = owns(q, col);
        fr_t *acc = own ? &q->sh->col[k][col] : map_get(&q->out, col);
        if (!acc) return CUZK_ENOMEM;
        add_scaled(own ? acc : &acc[k], &t[i].coeff, l, &q->sh->minus_one);
    }
    return 0;
}

static int qap_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    (void)value;
    qap_shared *sh = ((qap_cs *)cs)->sh;
    if (!sh->lag) return 0;
    size_t i = kind == CS_INPUT ? cs->num_inputs : cs->num_aux;
    return i < (kind == CS_INPUT ? sh->ni : sh->na) ? 0 : CUZK_EINVAL;
}

static int qap_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    qap_cs *q = (qap_cs *)cs;
    if (!q->sh->lag) return 0;
    size_t j = cs->num_constraints;
    if (j >= q->sh->nc) return CUZK_EINVAL;
    const fr_t *l = &q->sh->lag[j];
    int rc = add_lc(q, QAP_A, a, l);
    if (!rc) rc = add_lc(q, QAP_B, b, l);
    return rc ? rc : add_lc(q, QAP_C, c, l);
}

static const cs_ops qap_ops = {qap_alloc, qap_enforce};

/* ---- forks ---- */

/* A child's units must fit its window; the root's, the count (nothing
 * to check while counting: nothing is stored). */
static int qap_reserve(cs_t *cs, const cs_capacity *more)
{
    qap_cs *q = (qap_cs *)cs;
    size_t li = q->parent ? cs->lim_inputs : q->sh->ni, la = q->parent ? cs->lim_aux : q->sh->na,
           lc = q->parent ? cs->lim_constraints : q->sh->nc;
    if (!q->parent && !q->sh->lag) return 0;
    bool fits = more->inputs <= li - cs->num_inputs && more->aux <= la - cs->num_aux &&
                more->constraints <= lc - cs->num_constraints;
    return fits ? 0 : CUZK_EINVAL;
}

static const cs_fork_ops qap_fork_ops;

static cs_t *qap_fork(cs_t *cs, const cs_capacity *at, const cs_capacity *size)
{
    qap_cs *parent = (qap_cs *)cs, *q = calloc(1, sizeof(*q));
    if (!q) return NULL;
    cs_init_child(&q->cs, cs, &qap_ops, at, size);
    q->cs.fork_ops = &qap_fork_ops;
    q->sh = parent->sh;
    q->parent = parent;
    q->in_lo = q->cs.num_inputs;
    q->aux_lo = q->cs.num_aux;
    return &q->cs;
}

/* Folds a child's outside sums into its parent: the parent's own window
 * straight into the columns, the rest into the parent's map. */
static int fold(qap_cs *parent, const qap_map *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->e[i].key) continue;
        size_t col = (size_t)m->e[i].key - 1;
        bool own = owns(parent, col);
        fr_t *acc = own ? NULL : map_get(&parent->out, col);
        if (!own && !acc) return CUZK_ENOMEM;
        for (int k = 0; k < 3; k++) {
            fr_t *dst = own ? &parent->sh->col[k][col] : &acc[k];
            fr_add_inline(dst, dst, &m->e[i].acc[k]);
        }
    }
    return 0;
}

/* cs_run_units releases the children one after the other once all are
 * done: the fold happens there. */
static void qap_release(cs_t *child)
{
    qap_cs *q = (qap_cs *)child;
    if (!q->parent->cs.status && !child->status && fold(q->parent, &q->out))
        cs_fail(&q->parent->cs, CUZK_ENOMEM, "qap: out of memory folding a unit's sums");
    free(q->out.e);
    free(q);
}

static const cs_fork_ops qap_fork_ops = {qap_reserve, qap_fork, qap_release};

/* ---- the backend ---- */

static void root_init(qap_cs *r, qap_shared *sh)
{
    memset(r, 0, sizeof(*r));
    cs_init(&r->cs, &qap_ops, false);
    r->cs.fork_ops = &qap_fork_ops;
    r->sh = sh;
    fr_neg(&sh->minus_one, &FR_ONE);
}

int cs_qap_count(cs_qap *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    qap_shared sh = {0};
    qap_cs r;
    root_init(&r, &sh);
    int rc = cs_run(&r.cs, circuit, err);
    if (rc) return rc;
    out->num_constraints = r.cs.num_constraints;
    out->num_inputs = r.cs.num_inputs;
    out->num_aux = r.cs.num_aux;
    return 0;
}

int cs_qap_eval(cs_qap *q, cs_circuit circuit, const fr_t *lagrange, cuzk_err *err)
{
    size_t nv = q->num_inputs + q->num_aux;
    qap_shared sh = {lagrange,   {NULL, NULL, NULL}, q->num_inputs,
                     q->num_aux, q->num_constraints, FR_ZERO};
    qap_cs r;
    root_init(&r, &sh);
    for (int k = 0; k < 3; k++) sh.col[k] = calloc(nv ? nv : 1, sizeof(fr_t));
    if (!sh.col[0] || !sh.col[1] || !sh.col[2]) {
        for (int k = 0; k < 3; k++) free(sh.col[k]);
        return cuzk_errf(err, CUZK_ENOMEM, "qap: out of memory for 3 x %zu column values", nv);
    }
    int rc = cs_run(&r.cs, circuit, err);
    if (!rc && (r.cs.num_inputs != q->num_inputs || r.cs.num_aux != q->num_aux ||
                r.cs.num_constraints != q->num_constraints))
        rc = cuzk_errf(err, CUZK_EINVAL,
                       "qap: the circuit made %zu inputs, %zu aux, %zu constraints; its count "
                       "said %zu, %zu, %zu",
                       r.cs.num_inputs, r.cs.num_aux, r.cs.num_constraints, q->num_inputs,
                       q->num_aux, q->num_constraints);
    if (!rc && r.out.len) rc = cuzk_errf(err, CUZK_EINVAL, "qap: terms left outside the root");
    free(r.out.e);
    if (rc) {
        for (int k = 0; k < 3; k++) free(sh.col[k]);
        return rc;
    }
    q->u = sh.col[QAP_A], q->v = sh.col[QAP_B], q->w = sh.col[QAP_C];
    return 0;
}

void cs_qap_free(cs_qap *q)
{
    free(q->u), free(q->v), free(q->w);
    memset(q, 0, sizeof(*q));
}
