/*
 * test_gpu_emu.cu - the device arithmetic and kernel logic of src/gpu, run
 * on the host and checked against the CPU library. Needs no GPU, so it runs
 * in CI and on any build machine with nvcc.
 *
 * Everything below the kernels is __host__ __device__ (carry.cuh emulates
 * the PTX carry instructions on the host): the field operations and the
 * XYZZ group law are compared with fp.h / fr.h / fp2.h / ec.h; the MSM
 * pipeline runs item by item (digits, a sort per window, run bounds,
 * bucket sums, segment sums, Horner) against a sum of g1_jac_mul; the NTT
 * passes run tile by tile with the planner of the device code against a
 * DFT (both kernels: ntt_pass stage by stage, ntt_pass_r8 thread by thread
 * in the phases between its barriers; their outputs byte-equal), the step
 * order of the H computation against h Z = A B - C, and the pass plans
 * are checked to touch every index once for sizes up to 2^27 (and
 * ntt_pass_r8's register groups to map each tile once without shared
 * memory bank conflicts). What this cannot check is the device itself
 * (the real carry flag, shared memory, CUB): test_gpu does that.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "gpu/ec/xyzz.cuh"
#include "gpu/msm/msm_affine.cuh"
#include "gpu/msm/msm_kernels.cuh"
#include "gpu/ntt/ntt_kernels.cuh"
#include "gpu/util/capi.cuh"
#include "gpu_check.h"
#include "poly_check.h"

extern "C" {
#include "cuzk/ntt.h"
}

static cuzk_rng rng;

template <class D, class H> static D to_d(const H &h)
{
    static_assert(sizeof(D) == sizeof(H), "layout");
    D d;
    memcpy(&d, &h, sizeof d);
    return d;
}

static void test_fp(void)
{
    int bad = 0;
    for (int i = 0; i < 2000; i++) {
        fp_t a, b, c;
        fp_random(&a, &rng);
        fp_random(&b, &rng);
        if (i == 0) fp_neg(&a, &FP_ONE);
        if (i == 1) memset(&b, 0, sizeof b);
        fp_d x = to_d<fp_d>(a), y = to_d<fp_d>(b);
        fp_mul(&c, &a, &b);
        bad += !(to_d<fp_d>(c) == x * y);
        fp_add(&c, &a, &b);
        bad += !(to_d<fp_d>(c) == x + y);
        fp_sub(&c, &a, &b);
        bad += !(to_d<fp_d>(c) == x - y);
        fp_neg(&c, &a);
        bad += !(to_d<fp_d>(c) == x.neg());
        uint64_t can[FP_LIMBS];
        fp_to_canonical(can, &a);
        bad += memcmp(can, x.from_mont().v, sizeof can) != 0;
    }
    CHECK(bad == 0, "fp: %d mismatches", bad);
    bad = 0;
    for (int i = 0; i < 2000; i++) {
        fr_t a, b, c;
        fr_random(&a, &rng);
        fr_random(&b, &rng);
        if (i == 0) fr_neg(&a, &FR_ONE);
        fr_d x = to_d<fr_d>(a), y = to_d<fr_d>(b);
        fr_mul(&c, &a, &b);
        bad += !(to_d<fr_d>(c) == x * y);
        fr_add(&c, &a, &b);
        bad += !(to_d<fr_d>(c) == x + y);
        fr_sub(&c, &a, &b);
        bad += !(to_d<fr_d>(c) == x - y);
        uint64_t e = cuzk_rng_u64(&rng) >> 40, can[FR_LIMBS];
        fr_pow(&c, &a, &e, 1);
        bad += !(to_d<fr_d>(c) == x.pow(e));
        fr_to_canonical(can, &a);
        bad += memcmp(can, x.from_mont().v, sizeof can) != 0;
    }
    CHECK(bad == 0, "fr: %d mismatches", bad);
    bad = 0;
    for (int i = 0; i < 500; i++) {
        fp2_t a, b, c;
        fp_random(&a.c0, &rng);
        fp_random(&a.c1, &rng);
        fp_random(&b.c0, &rng);
        fp_random(&b.c1, &rng);
        fp2_d x = to_d<fp2_d>(a), y = to_d<fp2_d>(b);
        fp2_mul(&c, &a, &b);
        bad += !(to_d<fp2_d>(c) == x * y);
        fp2_sqr(&c, &a);
        bad += !(to_d<fp2_d>(c) == x.sqr());
    }
    CHECK(bad == 0, "fp2: %d mismatches", bad);
    printf("emu fields: fp, fr, fp2 operations match the CPU\n");
}

/* The XYZZ law of one group against ec.h: a chain of mixed additions with
 * doubling and cancelling cases, then dbl, add, mul_small. */
#define EC_CASE(G, F, FD, NAME)                                                                    \
    static void test_ec_##G(void)                                                                  \
    {                                                                                              \
        enum { N = 24 };                                                                           \
        G##_jac_t gen, j[N];                                                                       \
        G##_affine_t p[N];                                                                         \
        G##_jac_from_affine(&gen, &G##_GENERATOR);                                                 \
        for (int i = 0; i < N; i++) {                                                              \
            fr_t k;                                                                                \
            fr_random(&k, &rng);                                                                   \
            G##_jac_mul(&j[i], &gen, &k);                                                          \
        }                                                                                          \
        G##_jac_batch_to_affine(p, j, N);                                                          \
        p[3] = p[2];                   /* doubling inside add_affine */                            \
        G##_affine_neg(&p[5], &p[4]);  /* P + (-P) */                                              \
        memset(&p[7], 0, sizeof p[7]); /* infinity */                                              \
        typedef affine_d<FD> A;                                                                    \
        typedef xyzz_d<FD> X;                                                                      \
        X acc = X::inf(), accp = X::inf();                                                         \
        G##_jac_t want, got;                                                                       \
        G##_jac_set_inf(&want);                                                                    \
        int bad = 0;                                                                               \
        for (int i = 0; i < N; i++) {                                                              \
            acc.add_affine(to_d<A>(p[i]));                                                         \
            accp.add_affine<true>(to_d<A>(p[i])); /* paired products: the same bytes */            \
            G##_jac_add_affine(&want, &want, &p[i]);                                               \
            if (i == 2)                                                                            \
                acc = accp = X::from_affine(to_d<A>(p[2])), G##_jac_from_affine(&want, &p[2]);     \
            acc.to_jac((FD *)&got.x, (FD *)&got.y, (FD *)&got.z);                                  \
            bad += !G##_jac_eq(&want, &got) + !(acc.x == accp.x && acc.y == accp.y &&              \
                                                acc.zz == accp.zz && acc.zzz == accp.zzz);         \
        }                                                                                          \
        X d = acc.dbl(), s = acc, sp = acc;                                                        \
        s.add(X::from_affine(to_d<A>(p[1])));                                                      \
        s.add(acc);                                                                                \
        sp.add<true>(X::from_affine(to_d<A>(p[1])));                                               \
        sp.add<true>(acc);                                                                         \
        bad += !(s.x == sp.x && s.y == sp.y && s.zz == sp.zz && s.zzz == sp.zzz);                  \
        G##_jac_t w2, w3;                                                                          \
        G##_jac_dbl(&w2, &want);                                                                   \
        G##_jac_add_affine(&w3, &w2, &p[1]);                                                       \
        d.to_jac((FD *)&got.x, (FD *)&got.y, (FD *)&got.z);                                        \
        bad += !G##_jac_eq(&w2, &got);                                                             \
        s.to_jac((FD *)&got.x, (FD *)&got.y, (FD *)&got.z);                                        \
        bad += !G##_jac_eq(&w3, &got);                                                             \
        X m = acc.mul_small(1000003);                                                              \
        fr_t k;                                                                                    \
        fr_from_u64(&k, 1000003);                                                                  \
        G##_jac_mul(&w2, &want, &k);                                                               \
        m.to_jac((FD *)&got.x, (FD *)&got.y, (FD *)&got.z);                                        \
        bad += !G##_jac_eq(&w2, &got);                                                             \
        CHECK(bad == 0, "%s xyzz: %d mismatches", NAME, bad);                                      \
    }
