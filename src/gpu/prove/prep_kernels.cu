/*
 * prep_kernels.cu - the device prep's two kernels (prep_dev.cuh): a block
 * of PREP_VARS threads, one variable each, counts its jobs' kept and tail
 * variables by warp ballots, then, from the host's offsets, places them:
 * a lane's position in a job is its block's offset, the kept variables of
 * the warps before it and of the lanes below it; the warp's ones bits are
 * or-ed into the one or two bitmap words its positions span.
 */
#include "gpu/prove/prep_dev.cuh"

#define FULL_MASK  0xffffffffu
#define PREP_WARPS (PREP_VARS / 32)

__global__ void __launch_bounds__(PREP_VARS) prep_count_kernel(prep_view p, uint32_t *counts)
{
    __shared__ uint32_t s[PREP_COUNTS];
    if (threadIdx.x < PREP_COUNTS) s[threadIdx.x] = 0;
    __syncthreads();
    prep_var c = prep_classify(p, (size_t)blockIdx.x * PREP_VARS + threadIdx.x);
    for (int j = 0; j < PREP_JOBS; j++) {
        bool k = c.kept >> j & 1;
        unsigned kb = __ballot_sync(FULL_MASK, k), tb = __ballot_sync(FULL_MASK, k && c.tail);
        if (threadIdx.x % 32 == 0) {
            atomicAdd(&s[2 * j], (uint32_t)__popc(kb));
            atomicAdd(&s[2 * j + 1], (uint32_t)__popc(tb));
        }
    }
    __syncthreads();
    if (threadIdx.x < PREP_COUNTS)
        counts[(size_t)blockIdx.x * PREP_COUNTS + threadIdx.x] = s[threadIdx.x];
}

/* The 64 bits of `bit` (at most one set) or-ed over the warp. */
static __device__ __forceinline__ uint64_t warp_or64(uint64_t bit)
{
    uint64_t lo = __reduce_or_sync(FULL_MASK, (uint32_t)bit);
    uint64_t hi = __reduce_or_sync(FULL_MASK, (uint32_t)(bit >> 32));
    return hi << 32 | lo;
}

__global__ void __launch_bounds__(PREP_VARS)
    prep_scatter_kernel(prep_view p, const uint32_t *__restrict__ off, prep_out o0, prep_out o1,
                        prep_out o2)
{
    __shared__ uint32_t wc[PREP_WARPS][PREP_COUNTS];
    const prep_out out[PREP_JOBS] = {o0, o1, o2};
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, below = (1u << lane) - 1;
    size_t v = (size_t)blockIdx.x * PREP_VARS + threadIdx.x;
    prep_var c = prep_classify(p, v);
    unsigned kb[PREP_JOBS], tb[PREP_JOBS];
    for (int j = 0; j < PREP_JOBS; j++) {
        bool k = c.kept >> j & 1;
        kb[j] = __ballot_sync(FULL_MASK, k), tb[j] = __ballot_sync(FULL_MASK, k && c.tail);
        if (lane == 0) wc[warp][2 * j] = __popc(kb[j]), wc[warp][2 * j + 1] = __popc(tb[j]);
    }
    __syncthreads();
    for (int j = 0; j < PREP_JOBS; j++) {
        uint32_t base[2];
        for (int q = 0; q < 2; q++) { /* the block's offset + the warps before this one */
            uint32_t x = lane < warp ? wc[lane][2 * j + q] : 0;
            base[q] =
                off[(size_t)blockIdx.x * PREP_COUNTS + 2 * j + q] + __reduce_add_sync(FULL_MASK, x);
        }
        bool k = kb[j] >> lane & 1;
        uint32_t pos = base[0] + __popc(kb[j] & below), first = base[0] / 64;
        bool one = k && c.one;
        uint64_t bit0 = one && pos / 64 == first ? 1ull << (pos % 64) : 0;
        uint64_t bit1 = one && pos / 64 != first ? 1ull << (pos % 64) : 0;
        uint64_t w0 = warp_or64(bit0), w1 = warp_or64(bit1);
        if (lane == 0 && w0) atomicOr((unsigned long long *)&out[j].ones[first], w0);
        if (lane == 0 && w1) atomicOr((unsigned long long *)&out[j].ones[first + 1], w1);
        if (!k) continue;
        if (!out[j].split) {
            out[j].vals[pos] = wit_get(p.w, v);
        } else if (c.tail) {
            uint32_t t = base[1] + __popc(tb[j] & below);
            out[j].vals[t] = wit_get(p.w, v);
            out[j].idx[t] = pos;
        }
    }
}

int prep_launch_count(const prep_view *p, uint32_t *counts, cuzk_err *err)
{
    size_t blocks = (p->n_in + p->n_aux + PREP_VARS - 1) / PREP_VARS;
    if (!blocks) return CUZK_OK;
    prep_count_kernel<<<(unsigned)blocks, PREP_VARS, 0, cu_kstream()>>>(*p, counts);
    CU_LAUNCH(err, "prep_count_kernel");
    return CUZK_OK;
}

int prep_launch_scatter(const prep_view *p, const uint32_t *off, const prep_out *out, cuzk_err *err)
{
    size_t blocks = (p->n_in + p->n_aux + PREP_VARS - 1) / PREP_VARS;
    if (!blocks) return CUZK_OK;
    prep_scatter_kernel<<<(unsigned)blocks, PREP_VARS, 0, cu_kstream()>>>(*p, off, out[0], out[1],
                                                                          out[2]);
    CU_LAUNCH(err, "prep_scatter_kernel");
    return CUZK_OK;
}
