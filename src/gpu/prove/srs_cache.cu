/*
 * srs_cache.cu - the parameters' G1 points (H, L, A, B_G1) kept on the
 * device between proofs.
 *
 * An entry is keyed by the params pointer, its arrays' pointers and
 * lengths, and checked against copies of each array's first and last
 * points, so a params freed and another allocated at the same address is
 * never mistaken for the old one. A 32 GiB PoRep's G1 points are about
 * 47 GiB less B_G2's 12, which the H200's 139 GiB holds next to the
 * proof's working memory; when an allocation fails anyway, the least
 * recently used entries go first (prove_dev_alloc). B_G2's points (twice
 * the bytes of a G1 array) come up only while there is room for them
 * (prove_srs_g2) and are the first to go when memory runs short; without
 * them B_G2 streams from its host copy, page-locked once per entry like a
 * streamed G1 array (when the plan streams it, or prove_srs_pin_g2 when
 * its upload found no room after all), and only a plan with no room for
 * even that leaves B_G2 to the CPU.
 *
 * Which arrays an entry holds is the plan's to say (residency.cu): each
 * start brings its entry in line with its plan, uploading what it keeps
 * (a whole array, or the first points of a streamed one: rule 5's
 * prefix) and freeing what it streams; a streamed array's host copy is page-locked
 * once, for the entry's life (prove_pin), and let go when the entry goes.
 *
 * Each device has a cache of its own (device.cuh): a params proven on two
 * GPUs is uploaded to each from the one host copy, and each device's
 * entries are evicted by that device's shortage alone. The current device
 * selects the cache; its prover lock guards it.
 */
#include <string.h>

#include "gpu/prove/prove_gpu.cuh"
#include "gpu/prove/residency.cuh"

#define SRS_SLOTS  8
#define SRS_ARRAYS 4 /* h, l, a, b_g1 */

struct srs_entry {
    const groth16_params *pk; /* NULL: free slot */
    const g1_affine_t *host[SRS_ARRAYS];
    size_t n[SRS_ARRAYS];
    g1_affine_t first[SRS_ARRAYS], last[SRS_ARRAYS];
    prove_g1_aff *dev[SRS_ARRAYS]; /* NULL: streamed */
    size_t dev_n[SRS_ARRAYS];      /* points of dev[k]: n[k], or a prefix (rule 5) */
    bool pinned[SRS_ARRAYS];       /* holds a page lock on host[k] */
    prove_g2_aff *b_g2;            /* optional (prove_srs_g2) */
    bool pinned_g2;                /* holds a page lock on pk->b_g2 (B_G2 streamed) */
    size_t bytes;                  /* all of the above */
    uint64_t used;                 /* srs_clock at the last use */
};
static srs_entry srs_devs[CU_MAX_SLOTS][SRS_SLOTS];
static uint64_t srs_clock[CU_MAX_SLOTS];

static void srs_arrays(const groth16_params *pk, const g1_affine_t *p[SRS_ARRAYS],
                       size_t n[SRS_ARRAYS])
{
    p[0] = pk->h, n[0] = pk->n_h;
    p[1] = pk->l, n[1] = pk->n_l;
    p[2] = pk->a, n[2] = pk->n_a;
    p[3] = pk->b_g1, n[3] = pk->n_b_g1;
}

static bool srs_matches(const srs_entry *s, const groth16_params *pk)
{
    const g1_affine_t *p[SRS_ARRAYS];
    size_t n[SRS_ARRAYS];
    if (s->pk != pk) return false;
    srs_arrays(pk, p, n);
    for (int k = 0; k < SRS_ARRAYS; k++) {
        if (p[k] != s->host[k] || n[k] != s->n[k]) return false;
        if (n[k] && (memcmp(&p[k][0], &s->first[k], sizeof(g1_affine_t)) ||
                     memcmp(&p[k][n[k] - 1], &s->last[k], sizeof(g1_affine_t))))
            return false;
    }
    return true;
}

static void srs_drop(srs_entry *s)
{
    for (int k = 0; k < SRS_ARRAYS; k++) {
        cu_free(s->dev[k]);
        if (s->pinned[k]) prove_unpin(s->host[k]);
    }
    cu_free(s->b_g2);
    if (s->pinned_g2) prove_unpin(s->pk->b_g2);
    memset(s, 0, sizeof *s);
}