EC_CASE(g1, fp_t, fp_d, "G1")
EC_CASE(g2, fp2_t, fp2_d, "G2")

/* Step 3 of msm.cu on the host: the bucket sums in rounds of tasks of at
 * most k0 points, then k_later partials. */
static void emu_buckets(xyzz_d<fp_d> *buckets, const g1_affine_t *bases, const uint32_t *vals,
                        std::vector<uint32_t> &start, std::vector<uint32_t> &end, uint32_t k0,
                        uint32_t k_later, const std::vector<xyzz_d<fp_d>> *partials = NULL)
{
    uint32_t nb = (uint32_t)start.size();
    std::vector<uint32_t> ntask(nb), off(nb), task_bucket;
    std::vector<xyzz_d<fp_d>> in, out;
    if (partials) in = *partials;
    for (unsigned round = 0;; round++) {
        uint32_t k = round || partials ? k_later : k0, most = 0, tasks = 0;
        for (uint32_t b = 0; round && b < nb; b++)
            msm_task_next_item(b, off.data(), ntask.data(), start.data(), end.data());
        for (uint32_t b = 0; b < nb; b++) {
            uint32_t t = msm_task_count_item(b, start.data(), end.data(), k, ntask.data());
            most = t > most ? t : most;
            off[b] = tasks;
            tasks += t;
        }
        task_bucket.assign(tasks, 0);
        out.assign(tasks, xyzz_d<fp_d>::inf());
        for (uint32_t b = 0; b < nb; b++)
            msm_task_map_item(b, off.data(), ntask.data(), task_bucket.data());
        for (uint32_t i = 0; i < tasks; i++) {
            if (round == 0 && !partials)
                msm_task_sum_item(i, task_bucket.data(), off.data(), start.data(), end.data(), k,
                                  (const affine_d<fp_d> *)bases, vals, out.data());
            else
                msm_task_sum_xyzz_item(i, task_bucket.data(), off.data(), start.data(), end.data(),
                                       k, in.data(), out.data());
        }
        in.swap(out);
        if (most <= 1) break;
    }
    for (uint32_t b = 0; b < nb; b++)
        msm_task_gather_item(b, off.data(), ntask.data(), in.data(), buckets);
}

/* The affine rounds of msm.cu (msm_affine_group) for windows w0 .. w0+g-1
 * on the host, `pairs` per thread, then the task sums of what is left
 * into the group's buckets. */
struct emu_affine {
    unsigned rounds, gwin;
    uint32_t pairs;
};

static void emu_affine_group(xyzz_d<fp_d> *buckets, const g1_affine_t *bases,
                             const std::vector<uint32_t> &keys, const std::vector<uint32_t> &vals,
                             const std::vector<uint32_t> &start, const std::vector<uint32_t> &end,
                             uint32_t n, uint32_t half, uint32_t w0, uint32_t g, emu_affine af)
{
    uint32_t nbk = g * half, total = g * n;
    std::vector<uint32_t> st[2], cn[2], bkt[2];
    std::vector<affine_d<fp_d>> pts[2];
    for (int i = 0; i < 2; i++) st[i].assign(nbk, 0), cn[i].assign(nbk, 0);
    for (uint32_t b = 0; b < nbk; b++)
        msm_aff_first_item(b, start.data() + (size_t)w0 * half, end.data() + (size_t)w0 * half,
                           w0 * n, st[0].data(), cn[0].data(), cn[1].data());
    for (unsigned r = 0; r < af.rounds; r++) {
        unsigned in = r & 1, out = in ^ 1;
        for (uint32_t b = 0; r && b < nbk; b++)
            msm_aff_halve_item(b, cn[in].data(), cn[out].data());
        uint32_t size = 0;
        for (uint32_t b = 0; b < nbk; b++) st[out][b] = size, size += cn[out][b];
        pts[in].assign(size, affine_d<fp_d>{fp_d::zero(), fp_d::zero()});
        bkt[in].assign(size, 0);
        msm_aff_args<fp_d> a;
        memset(&a, 0, sizeof a);
        a.pts = r ? pts[in ^ 1].data() : (const affine_d<fp_d> *)bases;
        a.vals = vals.data() + (size_t)w0 * n;
        a.keys = keys.data() + (size_t)w0 * n;
        a.bkt = bkt[in ^ 1].data();
        a.st = st[in].data(), a.cn = cn[in].data(), a.ost = st[out].data();
        a.total = total, a.n = n, a.half = half;
        a.per = 2 * af.pairs, a.threads = (total + a.per - 1) / a.per;
        std::vector<fp_d> scratch((size_t)a.threads * af.pairs);
        a.scratch = scratch.data();
        a.out = pts[in].data();
        a.obkt = bkt[in].data();
        for (uint32_t t = 0; t < a.threads; t++) {
            if (r == 0)
                msm_aff_round_item<fp_d, true>(t, a);
            else
                msm_aff_round_item<fp_d, false>(t, a);
        }
        total = size;
    }
    unsigned o = af.rounds & 1;
    std::vector<uint32_t> gs(nbk), ge(nbk);
    for (uint32_t b = 0; b < nbk; b++)
        msm_task_next_item(b, st[o].data(), cn[o].data(), gs.data(), ge.data());
    emu_buckets(buckets + (size_t)w0 * half, (const g1_affine_t *)pts[(af.rounds - 1) & 1].data(),
                NULL, gs, ge, 2, 3);
}

