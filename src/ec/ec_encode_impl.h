/*
 * ec_encode_impl.h - the ZCash point encodings, written once (internal).
 *
 * Included by g1.c and g2.c after ec_impl.h, with these defined as well:
 *   G_NAME             "G1" / "G2", for error messages
 *   FIELD_BYTES        bytes of one encoded coordinate (48 / 96)
 *   FIELD_TO_BE(o, a)  big-endian canonical bytes (G2: imaginary part first)
 *   FIELD_FROM_BE(r, i)  the inverse; false when a component is >= p
 *   FIELD_SQRT, FIELD_LEX_LARGEST        the square root and the sign rule
 *
 * Layout: x then y (uncompressed) or x alone (compressed). The three top
 * bits of byte 0 are flags: 0x80 compressed, 0x40 infinity, 0x20 sign of y
 * (compressed only: set when y is lexicographically largest). Infinity is
 * the flags with every other bit zero. Decoding is strict, so anything
 * accepted re-encodes to the same bytes; each broken rule has its own code
 * and a message that names it.
 */

#define EC_FLAG_COMPRESSED 0x80
#define EC_FLAG_INFINITY   0x40
#define EC_FLAG_SIGN       0x20
#define EC_FLAG_MASK       0xe0

void G(affine_serialize)(uint8_t *out, const G_AFF *p)
{
    if (G(affine_is_inf)(p)) {
        memset(out, 0, 2 * FIELD_BYTES);
        out[0] = EC_FLAG_INFINITY;
        return;
    }
    FIELD_TO_BE(out, &p->x);
    FIELD_TO_BE(out + FIELD_BYTES, &p->y);
}

void G(affine_compress)(uint8_t *out, const G_AFF *p)
{
    if (G(affine_is_inf)(p)) {
        memset(out, 0, FIELD_BYTES);
        out[0] = EC_FLAG_COMPRESSED | EC_FLAG_INFINITY;
        return;
    }
    FIELD_TO_BE(out, &p->x);
    out[0] |= EC_FLAG_COMPRESSED;
    if (FIELD_LEX_LARGEST(&p->y)) out[0] |= EC_FLAG_SIGN;
}

/* true when in[0..len) is zero apart from the flag bits of byte 0 */
static bool G(only_flags)(const uint8_t *in, size_t len)
{
    uint8_t acc = in[0] & (uint8_t)~EC_FLAG_MASK;
    for (size_t i = 1; i < len; i++) acc |= in[i];
    return acc == 0;
}

/* x from the first FIELD_BYTES of in with the flag bits cleared. */
static int G(decode_x)(FIELD_T *x, const uint8_t *in, const char *what, cuzk_err *err)
{
    uint8_t buf[FIELD_BYTES];
    memcpy(buf, in, FIELD_BYTES);
    buf[0] &= (uint8_t)~EC_FLAG_MASK;
    if (!FIELD_FROM_BE(x, buf))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "%s %s point: x coordinate is not below p",
                         G_NAME, what);
    return CUZK_OK;
}

/* Length, flags, canonical coordinates; the shared part of both uncompressed decoders. */
static int G(decode_uncompressed)(G_AFF *r, const uint8_t *in, size_t len, cuzk_err *err)
{
    static const char *what = "uncompressed";
    if (len != 2 * FIELD_BYTES)
        return cuzk_errf(err, CUZK_ELENGTH, "%s %s point: %zu bytes, expected %d", G_NAME, what,
                         len, 2 * FIELD_BYTES);
    if (in[0] & EC_FLAG_COMPRESSED)
        return cuzk_errf(err, CUZK_EFLAGS, "%s %s point: compression flag (0x80) is set", G_NAME,
                         what);
    if (in[0] & EC_FLAG_SIGN)
        return cuzk_errf(err, CUZK_EFLAGS, "%s %s point: sign flag (0x20) is set", G_NAME, what);
    if (in[0] & EC_FLAG_INFINITY) {
        if (!G(only_flags)(in, len))
            return cuzk_errf(err, CUZK_EFLAGS,
                             "%s %s point: infinity flag (0x40) with non-zero coordinate bits",
                             G_NAME, what);
        r->x = FIELD_ZERO;
        r->y = FIELD_ZERO;
        return CUZK_OK;
    }
    int rc = G(decode_x)(&r->x, in, what, err);
    if (rc) return rc;
    if (!FIELD_FROM_BE(&r->y, in + FIELD_BYTES))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "%s %s point: y coordinate is not below p",
                         G_NAME, what);
    if (G(affine_is_inf)(r)) /* (0, 0) would decode to infinity without its flag */
        return cuzk_errf(err, CUZK_ENOTONCURVE,
                         "%s %s point: (0, 0) without the infinity flag is not on the curve",
                         G_NAME, what);
    return CUZK_OK;
}

