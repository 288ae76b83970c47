/*
 * group_ops.h - the cuzk-oracle requests for one group, written once and
 * included by groups.c for G1 and for G2 after defining:
 *   G(x)          the name prefix (g1_##x); G_AFF, G_JAC, G_XYZZ its types
 *   G_COMPRESSED, G_UNCOMPRESSED  encoding sizes; G_NAME the request prefix
 *   G_LIFT(j, x, p, k)  p in Jacobian and XYZZ form with a Z != 1 chosen
 *                 by k (so the formulas meet general coordinates)
 * It defines the table G(oracle_ops).
 *
 * Point arguments are compressed encodings and go through the checked
 * decoder (a point it rejects makes the request malformed); point answers
 * are compressed encodings. Requests that reach one result by several code
 * paths (add: Jacobian, mixed, XYZZ, XYZZ mixed) answer one point per path,
 * so the oracle checks every path against the same expected value.
 */

#define OP(x) G(oracle_##x)

static int OP(arg)(G_AFF *r, const char *hex, cuzk_err *err)
{
    uint8_t b[G_COMPRESSED];
    if (oracle_hex_exact(b, sizeof(b), hex, err)) return err->code;
    return G(affine_uncompress)(r, b, sizeof(b), err);
}

static int OP(args2)(G_AFF *p, G_AFF *q, const oracle_req *r)
{
    if (OP(arg)(p, r->args[0], r->err) || OP(arg)(q, r->args[1], r->err)) return r->err->code;
    return CUZK_OK;
}

static void OP(put)(FILE *out, const G_AFF *p)
{
    uint8_t b[G_COMPRESSED];
    G(affine_compress)(b, p);
    oracle_put_hex(out, b, sizeof(b));
}

/* sep, then p in affine coordinates, compressed. */
static void OP(put_jac)(FILE *out, const char *sep, const G_JAC *p)
{
    G_AFF a;
    G(jac_to_affine)(&a, p);
    fputs(sep, out);
    OP(put)(out, &a);
}

static void OP(put_xyzz)(FILE *out, const char *sep, const G_XYZZ *p)
{
    G_JAC j;
    G(xyzz_to_jac)(&j, p);
    OP(put_jac)(out, sep, &j);
}

/* P k (k < r) -> [k]P by jac_mul (Montgomery scalar) and by jac_mul_limbs. */
static int OP(mul)(const oracle_req *q)
{
    G_AFF p;
    fr_t k;
    uint64_t limbs[FR_LIMBS];
    if (OP(arg)(&p, q->args[0], q->err) || oracle_arg_fr(&k, q->args[1], q->err))
        return q->err->code;
    G_JAC j, r;
    G_XYZZ x;
    G_LIFT(&j, &x, &p, 1);
    G(jac_mul)(&r, &j, &k);
    OP(put_jac)(q->out, "", &r);
    fr_to_canonical(limbs, &k);
    G(jac_mul_limbs)(&j, &j, limbs, FR_LIMBS);
    OP(put_jac)(q->out, " ", &j);
    return CUZK_OK;
}

/* P k (k: any big-endian hex up to 64 bytes, not reduced mod r) -> [k]P. */
static int OP(mul_wide)(const oracle_req *q)
{
    G_AFF p;
    uint64_t k[ORACLE_MAX_LIMBS];
    size_t n;
    if (OP(arg)(&p, q->args[0], q->err) || oracle_arg_limbs(k, &n, q->args[1], q->err))
        return q->err->code;
    G_JAC j;
    G(jac_from_affine)(&j, &p);
    G(jac_mul_limbs)(&j, &j, k, n);
    OP(put_jac)(q->out, "", &j);
    return CUZK_OK;
}

/* P Q -> P+Q by jac_add, jac_add_affine, xyzz_add, xyzz_add_affine. */
static int OP(add)(const oracle_req *q)
{
    G_AFF p, pq;
    if (OP(args2)(&p, &pq, q)) return q->err->code;
    G_JAC jp, jq, r;
    G_XYZZ xp, xq, s;
    G_LIFT(&jp, &xp, &p, 1);
    G_LIFT(&jq, &xq, &pq, 3);
    G(jac_add)(&r, &jp, &jq);
    OP(put_jac)(q->out, "", &r);
    G(jac_add_affine)(&jp, &jp, &pq);
    OP(put_jac)(q->out, " ", &jp);
    G(xyzz_add)(&s, &xp, &xq);
    OP(put_xyzz)(q->out, " ", &s);
    G(xyzz_add_affine)(&xp, &xp, &pq);
    OP(put_xyzz)(q->out, " ", &xp);
    return CUZK_OK;
}

/* P -> 2P by jac_dbl and xyzz_dbl; -P by affine_neg and jac_neg. */
static int OP(dbl_neg)(const oracle_req *q)
{
    G_AFF p;
    if (OP(arg)(&p, q->args[0], q->err)) return q->err->code;
    G_JAC j;
    G_XYZZ x;
    G_LIFT(&j, &x, &p, 1);
    G(xyzz_dbl)(&x, &x);
    G(jac_dbl)(&j, &j);
    OP(put_jac)(q->out, "", &j);
    OP(put_xyzz)(q->out, " ", &x);
    G_LIFT(&j, &x, &p, 1);
    G(jac_neg)(&j, &j);
    G(affine_neg)(&p, &p);
    fputc(' ', q->out);
    OP(put)(q->out, &p);
    OP(put_jac)(q->out, " ", &j);
    return CUZK_OK;
}

