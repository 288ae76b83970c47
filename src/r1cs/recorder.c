/*
 * recorder.c - the recorder and keygen backends, and what can be done with
 * their matrices.
 *
 * The recorder appends each constraint's non-zero terms to compressed-row
 * arrays for A, B and C (an aux column is tagged with bit 31 while the
 * number of inputs is still unknown, and renumbered to num_inputs + j once
 * the circuit is done). Evaluating the rows on a witness reproduces the
 * prover's a, b, c, which is what the later pre-compiled evaluator builds
 * on. Keygen records the same way and transposes (a counting sort by
 * column) into one row per variable: the QAP columns u_i, v_i, w_i that
 * Groth16 setup evaluates at tau. Neither needs variable values.
 */
#include "r1cs/cs_internal.h"
#include "r1cs/fingerprint.h"

#include <stdlib.h>
#include <string.h>

#define AUX_TAG ((uint32_t)1 << 31)

typedef struct csr_build {
    uint64_t *ptr;
    uint32_t *idx;
    fr_t *val;
    size_t rows, ptr_cap, nnz, idx_cap, val_cap;
} csr_build;

typedef struct recorder_cs {
    cs_t cs;
    csr_build m[3];
} recorder_cs;

static int recorder_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    (void)cs, (void)kind, (void)value;
    return 0;
}

static int record_row(csr_build *m, const cs_lc *lc)
{
    size_t need = m->nnz + lc->len;
    int rc = cs_vec_reserve((void **)&m->ptr, &m->ptr_cap, m->rows + 2, sizeof(uint64_t));
    if (!rc) rc = cs_vec_reserve((void **)&m->idx, &m->idx_cap, need, sizeof(uint32_t));
    if (!rc) rc = cs_vec_reserve((void **)&m->val, &m->val_cap, need, sizeof(fr_t));
    if (rc) return rc;
    const cs_term *t = lc_terms(lc);
    for (uint32_t i = 0; i < lc->len; i++) {
        if (fr_is_zero(&t[i].coeff)) continue;
        m->idx[m->nnz] = t[i].var.index | (t[i].var.kind == CS_AUX ? AUX_TAG : 0);
        m->val[m->nnz++] = t[i].coeff;
    }
    m->ptr[0] = 0;
    m->ptr[++m->rows] = m->nnz;
    return 0;
}

static int recorder_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    recorder_cs *r = (recorder_cs *)cs;
    int rc = record_row(&r->m[0], a);
    if (!rc) rc = record_row(&r->m[1], b);
    return rc ? rc : record_row(&r->m[2], c);
}

static const cs_ops recorder_ops = {recorder_alloc, recorder_enforce};

/* Moves a built matrix out, renumbering aux columns after the inputs. */
static cs_matrix finish_csr(csr_build *m, size_t num_inputs)
{
    for (size_t k = 0; k < m->nnz; k++)
        if (m->idx[k] & AUX_TAG) m->idx[k] = (uint32_t)(num_inputs + (m->idx[k] & ~AUX_TAG));
    cs_matrix out = {m->rows, m->nnz, m->ptr, m->idx, m->val};
    memset(m, 0, sizeof(*m));
    return out;
}

static void free_build(csr_build *m)
{
    free(m->ptr), free(m->idx), free(m->val);
}

static void matrix_free(cs_matrix *m)
{
    free(m->ptr), free(m->idx), free(m->val);
    memset(m, 0, sizeof(*m));
}

void cs_r1cs_free(cs_r1cs *r)
{
    matrix_free(&r->a), matrix_free(&r->b), matrix_free(&r->c);
    memset(r, 0, sizeof(*r));
}

int cs_record(cs_r1cs *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    recorder_cs r = {0};
    cs_init(&r.cs, &recorder_ops, false);
    int rc = cs_run(&r.cs, circuit, err);
    if (!rc && r.cs.num_inputs + r.cs.num_aux > UINT32_MAX)
        rc = cuzk_errf(err, CUZK_EUNSUPPORTED, "recorder: %zu variables do not fit 32-bit columns",
                       r.cs.num_inputs + r.cs.num_aux);
    if (rc) {
        for (int i = 0; i < 3; i++) free_build(&r.m[i]);
        return rc;
    }
    out->num_constraints = r.cs.num_constraints;
    out->num_inputs = r.cs.num_inputs;
    out->num_aux = r.cs.num_aux;
    out->layout = CS_BY_CONSTRAINT;
    out->a = finish_csr(&r.m[0], out->num_inputs);
    out->b = finish_csr(&r.m[1], out->num_inputs);
    out->c = finish_csr(&r.m[2], out->num_inputs);
    return 0;
}