/* msm.cu's sweep (msm_sweep_rounds): positions [t K, (t + 1) K) per
 * thread into slots, each bucket's run of slots, then task rounds. The
 * threads go in blocks of EMU_SWEEP_BLOCK that claim their chunks
 * (msm_sweep_claim) as the kernel's do: a first launch whose bail flag
 * goes up after `bail_after` blocks (a lane proof came), then a second
 * without it, as msm_sweep_rounds runs them; every chunk must be swept
 * exactly once. */
#define EMU_SWEEP_BLOCK 4
static void emu_sweep(xyzz_d<fp_d> *buckets, const g1_affine_t *bases,
                      const std::vector<uint32_t> &keys, const std::vector<uint32_t> &vals,
                      std::vector<uint32_t> &start, std::vector<uint32_t> &end, uint32_t n,
                      uint32_t half, uint32_t k, uint32_t bail_after)
{
    uint32_t nb = (uint32_t)start.size(), total = (uint32_t)keys.size(), r = 0;
    uint32_t threads = (total + k - 1) / k;
    uint32_t blocks = (threads + EMU_SWEEP_BLOCK - 1) / EMU_SWEEP_BLOCK, claim = 0;
    std::vector<uint32_t> rank(nb), swept(blocks);
    for (uint32_t b = 0; b < nb; b++) rank[b] = r, r += end[b] > start[b];
    std::vector<xyzz_d<fp_d>> slots(threads + r + 1, xyzz_d<fp_d>::inf());
    uint32_t first = 0; /* chunks the first launch swept */
    for (int launch = 0; launch < 2; launch++) {
        int flag = 0;
        for (uint32_t blk = 0; blk < blocks; blk++) {
            flag = launch == 0 && blk >= bail_after;
            uint32_t chunk = msm_sweep_claim(&claim, launch == 0 ? &flag : NULL);
            if (chunk == MSM_NO_CHUNK || chunk >= blocks) continue;
            swept[chunk]++, first += launch == 0;
            for (uint32_t i = 0; i < EMU_SWEEP_BLOCK; i++) {
                uint32_t t = chunk * EMU_SWEEP_BLOCK + i;
                if (t < threads)
                    msm_sweep_item(t, k, total, keys.data(), vals.data(), n, half, rank.data(),
                                   (const affine_d<fp_d> *)bases, slots.data());
            }
        }
    }
    CHECK(first == (bail_after < blocks ? bail_after : blocks),
          "emu sweep: the first launch swept %u of %u chunks, bailing after %u", first, blocks,
          bail_after);
    for (uint32_t c = 0; c < blocks; c++)
        CHECK(swept[c] == 1, "emu sweep: chunk %u of %u swept %u times (bail after %u)", c, blocks,
              swept[c], bail_after);
    for (uint32_t b = 0; b < nb; b++)
        msm_sweep_bounds_item(b, rank.data(), k, start.data(), end.data());
    emu_buckets(buckets, NULL, NULL, start, end, 0, 3, &slots);
}

/* The MSM of msm.cu, kernel by kernel on the host, with tasks of k0 points
 * (and affine rounds first when af.rounds > 0), or by the sweep with K =
 * sweep_k points per thread when that is not 0 (its first launch bailing
 * after bail_after blocks). */
static void emu_msm(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, uint32_t n,
                    uint32_t c, uint32_t k0, emu_affine af = {0, 0, 0}, uint32_t sweep_k = 0,
                    uint32_t bail_after = UINT32_MAX)
{
    const msm_windows m = msm_windows_for(c);
    uint32_t nwin = m.nwin, half = 1u << (c - 1);
    uint32_t seg = half < 32 ? half : 32, per_win = half / seg;
    std::vector<uint32_t> keys((size_t)nwin * n), vals((size_t)nwin * n);
    std::vector<uint32_t> start((size_t)nwin * half), end((size_t)nwin * half);
    std::vector<xyzz_d<fp_d>> buckets((size_t)nwin * half), partial(2 * (size_t)nwin * per_win);
    const fr_d *s = (const fr_d *)scalars;
    for (uint32_t i = 0; i < n; i++) msm_digits_item(i, s, n, m, keys.data(), vals.data());
    for (uint32_t w = 0; w < nwin; w++) {
        size_t o = (size_t)w * n;
        std::vector<std::pair<uint32_t, uint32_t>> kv(n);
        for (uint32_t i = 0; i < n; i++) kv[i] = {keys[o + i], vals[o + i]};
        std::stable_sort(kv.begin(), kv.end(),
                         [](const std::pair<uint32_t, uint32_t> &a,
                            const std::pair<uint32_t, uint32_t> &b) { return a.first < b.first; });
        for (uint32_t i = 0; i < n; i++) keys[o + i] = kv[i].first, vals[o + i] = kv[i].second;
        for (uint32_t t = 0; t < n; t++)
            msm_bounds_item(t, keys.data() + o, n, half, o, start.data() + (size_t)w * half,
                            end.data() + (size_t)w * half);
    }
    if (af.rounds == 0 && sweep_k)
        emu_sweep(buckets.data(), bases, keys, vals, start, end, n, half, sweep_k, bail_after);
    else if (af.rounds == 0)
        emu_buckets(buckets.data(), bases, vals.data(), start, end, k0, 2);
    for (uint32_t w0 = 0; af.rounds && w0 < nwin; w0 += af.gwin)
        emu_affine_group(buckets.data(), bases, keys, vals, start, end, n, half, w0,
                         nwin - w0 < af.gwin ? nwin - w0 : af.gwin, af);
    for (uint32_t t = 0; t < nwin * per_win; t++)
        msm_segment_item(t, buckets.data(), half, seg, partial.data());
    g1_xyzz_t acc;
    g1_xyzz_set_inf(&acc);
    for (int w = (int)nwin - 1; w >= 0; w--) {
        /* msm_reduce's threads (the tree's order does not change the sum) */
        xyzz_d<fp_d> sum = xyzz_d<fp_d>::inf();
        const uint32_t threads = msm_reduce_slices<fp_d>(per_win) * MSM_RED_THREADS(fp_d);
        for (uint32_t t = 0; t < threads; t++)
            sum.add(msm_reduce_item(t, threads, &partial[2 * (size_t)w * per_win], per_win, seg));
        for (uint32_t i = 0; i < msm_win_bits(m, w) && w < (int)nwin - 1; i++)
            g1_xyzz_dbl(&acc, &acc);
        g1_xyzz_t sw;
        memcpy(&sw, &sum, sizeof sw);
        g1_xyzz_add(&acc, &acc, &sw);
    }
    g1_xyzz_to_jac(out, &acc);
}

