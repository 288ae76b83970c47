/*
 * params.h - Groth16 parameter files in bellperson's byte format
 * (reference/groth16.md ".params file"): the official Filecoin `.params`
 * and `.vk` files, read through mmap with a parallel decode, and written.
 *
 * Layout, no magic and no padding, every point uncompressed (ZCash
 * encoding, G1 96 bytes, G2 192 bytes), counts u32 big-endian:
 *   alpha_g1, beta_g1 (G1), beta_g2, gamma_g2 (G2), delta_g1 (G1),
 *   delta_g2 (G2), count + IC (G1)           <- a .vk file ends here
 *   count + H, count + L, count + A, count + B_G1 (G1), count + B_G2 (G2)
 *
 * Checked mode verifies every point is canonical, on the curve and in the
 * subgroup; unchecked mode (trusted local files) only checks encodings and
 * flags. In both modes a point at infinity is rejected in IC, H, L, A,
 * B_G1 and B_G2, as bellperson does (it drops them when it writes). Errors
 * name the file, the section, the point and the byte offset ("x.params: L
 * point 17 is not on the curve (byte 5012)"); a file that is too short
 * names the section it ends in, and trailing bytes are an error.
 */
#ifndef CUZK_PARAMS_H
#define CUZK_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/groth16.h"

/* PARAMS_CACHED: checked, except that an image whose bytes passed a full
 * check before (the digest cache, check_cache.h) is read unchecked; an
 * image that passes is recorded. (The verifying key read from the head of
 * a .params file is small and always checked in this mode.) */
enum params_mode { PARAMS_CHECKED = 0, PARAMS_UNCHECKED = 1, PARAMS_CACHED = 2 };

enum params_section {
    PARAMS_IC = 0,
    PARAMS_H,
    PARAMS_L,
    PARAMS_A,
    PARAMS_B_G1,
    PARAMS_B_G2,
    PARAMS_SECTIONS
};

/* Bytes of the six fixed verifying-key points: 3 x 96 + 3 x 192. */
#define PARAMS_VK_FIXED_BYTES 864

/* Where each section's points start and how many there are. */
typedef struct params_layout {
    uint32_t count[PARAMS_SECTIONS];
    uint64_t offset[PARAMS_SECTIONS]; /* byte offset of the first point */
    uint64_t size;                    /* bytes up to the end of the last section read */
} params_layout;

/* The section's name as errors print it ("IC", "H", ..., "B_G2"). */
const char *params_section_name(int section);

/*
 * Reads the counts without decoding points: sections IC only when
 * sections = 1 (a .vk), all six when PARAMS_SECTIONS. Fails with
 * CUZK_ELENGTH when the data ends inside a section; ignores what follows.
 */
int params_scan(params_layout *out, const uint8_t *data, size_t len, int sections, const char *name,
                cuzk_err *err);

/* Decodes a whole .params image (name is used in messages). */
int groth16_params_decode(groth16_params *out, const uint8_t *data, size_t len, const char *name,
                          int mode, cuzk_err *err);
/* Maps and decodes a .params file. */
int groth16_params_read(groth16_params *out, const char *path, int mode, cuzk_err *err);
/* Progress of a read: bytes of the file decoded so far, of total; returns
 * whether the read goes on (false abandons it). */
typedef bool (*params_progress_fn)(void *ctx, uint64_t done, uint64_t total);
/* The same, calling progress (may be NULL) after each window of about
 * 1 GiB (params_read.c); a read its progress function abandons fails with
 * CUZK_ECANCELLED, everything it had decoded freed. */
int groth16_params_read_progress(groth16_params *out, const char *path, int mode,
                                 params_progress_fn progress, void *ctx, cuzk_err *err);
/* Writes p (H in bellperson's monomial basis) to path, atomically. */
int groth16_params_write(const char *path, const groth16_params *p, cuzk_err *err);
/* The size in bytes of p's encoding. */
uint64_t groth16_params_encoded_size(const groth16_params *p);

/* A .vk image or file (nothing may follow IC). */
int groth16_vk_decode(groth16_vk *out, const uint8_t *data, size_t len, const char *name, int mode,
                      cuzk_err *err);
int groth16_vk_read(groth16_vk *out, const char *path, int mode, cuzk_err *err);
/* The verifying key that opens a .params file (the rest is not decoded). */
int groth16_vk_read_from_params(groth16_vk *out, const char *path, int mode, cuzk_err *err);
int groth16_vk_write(const char *path, const groth16_vk *vk, cuzk_err *err);

#endif