/* The same entries, one row per column of m (a counting sort). */
static int transpose(cs_matrix *t, const cs_matrix *m, size_t cols)
{
    memset(t, 0, sizeof(*t));
    t->rows = cols;
    t->nnz = m->nnz;
    t->ptr = calloc(cols + 1, sizeof(uint64_t));
    t->idx = malloc((m->nnz ? m->nnz : 1) * sizeof(uint32_t));
    t->val = malloc((m->nnz ? m->nnz : 1) * sizeof(fr_t));
    if (!t->ptr || !t->idx || !t->val) {
        matrix_free(t);
        return CUZK_ENOMEM;
    }
    for (size_t k = 0; k < m->nnz; k++) t->ptr[m->idx[k] + 1]++;
    for (size_t j = 0; j < cols; j++) t->ptr[j + 1] += t->ptr[j];
    for (size_t r = 0; r < m->rows; r++) {
        for (uint64_t k = m->ptr[r]; k < m->ptr[r + 1]; k++) {
            uint64_t pos = t->ptr[m->idx[k]]++;
            t->idx[pos] = (uint32_t)r;
            t->val[pos] = m->val[k];
        }
    }
    memmove(t->ptr + 1, t->ptr, cols * sizeof(uint64_t));
    t->ptr[0] = 0;
    return 0;
}

int cs_keygen(cs_r1cs *out, cs_circuit circuit, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    cs_r1cs rows;
    int rc = cs_record(&rows, circuit, err);
    if (rc) return rc;
    if (rows.num_constraints > UINT32_MAX) {
        cs_r1cs_free(&rows);
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "keygen: %zu constraints do not fit 32 bits",
                         rows.num_constraints);
    }
    out->num_constraints = rows.num_constraints;
    out->num_inputs = rows.num_inputs;
    out->num_aux = rows.num_aux;
    out->layout = CS_BY_VARIABLE;
    size_t cols = rows.num_inputs + rows.num_aux;
    rc = transpose(&out->a, &rows.a, cols);
    if (!rc) rc = transpose(&out->b, &rows.b, cols);
    if (!rc) rc = transpose(&out->c, &rows.c, cols);
    if (rc) {
        cs_r1cs_free(out);
        cuzk_errf(err, rc, "keygen: out of memory transposing %zu constraints",
                  rows.num_constraints);
    }
    cs_r1cs_free(&rows);
    return rc;
}

/* Rows of m times the assignment; coefficients 1 and -1 cost an addition. */
static void eval_rows(const cs_matrix *m, size_t num_inputs, const fr_t *input, const fr_t *aux,
                      fr_t *out)
{
    fr_t minus_one;
    fr_neg(&minus_one, &FR_ONE);
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < m->rows; r++) {
        fr_t acc = FR_ZERO, tmp;
        for (uint64_t k = m->ptr[r]; k < m->ptr[r + 1]; k++) {
            uint32_t col = m->idx[k];
            const fr_t *x = col < num_inputs ? &input[col] : &aux[col - num_inputs];
            if (fr_is_one(&m->val[k])) {
                fr_add(&acc, &acc, x);
            } else if (fr_eq(&m->val[k], &minus_one)) {
                fr_sub(&acc, &acc, x);
            } else {
                fr_mul(&tmp, x, &m->val[k]);
                fr_add(&acc, &acc, &tmp);
            }
        }
        out[r] = acc;
    }
}

int cs_r1cs_eval(const cs_r1cs *r, const fr_t *input, const fr_t *aux, fr_t *a, fr_t *b, fr_t *c)
{
    if (r->layout != CS_BY_CONSTRAINT) return CUZK_EINVAL;
    eval_rows(&r->a, r->num_inputs, input, aux, a);
    eval_rows(&r->b, r->num_inputs, input, aux, b);
    eval_rows(&r->c, r->num_inputs, input, aux, c);
    return 0;
}

static int hash_row(fph *h, const cs_matrix *m, size_t row, size_t num_inputs)
{
    int rc = fph_lc(h, (uint32_t)(m->ptr[row + 1] - m->ptr[row]));
    for (uint64_t k = m->ptr[row]; k < m->ptr[row + 1] && !rc; k++) {
        uint32_t col = m->idx[k];
        rc = col < num_inputs ? fph_term(h, CS_INPUT, col, &m->val[k])
                              : fph_term(h, CS_AUX, (uint32_t)(col - num_inputs), &m->val[k]);
    }
    return rc;
}

int cs_r1cs_fingerprint(const cs_r1cs *r, uint8_t out[32], cuzk_err *err)
{
    if (r->layout != CS_BY_CONSTRAINT)
        return cuzk_errf(err, CUZK_EINVAL, "fingerprint: matrices must be by constraint");
    fph *h = malloc(sizeof(*h));
    if (!h || fph_init(h)) {
        free(h);
        return cuzk_errf(err, CUZK_ENOMEM, "fingerprint: out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < r->num_constraints && !rc; i++) {
        rc = hash_row(h, &r->a, i, r->num_inputs);
        if (!rc) rc = hash_row(h, &r->b, i, r->num_inputs);
        if (!rc) rc = hash_row(h, &r->c, i, r->num_inputs);
    }
    if (!rc) rc = fph_final(h, r->num_inputs, r->num_aux, r->num_constraints, out);
    fph_free(h);
    free(h);
    return rc ? cuzk_errf(err, rc, "fingerprint: SHA-256 failed") : 0;
}