/* msm_digits_item for every window size 2 .. 24: the windows cover 256
 * bits, at most c and at least c - 1 bits wide, no more of them than
 * ceil(256 / c); every digit is within its window's half range and
 * sum_w d_w 2^(first bit of w) gives the scalar back, for 0, 1, r - 1,
 * 2^k and random scalars. */
static void test_msm_digits(void)
{
    std::vector<fr_t> k;
    fr_t t = FR_ONE;
    k.push_back(FR_ZERO);
    for (int i = 0; i < 255; i++, fr_add(&t, &t, &t)) k.push_back(t); /* 2^i */
    fr_neg(&t, &FR_ONE);
    k.push_back(t);
    for (int i = 0; i < 64; i++) fr_random(&t, &rng), k.push_back(t);
    const uint32_t n = (uint32_t)k.size();
    int bad = 0;
    for (uint32_t c = 2; c <= 24; c++) {
        const msm_windows m = msm_windows_for(c);
        uint32_t covered = 0;
        for (uint32_t w = 0; w < m.nwin; w++) {
            bad += msm_win_bit(m, w) != covered || msm_win_bits(m, w) + 1 < c ||
                   msm_win_bits(m, w) > c;
            covered += msm_win_bits(m, w);
        }
        CHECK(covered >= 256 && covered < 256 + c && m.nwin == (256 + c - 1) / c,
              "emu msm windows of %u bits: %u windows cover %u bits", c, m.nwin, covered);
        std::vector<uint32_t> keys((size_t)m.nwin * n), vals((size_t)m.nwin * n);
        for (uint32_t i = 0; i < n; i++)
            msm_digits_item(i, (const fr_d *)k.data(), n, m, keys.data(), vals.data());
        for (uint32_t i = 0; i < n; i++) {
            fr_t acc = FR_ZERO, p2 = FR_ONE, two;
            fr_from_u64(&two, 2);
            for (uint32_t w = 0, bit = 0; w < m.nwin; w++) {
                uint32_t key = keys[(size_t)w * n + i], neg = vals[(size_t)w * n + i] & MSM_NEG_BIT;
                bad += (vals[(size_t)w * n + i] & ~MSM_NEG_BIT) != i;
                if (key != 1u << (c - 1)) {
                    bad += key >= 1u << (msm_win_bits(m, w) - 1);
                    fr_t d;
                    fr_from_u64(&d, key + 1);
                    fr_mul(&d, &d, &p2);
                    if (neg) fr_neg(&d, &d);
                    fr_add(&acc, &acc, &d);
                }
                for (; bit < msm_win_bit(m, w + 1) && bit < 256; bit++) fr_mul(&p2, &p2, &two);
            }
            bad += !fr_eq(&acc, &k[i]);
        }
    }
    CHECK(bad == 0, "emu msm digits: %d bad windows or digits", bad);
    printf("emu msm digits: windows of 2 .. 24 bits (c and c - 1 wide) cover 256 bits and give "
           "0, 2^k, r - 1 and random scalars back\n");
}

/* msm_reduce_item over x blocks of threads: segments s with T_s = t_s G,
 * R_s = r_s G for small random t_s, r_s give sum_s t_s + S sum_s s r_s
 * times G, for windows of 1 .. 12289 segments and 1 .. 3 slices (the
 * device's 2^27 MSM takes 16 slices of 65536 segments). */
static void test_msm_reduce(void)
{
    typedef xyzz_d<fp_d> P;
    affine_d<fp_d> g;
    memcpy(&g, &g1_GENERATOR, sizeof g);
    P tab[64];
    tab[0] = P::inf();
    for (int m = 1; m < 64; m++) tab[m] = tab[m - 1], tab[m].add_affine(g);
    const uint32_t seg = 32, threads = MSM_RED_THREADS(fp_d);
    for (uint32_t per_win : {1u, 7u, 300u, 4101u, 12289u})
        for (uint32_t x = 1; x <= 3; x++) {
            std::vector<P> partial(2 * (size_t)per_win);
            uint64_t want_k = 0;
            for (uint32_t s = 0; s < per_win; s++) {
                uint32_t t = (uint32_t)cuzk_rng_u64(&rng) % 64,
                         r = (uint32_t)cuzk_rng_u64(&rng) % 64;
                partial[2 * s] = tab[t], partial[2 * s + 1] = tab[r];
                want_k += t + (uint64_t)seg * s * r;
            }
            P sum = P::inf();
            for (uint32_t r = 0; r < x * threads; r++)
                sum.add(msm_reduce_item(r, x * threads, partial.data(), per_win, seg));
            g1_xyzz_t h;
            memcpy(&h, &sum, sizeof h);
            g1_jac_t got, want, gen;
            g1_xyzz_to_jac(&got, &h);
            fr_t k;
            fr_from_u64(&k, want_k);
            g1_jac_from_affine(&gen, &g1_GENERATOR);
            g1_jac_mul(&want, &gen, &k);
            CHECK(g1_jac_eq(&want, &got), "emu msm reduce: %u segments, %u slices: wrong sum",
                  per_win, x);
        }
    printf("emu msm reduce: sum_s T_s + S sum_s s R_s for 1 .. 12289 segments over 1 .. 3 "
           "slices of threads\n");
}

