/*
 * fuzz_params_header.c - libFuzzer target for the .params / .vk readers.
 *
 * The input is decoded twice: as a whole file image, and after a valid
 * verifying-key head (six generator points) so that the section counts and
 * points that follow are reached on almost every run. Each image goes
 * through params_scan, the .params decoder (unchecked, and checked when
 * small enough to stay fast under the sanitizers) and the .vk decoder. The
 * property: no crash or leak, every failure carries a message, and an
 * accepted image has exactly the counts the scan found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/params.h"

/* Checked decoding (subgroup checks) only below this size. */
#define CHECKED_MAX 4096

static void require(int cond)
{
    if (!cond) abort();
}

static void decode_params(const uint8_t *d, size_t n, int mode)
{
    groth16_params p;
    params_layout lay;
    cuzk_err e = {0};
    int scanned = params_scan(&lay, d, n, PARAMS_SECTIONS, "fuzz.params", NULL);
    int rc = groth16_params_decode(&p, d, n, "fuzz.params", mode, &e);
    if (rc) {
        require(e.code == rc && e.msg[0] != 0);
        return;
    }
    require(scanned == 0 && lay.size == n);
    require(p.vk.n_ic == lay.count[PARAMS_IC] && p.n_h == lay.count[PARAMS_H]);
    require(p.n_l == lay.count[PARAMS_L] && p.n_a == lay.count[PARAMS_A]);
    require(p.n_b_g1 == lay.count[PARAMS_B_G1] && p.n_b_g2 == lay.count[PARAMS_B_G2]);
    groth16_params_free(&p);
}

static void decode_vk(const uint8_t *d, size_t n)
{
    groth16_vk vk;
    cuzk_err e = {0};
    int rc = groth16_vk_decode(&vk, d, n, "fuzz.vk", PARAMS_UNCHECKED, &e);
    if (rc) {
        require(e.code == rc && e.msg[0] != 0);
        return;
    }
    groth16_vk_free(&vk);
}

static void run(const uint8_t *d, size_t n)
{
    decode_params(d, n, PARAMS_UNCHECKED);
    if (n <= CHECKED_MAX) decode_params(d, n, PARAMS_CHECKED);
    decode_vk(d, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size);
    uint8_t *img = malloc(PARAMS_VK_FIXED_BYTES + size);
    require(img != NULL);
    /* alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 at these offsets */
    static const size_t g1_at[3] = {0, 96, 576}, g2_at[3] = {192, 384, 672};
    for (int i = 0; i < 3; i++) {
        g1_affine_serialize(img + g1_at[i], &g1_GENERATOR);
        g2_affine_serialize(img + g2_at[i], &g2_GENERATOR);
    }
    memcpy(img + PARAMS_VK_FIXED_BYTES, data, size);
    run(img, PARAMS_VK_FIXED_BYTES + size);
    free(img);
    return 0;
}
