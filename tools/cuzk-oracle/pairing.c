/*
 * pairing.c - the cuzk-oracle requests for Fp12 (the pairing's target
 * field) and the pairing itself.
 *
 * An Fp12 value travels as its 12 Fp coefficients in tower order:
 * c0.c0.c0 c0.c0.c1 c0.c1.c0 c0.c1.c1 c0.c2.c0 c0.c2.c1, then the same for
 * c1 (Fp12 = Fp6[w], Fp6 = Fp2[v], Fp2 = Fp[u]; see fp12.h). G1 and G2
 * arguments are compressed encodings, decoded with the checked decoders.
 */
#include "oracle.h"

#include "cuzk/ec.h"
#include "cuzk/fp12.h"
#include "cuzk/pairing.h"

#define FP12_ARGS 12

static int arg_fp2(fp2_t *r, char **args, cuzk_err *err)
{
    if (oracle_arg_fp(&r->c0, args[0], err) || oracle_arg_fp(&r->c1, args[1], err))
        return err->code;
    return CUZK_OK;
}

static int arg_fp12(fp12_t *r, char **args, cuzk_err *err)
{
    fp6_t *half[2] = {&r->c0, &r->c1};
    for (int h = 0; h < 2; h++) {
        fp2_t *c[3] = {&half[h]->c0, &half[h]->c1, &half[h]->c2};
        for (int i = 0; i < 3; i++)
            if (arg_fp2(c[i], args + 6 * h + 2 * i, err)) return err->code;
    }
    return CUZK_OK;
}

static void put_fp12(FILE *out, const fp12_t *a)
{
    const fp2_t *c[6] = {&a->c0.c0, &a->c0.c1, &a->c0.c2, &a->c1.c0, &a->c1.c1, &a->c1.c2};
    for (int i = 0; i < 6; i++) {
        if (i) fputc(' ', out);
        oracle_put_fp(out, &c[i]->c0);
        fputc(' ', out);
        oracle_put_fp(out, &c[i]->c1);
    }
}

typedef void (*fp12_binary_fn)(fp12_t *r, const fp12_t *a, const fp12_t *b);
typedef void (*fp12_unary_fn)(fp12_t *r, const fp12_t *a);

static int fp12_oracle_binary(const oracle_req *q)
{
    fp12_t a, b;
    if (arg_fp12(&a, q->args, q->err) || arg_fp12(&b, q->args + FP12_ARGS, q->err))
        return q->err->code;
    ((fp12_binary_fn)q->op->impl)(&a, &a, &b);
    put_fp12(q->out, &a);
    return CUZK_OK;
}

/* Unary operations; for fp12_inv a zero answers "none". */
static int fp12_oracle_unary(const oracle_req *q)
{
    fp12_t a;
    if (arg_fp12(&a, q->args, q->err)) return q->err->code;
    if (q->op->impl == ORACLE_IMPL(fp12_inv)) {
        if (!fp12_inv(&a, &a)) {
            fputs("none", q->out);
            return CUZK_OK;
        }
    } else {
        ((fp12_unary_fn)q->op->impl)(&a, &a);
    }
    put_fp12(q->out, &a);
    return CUZK_OK;
}

/* a -> a^p, a^(p^2), a^(p^3). */
static int fp12_oracle_frobenius(const oracle_req *q)
{
    fp12_t a, r;
    if (arg_fp12(&a, q->args, q->err)) return q->err->code;
    for (int k = 1; k <= 3; k++) {
        fp12_frobenius(&r, &a, k);
        if (k > 1) fputc(' ', q->out);
        put_fp12(q->out, &r);
    }
    return CUZK_OK;
}

static int fp12_oracle_mul_by_014(const oracle_req *q)
{
    fp12_t a;
    fp2_t c0, c1, c4;
    char **s = q->args + FP12_ARGS;
    if (arg_fp12(&a, q->args, q->err) || arg_fp2(&c0, s, q->err) || arg_fp2(&c1, s + 2, q->err) ||
        arg_fp2(&c4, s + 4, q->err))
        return q->err->code;
    fp12_mul_by_014(&a, &a, &c0, &c1, &c4);
    put_fp12(q->out, &a);
    return CUZK_OK;
}

