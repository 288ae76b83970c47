/*
 * oracle.h - shared pieces of cuzk-oracle, the driver that tests/oracle/
 * oracle.mjs checks against @noble/curves.
 *
 * The driver reads one request per line ("fp_mul <hex> <hex>") and answers
 * each with one line. Every operation is a row of an oracle_op table (one
 * table per module: fields.c, groups.c, pairing.c); main.c tokenizes the
 * line, finds the row, checks the argument count and calls the handler.
 * Values travel as canonical big-endian hex; a handler that meets a
 * malformed argument returns non-zero with a message in err, and main.c
 * stops with that message on stderr.
 */
#ifndef CUZK_ORACLE_H
#define CUZK_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"
#include "cuzk/fp2.h"
#include "cuzk/fr.h"

/* Most arguments one request may have (an MSM of 1024 points: 2 per point). */
#define ORACLE_MAX_ARGS 2048
/* Most values of one batch request (batch_inv, batch_dbl, pairing_check pairs),
 * whose handlers keep them on the stack. */
#define ORACLE_MAX_BATCH 256
/* Longest byte string one argument may carry (a G2 uncompressed point is 192). */
#define ORACLE_MAX_BYTES 256

struct oracle_op;

/* One parsed request: its table row, its arguments, where to answer. */
typedef struct oracle_req {
    const struct oracle_op *op;
    char **args;
    int nargs;
    FILE *out;
    cuzk_err *err;
} oracle_req;

typedef int (*oracle_fn)(const oracle_req *q);

/* A table row. impl lets one handler serve many rows (e.g. every binary
 * field operation); the handler casts it back to the type it expects. */
typedef struct oracle_op {
    const char *name;
    int min_args, max_args;
    oracle_fn fn;
    void (*impl)(void);
    const char *usage;
} oracle_op;

#define ORACLE_IMPL(f) ((void (*)(void))(f))

/* The tables, each ended by a row with name NULL. */
extern const oracle_op fp_oracle_ops[], fr_oracle_ops[], fp2_oracle_ops[];
extern const oracle_op g1_oracle_ops[], g2_oracle_ops[], fp12_oracle_ops[];
extern const oracle_op g1_oracle_msm_ops[], g2_oracle_msm_ops[];

/* Parses exactly len bytes of hex (2 len digits, no prefix). */
int oracle_hex_exact(uint8_t *out, size_t len, const char *hex, cuzk_err *err);
/* Parses any even number of hex digits up to cap bytes; *len gets the byte count. */
int oracle_hex_any(uint8_t *out, size_t cap, size_t *len, const char *hex, cuzk_err *err);
/* Big-endian hex of up to 8 * ORACLE_MAX_LIMBS bytes (exponents, scalars) as
 * little-endian limbs k[0..*n). */
#define ORACLE_MAX_LIMBS 8
int oracle_arg_limbs(uint64_t k[ORACLE_MAX_LIMBS], size_t *n, const char *hex, cuzk_err *err);
void oracle_put_hex(FILE *out, const uint8_t *b, size_t len);

/* Canonical big-endian field arguments; values >= the modulus are malformed. */
int oracle_arg_fp(fp_t *r, const char *hex, cuzk_err *err);
int oracle_arg_fr(fr_t *r, const char *hex, cuzk_err *err);
void oracle_put_fp(FILE *out, const fp_t *a);
void oracle_put_fr(FILE *out, const fr_t *a);

/* One token per status code for decoder answers ("err notoncurve"). */
const char *oracle_status_token(int code);

#endif