/* P Q -> affine_eq(P, Q) and jac_eq on differently scaled Jacobian forms (0|1). */
static int OP(eq)(const oracle_req *q)
{
    G_AFF p, pq;
    if (OP(args2)(&p, &pq, q)) return q->err->code;
    G_JAC jp, jq;
    G_XYZZ x;
    G_LIFT(&jp, &x, &p, 1);
    G_LIFT(&jq, &x, &pq, 3);
    fprintf(q->out, "%d %d", G(affine_eq)(&p, &pq), G(jac_eq)(&jp, &jq));
    return CUZK_OK;
}

/* P... -> 2P... through one jac_batch_to_affine (the doubled points have Z != 1). */
static int OP(batch_dbl)(const oracle_req *q)
{
    G_JAC j[ORACLE_MAX_BATCH];
    G_AFF a[ORACLE_MAX_BATCH];
    for (int i = 0; i < q->nargs; i++) {
        if (OP(arg)(&a[i], q->args[i], q->err)) return q->err->code;
        G(jac_from_affine)(&j[i], &a[i]);
        G(jac_dbl)(&j[i], &j[i]);
    }
    G(jac_batch_to_affine)(a, j, (size_t)q->nargs);
    for (int i = 0; i < q->nargs; i++) {
        if (i) fputc(' ', q->out);
        OP(put)(q->out, &a[i]);
    }
    return CUZK_OK;
}

typedef int (*OP(decode_fn))(G_AFF *r, const uint8_t *in, size_t len, cuzk_err *err);

/* bytes -> "ok <compressed> <uncompressed>" re-encoded, or "err <class>". */
static int OP(decode)(const oracle_req *q)
{
    uint8_t in[ORACLE_MAX_BYTES], c[G_COMPRESSED], u[G_UNCOMPRESSED];
    size_t len;
    G_AFF p;
    cuzk_err derr = {0};
    if (oracle_hex_any(in, sizeof(in), &len, q->args[0], q->err)) return q->err->code;
    int rc = ((OP(decode_fn))q->op->impl)(&p, in, len, &derr);
    if (rc) {
        fprintf(q->out, "err %s", oracle_status_token(rc));
        return CUZK_OK;
    }
    G(affine_compress)(c, &p);
    G(affine_serialize)(u, &p);
    fputs("ok ", q->out);
    oracle_put_hex(q->out, c, sizeof(c));
    fputc(' ', q->out);
    oracle_put_hex(q->out, u, sizeof(u));
    return CUZK_OK;
}

/* bytes -> "ok <on curve> <jac on curve> <in subgroup | ->" or "err <class>". */
static int OP(decode_unchecked)(const oracle_req *q)
{
    uint8_t in[ORACLE_MAX_BYTES];
    size_t len;
    G_AFF p;
    cuzk_err derr = {0};
    if (oracle_hex_any(in, sizeof(in), &len, q->args[0], q->err)) return q->err->code;
    int rc = G(affine_deserialize_unchecked)(&p, in, len, &derr);
    if (rc) {
        fprintf(q->out, "err %s", oracle_status_token(rc));
        return CUZK_OK;
    }
    G_JAC j;
    G_XYZZ x;
    G_LIFT(&j, &x, &p, 5);
    bool on = G(affine_on_curve)(&p);
    fprintf(q->out, "ok %d %d ", on, G(jac_on_curve)(&j));
    if (on)
        fprintf(q->out, "%d", G(affine_in_subgroup)(&p));
    else
        fputc('-', q->out);
    return CUZK_OK;
}

/* clang-format off */
const oracle_op OP(ops)[] = {
    {G_NAME "_mul", 2, 2, OP(mul), NULL, "P k -> [k]P by jac_mul, by jac_mul_limbs (k < r)"},
    {G_NAME "_mul_wide", 2, 2, OP(mul_wide), NULL, "P k -> [k]P (k: 1..64 bytes)"},
    {G_NAME "_add", 2, 2, OP(add), NULL,
     "P Q -> P+Q by jac_add, jac_add_affine, xyzz_add, xyzz_add_affine"},
    {G_NAME "_dbl_neg", 1, 1, OP(dbl_neg), NULL,
     "P -> 2P by jac_dbl, xyzz_dbl; -P by affine_neg, jac_neg"},
    {G_NAME "_eq", 2, 2, OP(eq), NULL, "P Q -> affine_eq jac_eq (0|1)"},
    {G_NAME "_batch_dbl", 1, ORACLE_MAX_BATCH, OP(batch_dbl), NULL,
     "P... -> 2P... via jac_batch_to_affine"},
    {G_NAME "_uncompress", 1, 1, OP(decode), ORACLE_IMPL(G(affine_uncompress)),
     "bytes -> ok <compressed> <uncompressed> | err <class>"},
    {G_NAME "_deserialize", 1, 1, OP(decode), ORACLE_IMPL(G(affine_deserialize)),
     "bytes -> ok <compressed> <uncompressed> | err <class>"},
    {G_NAME "_deserialize_unchecked", 1, 1, OP(decode_unchecked), NULL,
     "bytes -> ok <on curve> <jac on curve> <in subgroup|-> | err <class>"},
    {NULL, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */

#undef OP
