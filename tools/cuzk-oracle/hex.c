/*
 * hex.c - argument parsing and printing for cuzk-oracle: hex strings to
 * bytes, canonical big-endian field elements, status tokens.
 */
#include "oracle.h"

#include <string.h>

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int oracle_hex_any(uint8_t *out, size_t cap, size_t *len, const char *hex, cuzk_err *err)
{
    size_t n = strlen(hex);
    if (n % 2) return cuzk_errf(err, CUZK_EINVAL, "hex '%.40s' has an odd length", hex);
    if (n / 2 > cap)
        return cuzk_errf(err, CUZK_ELENGTH, "hex '%.40s...' is longer than %zu bytes", hex, cap);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return cuzk_errf(err, CUZK_EINVAL, "'%.40s' is not hex (offset %zu)", hex, 2 * i);
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return CUZK_OK;
}

int oracle_hex_exact(uint8_t *out, size_t len, const char *hex, cuzk_err *err)
{
    size_t got;
    if (strlen(hex) != 2 * len)
        return cuzk_errf(err, CUZK_ELENGTH, "'%.40s' is not %zu hex digits", hex, 2 * len);
    return oracle_hex_any(out, len, &got, hex, err);
}

int oracle_arg_limbs(uint64_t k[ORACLE_MAX_LIMBS], size_t *n, const char *hex, cuzk_err *err)
{
    uint8_t b[8 * ORACLE_MAX_LIMBS];
    size_t len;
    if (oracle_hex_any(b, sizeof(b), &len, hex, err)) return err->code;
    memset(k, 0, ORACLE_MAX_LIMBS * sizeof(uint64_t));
    for (size_t i = 0; i < len; i++) k[i / 8] |= (uint64_t)b[len - 1 - i] << (8 * (i % 8));
    *n = (len + 7) / 8;
    return CUZK_OK;
}

void oracle_put_hex(FILE *out, const uint8_t *b, size_t len)
{
    for (size_t i = 0; i < len; i++) fprintf(out, "%02x", b[i]);
}

int oracle_arg_fp(fp_t *r, const char *hex, cuzk_err *err)
{
    uint8_t b[FP_BYTES];
    if (oracle_hex_exact(b, sizeof(b), hex, err)) return err->code;
    if (!fp_from_bytes_be(r, b))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "Fp argument %.16s... is >= p", hex);
    return CUZK_OK;
}

int oracle_arg_fr(fr_t *r, const char *hex, cuzk_err *err)
{
    uint8_t b[FR_BYTES];
    if (oracle_hex_exact(b, sizeof(b), hex, err)) return err->code;
    if (!fr_from_bytes_be(r, b))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "Fr argument %.16s... is >= r", hex);
    return CUZK_OK;
}

void oracle_put_fp(FILE *out, const fp_t *a)
{
    uint8_t b[FP_BYTES];
    fp_to_bytes_be(b, a);
    oracle_put_hex(out, b, sizeof(b));
}

void oracle_put_fr(FILE *out, const fr_t *a)
{
    uint8_t b[FR_BYTES];
    fr_to_bytes_be(b, a);
    oracle_put_hex(out, b, sizeof(b));
}

const char *oracle_status_token(int code)
{
    switch (code) {
    case CUZK_OK:
        return "ok";
    case CUZK_EINVAL:
        return "invalid";
    case CUZK_ELENGTH:
        return "length";
    case CUZK_EFLAGS:
        return "flags";
    case CUZK_ENONCANONICAL:
        return "noncanonical";
    case CUZK_ENOTONCURVE:
        return "notoncurve";
    case CUZK_ENOTINSUBGROUP:
        return "notinsubgroup";
    case CUZK_EIDENTITY:
        return "identity";
    case CUZK_ENOSQRT:
        return "nosqrt";
    default:
        return "other";
    }
}