static void test_msm(void)
{
    const uint32_t n = 150;
    std::vector<g1_affine_t> p(n);
    std::vector<g1_jac_t> j(n);
    std::vector<fr_t> k(n);
    g1_jac_t gen, want, got;
    g1_jac_from_affine(&gen, &g1_GENERATOR);
    g1_jac_set_inf(&want);
    for (uint32_t i = 0; i < n; i++) {
        fr_t r;
        fr_random(&r, &rng);
        g1_jac_mul(&j[i], &gen, &r);
        fr_random(&k[i], &rng);
        if (i % 5 == 1) fr_neg(&k[i], &FR_ONE);
        if (i % 5 == 2) fr_from_u64(&k[i], i & 1);
    }
    g1_jac_batch_to_affine(p.data(), j.data(), n);
    memset(&p[10], 0, sizeof p[10]);
    /* repeated bases: with the repeated scalars of i % 5 == 1 (r - 1),
     * the affine rounds meet doublings and P + (-P) */
    for (uint32_t i = 20; i < 40; i++) p[i] = p[i % 5];
    for (uint32_t i = 0; i < n; i++) {
        g1_jac_t a, m;
        g1_jac_from_affine(&a, &p[i]);
        g1_jac_mul(&m, &a, &k[i]);
        g1_jac_add(&want, &want, &m);
    }
    /* 3, 5, 11: windows of two widths (86 x 3 - 2, 52 x 5 - 4, 24 x 11 - 8) */
    const uint32_t windows[] = {2, 3, 5, 8, 11, 16}, tasks[] = {1, 2, 3, 1000};
    for (uint32_t w : windows)
        for (uint32_t t : tasks) {
            emu_msm(&got, p.data(), k.data(), n, w, t);
            CHECK(g1_jac_eq(&want, &got), "emu msm %u points, window %u, %u per task: wrong sum", n,
                  w, t);
        }
    for (uint32_t w : {2u, 5u, 11u, 16u})
        for (uint32_t sk : {1u, 2u, 7u, 64u, 5000u})
            for (uint32_t bail : {UINT32_MAX, 0u, (sk * 7 + w) % 13}) {
                emu_msm(&got, p.data(), k.data(), n, w, 2, {0, 0, 0}, sk, bail);
                CHECK(g1_jac_eq(&want, &got),
                      "emu msm %u points, window %u, sweep of %u bailing after %u blocks: wrong "
                      "sum",
                      n, w, sk, bail);
            }
    const emu_affine aff[] = {{1, 1, 1}, {3, 3, 2}, {8, 100, 5}, {2, 2, 64}};
    for (uint32_t w : {3u, 8u, 11u})
        for (const emu_affine &af : aff) {
            emu_msm(&got, p.data(), k.data(), n, w, 2, af);
            CHECK(g1_jac_eq(&want, &got),
                  "emu msm %u points, window %u, %u affine rounds of %u pairs, groups of %u "
                  "windows: wrong sum",
                  n, w, af.rounds, af.pairs, af.gwin);
        }
    printf("emu msm: %u points, windows 2 .. 16, tasks of 1 .. 1000 points, sweeps of 1 .. 5000 "
           "positions per thread (bailing and resumed: every chunk once), affine rounds (1 .. 8 "
           "rounds, 1 .. 64 pairs per thread) match "
           "sum k_i P_i\n",
           n);
}

/* tw[k] = w^k, k = 0 .. 2^(tw_log-1), w of order 2^tw_log */
static std::vector<fr_d> emu_twiddles(unsigned tw_log)
{
    std::vector<fr_d> tw(((size_t)1 << (tw_log - 1)) + 1);
    fr_t w, v = FR_ONE;
    root_of(&w, tw_log);
    for (size_t k = 0; k < tw.size(); k++) {
        tw[k] = to_d<fr_d>(v);
        fr_mul(&v, &v, &w);
    }
    return tw;
}

template <bool DIF, bool INV>
static void emu_stages(fr_d *x, unsigned n, const std::vector<fr_d> &tw, unsigned tw_log)
{
    ntt_pass_t ps[NTT_MAX_PASSES];
    unsigned passes = ntt_plan(ps, n, tw_log, DIF);
    std::vector<uint32_t> sm((size_t)8 << NTT_TILE_LOG);
    for (unsigned p = 0; p < passes; p++) {
        uint32_t T = 1u << (ps[p].m + ps[p].L), blocks = 1u << (n - ps[p].m - ps[p].L);
        for (uint32_t blk = 0; blk < blocks; blk++) {
            uint32_t base = ntt_tile_base(ps[p], blk);
            for (uint32_t e = 0; e < T; e++)
                ntt_smem_store(sm.data(), T, e, x[ntt_tile_global(ps[p], base, e)]);
            for (uint32_t i = 0; i < ps[p].m; i++)
                for (uint32_t q = 0; q < T / 2; q++)
                    ntt_butterfly<DIF, INV>(sm.data(), T, ps[p], base, q, ntt_stage(DIF, ps[p], i),
                                            tw.data());
            for (uint32_t e = 0; e < T; e++)
                ntt_smem_load(sm.data(), T, e, &x[ntt_tile_global(ps[p], base, e)]);
        }
    }
}

/* ntt_pass_r8 block by block in the kernel's phases between barriers:
 * each thread's group on its 8 registers, then every thread's store to
 * the tile, then every thread's load under the next group's bits. */
template <bool DIF, bool INV>
static void emu_stages_r8(fr_d *x, unsigned n, const std::vector<fr_d> &tw, unsigned tw_log,
                          const ntt_scale_t &in, const ntt_scale_t &out)
{
    const ntt_scale_t none = {NULL, NULL, 0};
    ntt_pass_t ps[NTT_MAX_PASSES];
    unsigned passes = ntt_plan(ps, n, tw_log, DIF);
    std::vector<uint4> sm((size_t)2 << NTT_TILE_LOG);
    std::vector<fr_d> v((size_t)1 << NTT_TILE_LOG); /* thread t: v[8t .. 8t+7] */
    for (unsigned p = 0; p < passes; p++) {
        /* the twiddle-1 group (ntt_r8_one) where the kernel runs it */
        auto run = [&](fr_d *r, uint32_t base, uint32_t q, uint32_t t) {
            if (ntt_r8_one(ps[p], q))
                ntt_r8_run<DIF, INV, true>(r, ps[p], base, q, t, tw.data());
            else
                ntt_r8_run<DIF, INV, false>(r, ps[p], base, q, t, tw.data());
        };
        uint32_t threads = 1u << (ps[p].m + ps[p].L - 3), blocks = 1u << (n - ps[p].m - ps[p].L);
        for (uint32_t blk = 0; blk < blocks; blk++) {
            uint32_t base = ntt_tile_base(ps[p], blk), q = ntt_r8_group_at(DIF, ps[p], 0);
            for (uint32_t t = 0; t < threads; t++) {
                ntt_r8_load(x, ps[p], base, q, t, &v[8 * t]);
                ntt_r8_scale(p == 0 ? in : none, ps[p], base, q, t, &v[8 * t]);
                run(&v[8 * t], base, q, t);
            }
            for (uint32_t i = 1; i < ntt_r8_groups(ps[p]); i++) {
                uint32_t next = ntt_r8_group_at(DIF, ps[p], i);
                for (uint32_t t = 0; t < threads; t++)
                    ntt_r8_smem_store(sm.data(), ps[p], q, t, &v[8 * t]);
                for (uint32_t t = 0; t < threads; t++) {
                    ntt_r8_smem_load(sm.data(), ps[p], next, t, &v[8 * t]);
                    run(&v[8 * t], base, next, t);
                }
                q = next;
            }
            for (uint32_t t = 0; t < threads; t++) {
                ntt_r8_scale(p + 1 == passes ? out : none, ps[p], base, q, t, &v[8 * t]);
                ntt_r8_store(x, ps[p], base, q, t, &v[8 * t]);
            }
        }
    }
}

