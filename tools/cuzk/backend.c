/*
 * backend.c - where the toolbox proves and makes parameters: --backend
 * auto|cuda|cpu with the daemon's rule for gpus.backend (auto: the CUDA
 * device when the build has CUDA and one is usable, else the CPU; cuda:
 * an error without a usable device). Proofs on the device are those of
 * the CPU prover byte for byte (gpu_prove.h), and so are parameters
 * (gpu_setup.h): the choice only moves the work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/rng.h"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#endif

/* Whether to prove on the device: CUZK_OK with *gpu set, or an error for
 * "cuda" without a usable device or an unknown name. */
static int prove_on_gpu(const char *want, bool *gpu, cuzk_err *err)
{
    *gpu = false;
    if (!want || !want[0]) want = "auto";
    if (!strcmp(want, "cpu")) return CUZK_OK;
    if (strcmp(want, "cuda") && strcmp(want, "auto"))
        return cuzk_errf(err, CUZK_EINVAL, "--backend: '%s' is none of auto, cuda, cpu", want);
#ifdef CUZK_HAVE_CUDA
    cuzk_err why = {0};
    *gpu = gpu_available(&why);
    if (!*gpu && !strcmp(want, "cuda"))
        return cuzk_errf(err, CUZK_EDEVICE, "--backend cuda: %s", why.msg);
    return CUZK_OK;
#else
    return strcmp(want, "cuda")
               ? CUZK_OK
               : cuzk_errf(err, CUZK_EDEVICE, "--backend cuda: built without CUDA");
#endif
}

int cli_groth16_prove(const cli_opts *o, groth16_proof *proofs, const groth16_params *pk,
                      const cs_prover *circuits, size_t n, size_t first, groth16_timings *t,
                      cuzk_err *err)
{
    bool gpu;
    int rc = prove_on_gpu(o->backend, &gpu, err);
    if (rc) return rc;
    fprintf(stderr, "cuzk: proving %zu circuit(s) on the %s\n", n, gpu ? "GPU" : "CPU");
    fr_t *rs = NULL; /* NULL: r, s from the OS CSPRNG */
    if (o->has_rs_seed) {
        if (!(rs = malloc(2 * n * sizeof(fr_t))))
            return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) { /* circuit first + i's own, however chunked */
            cuzk_rng g;
            cuzk_rng_seed(&g, o->rs_seed + first + i);
            fr_random(&rs[2 * i], &g);
            fr_random(&rs[2 * i + 1], &g);
        }
    }
#ifdef CUZK_HAVE_CUDA
    if (gpu) {
        rc = gpu_groth16_prove(proofs, pk, circuits, n, rs, t, err);
        gpu_prove_release();
        free(rs);
        return rc;
    }
#endif
    rc = groth16_prove(proofs, pk, circuits, n, rs, t, err);
    free(rs);
    return rc;
}

int cli_setup_backend(const cli_opts *o, groth16_setup_backend *be, cuzk_err *err)
{
    int rc = groth16_setup_backend_choose(be, o->backend, err);
    if (!rc)
        fprintf(stderr, "cuzk setup: NTT and fixed-base multiplications on backend %s\n", be->name);
    return rc;
}
