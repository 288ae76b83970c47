/*
 * fixed_base.cuh - fixed-base multiplication by a group's generator for
 * the development setup, written once over the curve template (G1 over
 * fp_d, G2 over fp2_d): the per-thread parts of the kernels, and the
 * launchers that fixed_base_kernels.cu defines (the stand-in runtime of
 * tests/gpuhost defines them on the CPU with these same items).
 *
 * The table holds d 256^j G for the 32 byte windows j of a scalar and
 * d = 1 .. 255 (affine, made on the host by the CPU's fixed-base
 * multiplication). A scalar's point is the sum of one entry per non-zero
 * byte of its canonical value (fb_mul_item, in XYZZ: 8M+2S per entry,
 * about 330 products per G1 point); the points then go to affine with one
 * inversion per FB_GROUP points (Montgomery's trick, fb_affine_item) and
 * straight into the file's encoding: x then y, each big-endian canonical
 * (G2: the imaginary part first), 0x40 then zeros for infinity, the bytes
 * of g1_affine_serialize / g2_affine_serialize.
 */
#ifndef CUZK_GPU_SETUP_FIXED_BASE_CUH
#define CUZK_GPU_SETUP_FIXED_BASE_CUH

#include <stddef.h>

#include "gpu/ec/xyzz.cuh"
#include "gpu/util/capi.cuh"

#define FB_WINDOWS 32  /* bytes of a 255-bit scalar */
#define FB_DIGITS  255 /* non-zero values of a byte */
#define FB_TABLE   (FB_WINDOWS * FB_DIGITS)
/* Points per inversion: the inversion (~470 products) spread over 32
 * points costs ~15 each, against ~330 for the multiplication. */
#define FB_GROUP 32

/* The encoded coordinate sizes: 48 bytes per Fp element. */
template <class F> struct fb_field;
template <> struct fb_field<fp_d> {
    static constexpr int WORDS = 12; /* 32-bit words of one coordinate */
};
template <> struct fb_field<fp2_d> {
    static constexpr int WORDS = 24;
};

HD uint32_t fb_bswap(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

/* One Fp element, canonical and big-endian, as 12 words of memory. */
HD void fb_put_fp(uint32_t *out, const fp_d &a)
{
    fp_d c = a.from_mont();
#pragma unroll
    for (int w = 0; w < 12; w++) out[w] = fb_bswap(c.v[11 - w]);
}

HD void fb_put(uint32_t *out, const fp_d &a)
{
    fb_put_fp(out, a);
}

HD void fb_put(uint32_t *out, const fp2_d &a)
{
    fb_put_fp(out, a.c1);
    fb_put_fp(out + 12, a.c0);
}

/* acc[i] = scalars[i] G from the table, for i < n. */
template <class F>
HD void fb_mul_item(size_t i, const fr_d *scalars, const affine_d<F> *tab, xyzz_d<F> *acc)
{
    fr_d s = scalars[i].from_mont();
    xyzz_d<F> a = xyzz_d<F>::inf();
    for (int j = 0; j < FB_WINDOWS; j++) {
        uint32_t d = (s.v[j / 4] >> (8 * (j % 4))) & 0xff;
        if (d) a.add_affine(tab[j * FB_DIGITS + d - 1]);
    }
    acc[i] = a;
}

/* Points [t FB_GROUP, ...) of acc (n in all) to affine and encoded into
 * out (2 WORDS words each); scratch holds one F per point. */
template <class F>
HD void fb_affine_item(size_t t, const xyzz_d<F> *acc, F *scratch, uint32_t *out, size_t n)
{
    constexpr int W = fb_field<F>::WORDS;
    size_t lo = t * FB_GROUP, hi = lo + FB_GROUP < n ? lo + FB_GROUP : n;
    F prod = F::one();
    for (size_t i = lo; i < hi; i++) {
        scratch[i] = prod;
        if (!acc[i].is_inf()) prod *= acc[i].zzz;
    }
    F inv = prod.inv();
    for (size_t i = hi; i-- > lo;) {
        uint32_t *o = out + i * 2 * W;
        const xyzz_d<F> &p = acc[i];
        if (p.is_inf()) {
            for (int w = 0; w < 2 * W; w++) o[w] = 0;
            o[0] = fb_bswap(0x40000000u);
            continue;
        }
        F izzz = inv * scratch[i]; /* 1 / ZZZ */
        inv *= p.zzz;
        F izz = p.zz * izzz; /* (ZZ / ZZZ)^2 = 1 / ZZ, since ZZZ^2 = ZZ^3 */
        fb_put(o, p.x * izz.sqr());
        fb_put(o + W, p.y * izzz);
    }
}

/* The launchers (fixed_base_kernels.cu): n points on the current stream. */
int fb_launch_mul_g1(const fr_d *scalars, const affine_d<fp_d> *tab, xyzz_d<fp_d> *acc, size_t n,
                     cuzk_err *err);
int fb_launch_mul_g2(const fr_d *scalars, const affine_d<fp2_d> *tab, xyzz_d<fp2_d> *acc, size_t n,
                     cuzk_err *err);
int fb_launch_affine_g1(const xyzz_d<fp_d> *acc, fp_d *scratch, uint32_t *out, size_t n,
                        cuzk_err *err);
int fb_launch_affine_g2(const xyzz_d<fp2_d> *acc, fp2_d *scratch, uint32_t *out, size_t n,
                        cuzk_err *err);

#endif