static void emu_scale(fr_d *x, unsigned n, const ntt_scale_t &sc)
{
    for (uint32_t i = 0; sc.lo && i < (1u << n); i++)
        ntt_scale_item(i, x, n, sc.bitrev, sc.lo, sc.hi);
}

/* All stages with the pass kernel of gpu_ntt_set_radix (2 or 8) between
 * the scalings in and out (lo == NULL: none), as ntt_stages runs them:
 * folded into the first / last radix-8 DIF pass, else passes of their own. */
static const ntt_scale_t NO_SCALE = {NULL, NULL, 0};
template <bool DIF, bool INV>
static void emu_ntt(unsigned radix, fr_d *x, unsigned n, const std::vector<fr_d> &tw,
                    unsigned tw_log, const ntt_scale_t &in = NO_SCALE,
                    const ntt_scale_t &out = NO_SCALE)
{
    bool fold = radix == 8 && DIF;
    emu_scale(x, n, fold ? NO_SCALE : in);
    if (radix == 8)
        emu_stages_r8<DIF, INV>(x, n, tw, tw_log, fold ? in : NO_SCALE, fold ? out : NO_SCALE);
    else
        emu_stages<DIF, INV>(x, n, tw, tw_log);
    emu_scale(x, n, fold ? NO_SCALE : out);
}

/* lo[i] = g^i, hi[h] = c g^(h 2^14): the scale tables of ntt.cu. */
static std::vector<fr_d> emu_scale_tables(uint64_t g_u64, bool g_inv, const fr_t *c)
{
    const size_t half = (size_t)1 << NTT_SCALE_LO;
    std::vector<fr_d> t(2 * half);
    fr_t g, v = FR_ONE, big, h = *c;
    fr_from_u64(&g, g_u64);
    if (g_inv) fr_inv(&g, &g);
    for (size_t i = 0; i < half; i++, fr_mul(&v, &v, &g)) t[i] = to_d<fr_d>(v);
    big = v; /* g^(2^14) */
    for (size_t i = 0; i < half; i++, fr_mul(&h, &h, &big)) t[half + i] = to_d<fr_d>(h);
    return t;
}

/* ntt_bitrev_tiled as launched: every block's threads load, then store
 * (the barrier between), blocks in order; x := bitrev(x - sub). */
static void emu_bitrev_tiled(fr_d *x, unsigned n, const fr_d *sub = NULL)
{
    std::vector<uint32_t> sm(NTT_BR_SMEM_WORDS);
    for (uint32_t mid = 0; mid < (1u << (n - 2 * NTT_BR_K)); mid++) {
        if (mid > ntt_br_partner(n, mid)) continue;
        for (uint32_t t = 0; t < NTT_BR_THREADS; t++) ntt_br_load(x, sub, sm.data(), n, mid, t);
        for (uint32_t t = 0; t < NTT_BR_THREADS; t++) ntt_br_store(x, sm.data(), n, mid, t);
    }
}

/* The tiled permutation equals the pair swaps at every size the NTT takes
 * (odd and even numbers of middle bits, and none); with a subtrahend, the
 * pair swaps of the differences. */
static void test_bitrev_tiled(void)
{
    for (unsigned n = 2 * NTT_BR_K; n <= 15; n++) {
        size_t count = (size_t)1 << n;
        std::vector<fr_d> a(count), c(count), b, a2, b2;
        for (size_t i = 0; i < count; i++) {
            fr_t v, w;
            fr_random(&v, &rng);
            fr_random(&w, &rng);
            a[i] = to_d<fr_d>(v);
            c[i] = to_d<fr_d>(w);
        }
        b = a2 = a;
        emu_bitrev_tiled(a.data(), n);
        emu_bitrev_tiled(a2.data(), n, c.data());
        for (size_t i = 0; i < count; i++) b2.push_back(b[i] - c[i]);
        for (uint32_t i = 0; i < count; i++) ntt_bitrev_item(i, b.data(), n);
        for (uint32_t i = 0; i < count; i++) ntt_bitrev_item(i, b2.data(), n);
        int bad = 0, bad2 = 0;
        for (size_t i = 0; i < count; i++) bad += !(a[i] == b[i]), bad2 += !(a2[i] == b2[i]);
        CHECK(bad == 0, "emu bitrev tiled 2^%u: %d elements differ from the pair swaps", n, bad);
        CHECK(bad2 == 0, "emu bitrev tiled 2^%u with a subtrahend: %d elements differ", n, bad2);
    }
    printf("emu bitrev: 16 x 16 tiles equal the pair swaps at 2^8 .. 2^15, with and without a "
           "subtrahend\n");
}

/* DIF forward + bitrev vs sampled DFT outputs (2^21: three passes); then
 * DIF inverse, DIT forward, DIF inverse, bitrev gives n^2 x (no 1/n).
 * With either pass kernel (radix 2 or 8). */
static void test_ntt(unsigned radix)
{
    const unsigned sizes[] = {10, 11, 13, 16, 21};
    const unsigned tw_log = 22;
    std::vector<fr_d> tw = emu_twiddles(tw_log);
    for (unsigned lg : sizes) {
        if (lg > 16 && (radix == 2 || getenv("CUZK_TEST_QUICK"))) continue; /* seconds each */
        size_t n = (size_t)1 << lg;
        std::vector<fr_t> x(n);
        for (auto &v : x) fr_random(&v, &rng);
        std::vector<fr_d> y(n);
        for (size_t i = 0; i < n; i++) y[i] = to_d<fr_d>(x[i]);
        emu_ntt<true, false>(radix, y.data(), lg, tw, tw_log);
        emu_bitrev_tiled(y.data(), lg);
        fr_t w;
        root_of(&w, lg);
        int bad = 0;
        for (int t = 0; t < 4; t++) {
            uint64_t j = t == 0 ? 1 : t == 1 ? n - 1 : cuzk_rng_u64(&rng) % n;
            fr_t pt, v;
            fr_pow(&pt, &w, &j, 1);
            poly_eval(&v, x.data(), n, &pt);
            bad += !(to_d<fr_d>(v) == y[j]);
        }
        CHECK(bad == 0, "emu ntt radix %u 2^%u forward: %d of 4 sampled outputs wrong", radix, lg,
              bad);
        if (lg > 16) continue; /* the round trip below takes seconds there */
        emu_ntt<true, true>(radix, y.data(), lg, tw, tw_log);   /* reversed coefficients times n */
        emu_ntt<false, false>(radix, y.data(), lg, tw, tw_log); /* natural evaluations times n */
        emu_ntt<true, true>(radix, y.data(), lg, tw, tw_log);
        for (uint32_t i = 0; i < n; i++) ntt_bitrev_item(i, y.data(), lg);
        fr_t nn, ninv;
        fr_from_u64(&nn, n);
        fr_mul(&nn, &nn, &nn);
        fr_inv(&ninv, &nn);
        bad = 0;
        for (size_t i = 0; i < n; i++) {
            fr_t v;
            memcpy(&v, &y[i], sizeof v);
            fr_mul(&v, &v, &ninv);
            bad += !fr_eq(&v, &x[i]);
        }
        CHECK(bad == 0, "emu ntt radix %u 2^%u: inverse / DIT round trip, %d wrong", radix, lg,
              bad);
    }
    printf("emu ntt radix %u: DIF / DIT passes at 2^10 .. 2^%u match the DFT and invert\n", radix,
           radix == 2 || getenv("CUZK_TEST_QUICK") ? 16 : 21);
}

