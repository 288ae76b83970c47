/*
 * shape_eval.cu - the kernels that turn a device witness into a, b, c
 * through a circuit shape (shape_eval.cuh: a warp per block of 32 rows,
 * long rows by the whole warp) and check a_j b_j = c_j, with their
 * launchers.
 */
#include "gpu/prove/shape_eval.cuh"

#define FULL_MASK 0xffffffffu

/* part summed over the warp, every lane getting the total. */
static __device__ __forceinline__ fr_d warp_sum(fr_d part)
{
    for (int d = 16; d > 0; d /= 2) {
        fr_d o;
#pragma unroll
        for (int i = 0; i < fr_d::N; i++) o.v[i] = __shfl_xor_sync(FULL_MASK, part.v[i], d);
        part = part + o;
    }
    return part;
}

/* Exclusive prefix sum of x over the warp. */
static __device__ __forceinline__ uint64_t warp_exclusive(uint64_t x, unsigned lane)
{
    uint64_t incl = x;
    for (unsigned d = 1; d < 32; d *= 2) {
        uint64_t y = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d) incl += y;
    }
    return incl - x;
}

/* Row n entries from s summed by the whole warp (x: its first escape
 * index); with add false only its escaped entries are counted. Every
 * lane gets the sum and the count. */
static __device__ __forceinline__ fr_d warp_row(const shape_view &v, const shape_matrix &m,
                                                const wit_view &w, uint64_t s, uint32_t n,
                                                uint64_t x, unsigned lane, bool add,
                                                uint32_t *escapes)
{
    fr_d part = fr_d::zero();
    uint32_t count = 0;
    for (uint32_t k0 = 0; k0 < n; k0 += 32) {
        uint32_t k = k0 + lane;
        bool esc = k < n && m.code[s + k] == SHAPE_ESC;
        unsigned bal = __ballot_sync(FULL_MASK, esc);
        if (add && k < n)
            shape_add_entry(part, v, m, w, s + k, x + count + __popc(bal & ((1u << lane) - 1)));
        count += __popc(bal);
    }
    *escapes = count;
    return add ? warp_sum(part) : part;
}

__global__ void __launch_bounds__(SHAPE_WARPS * 32)
    shape_eval_kernel(shape_view v, int which, wit_view w, size_t blk0, size_t end, fr_d *out)
{
    const shape_matrix &m = v.m[which];
    size_t blk = blk0 + (size_t)blockIdx.x * SHAPE_WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (blk * SHAPE_BLOCK >= end) return; /* the whole warp */
    size_t row = blk * SHAPE_BLOCK + lane;
    uint32_t len = row < end ? m.len[row] : 0, escapes = 0;
    uint64_t start = m.start[blk] + warp_exclusive(len, lane);
    if (len <= SHAPE_LONG)
        for (uint64_t e = start; e < start + len; e++) escapes += m.code[e] == SHAPE_ESC;
    unsigned longs = __ballot_sync(FULL_MASK, len > SHAPE_LONG);
    for (unsigned l = longs; l; l &= l - 1) { /* the long rows' escapes, counted by the warp */
        int r = __ffs(l) - 1;
        uint32_t n;
        warp_row(v, m, w, __shfl_sync(FULL_MASK, start, r), __shfl_sync(FULL_MASK, len, r), 0, lane,
                 false, &n);
        if (lane == (unsigned)r) escapes = n;
    }
    uint64_t x = m.esc_start[blk] + warp_exclusive(escapes, lane);
    fr_d acc = fr_d::zero();
    if (len <= SHAPE_LONG)
        for (uint64_t e = start; e < start + len; e++) {
            shape_add_entry(acc, v, m, w, e, x);
            x += m.code[e] == SHAPE_ESC;
        }
    for (unsigned l = longs; l; l &= l - 1) {
        int r = __ffs(l) - 1;
        uint32_t n;
        fr_d sum =
            warp_row(v, m, w, __shfl_sync(FULL_MASK, start, r), __shfl_sync(FULL_MASK, len, r),
                     __shfl_sync(FULL_MASK, x, r), lane, true, &n);
        if (lane == (unsigned)r) acc = sum;
    }
    if (row < end) out[row - blk0 * SHAPE_BLOCK] = acc;
}

__global__ void shape_check_kernel(const fr_d *__restrict__ a, const fr_d *__restrict__ b,
                                   const fr_d *__restrict__ c, size_t n, size_t lo,
                                   unsigned long long *first)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n && !(a[j] * b[j] == c[j])) atomicMin(first, (unsigned long long)(lo + j));
}

int shape_launch_eval(const shape_view *v, const wit_view *w, int which, size_t lo, size_t end,
                      fr_t *out, cuzk_err *err)
{
    size_t blk0 = lo / SHAPE_BLOCK, blocks = shape_blocks(end) - blk0;
    if (lo >= end) return CUZK_OK;
    shape_eval_kernel<<<cu_blocks(blocks, SHAPE_WARPS), SHAPE_WARPS * 32, 0, cu_kstream()>>>(
        *v, which, *w, blk0, end, (fr_d *)out);
    CU_LAUNCH(err, "shape_eval_kernel");
    return CUZK_OK;
}

int shape_launch_check(const fr_t *a, const fr_t *b, const fr_t *c, size_t n, size_t lo,
                       unsigned long long *first, cuzk_err *err)
{
    if (!n) return CUZK_OK;
    shape_check_kernel<<<cu_blocks(n, 256), 256, 0, cu_kstream()>>>(
        (const fr_d *)a, (const fr_d *)b, (const fr_d *)c, n, lo, first);
    CU_LAUNCH(err, "shape_check_kernel");
    return CUZK_OK;
}
