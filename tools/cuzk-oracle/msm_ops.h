/*
 * msm_ops.h - the cuzk-oracle requests for the multi-scalar multiplication
 * of one group, written once and included by msm.c for G1 and for G2 after
 * defining G(x), G_AFF, G_JAC, G_COMPRESSED and G_NAME as for group_ops.h.
 * It defines the table G(oracle_msm_ops).
 *
 * Points are compressed encodings (checked decoder), scalars canonical Fr
 * hex; the arrays live on the heap, so one request may carry up to
 * ORACLE_MAX_ARGS / 2 terms.
 */

#define OP(x) G(oracle_msm_##x)

static void OP(put_jac)(FILE *out, const char *sep, const G_JAC *p)
{
    G_AFF a;
    uint8_t b[G_COMPRESSED];
    G(jac_to_affine)(&a, p);
    G(affine_compress)(b, &a);
    fputs(sep, out);
    oracle_put_hex(out, b, sizeof(b));
}

/* args[0..2n) = P1 k1 P2 k2 ...: bases and scalars; ones_bitmap marks k = 1. */
static int OP(parse)(G_AFF *bases, fr_t *scalars, uint64_t *ones_bitmap, char **args, size_t n,
                     cuzk_err *err)
{
    uint8_t b[G_COMPRESSED];
    for (size_t i = 0; i < n; i++) {
        if (oracle_hex_exact(b, sizeof(b), args[2 * i], err) ||
            G(affine_uncompress)(&bases[i], b, sizeof(b), err) ||
            oracle_arg_fr(&scalars[i], args[2 * i + 1], err))
            return cuzk_err_prefix(err, "term %zu: ", i);
        if (fr_is_one(&scalars[i])) ones_bitmap[i / 64] |= 1ull << (i % 64);
    }
    return CUZK_OK;
}

/* The four sums: msm on 1 and on 3 threads, msm_split, and the bitmap sum of the ones. */
static int OP(sums)(FILE *out, const G_AFF *bases, const fr_t *scalars, const uint64_t *bitmap,
                    size_t n, cuzk_err *err)
{
    G_JAC r[4];
    if (G(msm)(&r[0], bases, scalars, n, 1, err) || G(msm)(&r[1], bases, scalars, n, 3, err) ||
        G(msm_split)(&r[2], bases, scalars, n, 0, err) ||
        G(batch_add_bitmap)(&r[3], bases, bitmap, n, 0, err))
        return err->code;
    for (int i = 0; i < 4; i++) OP(put_jac)(out, i ? " " : "", &r[i]);
    return CUZK_OK;
}

/* P1 k1 ... Pn kn -> sum by msm (1 thread), msm (3 threads), msm_split, and
 * the sum of the Pi with ki = 1 by batch_add_bitmap. */
static int OP(msm)(const oracle_req *q)
{
    if (q->nargs % 2)
        return cuzk_errf(q->err, CUZK_EINVAL, "%d arguments do not form pairs", q->nargs);
    size_t n = (size_t)q->nargs / 2;
    G_AFF *bases = calloc(n + 1, sizeof(G_AFF));
    fr_t *scalars = calloc(n + 1, sizeof(fr_t));
    uint64_t *bitmap = calloc(n / 64 + 1, sizeof(uint64_t));
    int rc = CUZK_ENOMEM;
    if (!bases || !scalars || !bitmap)
        cuzk_errf(q->err, rc, "out of memory for %zu terms", n);
    else if (!(rc = OP(parse)(bases, scalars, bitmap, q->args, n, q->err)))
        rc = OP(sums)(q->out, bases, scalars, bitmap, n, q->err);
    free(bases);
    free(scalars);
    free(bitmap);
    return rc;
}

/* P k1 ... kn -> [k1]P ... [kn]P by fixed_base_mul. */
static int OP(fixed_base)(const oracle_req *q)
{
    size_t n = (size_t)q->nargs - 1;
    G_AFF base, *out = calloc(n, sizeof(G_AFF));
    fr_t *k = calloc(n, sizeof(fr_t));
    uint8_t b[G_COMPRESSED];
    int rc = CUZK_ENOMEM;
    if (!out || !k) {
        cuzk_errf(q->err, rc, "out of memory for %zu scalars", n);
        goto done;
    }
    if ((rc = oracle_hex_exact(b, sizeof(b), q->args[0], q->err)) ||
        (rc = G(affine_uncompress)(&base, b, sizeof(b), q->err)))
        goto done;
    for (size_t i = 0; i < n; i++)
        if ((rc = oracle_arg_fr(&k[i], q->args[1 + i], q->err))) goto done;
    if ((rc = G(fixed_base_mul)(out, &base, k, n, 0, q->err))) goto done;
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(' ', q->out);
        uint8_t c[G_COMPRESSED];
        G(affine_compress)(c, &out[i]);
        oracle_put_hex(q->out, c, sizeof(c));
    }
done:
    free(out);
    free(k);
    return rc;
}

/* clang-format off */
const oracle_op G(oracle_msm_ops)[] = {
    {G_NAME "_msm", 0, ORACLE_MAX_ARGS, OP(msm), NULL,
     "P1 k1 P2 k2 ... -> msm(1 thread) msm(3 threads) msm_split batch_add_bitmap(k == 1)"},
    {G_NAME "_fixed_base_mul", 2, ORACLE_MAX_ARGS, OP(fixed_base), NULL,
     "P k1 k2 ... -> [k1]P [k2]P ..."},
    {NULL, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */

#undef OP
