/*
 * fields.c - the cuzk-oracle requests for Fp, Fr (field_ops.h, instantiated
 * twice) and Fp2. An Fp2 value travels as two Fp arguments, c0 then c1
 * (c0 + c1 u), and is answered the same way.
 */
#include "oracle.h"

#define F(x)    fp_##x
#define F_T     fp_t
#define F_BYTES FP_BYTES
#define F_ARG   oracle_arg_fp
#define F_PUT   oracle_put_fp
#define F_NAME  "fp"
#include "field_ops.h"
#undef F
#undef F_T
#undef F_BYTES
#undef F_ARG
#undef F_PUT
#undef F_NAME

#define F(x)    fr_##x
#define F_T     fr_t
#define F_BYTES FR_BYTES
#define F_ARG   oracle_arg_fr
#define F_PUT   oracle_put_fr
#define F_NAME  "fr"
#include "field_ops.h"
#undef F
#undef F_T
#undef F_BYTES
#undef F_ARG
#undef F_PUT
#undef F_NAME

typedef void (*fp2_binary_fn)(fp2_t *r, const fp2_t *a, const fp2_t *b);
typedef void (*fp2_unary_fn)(fp2_t *r, const fp2_t *a);
typedef bool (*fp2_partial_fn)(fp2_t *r, const fp2_t *a);

static int arg_fp2(fp2_t *r, char **args, cuzk_err *err)
{
    if (oracle_arg_fp(&r->c0, args[0], err) || oracle_arg_fp(&r->c1, args[1], err))
        return err->code;
    return CUZK_OK;
}

static void put_fp2(FILE *out, const fp2_t *a)
{
    oracle_put_fp(out, &a->c0);
    fputc(' ', out);
    oracle_put_fp(out, &a->c1);
}

static int fp2_oracle_binary(const oracle_req *q)
{
    fp2_t a, b;
    if (arg_fp2(&a, q->args, q->err) || arg_fp2(&b, q->args + 2, q->err)) return q->err->code;
    ((fp2_binary_fn)q->op->impl)(&a, &a, &b);
    put_fp2(q->out, &a);
    return CUZK_OK;
}

static int fp2_oracle_unary(const oracle_req *q)
{
    fp2_t a;
    if (arg_fp2(&a, q->args, q->err)) return q->err->code;
    ((fp2_unary_fn)q->op->impl)(&a, &a);
    put_fp2(q->out, &a);
    return CUZK_OK;
}

static int fp2_oracle_partial(const oracle_req *q)
{
    fp2_t a;
    if (arg_fp2(&a, q->args, q->err)) return q->err->code;
    if (((fp2_partial_fn)q->op->impl)(&a, &a))
        put_fp2(q->out, &a);
    else
        fputs("none", q->out);
    return CUZK_OK;
}

static int fp2_oracle_mul_fp(const oracle_req *q)
{
    fp2_t a;
    fp_t b;
    if (arg_fp2(&a, q->args, q->err) || oracle_arg_fp(&b, q->args[2], q->err)) return q->err->code;
    fp2_mul_fp(&a, &a, &b);
    put_fp2(q->out, &a);
    return CUZK_OK;
}

static int fp2_oracle_pow(const oracle_req *q)
{
    fp2_t a;
    uint64_t e[ORACLE_MAX_LIMBS];
    size_t n;
    if (arg_fp2(&a, q->args, q->err) || oracle_arg_limbs(e, &n, q->args[2], q->err))
        return q->err->code;
    fp2_pow(&a, &a, e, n);
    put_fp2(q->out, &a);
    return CUZK_OK;
}

static int fp2_oracle_sign(const oracle_req *q)
{
    fp2_t a;
    if (arg_fp2(&a, q->args, q->err)) return q->err->code;
    fprintf(q->out, "%d", fp2_is_lexicographically_largest(&a));
    return CUZK_OK;
}

/* clang-format off */
const oracle_op fp2_oracle_ops[] = {
    {"fp2_add", 4, 4, fp2_oracle_binary, ORACLE_IMPL(fp2_add), "a0 a1 b0 b1 -> a+b"},
    {"fp2_sub", 4, 4, fp2_oracle_binary, ORACLE_IMPL(fp2_sub), "a0 a1 b0 b1 -> a-b"},
    {"fp2_mul", 4, 4, fp2_oracle_binary, ORACLE_IMPL(fp2_mul), "a0 a1 b0 b1 -> a*b"},
    {"fp2_neg", 2, 2, fp2_oracle_unary, ORACLE_IMPL(fp2_neg), "a0 a1 -> -a"},
    {"fp2_dbl", 2, 2, fp2_oracle_unary, ORACLE_IMPL(fp2_dbl), "a0 a1 -> 2a"},
    {"fp2_sqr", 2, 2, fp2_oracle_unary, ORACLE_IMPL(fp2_sqr), "a0 a1 -> a^2"},
    {"fp2_conj", 2, 2, fp2_oracle_unary, ORACLE_IMPL(fp2_conj), "a0 a1 -> a0 - a1 u"},
    {"fp2_mul_by_nonresidue", 2, 2, fp2_oracle_unary, ORACLE_IMPL(fp2_mul_by_nonresidue),
     "a0 a1 -> a (u + 1)"},
    {"fp2_inv", 2, 2, fp2_oracle_partial, ORACLE_IMPL(fp2_inv), "a0 a1 -> 1/a | none"},
    {"fp2_sqrt", 2, 2, fp2_oracle_partial, ORACLE_IMPL(fp2_sqrt), "a0 a1 -> a root | none"},
    {"fp2_mul_fp", 3, 3, fp2_oracle_mul_fp, NULL, "a0 a1 b -> a*b (b in Fp)"},
    {"fp2_pow", 3, 3, fp2_oracle_pow, NULL, "a0 a1 e -> a^e (e: 1..64 bytes)"},
    {"fp2_sign", 2, 2, fp2_oracle_sign, NULL, "a0 a1 -> ZCash sign of a (0|1)"},
    {NULL, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */
