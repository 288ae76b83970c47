/*
 * vanilla_base64.c - streaming standard base64 for the c1.json wrapper's
 * Phase1Out (Go's encoding/json writes []byte that way; Curio's cuzk reads
 * it with Rust base64's STANDARD engine). The decoder takes any chunking,
 * keeps the partial 4-character group between calls and is as strict as
 * that engine: alphabet A-Z a-z 0-9 + /, '=' padding only at the end of
 * the last group, no whitespace, and the unused low bits of a padded group
 * must be zero. Whole groups are decoded four characters at a time.
 */
#include "vanilla_internal.h"

#include <stdio.h>
#include <string.h>

#define B64_PAD 64
#define B64_BAD 0xff

static const char ALPHABET[65] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static uint8_t DECODE[256];

__attribute__((constructor)) static void decode_table_init(void)
{
    memset(DECODE, B64_BAD, sizeof(DECODE));
    for (int i = 0; i < 64; i++) DECODE[(uint8_t)ALPHABET[i]] = (uint8_t)i;
    DECODE['='] = B64_PAD;
}

static long fail(const vanilla_b64dec *d, const char *what, cuzk_err *err)
{
    cuzk_errf(err, CUZK_EINVAL, "bad base64: %s at character %llu", what,
              (unsigned long long)d->chars);
    return -1;
}

static long bad_char(const vanilla_b64dec *d, uint8_t c, cuzk_err *err)
{
    char what[24];
    if (c >= 0x20 && c < 0x7f)
        snprintf(what, sizeof(what), "'%c'", c);
    else
        snprintf(what, sizeof(what), "byte 0x%02x", c);
    return fail(d, what, err);
}

/* Ends a padded group: 2 or 3 data characters give 1 or 2 bytes. */
static long close_padded(vanilla_b64dec *d, uint8_t *out, cuzk_err *err)
{
    unsigned data = 4 - d->npad, spare = data == 2 ? 4 : 2; /* 6 * data - 8 * (data - 1) bits */
    if (d->acc & ((1u << spare) - 1)) return fail(d, "non-zero unused bits in the last group", err);
    uint32_t v = d->acc >> spare;
    if (data == 3) {
        out[0] = (uint8_t)(v >> 8);
        out[1] = (uint8_t)v;
        return 2;
    }
    out[0] = (uint8_t)v;
    return 1;
}

/* One character that is not part of a fast whole group. */
static long decode_one(vanilla_b64dec *d, uint8_t c, uint8_t *out, cuzk_err *err)
{
    uint8_t v = DECODE[c];
    if (v == B64_BAD) return bad_char(d, c, err);
    if (d->npad == 4) return fail(d, "data after the padding", err);
    if (v == B64_PAD) {
        if (d->nq < 2) return fail(d, "'=' before two data characters", err);
        d->npad++;
    } else if (d->npad) {
        return fail(d, "data after '='", err);
    } else {
        d->acc = d->acc << 6 | v;
    }
    d->chars++;
    if (++d->nq < 4) return 0;
    d->nq = 0;
    if (d->npad) {
        long k = close_padded(d, out, err);
        d->npad = 4; /* nothing may follow */
        return k;
    }
    out[0] = (uint8_t)(d->acc >> 16);
    out[1] = (uint8_t)(d->acc >> 8);
    out[2] = (uint8_t)d->acc;
    d->acc = 0;
    return 3;
}

long vanilla_b64_decode(vanilla_b64dec *d, const char *in, size_t n, uint8_t *out, cuzk_err *err)
{
    const uint8_t *s = (const uint8_t *)in;
    uint8_t *o = out;
    size_t i = 0;
    while (i < n) {
        if (d->nq == 0 && !d->npad && n - i >= 4) {
            uint32_t a = DECODE[s[i]], b = DECODE[s[i + 1]], c = DECODE[s[i + 2]],
                     e = DECODE[s[i + 3]];
            if (((a | b | c | e) & 0xc0) == 0) { /* four data characters (values < 64) */
                uint32_t v = a << 18 | b << 12 | c << 6 | e;
                o[0] = (uint8_t)(v >> 16);
                o[1] = (uint8_t)(v >> 8);
                o[2] = (uint8_t)v;
                o += 3, i += 4, d->chars += 4;
                continue;
            }
        }
        long k = decode_one(d, s[i++], o, err);
        if (k < 0) return -1;
        o += k;
    }
    return (long)(o - out);
}

int vanilla_b64_finish(const vanilla_b64dec *d, cuzk_err *err)
{
    if (d->nq)
        return cuzk_errf(err, CUZK_EINVAL,
                         "bad base64: ends inside a 4-character group (%llu characters)",
                         (unsigned long long)d->chars);
    return CUZK_OK;
}

size_t vanilla_b64_encode(const uint8_t *in, size_t n, char *out)
{
    char *o = out;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = ALPHABET[(v >> 6) & 63];
        *o++ = ALPHABET[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *o++ = ALPHABET[v >> 18];
        *o++ = ALPHABET[(v >> 12) & 63];
        *o++ = i + 1 < n ? ALPHABET[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    return (size_t)(o - out);
}