/* The two pass kernels give the same bytes for DIF / DIT, forward /
 * inverse, and DIF with a scaling before (coset powers, natural order) or
 * after (bit-reversed 7^-i / n), folded into the radix-8 passes, at sizes
 * whose plans cover every group shape (passes of m = 5 .. 10 stages:
 * first groups of 1, 2 and 3 stages); 2^17 for two kinds only (time). */
static void test_ntt_radix_equal(void)
{
    static const char *names[] = {"DIF forward", "DIF inverse",   "DIT forward",
                                  "DIT inverse", "DIF scaled in", "DIF scaled out"};
    const unsigned sizes[] = {10, 11, 13, 15, 17};
    const unsigned tw_log = 22;
    std::vector<fr_d> tw = emu_twiddles(tw_log);
    for (unsigned lg : sizes) {
        if (lg > 15 && getenv("CUZK_TEST_QUICK")) continue;
        size_t n = (size_t)1 << lg;
        fr_t one = FR_ONE, ninv;
        fr_from_u64(&ninv, n);
        fr_inv(&ninv, &ninv);
        std::vector<fr_d> g = emu_scale_tables(7, false, &one),
                          gi = emu_scale_tables(7, true, &ninv);
        const ntt_scale_t sg = {g.data(), g.data() + (1 << 14), 0};
        const ntt_scale_t sgi = {gi.data(), gi.data() + (1 << 14), 1};
        for (int kind = 0; kind < 6; kind++) {
            if (lg > 15 && kind != 2 && kind != 5) continue;
            std::vector<fr_d> a(n), b;
            for (auto &v : a) {
                fr_t r;
                fr_random(&r, &rng);
                v = to_d<fr_d>(r);
            }
            b = a;
            for (unsigned radix = 2; radix <= 8; radix += 6) {
                fr_d *y = radix == 2 ? a.data() : b.data();
                if (kind == 0) emu_ntt<true, false>(radix, y, lg, tw, tw_log);
                if (kind == 1) emu_ntt<true, true>(radix, y, lg, tw, tw_log);
                if (kind == 2) emu_ntt<false, false>(radix, y, lg, tw, tw_log);
                if (kind == 3) emu_ntt<false, true>(radix, y, lg, tw, tw_log);
                if (kind == 4) emu_ntt<true, false>(radix, y, lg, tw, tw_log, sg, NO_SCALE);
                if (kind == 5) emu_ntt<true, true>(radix, y, lg, tw, tw_log, NO_SCALE, sgi);
            }
            CHECK(memcmp(a.data(), b.data(), n * sizeof(fr_d)) == 0,
                  "emu ntt 2^%u %s: radix 8 differs from radix 2", lg, names[kind]);
        }
    }
    printf("emu ntt: radix 8 and radix 2 passes give the same bytes, 2^10 .. 2^17, scalings "
           "folded or not\n");
}

/* The step order of ntt.cu's H rows and finish (radix 8, the scalings
 * folded into the inverse transforms), with c = a b (h Z = A B - C at a
 * random point) and with a random c (a system that is not satisfied):
 * both times the bytes of the CPU's ntt_groth16_h. */
static void test_ntt_h(void)
{
    const unsigned tw_log = 12;
    std::vector<fr_d> tw = emu_twiddles(tw_log);
    for (unsigned lg = 10; lg <= 11; lg++)
        for (int satisfied = 1; satisfied >= 0; satisfied--) {
            uint32_t n = 1u << lg;
            fr_t ninv, z, nz, t;
            fr_from_u64(&ninv, n);
            fr_inv(&ninv, &ninv);
            fr_from_u64(&z, 7);
            for (unsigned i = 0; i < lg; i++) fr_sqr(&z, &z);
            fr_sub(&z, &z, &FR_ONE);
            fr_inv(&z, &z);
            fr_mul(&nz, &ninv, &z);
            std::vector<fr_d> fwd = emu_scale_tables(7, false, &ninv);
            std::vector<fr_d> inv = emu_scale_tables(7, true, &ninv);
            std::vector<fr_d> cz = emu_scale_tables(1, false, &nz);
            const ntt_scale_t sfwd = {fwd.data(), fwd.data() + (1 << 14), 1};
            const ntt_scale_t sinv = {inv.data(), inv.data() + (1 << 14), 1};
            const ntt_scale_t scz = {cz.data(), cz.data() + (1 << 14), 0};
            std::vector<fr_t> abc[3];
            std::vector<fr_d> d[3];
            for (int k = 0; k < 3; k++) abc[k].resize(n), d[k].resize(n);
            for (uint32_t i = 0; i < n; i++) {
                fr_random(&abc[0][i], &rng);
                fr_random(&abc[1][i], &rng);
                if (satisfied)
                    fr_mul(&abc[2][i], &abc[0][i], &abc[1][i]);
                else
                    fr_random(&abc[2][i], &rng);
            }
            for (int k = 0; k < 3; k++) {
                for (uint32_t i = 0; i < n; i++) d[k][i] = to_d<fr_d>(abc[k][i]);
                if (k == 2) {
                    emu_ntt<true, true>(8, d[k].data(), lg, tw, tw_log, NO_SCALE, scz);
                    continue;
                }
                emu_ntt<true, true>(8, d[k].data(), lg, tw, tw_log, NO_SCALE, sfwd);
                emu_ntt<false, false>(8, d[k].data(), lg, tw, tw_log);
            }
            for (uint32_t i = 0; i < n; i++) d[0][i] = d[0][i] * d[1][i] * to_d<fr_d>(z);
            emu_ntt<true, true>(8, d[0].data(), lg, tw, tw_log, NO_SCALE, sinv);
            emu_bitrev_tiled(d[0].data(), lg, d[2].data());
            std::vector<fr_t> h(n), cpu[3];
            memcpy(h.data(), d[0].data(), n * sizeof(fr_t));
            for (int k = 0; k < 3; k++) cpu[k] = abc[k];
            ntt_domain dom;
            CHECK(ntt_domain_init(&dom, lg, NULL) == CUZK_OK &&
                      ntt_groth16_h(&dom, cpu[0].data(), cpu[1].data(), cpu[2].data(), n, NULL) ==
                          CUZK_OK &&
                      memcmp(cpu[0].data(), h.data(), n * sizeof(fr_t)) == 0,
                  "emu ntt h 2^%u (%s): h differs from ntt_groth16_h", lg,
                  satisfied ? "satisfied" : "not satisfied");
            ntt_domain_free(&dom);
            if (!satisfied) continue;
            fr_random(&t, &rng);
            CHECK(h_identity_at(abc[0].data(), abc[1].data(), abc[2].data(), h.data(), lg, &t) &&
                      fr_is_zero(&h[n - 1]),
                  "emu ntt h 2^%u: h Z != A B - C", lg);
        }
    printf("emu ntt h: the H step order gives h Z = A B - C at 2^10, 2^11, and the bytes of "
           "ntt_groth16_h with c = a b and with a random c\n");
}