/* On the curve and in the subgroup (infinity passes both). */
static int G(check_point)(const G_AFF *p, const char *what, cuzk_err *err)
{
    if (!G(affine_on_curve)(p))
        return cuzk_errf(err, CUZK_ENOTONCURVE, "%s %s point: not on the curve", G_NAME, what);
    if (!G(affine_in_subgroup)(p))
        return cuzk_errf(err, CUZK_ENOTINSUBGROUP, "%s %s point: not in the prime-order subgroup",
                         G_NAME, what);
    return CUZK_OK;
}

int G(affine_deserialize_unchecked)(G_AFF *r, const uint8_t *in, size_t len, cuzk_err *err)
{
    return G(decode_uncompressed)(r, in, len, err);
}

int G(affine_deserialize)(G_AFF *r, const uint8_t *in, size_t len, cuzk_err *err)
{
    int rc = G(decode_uncompressed)(r, in, len, err);
    return rc ? rc : G(check_point)(r, "uncompressed", err);
}

/*
 * y = +-sqrt(x^3 + b), the sign chosen by the flag. y = 0 cannot occur
 * (no points of order 2), so the sign flag is always meaningful.
 */
int G(affine_uncompress)(G_AFF *r, const uint8_t *in, size_t len, cuzk_err *err)
{
    static const char *what = "compressed";
    if (len != FIELD_BYTES)
        return cuzk_errf(err, CUZK_ELENGTH, "%s %s point: %zu bytes, expected %d", G_NAME, what,
                         len, FIELD_BYTES);
    if (!(in[0] & EC_FLAG_COMPRESSED))
        return cuzk_errf(err, CUZK_EFLAGS, "%s %s point: compression flag (0x80) is missing",
                         G_NAME, what);
    if (in[0] & EC_FLAG_INFINITY) {
        if ((in[0] & EC_FLAG_SIGN) || !G(only_flags)(in, len))
            return cuzk_errf(err, CUZK_EFLAGS,
                             "%s %s point: infinity flag (0x40) with a sign flag or non-zero "
                             "coordinate bits",
                             G_NAME, what);
        r->x = FIELD_ZERO;
        r->y = FIELD_ZERO;
        return CUZK_OK;
    }
    int rc = G(decode_x)(&r->x, in, what, err);
    if (rc) return rc;
    FIELD_T rhs;
    G(curve_rhs)(&rhs, &r->x);
    if (!FIELD_SQRT(&r->y, &rhs))
        return cuzk_errf(err, CUZK_ENOSQRT,
                         "%s %s point: x^3 + b is not a square, no y on the curve", G_NAME, what);
    if (FIELD_LEX_LARGEST(&r->y) != ((in[0] & EC_FLAG_SIGN) != 0)) FIELD_NEG(&r->y, &r->y);
    if (!G(affine_in_subgroup)(r))
        return cuzk_errf(err, CUZK_ENOTINSUBGROUP, "%s %s point: not in the prime-order subgroup",
                         G_NAME, what);
    return CUZK_OK;
}
