/*
 * backend_choose.c - which prover backend the engine drives, from the
 * config's gpus.backend: "cpu" the CPU prover; "cuda" the CUDA prover
 * (an error when the build has no CUDA or no GPU is usable); "auto" (the
 * default) CUDA when the build has it and gpu_available() says a device
 * is usable, else the CPU prover.
 */
#include <string.h>

#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#ifdef CUZK_HAVE_CUDA
#include "cuzk/gpu.h"
#endif

/* The CUDA backend when usable; NULL with why in err. */
static const engine_backend *cuda_if_usable(cuzk_err *err)
{
#ifdef CUZK_HAVE_CUDA
    if (gpu_available(err)) return &engine_cuda_backend;
    return NULL;
#else
    cuzk_errf(err, CUZK_EDEVICE, "built without CUDA");
    return NULL;
#endif
}

const engine_backend *engine_backend_choose(const cuzk_config *cfg, cuzk_err *err)
{
    const char *want = cfg->backend[0] ? cfg->backend : "auto";
    if (!strcmp(want, "cpu")) return &engine_cpu_backend;
    if (!strcmp(want, "cuda")) {
        const engine_backend *b = cuda_if_usable(err);
        if (!b) cuzk_err_prefix(err, "gpus.backend = \"cuda\": ");
        return b;
    }
    if (strcmp(want, "auto")) {
        cuzk_errf(err, CUZK_EINVAL, "gpus.backend: '%s' is none of auto, cuda, cpu", want);
        return NULL;
    }
    cuzk_err why = {0};
    const engine_backend *b = cuda_if_usable(&why);
    if (b) return b;
    engine_log(LOG_DEBUG, "engine: no usable GPU (%s), proving on the CPU", why.msg);
    return &engine_cpu_backend;
}
