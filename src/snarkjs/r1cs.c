/*
 * r1cs.c - reader of circom .r1cs files (version 1; sections 1 header,
 * 2 constraints, 3 wire-to-label map). Coefficients are 32-byte LE
 * standard-form elements of the BLS12-381 scalar field.
 */
#include "cuzk/snarkjs.h"

#include <stdlib.h>
#include <string.h>

#include "snarkjs/binfile.h"

enum { R1CS_HEADER = 1, R1CS_CONSTRAINTS = 2, R1CS_WIRE2LABEL = 3 };

static int read_header(snarkjs_r1cs *r, const binfile *f, cuzk_err *err)
{
    bincursor c;
    int rc = binfile_section(f, R1CS_HEADER, 0, &c, err);
    if (!rc) rc = bincursor_prime(&c, FR_MODULUS, FR_LIMBS, "prime", err);
    if (!rc) rc = bincursor_u32(&c, &r->n_wires, "nWires", err);
    if (!rc) rc = bincursor_u32(&c, &r->n_outputs, "nPubOut", err);
    if (!rc) rc = bincursor_u32(&c, &r->n_pub_inputs, "nPubIn", err);
    if (!rc) rc = bincursor_u32(&c, &r->n_prv_inputs, "nPrvIn", err);
    if (!rc) rc = bincursor_u64(&c, &r->n_labels, "nLabels", err);
    if (!rc) rc = bincursor_u32(&c, &r->n_constraints, "nConstraints", err);
    if (!rc) rc = bincursor_end(&c, err);
    if (rc) return rc;
    uint64_t io = 1ull + r->n_outputs + r->n_pub_inputs + r->n_prv_inputs;
    if (r->n_wires == 0 || io > r->n_wires)
        return cuzk_errf(err, CUZK_EINVAL, "%s: header: %u wires cannot hold 1 + %u + %u + %u",
                         f->path, r->n_wires, r->n_outputs, r->n_pub_inputs, r->n_prv_inputs);
    return CUZK_OK;
}

/* Each term is 4 + 32 bytes, so a section of len bytes holds at most
 * len / 36; each constraint is at least its three 4-byte term counts, so
 * the header's count is checked against the section before anything is
 * allocated for it. */
static int read_constraints(snarkjs_r1cs *r, const binfile *f, cuzk_err *err)
{
    bincursor c;
    int rc = binfile_section(f, R1CS_CONSTRAINTS, 0, &c, err);
    if (rc) return rc;
    if ((uint64_t)r->n_constraints > c.len / 12)
        return cuzk_errf(err, CUZK_ELENGTH,
                         "%s: header claims %u constraints, but the constraints section has %llu "
                         "bytes (at least 12 a constraint)",
                         f->path, r->n_constraints, (unsigned long long)c.len);
    r->off = malloc(sizeof(uint64_t) * (3 * (size_t)r->n_constraints + 1));
    r->terms = malloc(sizeof(snarkjs_term) * (size_t)(c.len / 36 + 1));
    if (!r->off || !r->terms) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", f->path);
    uint64_t t = 0;
    for (uint64_t k = 0; k < 3ull * r->n_constraints; k++) {
        uint32_t n;
        r->off[k] = t;
        if ((rc = bincursor_u32(&c, &n, "term count", err))) return rc;
        if (n > (c.len - c.pos) / 36)
            return cuzk_errf(err, CUZK_ELENGTH, "%s: constraint %llu claims %u terms, truncated",
                             f->path, (unsigned long long)(k / 3), n);
        for (uint32_t i = 0; i < n; i++, t++) {
            snarkjs_term *term = &r->terms[t];
            if ((rc = bincursor_u32(&c, &term->wire, "wire", err))) return rc;
            if ((rc = bincursor_fr(&c, &term->coef, "coefficient", err))) return rc;
            if (term->wire >= r->n_wires)
                return cuzk_errf(err, CUZK_EINVAL, "%s: constraint %llu uses wire %u of %u",
                                 f->path, (unsigned long long)(k / 3), term->wire, r->n_wires);
        }
    }
    r->off[3 * (size_t)r->n_constraints] = t;
    return bincursor_end(&c, err);
}

int snarkjs_r1cs_read(snarkjs_r1cs *r, const char *path, cuzk_err *err)
{
    static const uint32_t known[] = {R1CS_HEADER, R1CS_CONSTRAINTS, R1CS_WIRE2LABEL};
    memset(r, 0, sizeof(*r));
    binfile f;
    int rc = binfile_open(&f, path, "r1cs", 1, known, 3, err);
    if (rc) return rc;
    rc = read_header(r, &f, err);
    if (!rc) rc = read_constraints(r, &f, err);
    binfile_close(&f);
    if (rc) snarkjs_r1cs_free(r);
    return rc;
}

void snarkjs_r1cs_free(snarkjs_r1cs *r)
{
    free(r->off);
    free(r->terms);
    memset(r, 0, sizeof(*r));
}