static int pair_args(g1_affine_t *p, g2_affine_t *pq, char **args, cuzk_err *err)
{
    uint8_t b1[G1_COMPRESSED_BYTES], b2[G2_COMPRESSED_BYTES];
    if (oracle_hex_exact(b1, sizeof(b1), args[0], err) ||
        g1_affine_uncompress(p, b1, sizeof(b1), err) ||
        oracle_hex_exact(b2, sizeof(b2), args[1], err) ||
        g2_affine_uncompress(pq, b2, sizeof(b2), err))
        return err->code;
    return CUZK_OK;
}

static int pairing_oracle_value(const oracle_req *q)
{
    g1_affine_t p;
    g2_affine_t pq;
    fp12_t r;
    if (pair_args(&p, &pq, q->args, q->err)) return q->err->code;
    pairing(&r, &p, &pq);
    put_fp12(q->out, &r);
    return CUZK_OK;
}

/* P1 Q1 P2 Q2 ... -> pairing_product_is_one, and final_exp(miller_loop_n) == 1 (0|1). */
static int pairing_oracle_check(const oracle_req *q)
{
    g1_affine_t p[ORACLE_MAX_BATCH];
    g2_affine_t pq[ORACLE_MAX_BATCH];
    size_t n = (size_t)q->nargs / 2;
    if (q->nargs % 2)
        return cuzk_errf(q->err, CUZK_EINVAL, "%d arguments do not form pairs", q->nargs);
    for (size_t i = 0; i < n; i++)
        if (pair_args(&p[i], &pq[i], q->args + 2 * i, q->err))
            return cuzk_err_prefix(q->err, "pair %zu: ", i);
    fp12_t f;
    miller_loop_n(&f, p, pq, n);
    final_exp(&f, &f);
    fprintf(q->out, "%d %d", pairing_product_is_one(p, pq, n), fp12_is_one(&f));
    return CUZK_OK;
}

/* clang-format off */
const oracle_op fp12_oracle_ops[] = {
    {"fp12_mul", 24, 24, fp12_oracle_binary, ORACLE_IMPL(fp12_mul), "a b -> a*b"},
    {"fp12_sqr", 12, 12, fp12_oracle_unary, ORACLE_IMPL(fp12_sqr), "a -> a^2"},
    {"fp12_inv", 12, 12, fp12_oracle_unary, ORACLE_IMPL(fp12_inv), "a -> 1/a | none"},
    {"fp12_conj", 12, 12, fp12_oracle_unary, ORACLE_IMPL(fp12_conj), "a -> a^(p^6)"},
    {"fp12_cyclotomic_sqr", 12, 12, fp12_oracle_unary, ORACLE_IMPL(fp12_cyclotomic_sqr),
     "a (cyclotomic) -> a^2"},
    {"fp12_cyclotomic_exp_x", 12, 12, fp12_oracle_unary, ORACLE_IMPL(fp12_cyclotomic_exp_x),
     "a (cyclotomic) -> a^x"},
    {"fp12_frobenius", 12, 12, fp12_oracle_frobenius, NULL, "a -> a^p a^(p^2) a^(p^3)"},
    {"fp12_mul_by_014", 18, 18, fp12_oracle_mul_by_014, NULL,
     "a c0 c1 c4 (Fp2 each) -> a (c0 + c1 v + c4 v w)"},
    {"pairing", 2, 2, pairing_oracle_value, NULL, "P Q -> e(P, Q)"},
    {"pairing_check", 0, 2 * ORACLE_MAX_BATCH, pairing_oracle_check, NULL,
     "P1 Q1 P2 Q2 ... -> product_is_one final_exp(miller_loop_n)==1 (0|1 each)"},
    {NULL, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */
