/*
 * batch.c - synthesis of many circuits at once (the partitions of one
 * proof, or several proofs), one prover backend per circuit. With at
 * least as many circuits as OpenMP threads they are spread over the
 * threads with dynamic scheduling (circuits finish at different times);
 * with fewer they run one after the other, each spreading its own
 * independent units (PoRep challenges, PoSt sectors: cs_run_units) over
 * all threads, which a circuit inside a parallel loop could not. On any
 * failure every result is freed and the first failing circuit (lowest
 * index) is reported.
 */
#include "r1cs/cs_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static int synth_one(cs_prover *out, cs_circuit circuit, const cs_capacity *hint, bool into,
                     cuzk_err *err)
{
    return into ? cs_synthesize_prover_into(out, circuit, hint, err)
                : cs_synthesize_prover(out, circuit, hint, err);
}

/* into: out[i] holds storage to reuse (cs_synthesize_prover_into). */
static int batch(cs_prover *out, const cs_circuit *circuits, size_t n, const cs_capacity *hint,
                 bool into, cuzk_err *err)
{
    cuzk_err *errs = calloc(n ? n : 1, sizeof(cuzk_err));
    int *rcs = calloc(n ? n : 1, sizeof(int));
    if (!errs || !rcs) {
        free(errs), free(rcs);
        if (into)
            for (size_t i = 0; i < n; i++) cs_prover_free(&out[i]);
        return cuzk_errf(err, CUZK_ENOMEM, "batch synthesis: out of memory");
    }
    if (n >= (size_t)omp_get_max_threads()) {
#pragma omp parallel for schedule(dynamic, 1)
        for (size_t i = 0; i < n; i++)
            rcs[i] = synth_one(&out[i], circuits[i], hint, into, &errs[i]);
    } else {
        for (size_t i = 0; i < n; i++)
            rcs[i] = synth_one(&out[i], circuits[i], hint, into, &errs[i]);
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!rcs[i]) continue;
        rc = rcs[i];
        if (err) {
            *err = errs[i];
            cuzk_err_prefix(err, "circuit %zu of %zu: ", i, n);
        }
    }
    if (rc)
        for (size_t i = 0; i < n; i++) cs_prover_free(&out[i]);
    free(errs), free(rcs);
    return rc;
}

int cs_synthesize_batch(cs_prover *out, const cs_circuit *circuits, size_t n, cuzk_err *err)
{
    return batch(out, circuits, n, NULL, false, err);
}

int cs_synthesize_batch_with_hint(cs_prover *out, const cs_circuit *circuits, size_t n,
                                  const cs_capacity *hint, cuzk_err *err)
{
    return batch(out, circuits, n, hint, false, err);
}

int cs_synthesize_batch_into(cs_prover *out, const cs_circuit *circuits, size_t n, cuzk_err *err)
{
    return batch(out, circuits, n, NULL, true, err);
}