size_t prove_srs_drop_g2(int dev)
{
    srs_entry *srs = srs_devs[dev];
    size_t freed = 0;
    for (int i = 0; i < SRS_SLOTS; i++) {
        if (!srs[i].b_g2) continue;
        size_t b = srs[i].pk->n_b_g2 * sizeof(g2_affine_t);
        cu_free(srs[i].b_g2);
        srs[i].b_g2 = NULL;
        srs[i].bytes -= b;
        freed += b;
    }
    return freed;
}

size_t prove_srs_evict(int dev, const groth16_params *keep)
{
    srs_entry *srs = srs_devs[dev];
    size_t freed = 0;
    for (int i = 0; i < SRS_SLOTS; i++) {
        if (!srs[i].pk || srs[i].pk == keep) continue;
        freed += srs[i].bytes;
        srs_drop(&srs[i]);
    }
    return freed;
}

/* Brings entry s of pk in line with the plan: a kept array (or the
 * prefix the plan keeps of a streamed one, rule 5) uploaded when missing
 * or of another length, a streamed one's device copy freed and its host
 * copy page-locked. */
static int srs_fit(srs_entry *s, const groth16_params *pk, const prove_plan *plan, cuzk_err *err)
{
    const g1_affine_t *p[SRS_ARRAYS];
    size_t n[SRS_ARRAYS];
    srs_arrays(pk, p, n);
    int rc = CUZK_OK;
    for (int k = 0; !rc && k < SRS_ARRAYS; k++) {
        size_t want = plan->resident[k] ? n[k] : plan->prefix[k],
               bytes = want * sizeof(g1_affine_t);
        if (s->dev[k] && s->dev_n[k] != want) {
            cu_free(s->dev[k]), s->bytes -= s->dev_n[k] * sizeof(g1_affine_t);
            s->dev[k] = NULL, s->dev_n[k] = 0;
        }
        if (want < n[k] && !s->pinned[k])
            s->pinned[k] = prove_pin(p[k], n[k] * sizeof(g1_affine_t), "parameters");
        if (!want || s->dev[k]) continue;
        rc = prove_dev_alloc((void **)&s->dev[k], bytes, pk, err);
        if (!rc) rc = prove_upload(STAGE_FG, GROTH16_XFER_PARAMS, s->dev[k], p[k], bytes, err);
        if (rc)
            cu_free(s->dev[k]), s->dev[k] = NULL;
        else
            s->bytes += bytes, s->dev_n[k] = want;
    }
    if (!rc && plan->g2_streamed) { /* its device copy, if any, is not in the plan */
        if (s->b_g2) s->bytes -= pk->n_b_g2 * sizeof(g2_affine_t);
        cu_free(s->b_g2);
        s->b_g2 = NULL;
        if (!s->pinned_g2)
            s->pinned_g2 =
                prove_pin(pk->b_g2, pk->n_b_g2 * sizeof(g2_affine_t), "parameters (B_G2)");
    }
    return rc;
}

static void srs_new(srs_entry *s, const groth16_params *pk)
{
    const g1_affine_t *p[SRS_ARRAYS];
    size_t n[SRS_ARRAYS];
    srs_arrays(pk, p, n);
    s->pk = pk;
    for (int k = 0; k < SRS_ARRAYS; k++) {
        s->host[k] = p[k];
        s->n[k] = n[k];
        if (n[k]) s->first[k] = p[k][0], s->last[k] = p[k][n[k] - 1];
    }
}

int prove_srs_get(prove_srs *out, const groth16_params *pk, const prove_plan *plan, cuzk_err *err)
{
    int dev;
    int rc = cu_slot(&dev, err);
    if (rc) return rc;
    srs_entry *srs = srs_devs[dev], *s = NULL;
    for (int i = 0; i < SRS_SLOTS && !s; i++)
        if (srs[i].pk == pk && srs_matches(&srs[i], pk)) s = &srs[i];
    for (int i = 0; i < SRS_SLOTS; i++) /* a stale entry at pk's address */
        if (srs[i].pk == pk && &srs[i] != s) srs_drop(&srs[i]);
    if (!s) {
        for (int i = 0; i < SRS_SLOTS; i++) /* a free slot, else the least recently used */
            if (!s || !srs[i].pk || (s->pk && srs[i].used < s->used)) s = &srs[i];
        if (s->pk) srs_drop(s);
        srs_new(s, pk);
    }
    rc = srs_fit(s, pk, plan, err);
    if (rc) {
        srs_drop(s);
        return rc;
    }
    s->used = ++srs_clock[dev];
    prove_points *o[SRS_ARRAYS] = {&out->h, &out->l, &out->a, &out->b_g1};
    for (int k = 0; k < SRS_ARRAYS; k++) *o[k] = {s->dev[k], s->host[k], s->pinned[k], s->dev_n[k]};
    out->b_g2 = {s->b_g2, pk->b_g2, s->pinned_g2};
    return CUZK_OK;
}

