/*
 * sim_provider.c - the simulated kinds' provider (sim.h). A request is a
 * record naming the kind; it is prepared as the test family's request of
 * the kind's stand-in circuit (engine_test_provider does the work: its
 * partitions, public inputs, development parameters), then dressed as the
 * kind: its own circuit id (one parameter set per kind, as on a real host),
 * the parameters charged at the kind's size and read in its load time,
 * each partition charged the kind's host memory (charge) and synthesized
 * in its synthesis time (a sleep before the stand-in's synthesis).
 */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "engine/srs.h"
#include "sim_internal.h"

#define SIM_MAGIC "CUZKSIM"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void sim_request(engine_request *req, uint8_t rec[SIM_RECORD_BYTES], int k, uint64_t seed)
{
    memcpy(rec, SIM_MAGIC, 8);
    wr32(rec + 8, (uint32_t)k);
    wr32(rec + 12, sim_model.kinds[k].partitions);
    wr32(rec + 16, (uint32_t)seed), wr32(rec + 20, (uint32_t)(seed >> 32));
    memset(req, 0, sizeof *req);
    req->kind = sim_model.kinds[k].kind;
    req->priority = sim_model.kinds[k].priority;
    req->vanilla_proof = (engine_bytes){rec, SIM_RECORD_BYTES};
}

static bool sim_claims(const engine_request *req)
{
    return req->vanilla_proof.len >= 8 && !memcmp(req->vanilla_proof.data, SIM_MAGIC, 8);
}

static bool sim_lookup(const char *circuit_id, engine_circuit_info *info)
{
    int k = sim_kind_of_id(circuit_id);
    char test_id[ENGINE_ID_MAX];
    snprintf(test_id, sizeof test_id, "test-%u", k < 0 ? 0 : sim_stand_in(k));
    if (k < 0 || !engine_test_provider.lookup(test_id, info)) return false;
    sim_circuit_id(k, info->circuit_id);
    info->sim_bytes = sim_model.kinds[k].param_bytes;
    info->sim_load_ms = sim_real_ms(sim_model.kinds[k].load_s);
    return true;
}

/* A partition: the stand-in's synthesis after the kind's synthesis time. */
typedef struct sim_partition {
    cs_circuit inner;
    uint64_t ms;
} sim_partition;

typedef struct sim_prepared {
    engine_circuits test; /* the stand-in request, as the test provider made it */
    sim_partition *parts;
    cs_circuit *circuits;
} sim_prepared;

static int sim_synthesize(cs_t *cs, void *ctx)
{
    const sim_partition *p = ctx;
    sim_sleep_until(srs_now_ms() + p->ms);
    return p->inner.synthesize(cs, p->inner.ctx);
}

static void sim_release(engine_circuits *c)
{
    sim_prepared *s = c->state;
    if (s) {
        if (s->test.release) s->test.release(&s->test);
        free(s->parts);
        free(s->circuits);
        free(s);
    }
    memset(c, 0, sizeof *c);
}

/* The stand-in's request of kind k's record d. */
static int prepare_stand_in(int k, const engine_request *req, const uint8_t *d, sim_prepared *s,
                            cuzk_err *err)
{
    uint8_t rec[ENGINE_TEST_RECORD_BYTES] = ENGINE_TEST_MAGIC;
    wr32(rec + 8, sim_stand_in(k));
    memcpy(rec + 12, d + 12, 12); /* partitions, seed */
    wr32(rec + 24, 0xffffffffu);  /* no bad partition */
    engine_request test_req = *req;
    test_req.vanilla_proof = (engine_bytes){rec, sizeof rec};
    return engine_test_provider.prepare(&test_req, &s->test, err);
}

static int sim_prepare(const engine_request *req, engine_circuits *out, cuzk_err *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *d = req->vanilla_proof.data;
    if (req->vanilla_proof.len != SIM_RECORD_BYTES || rd32(d + 8) >= SIM_KINDS)
        return cuzk_errf(err, CUZK_EINVAL,
                         "simulated request: %zu bytes, expected %d naming a kind 0..%d",
                         req->vanilla_proof.len, SIM_RECORD_BYTES, SIM_KINDS - 1);
    int k = (int)rd32(d + 8);
    sim_prepared *s = calloc(1, sizeof *s);
    if (!s) return cuzk_errf(err, CUZK_ENOMEM, "simulated request: out of memory");
    int rc = prepare_stand_in(k, req, d, s, err);
    size_t n = rc ? 0 : s->test.n_partitions;
    if (!rc && (!(s->parts = calloc(n, sizeof *s->parts)) ||
                !(s->circuits = calloc(n, sizeof *s->circuits))))
        rc = cuzk_errf(err, CUZK_ENOMEM, "simulated request: out of memory");
    out->state = s, out->release = sim_release;
    if (rc) {
        sim_release(out);
        return rc;
    }
    for (size_t p = 0; p < n; p++) {
        s->parts[p] =
            (sim_partition){s->test.partitions[p], sim_real_ms(sim_model.kinds[k].synth_s)};
        s->circuits[p] = (cs_circuit){sim_synthesize, &s->parts[p]};
    }
    char id[ENGINE_ID_MAX];
    sim_circuit_id(k, id);
    sim_lookup(id, &out->info);
    out->n_partitions = n;
    out->partitions = s->circuits;
    out->inputs = s->test.inputs, out->n_inputs = s->test.n_inputs;
    out->size = s->test.size;
    out->charge = sim_model.kinds[k].shape;
    out->batchable = s->test.batchable;
    return CUZK_OK;
}

static void sim_ids(char *buf, size_t cap)
{
    snprintf(buf, cap, "sim-porep-32g, sim-snap-32g, sim-wpost-32g, sim-winning-32g");
}

/* The stand-in's id of a simulated circuit id into test_id, or false. */
static bool stand_in_id(const char *circuit_id, char test_id[ENGINE_ID_MAX], cuzk_err *err)
{
    int k = sim_kind_of_id(circuit_id);
    if (k < 0) {
        cuzk_errf(err, CUZK_EINVAL, "simulated provider: no circuit %s", circuit_id);
        return false;
    }
    snprintf(test_id, ENGINE_ID_MAX, "test-%u", sim_stand_in(k));
    return true;
}

static int sim_setup_dev(const char *circuit_id, const char *params_path,
                         const groth16_setup_backend *be, cuzk_err *err)
{
    char id[ENGINE_ID_MAX];
    if (!stand_in_id(circuit_id, id, err)) return err->code;
    return engine_test_provider.setup_dev(id, params_path, be, err);
}

static int sim_blank(const char *circuit_id, cs_circuit *out, void **ctx, cuzk_err *err)
{
    char id[ENGINE_ID_MAX];
    *ctx = NULL;
    if (!stand_in_id(circuit_id, id, err)) return err->code;
    return engine_test_provider.blank(id, out, ctx, err);
}

const engine_provider sim_provider = {
    .name = "sim",
    .claims = sim_claims,
    .prepare = sim_prepare,
    .lookup = sim_lookup,
    .ids = sim_ids,
    .setup_dev = sim_setup_dev,
    .blank = sim_blank,
    .blank_free = free,
};