/* The DIF butterflies' product w (a - b + p) with the unreduced
 * difference (ntt_sub_lazy) against fr.h's w (a - b): a, b, w at the edges
 * (limbs 0, 1, p - 2, p - 1) and at random, both orders of a and b. */
static void test_ntt_sub_lazy(void)
{
    std::vector<fr_t> vals(4 + 40);
    fr_t one = {{1, 0, 0, 0}}, two = {{2, 0, 0, 0}}; /* limbs, not Montgomery 1, 2 */
    vals[0] = fr_t{{0, 0, 0, 0}};
    vals[1] = one;
    fr_neg(&vals[2], &two); /* limbs p - 2 */
    fr_neg(&vals[3], &one);
    for (size_t i = 4; i < vals.size(); i++) fr_random(&vals[i], &rng);
    int bad = 0;
    for (const fr_t &a : vals)
        for (const fr_t &b : vals)
            for (size_t k = 1; k < 8; k += 2) {
                fr_t want;
                fr_sub(&want, &a, &b);
                fr_mul(&want, &vals[k], &want);
                fr_d got = to_d<fr_d>(vals[k]) * ntt_sub_lazy(to_d<fr_d>(a), to_d<fr_d>(b));
                bad += !(got == to_d<fr_d>(want));
            }
    CHECK(bad == 0, "emu ntt: w (a - b + p) differs from w (a - b) in %d cases", bad);
    printf("emu ntt: products by the unreduced difference a - b + p are exact at the edges\n");
}

/* Group q of ntt_pass_r8 on pass ps: the (thread, register) pairs cover
 * the tile once, and each 8 consecutive threads of a 16-byte shared
 * access hit 8 distinct bank groups (swizzled address mod 8) for every
 * register. Returns the number of violations. */
static int r8_group_errors(const ntt_pass_t &ps, uint32_t q)
{
    const uint32_t T = 1u << (ps.m + ps.L);
    std::vector<uint8_t> seen(T);
    int bad = 0;
    for (uint32_t t0 = 0; t0 < T / 8; t0 += 8)
        for (uint32_t u = 0; u < 8; u++) {
            uint32_t banks = 0;
            for (uint32_t t = t0; t < t0 + 8 && t < T / 8; t++) {
                uint32_t e = ntt_r8_elem(ps, q, t, u);
                bad += e >= T || seen[e]++ > 0;
                banks |= 1u << (ntt_r8_swz(e) & 7);
            }
            bad += T / 8 >= 8 && banks != 0xff;
        }
    return bad;
}

/* The register groups of ntt_pass_r8 on pass ps cover its stages in
 * order, and their tile mappings are bijective and free of bank conflicts. */
static int r8_pass_errors(const ntt_pass_t &ps)
{
    int bad = 0;
    for (uint32_t q = 0, s = 0; q < ntt_r8_groups(ps); q++) {
        bad += ntt_r8_low(ps, q) != s || ntt_r8_stages(ps, q) < 1;
        s += ntt_r8_stages(ps, q);
        bad += s > ps.m || (q + 1 == ntt_r8_groups(ps) && s != ps.m);
        bad += r8_group_errors(ps, q);
    }
    return bad;
}

/* Each pass of every plan must visit every index exactly once (checked
 * index by index up to 2^22 and at 2^27: 2^28 would take twice as long),
 * and have at least 3 stages and register groups as above (every size). */
static void test_ntt_plans(void)
{
    int bad = 0;
    for (unsigned lg = 10; lg <= 28; lg++) {
        bool cover = lg <= 22 || lg == 27;
        std::vector<uint8_t> seen(cover ? (size_t)1 << lg : 0);
        for (int dif = 0; dif < 2; dif++) {
            ntt_pass_t ps[NTT_MAX_PASSES];
            unsigned passes = ntt_plan(ps, lg, 28, dif), stages = 0;
            for (unsigned p = 0; p < passes; p++) {
                uint32_t T = 1u << (ps[p].m + ps[p].L), blocks = 1u << (lg - ps[p].m - ps[p].L);
                bad += T > (1u << NTT_TILE_LOG) || ps[p].m < 3 || r8_pass_errors(ps[p]);
                stages += ps[p].m;
                if (!cover) continue;
                std::fill(seen.begin(), seen.end(), 0);
                for (uint32_t blk = 0; blk < blocks; blk++) {
                    uint32_t base = ntt_tile_base(ps[p], blk);
                    for (uint32_t e = 0; e < T; e++) seen[ntt_tile_global(ps[p], base, e)]++;
                }
                for (uint8_t v : seen) bad += v != 1;
            }
            bad += stages != lg;
        }
    }
    CHECK(bad == 0, "ntt plans: %d coverage errors", bad);
    printf("emu ntt: pass plans cover every index once (2^10 .. 2^22, 2^27); radix-8 groups "
           "cover the stages, map the tile once, without bank conflicts (2^10 .. 2^28)\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
    printf("seed: %llu\n", (unsigned long long)seed);
    cuzk_rng_seed(&rng, seed);
    test_fp();
    test_ec_g1();
    test_ec_g2();
    printf("emu curves: G1 and G2 XYZZ operations match ec.h\n");
    test_msm_digits();
    test_msm();
    test_msm_reduce();
    test_bitrev_tiled();
    test_ntt(2);
    test_ntt(8);
    test_ntt_radix_equal();
    test_ntt_h();
    test_ntt_sub_lazy();
    test_ntt_plans();
    printf(failures ? "test_gpu_emu: %d FAILURES\n" : "test_gpu_emu: all passed\n", failures);
    return failures ? 1 : 0;
}