size_t prove_srs_bytes_of(int dev, const groth16_params *pk)
{
    size_t b = 0;
    for (int i = 0; i < SRS_SLOTS; i++)
        if (srs_devs[dev][i].pk == pk) b += srs_devs[dev][i].bytes;
    return b;
}

int prove_srs_g2(const prove_g2_aff **out, const groth16_params *pk, size_t room, cuzk_err *err)
{
    *out = NULL;
    int dev;
    int rc = cu_slot(&dev, err);
    if (rc) return rc;
    srs_entry *srs = srs_devs[dev], *s = NULL;
    for (int i = 0; i < SRS_SLOTS && !s; i++)
        if (srs[i].pk == pk) s = &srs[i];
    if (!s || s->b_g2) {
        *out = s ? s->b_g2 : NULL;
        return CUZK_OK;
    }
    size_t bytes = pk->n_b_g2 * sizeof(g2_affine_t), free_bytes, total;
    CU(cudaMemGetInfo(&free_bytes, &total), err, "cudaMemGetInfo");
    if (free_bytes < bytes + room) return CUZK_OK;
    void *d;
    if (cu_malloc(&d, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError(); /* no room after all: the CPU does B_G2 */
        return CUZK_OK;
    }
    rc = prove_upload(STAGE_FG, GROTH16_XFER_PARAMS, d, pk->b_g2, bytes, err);
    if (rc) {
        cu_free(d);
        return rc;
    }
    s->b_g2 = (prove_g2_aff *)d;
    s->bytes += bytes;
    *out = s->b_g2;
    return CUZK_OK;
}

bool prove_srs_pin_g2(const groth16_params *pk)
{
    int dev;
    if (cu_slot(&dev, NULL)) return false;
    srs_entry *srs = srs_devs[dev];
    for (int i = 0; i < SRS_SLOTS; i++) {
        srs_entry *s = &srs[i];
        if (s->pk != pk) continue;
        if (!s->pinned_g2)
            s->pinned_g2 =
                prove_pin(pk->b_g2, pk->n_b_g2 * sizeof(g2_affine_t), "parameters (B_G2)");
        return s->pinned_g2;
    }
    return false;
}

/* pk's entries on device dev, freed with dev current (its lock held). */
static void srs_free_on(int dev, const void *pk)
{
    srs_entry *srs = srs_devs[dev];
    bool any = false;
    for (int i = 0; i < SRS_SLOTS; i++) any |= srs[i].pk == pk;
    if (!any) return;
    if (cu_slot_enter(dev) != cudaSuccess) cudaGetLastError();
    for (int i = 0; i < SRS_SLOTS; i++)
        if (srs[i].pk == pk) srs_drop(&srs[i]);
    cudaGetLastError(); /* a lost device's frees fail: its memory went with it */
}

extern "C" void gpu_prove_params_free(const groth16_params *pk)
{
    prove_each_device(srs_free_on, pk);
}

size_t prove_srs_bytes(int dev)
{
    size_t b = 0;
    for (int i = 0; i < SRS_SLOTS; i++) b += srs_devs[dev][i].bytes;
    return b;
}

extern "C" size_t gpu_prove_device_params_bytes(int device)
{
    if (device < 0 || device >= CU_MAX_DEVICES) return 0;
    prove_lock(device);
    size_t b = prove_srs_bytes(device);
    prove_unlock(device);
    return b;
}

extern "C" size_t gpu_prove_params_bytes(void)
{
    size_t b = 0;
    for (int dev = 0; dev < CU_MAX_DEVICES; dev++) b += gpu_prove_device_params_bytes(dev);
    return b;
}
