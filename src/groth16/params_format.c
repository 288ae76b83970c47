/*
 * params_format.c - the byte layout of .params / .vk files written down
 * once for the reader and the writer: the point groups, the verifying
 * key's fixed points in file order, the section scan (counts and offsets,
 * no point decoding) and the phrases of decoding failures.
 */
#include "groth16/params_internal.h"

#include <stddef.h>

static int decode_g1(void *dst, const uint8_t *in, int mode)
{
    return mode == PARAMS_CHECKED
               ? g1_affine_deserialize(dst, in, G1_UNCOMPRESSED_BYTES, NULL)
               : g1_affine_deserialize_unchecked(dst, in, G1_UNCOMPRESSED_BYTES, NULL);
}

static int decode_g2(void *dst, const uint8_t *in, int mode)
{
    return mode == PARAMS_CHECKED
               ? g2_affine_deserialize(dst, in, G2_UNCOMPRESSED_BYTES, NULL)
               : g2_affine_deserialize_unchecked(dst, in, G2_UNCOMPRESSED_BYTES, NULL);
}

static void encode_g1(uint8_t *out, const void *p)
{
    g1_affine_serialize(out, p);
}
static void encode_g2(uint8_t *out, const void *p)
{
    g2_affine_serialize(out, p);
}
static bool is_inf_g1(const void *p)
{
    return g1_affine_is_inf(p);
}
static bool is_inf_g2(const void *p)
{
    return g2_affine_is_inf(p);
}

/* n decoded points all on the curve and all in the subgroup (the latter
 * by random subset sums, ec.h). */
static bool all_valid_g1(const void *p, size_t n)
{
    const g1_affine_t *a = p;
    size_t off = 0;
#pragma omp parallel for schedule(static) reduction(+ : off)
    for (size_t i = 0; i < n; i++) off += !g1_affine_on_curve(&a[i]);
    return off == 0 && g1_affine_all_in_subgroup(a, n);
}
static bool all_valid_g2(const void *p, size_t n)
{
    const g2_affine_t *a = p;
    size_t off = 0;
#pragma omp parallel for schedule(static) reduction(+ : off)
    for (size_t i = 0; i < n; i++) off += !g2_affine_on_curve(&a[i]);
    return off == 0 && g2_affine_all_in_subgroup(a, n);
}

const params_group PARAMS_G1 = {
    G1_UNCOMPRESSED_BYTES, sizeof(g1_affine_t), decode_g1, encode_g1, is_inf_g1, all_valid_g1};
const params_group PARAMS_G2 = {
    G2_UNCOMPRESSED_BYTES, sizeof(g2_affine_t), decode_g2, encode_g2, is_inf_g2, all_valid_g2};

/* Offsets: 96 + 96 + 192 + 192 + 96 + 192 = 864 = PARAMS_VK_FIXED_BYTES. */
const params_vk_point PARAMS_VK_POINTS[PARAMS_VK_FIXED] = {
    {"alpha_g1", &PARAMS_G1, 0},   {"beta_g1", &PARAMS_G1, 96},   {"beta_g2", &PARAMS_G2, 192},
    {"gamma_g2", &PARAMS_G2, 384}, {"delta_g1", &PARAMS_G1, 576}, {"delta_g2", &PARAMS_G2, 672},
};

void *params_vk_field(groth16_vk *vk, int i)
{
    void *fields[PARAMS_VK_FIXED] = {&vk->alpha_g1, &vk->beta_g1,  &vk->beta_g2,
                                     &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    return fields[i];
}

const params_group *params_section_group(int section)
{
    return section == PARAMS_B_G2 ? &PARAMS_G2 : &PARAMS_G1;
}

const char *params_section_name(int section)
{
    static const char *const names[PARAMS_SECTIONS] = {"IC", "H", "L", "A", "B_G1", "B_G2"};
    return section >= 0 && section < PARAMS_SECTIONS ? names[section] : "?";
}

const char *params_failure_phrase(int code)
{
    switch (code) {
    case CUZK_ENOTONCURVE:
        return "is not on the curve";
    case CUZK_ENOTINSUBGROUP:
        return "is not in the prime-order subgroup";
    case CUZK_EIDENTITY:
        return "is the point at infinity";
    case CUZK_ENONCANONICAL:
        return "has a coordinate that is not below p";
    case CUZK_EFLAGS:
        return "has inconsistent flag bits";
    default:
        return cuzk_status_str(code);
    }
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int params_scan(params_layout *out, const uint8_t *data, size_t len, int sections, const char *name,
                cuzk_err *err)
{
    uint64_t pos = PARAMS_VK_FIXED_BYTES;
    *out = (params_layout){0};
    if (len < pos)
        return cuzk_errf(err, CUZK_ELENGTH,
                         "%s: truncated in the verifying key: %zu bytes, its six points need %d",
                         name, len, PARAMS_VK_FIXED_BYTES);
    for (int s = 0; s < sections; s++) {
        const char *sn = params_section_name(s);
        if (len - pos < 4)
            return cuzk_errf(err, CUZK_ELENGTH,
                             "%s: truncated at the %s count (byte %llu, file has %zu bytes)", name,
                             sn, (unsigned long long)pos, len);
        out->count[s] = be32(data + pos);
        pos += 4;
        out->offset[s] = pos;
        uint64_t need = (uint64_t)out->count[s] * params_section_group(s)->bytes;
        if (len - pos < need)
            return cuzk_errf(err, CUZK_ELENGTH,
                             "%s: truncated in the %s section: %u points need %llu bytes from "
                             "byte %llu, the file has %llu left",
                             name, sn, out->count[s], (unsigned long long)need,
                             (unsigned long long)pos, (unsigned long long)(len - pos));
        pos += need;
    }
    out->size = pos;
    return 0;
}
