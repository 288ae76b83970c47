/*
 * field_ops.h - the cuzk-oracle requests for one prime field, written once
 * and included by fields.c for Fp and for Fr after defining:
 *   F(x)     the name prefix (fp_##x)
 *   F_T      the element type (fp_t)
 *   F_BYTES  canonical byte length
 *   F_ARG    the argument parser (oracle_arg_fp), F_PUT the printer
 *   F_NAME   the request prefix as a string ("fp")
 * It defines the table F(oracle_ops). Every request validates all its
 * arguments before it prints anything.
 */

#define OP(x) F(oracle_##x)

typedef void (*OP(binary_fn))(F_T *r, const F_T *a, const F_T *b);
typedef void (*OP(unary_fn))(F_T *r, const F_T *a);
typedef bool (*OP(partial_fn))(F_T *r, const F_T *a);

static int OP(binary)(const oracle_req *q)
{
    F_T a, b;
    if (F_ARG(&a, q->args[0], q->err) || F_ARG(&b, q->args[1], q->err)) return q->err->code;
    ((OP(binary_fn))q->op->impl)(&a, &a, &b);
    F_PUT(q->out, &a);
    return CUZK_OK;
}

static int OP(unary)(const oracle_req *q)
{
    F_T a;
    if (F_ARG(&a, q->args[0], q->err)) return q->err->code;
    ((OP(unary_fn))q->op->impl)(&a, &a);
    F_PUT(q->out, &a);
    return CUZK_OK;
}

/* inv / sqrt: the value, or "none" when there is none (zero; a non-residue). */
static int OP(partial)(const oracle_req *q)
{
    F_T a;
    if (F_ARG(&a, q->args[0], q->err)) return q->err->code;
    if (((OP(partial_fn))q->op->impl)(&a, &a))
        F_PUT(q->out, &a);
    else
        fputs("none", q->out);
    return CUZK_OK;
}

static int OP(legendre)(const oracle_req *q)
{
    F_T a;
    if (F_ARG(&a, q->args[0], q->err)) return q->err->code;
    fprintf(q->out, "%d %d", F(legendre)(&a), F(is_lexicographically_largest)(&a));
    return CUZK_OK;
}

/* a^e with e any big-endian hex up to 64 bytes. */
static int OP(pow)(const oracle_req *q)
{
    F_T a;
    uint64_t e[ORACLE_MAX_LIMBS];
    size_t n;
    if (F_ARG(&a, q->args[0], q->err) || oracle_arg_limbs(e, &n, q->args[1], q->err))
        return q->err->code;
    F(pow)(&a, &a, e, n);
    F_PUT(q->out, &a);
    return CUZK_OK;
}

/* Inverts out of place and in place; both must agree, the answer is one list. */
static int OP(batch_inv)(const oracle_req *q)
{
    F_T in[ORACLE_MAX_BATCH] = {0}, out[ORACLE_MAX_BATCH];
    size_t n = (size_t)q->nargs;
    for (size_t i = 0; i < n; i++)
        if (F_ARG(&in[i], q->args[i], q->err)) return q->err->code;
    F(batch_inv)(out, in, n);
    F(batch_inv)(in, in, n);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(' ', q->out);
        if (F(eq)(&in[i], &out[i]))
            F_PUT(q->out, &out[i]);
        else
            fputs("in-place-differs", q->out);
    }
    return CUZK_OK;
}

/* Byte decoding: "ok <canonical BE>" or "err noncanonical" for values >= the modulus. */
static int OP(decode)(const oracle_req *q)
{
    uint8_t b[F_BYTES];
    F_T a;
    bool le = q->op->impl == ORACLE_IMPL(F(from_bytes_le));
    if (oracle_hex_exact(b, sizeof(b), q->args[0], q->err)) return q->err->code;
    if (!(le ? F(from_bytes_le)(&a, b) : F(from_bytes_be)(&a, b))) {
        fputs("err noncanonical", q->out);
        return CUZK_OK;
    }
    fputs("ok ", q->out);
    F_PUT(q->out, &a);
    return CUZK_OK;
}

static int OP(to_le)(const oracle_req *q)
{
    F_T a;
    uint8_t b[F_BYTES];
    if (F_ARG(&a, q->args[0], q->err)) return q->err->code;
    F(to_bytes_le)(b, &a);
    oracle_put_hex(q->out, b, sizeof(b));
    return CUZK_OK;
}

/* clang-format off */
const oracle_op OP(ops)[] = {
    {F_NAME "_add", 2, 2, OP(binary), ORACLE_IMPL(F(add)), "a b -> a+b"},
    {F_NAME "_sub", 2, 2, OP(binary), ORACLE_IMPL(F(sub)), "a b -> a-b"},
    {F_NAME "_mul", 2, 2, OP(binary), ORACLE_IMPL(F(mul)), "a b -> a*b (dispatched)"},
    {F_NAME "_mul_portable", 2, 2, OP(binary), ORACLE_IMPL(F(mul_portable)),
     "a b -> a*b (the __int128 path)"},
    {F_NAME "_neg", 1, 1, OP(unary), ORACLE_IMPL(F(neg)), "a -> -a"},
    {F_NAME "_sqr", 1, 1, OP(unary), ORACLE_IMPL(F(sqr)), "a -> a^2"},
    {F_NAME "_dbl", 1, 1, OP(unary), ORACLE_IMPL(F(dbl)), "a -> 2a"},
    {F_NAME "_inv", 1, 1, OP(partial), ORACLE_IMPL(F(inv)), "a -> 1/a | none"},
    {F_NAME "_sqrt", 1, 1, OP(partial), ORACLE_IMPL(F(sqrt)), "a -> a root | none"},
    {F_NAME "_legendre", 1, 1, OP(legendre), NULL, "a -> legendre (-1|0|1) sign (0|1)"},
    {F_NAME "_pow", 2, 2, OP(pow), NULL, "a e -> a^e (e: 1..64 bytes)"},
    {F_NAME "_batch_inv", 1, ORACLE_MAX_BATCH, OP(batch_inv), NULL, "a... -> 1/a... (0 stays 0)"},
    {F_NAME "_from_be", 1, 1, OP(decode), ORACLE_IMPL(F(from_bytes_be)),
     "bytes -> ok a | err noncanonical"},
    {F_NAME "_from_le", 1, 1, OP(decode), ORACLE_IMPL(F(from_bytes_le)),
     "bytes (little-endian) -> ok a | err noncanonical"},
    {F_NAME "_to_le", 1, 1, OP(to_le), NULL, "a -> little-endian bytes of a"},
    {NULL, 0, 0, NULL, NULL, NULL},
};
/* clang-format on */

#undef OP
