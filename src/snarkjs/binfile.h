/*
 * binfile.h - the container shared by circom / snarkjs binary files
 * (internal): 4-byte magic, u32 version, u32 section count, then sections
 * {u32 id, u64 length, payload}, all little-endian. The file is mapped
 * read-only; sections are located once and read through bounds-checked
 * cursors whose errors name the file, the section and the byte offset.
 */
#ifndef CUZK_SNARKJS_BINFILE_H
#define CUZK_SNARKJS_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/ec.h"
#include "cuzk/err.h"
#include "cuzk/fr.h"

#define BINFILE_MAX_SECTIONS 32

typedef struct binfile {
    const char *path;
    const uint8_t *data;
    size_t len;
    uint32_t version;
    int n_sec;
    struct {
        uint32_t id;
        uint64_t off, len;
    } sec[BINFILE_MAX_SECTIONS];
} binfile;

typedef struct bincursor {
    const binfile *f;
    uint32_t section;
    const uint8_t *p;
    uint64_t len, pos;
} bincursor;

/* Maps path and checks magic, version (1..max_version), the section table
 * (no overrun, no repeated id) and that every id is in known[0..n_known). */
int binfile_open(binfile *f, const char *path, const char magic[4], uint32_t max_version,
                 const uint32_t *known, int n_known, cuzk_err *err);
void binfile_close(binfile *f);

/* Cursor over section id; a missing section is an error. When want_len is
 * non-zero the section must have exactly that length. */
int binfile_section(const binfile *f, uint32_t id, uint64_t want_len, bincursor *c, cuzk_err *err);
/* Checks that a cursor consumed its whole section. */
int bincursor_end(const bincursor *c, cuzk_err *err);

int bincursor_u32(bincursor *c, uint32_t *v, const char *what, cuzk_err *err);
int bincursor_u64(bincursor *c, uint64_t *v, const char *what, cuzk_err *err);
int bincursor_bytes(bincursor *c, const uint8_t **p, size_t n, const char *what, cuzk_err *err);
/* A 32-byte little-endian canonical Fr element (standard form). */
int bincursor_fr(bincursor *c, fr_t *v, const char *what, cuzk_err *err);
/* Checks n8 and the prime that follows it against the given modulus. */
int bincursor_prime(bincursor *c, const uint64_t *mod, int limbs, const char *name, cuzk_err *err);
/* n points as snarkjs stores them (coordinates 48-byte LE Montgomery, all
 * zero for infinity), checked on the curve, and in the subgroup when
 * subgroup is non-zero (in parallel). */
int bincursor_g1_array(bincursor *c, g1_affine_t *p, uint64_t n, const char *what, int subgroup,
                       cuzk_err *err);
int bincursor_g2_array(bincursor *c, g2_affine_t *p, uint64_t n, const char *what, int subgroup,
                       cuzk_err *err);

#endif
