/*
 * setup_backend.c - which backend the development setup runs its heavy
 * steps on, with the engine's rule (backend_choose.c, gpus.backend):
 * "cpu" the CPU; "cuda" the device (an error when the build has no CUDA
 * or no GPU is usable); "auto" (also NULL or empty) the device when the
 * build has CUDA and gpu_available() says one is usable, else the CPU.
 */
#include <string.h>

#include "cuzk/groth16.h"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu.h"
#include "cuzk/gpu_setup.h"
#endif

/* The CUDA backend into out when usable; an error saying why not. */
static int cuda_if_usable(groth16_setup_backend *out, cuzk_err *err)
{
#ifdef CUZK_HAVE_CUDA
    if (!gpu_available(err)) return CUZK_EDEVICE;
    return gpu_setup_backend(out, 0, err);
#else
    (void)out;
    return cuzk_errf(err, CUZK_EDEVICE, "built without CUDA");
#endif
}

int groth16_setup_backend_choose(groth16_setup_backend *out, const char *want, cuzk_err *err)
{
    if (!want || !want[0]) want = "auto";
    *out = groth16_setup_cpu;
    if (!strcmp(want, "cpu")) return CUZK_OK;
    if (!strcmp(want, "cuda")) {
        int rc = cuda_if_usable(out, err);
        if (rc) cuzk_err_prefix(err, "backend \"cuda\": ");
        return rc;
    }
    if (strcmp(want, "auto"))
        return cuzk_errf(err, CUZK_EINVAL, "backend: '%s' is none of auto, cuda, cpu", want);
    cuzk_err why = {0};
    if (cuda_if_usable(out, &why)) *out = groth16_setup_cpu;
    return CUZK_OK;
}

void groth16_setup_backend_release(groth16_setup_backend *be)
{
#ifdef CUZK_HAVE_CUDA
    if (be->ctx) gpu_setup_backend_free(be);
#endif
    memset(be, 0, sizeof(*be));
}
