/*
 * params_internal.h - what the .params reader and writer share: the two
 * point groups behind one small table (encoded size, size in memory,
 * decode, encode), the fixed verifying-key points in file order, and the
 * phrase each decoding failure is reported with.
 */
#ifndef CUZK_GROTH16_PARAMS_INTERNAL_H
#define CUZK_GROTH16_PARAMS_INTERNAL_H

#include <stdbool.h>

#include "cuzk/params.h"

typedef struct params_group {
    size_t bytes; /* encoded (uncompressed) */
    size_t mem;   /* sizeof the affine type */
    /* 0 or the decoder's CUZK_E* code; mode is enum params_mode */
    int (*decode)(void *dst, const uint8_t *in, int mode);
    void (*encode)(uint8_t *out, const void *p);
    bool (*is_inf)(const void *p);
    /* n decoded points all on the curve and in the subgroup */
    bool (*all_valid)(const void *p, size_t n);
} params_group;

extern const params_group PARAMS_G1, PARAMS_G2;

/* The group of each section (IC..B_G1 are G1, B_G2 is G2). */
const params_group *params_section_group(int section);

/* The six fixed points of a verifying key, in file order. */
#define PARAMS_VK_FIXED 6
typedef struct params_vk_point {
    const char *name;
    const params_group *group;
    size_t offset; /* within the file */
} params_vk_point;
extern const params_vk_point PARAMS_VK_POINTS[PARAMS_VK_FIXED];
/* Address of the fixed point i inside vk. */
void *params_vk_field(groth16_vk *vk, int i);

/* "is not on the curve", "is the point at infinity", ... */
const char *params_failure_phrase(int code);

/* The window of a mapped read (params_read.c; tests shrink it to reach
 * every window path with small files). */
void params_set_decode_window(uint64_t bytes);

#endif
