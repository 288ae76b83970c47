/*
 * filecoin.c - the toolbox's Filecoin commands: `cuzk setup --kind`
 * (development parameters under the official file names), `cuzk prove
 * porep` and `cuzk verify porep` over a C1 output (c1.json), all
 * partitions at once, and `cuzk prove | verify --kind KIND`, which sends
 * porep here and the other kinds to filecoin_vanilla.c. Proving and
 * verifying a list of partitions is shared by every kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cuzk/config.h"
#include "cuzk/file.h"
#include "cuzk/filecoin/circuits.h"
#include "cuzk/filecoin/vanilla.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"

static int parse_kind(const char *cmd, const char *s, fc_circuit_kind *kind)
{
    static const char *const names[FC_CIRCUIT_KINDS] = {"porep", "winning-post", "window-post",
                                                        "update"};
    for (int k = 0; k < FC_CIRCUIT_KINDS; k++)
        if (!strcmp(s, names[k])) {
            *kind = (fc_circuit_kind)k;
            return CLI_OK;
        }
    return cli_usage_error(cmd, "--kind takes porep, winning-post, window-post or update, not '%s'",
                           s);
}

int cli_fc_setup(const cli_opts *o)
{
    fc_circuit_kind kind = FC_CIRCUIT_POREP;
    uint64_t size = 0;
    cuzk_err err = {0};
    if (parse_kind("setup", o->kind, &kind) || cli_need("setup", o->sector_size, "--sector-size") ||
        cli_need("setup", o->param_cache, "--param-cache"))
        return CLI_ERROR;
    if (cuzk_parse_size(o->sector_size, &size, &err)) return cli_fail(&err);
    bool created;
    groth16_setup_backend be;
    if (cli_setup_backend(o, &be, &err)) return cli_fail(&err);
    fprintf(stderr,
            "cuzk setup: %s %s: DEVELOPMENT parameters from seed %llu unless present: "
            "not a trusted setup (official files in %s are used as they are)\n",
            o->kind, o->sector_size, o->seed, o->param_cache);
    int rc = fc_dev_params(o->param_cache, kind, size, o->seed, &be, stderr, &created, &err);
    groth16_setup_backend_release(&be);
    if (rc) return cli_fail(&err);
    char params[4096], vk[4096];
    fc_param_paths(params, vk, sizeof(params), o->param_cache, kind, size, &err);
    printf("%s %s\n%s\n", created ? "created" : "exists: ", params, vk);
    return CLI_OK;
}

/* Reads the C1 and the parameters of its sector size. */
static int load(const cli_opts *o, const char *cmd, vanilla_c1 *c1, char *params, char *vk,
                cuzk_err *err)
{
    if (cli_need(cmd, o->c1, "--c1") || cli_need(cmd, o->param_cache, "--param-cache"))
        return CLI_ERROR;
    int rc = vanilla_c1_read(c1, o->c1, VANILLA_C1_AUTO, err);
    if (rc) return cli_fail(err);
    uint64_t size = vanilla_seal_proof_sector_size(c1->registered_proof);
    if (fc_param_paths(params, vk, 4096, o->param_cache, FC_CIRCUIT_POREP, size, err)) {
        vanilla_c1_free(c1);
        return cli_fail(err);
    }
    return CLI_OK;
}

/* Public inputs of every partition, n_inputs each. */
static int public_inputs(fr_t **out, size_t *n_inputs, const vanilla_c1 *c1, cuzk_err *err)
{
    porep_public pub;
    porep_shape s;
    int rc = porep_public_from_c1(&pub, c1, err);
    if (!rc)
        rc = porep_shape_for_size(&s, vanilla_seal_proof_sector_size(c1->registered_proof), err);
    if (rc) return rc;
    *n_inputs = porep_num_public_inputs(&s);
    if (!(*out = malloc(sizeof(fr_t) * *n_inputs * c1->partitions)))
        return cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < c1->partitions; k++)
        rc = porep_public_inputs(*out + k * *n_inputs, &pub, k, err);
    return rc;
}

/* Bytes one synthesized circuit holds (a, b, c, assignments), doubled for
 * what proving it adds (the CPU prover's three domain-size NTT arrays, the
 * GPU prover's staging and tails); a witness-only circuit holds no a, b,
 * c, but proving it on the CPU still makes them. */
static uint64_t circuit_bytes(const cs_prover *w)
{
    uint64_t abc = 3 * (uint64_t)w->num_constraints, vars = w->num_inputs + w->num_aux;
    return (w->shape ? abc + 2 * vars : 2 * (abc + vars)) * sizeof(fr_t);
}

/* How many circuits of `bytes` each to synthesize and prove at once: as
 * many as half the memory available now holds, at least one (a 32 GiB
 * PoRep's ten partitions, ~17 GB each, do not fit together in 128 GiB). */
static size_t chunk_size(uint64_t bytes, size_t left)
{
    uint64_t avail = (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGE_SIZE);
    uint64_t fit = bytes ? avail / 2 / bytes : left;
    return fit < 1 ? 1 : fit < left ? (size_t)fit : left;
}

/* Wall and CPU (user + system, every thread of the process) seconds of
 * the proving phases, printed on stderr: where the host's time goes. */
enum { PH_RECORD, PH_PARAMS, PH_SYNTH, PH_PROVE, PH_N };
typedef struct phase_clock {
    double wall[PH_N], cpu[PH_N], w0, c0;
} phase_clock;

static void clock_now(double *wall, double *cpu)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void phase_begin(phase_clock *pc)
{
    clock_now(&pc->w0, &pc->c0);
}

static void phase_end(phase_clock *pc, int ph)
{
    double w, c;
    clock_now(&w, &c);
    pc->wall[ph] += w - pc->w0, pc->cpu[ph] += c - pc->c0;
}

/* Synthesizes and proves circuits [k, k + c), then frees them; *bytes is
 * what the first of them held. Errors name the partitions of the chunk
 * (cs_synthesize_batch counts within it). */
static int prove_chunk(const cli_opts *o, const groth16_params *p, const cs_shape *shape,
                       cs_circuit *circ, size_t k, size_t c, size_t first, cs_prover *w,
                       groth16_proof *proofs, groth16_timings *t, uint64_t *bytes, phase_clock *pc,
                       cuzk_err *err)
{
    phase_begin(pc);
    int rc = shape ? CUZK_OK : cs_synthesize_batch(w + k, circ + k, c, err);
    for (size_t i = k; shape && !rc && i < k + c; i++) { /* each witness's units in parallel */
        rc = cs_synthesize_for_shape(&w[i], circ[i], shape, NULL, err);
        if (rc && c > 1) cuzk_err_prefix(err, "circuit %zu: ", i - k);
    }
    phase_end(pc, PH_SYNTH);
    if (!rc) *bytes = circuit_bytes(&w[k]);
    phase_begin(pc);
    if (!rc) rc = cli_groth16_prove(o, proofs + k, p, w + k, c, first + k, t + k, err);
    phase_end(pc, PH_PROVE);
    for (size_t i = k; i < k + c; i++) cs_prover_free(&w[i]);
    if (rc && c == 1) cuzk_err_prefix(err, "partition %zu: ", k);
    if (rc && c > 1) cuzk_err_prefix(err, "partitions %zu..%zu: ", k, k + c - 1);
    return rc;
}

int cli_fc_prove_circuits(const cli_opts *o, const char *params, cs_circuit *circ, size_t n,
                          cuzk_err *err)
{
    size_t first = 0;
    if (o->partition >= 0) {
        if ((size_t)o->partition >= n)
            return cuzk_errf(err, CUZK_EINVAL, "--partition %ld: the proof has %zu partition(s)",
                             o->partition, n);
        first = (size_t)o->partition, circ += first, n = 1;
    }
    cs_shape *shape = NULL;
    phase_clock pc = {0};
    if (!o->full_synthesis) {
        phase_begin(&pc);
        if (cs_shape_record(&shape, circ[0], err)) return cuzk_err_prefix(err, "recording: ");
        phase_end(&pc, PH_RECORD);
        fprintf(stderr, "cuzk: circuit shape recorded (%.2f GiB); witness-only synthesis\n",
                (double)cs_shape_bytes(shape) / (1 << 30));
    }
    cs_prover *w = calloc(n, sizeof(*w));
    groth16_proof *proofs = calloc(n, sizeof(*proofs));
    groth16_timings *t = calloc(n, sizeof(*t));
    uint8_t *bytes = calloc(n, GROTH16_PROOF_BYTES);
    groth16_params p = {0};
    int rc = w && proofs && t && bytes ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    phase_begin(&pc);
    if (!rc)
        rc = groth16_params_read(&p, params, o->check_params ? PARAMS_CHECKED : PARAMS_UNCHECKED,
                                 err);
    phase_end(&pc, PH_PARAMS);
    /* The first circuit alone: its size says how many of the rest fit at once. */
    uint64_t each = 0;
    for (size_t k = 0, c = 1; !rc && k < n; k += c, c = chunk_size(each, n - k))
        rc = prove_chunk(o, &p, shape, circ, k, c, first, w, proofs, t, &each, &pc, err);
    if (!rc)
        fprintf(stderr,
                "cuzk: phases, wall s / CPU-s: record %.2f / %.2f, params %.2f / %.2f, "
                "synthesis (%s) %.2f / %.2f, prove %.2f / %.2f\n",
                pc.wall[PH_RECORD], pc.cpu[PH_RECORD], pc.wall[PH_PARAMS], pc.cpu[PH_PARAMS],
                shape ? "witness" : "full", pc.wall[PH_SYNTH], pc.cpu[PH_SYNTH], pc.wall[PH_PROVE],
                pc.cpu[PH_PROVE]);
    for (size_t k = 0; !rc && k < n; k++) {
        groth16_proof_encode(bytes + k * GROTH16_PROOF_BYTES, &proofs[k]);
        fprintf(stderr,
                "partition %zu: prep_msm_ms=%.1f ntt_msm_h_ms=%.1f batch_add_ms=%.1f "
                "tail_msm_ms=%.1f b_g2_msm_ms=%.1f total_ms=%.1f\n",
                first + k, t[k].prep_msm_ms, t[k].ntt_msm_h_ms, t[k].batch_add_ms, t[k].tail_msm_ms,
                t[k].b_g2_msm_ms, t[k].total_ms);
    }
    if (!rc) rc = cuzk_write_file(o->out, bytes, n * GROTH16_PROOF_BYTES, err);
    if (!rc) printf("%s: %zu partition proof(s), %zu bytes\n", o->out, n, n * GROTH16_PROOF_BYTES);
    groth16_params_free(&p);
    cs_shape_free(shape);
    free(w), free(proofs), free(t), free(bytes);
    return rc;
}

/* The n proofs of o->proof, decoded. */
static int read_proofs(groth16_proof *proofs, size_t n, const char *path, cuzk_err *err)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    int rc = cuzk_read_file(path, &bytes, &len, 1u << 20, err);
    if (!rc && len != n * GROTH16_PROOF_BYTES)
        rc = cuzk_errf(err, CUZK_ELENGTH, "%s: %zu bytes, expected %zu (%zu partitions x 192)",
                       path, len, n * GROTH16_PROOF_BYTES, n);
    for (size_t k = 0; !rc && k < n; k++)
        if ((rc = groth16_proof_decode(&proofs[k], bytes + k * GROTH16_PROOF_BYTES,
                                       GROTH16_PROOF_BYTES, err)))
            cuzk_err_prefix(err, "%s: partition %zu: ", path, k);
    free(bytes);
    return rc;
}

int cli_fc_verify_proofs(const cli_opts *o, const char *vk_path, const fr_t *inputs,
                         size_t n_inputs, size_t n, const char *against)
{
    cuzk_err err = {0};
    groth16_vk vk = {0};
    groth16_pvk pvk = {0};
    groth16_proof *proofs = calloc(n, sizeof(*proofs));
    int rc = proofs ? read_proofs(proofs, n, o->proof, &err)
                    : cuzk_errf(&err, CUZK_ENOMEM, "out of memory");
    if (!rc) rc = groth16_vk_read(&vk, vk_path, PARAMS_CHECKED, &err);
    if (!rc) rc = groth16_prepare_vk(&pvk, &vk, &err);
    size_t bad = n;
    for (size_t k = 0; !rc && k < n; k++)
        if ((rc = groth16_verify(&pvk, &proofs[k], inputs + k * n_inputs, n_inputs, &err)) ==
            CUZK_EVERIFY)
            bad = k;
    groth16_pvk_free(&pvk);
    groth16_vk_free(&vk);
    free(proofs);
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID: %s partition %zu does not verify for %s\n", o->proof, bad,
                against);
        return CLI_INVALID;
    }
    if (rc) return cli_fail(&err);
    printf("OK: %s (%zu partitions) verifies for %s\n", o->proof, n, against);
    return CLI_OK;
}

static int prove_porep(const cli_opts *o)
{
    if (cli_need("prove porep", o->out, "-o")) return CLI_ERROR;
    vanilla_c1 c1;
    char params[4096], vk[4096];
    cuzk_err err = {0};
    if (load(o, "prove porep", &c1, params, vk, &err)) return CLI_ERROR;
    size_t n = c1.partitions;
    porep_circuit *pc = calloc(n, sizeof(*pc));
    cs_circuit *circ = calloc(n, sizeof(*circ));
    int rc = pc && circ ? CUZK_OK : cuzk_errf(&err, CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; !rc && k < n; k++)
        if (!(rc = porep_circuit_init(&pc[k], &c1, k, &err))) circ[k] = porep_circuit_get(&pc[k]);
    if (!rc) rc = cli_fc_prove_circuits(o, params, circ, n, &err);
    free(pc), free(circ);
    vanilla_c1_free(&c1);
    return rc ? cli_fail(&err) : CLI_OK;
}

static int verify_porep(const cli_opts *o)
{
    if (cli_need("verify porep", o->proof, "--proof")) return CLI_ERROR;
    vanilla_c1 c1;
    char params[4096], vk_path[4096];
    cuzk_err err = {0};
    if (load(o, "verify porep", &c1, params, vk_path, &err)) return CLI_ERROR;
    size_t n_inputs = 0;
    fr_t *inputs = NULL;
    int rc = public_inputs(&inputs, &n_inputs, &c1, &err)
                 ? cli_fail(&err)
                 : cli_fc_verify_proofs(o, vk_path, inputs, n_inputs, c1.partitions, o->c1);
    free(inputs);
    vanilla_c1_free(&c1);
    return rc;
}

int cli_fc_prove(const cli_opts *o)
{
    fc_circuit_kind kind = FC_CIRCUIT_POREP;
    if (parse_kind("prove", o->kind, &kind)) return CLI_ERROR;
    return kind == FC_CIRCUIT_POREP ? prove_porep(o) : cli_fc_prove_vanilla(o, kind);
}

int cli_fc_verify(const cli_opts *o)
{
    fc_circuit_kind kind = FC_CIRCUIT_POREP;
    if (parse_kind("verify", o->kind, &kind)) return CLI_ERROR;
    return kind == FC_CIRCUIT_POREP ? verify_porep(o) : cli_fc_verify_vanilla(o, kind);
}

static int prove_porep_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_prove_porep)) return CLI_OK;
    if (cli_parse(argc, argv, "prove porep", &o)) return CLI_ERROR;
    return prove_porep(&o);
}

static int verify_porep_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_verify_porep)) return CLI_OK;
    if (cli_parse(argc, argv, "verify porep", &o)) return CLI_ERROR;
    return verify_porep(&o);
}

const cli_command cli_prove_porep = {
    "prove porep", prove_porep_run, "prove a PoRep C1 output (all partitions)",
    "usage: cuzk prove porep --c1 c1.json --param-cache DIR -o PROOF.bin [--check-params]\n"
    "                        [--backend auto|cuda|cpu]\n\n"
    "Synthesizes every partition of the commit-phase-1 output (the c1.json wrapper\n"
    "or bare SealCommitPhase1Output JSON) in parallel and proves them with the\n"
    "parameters of its sector size, found in DIR under the official file name;\n"
    "writes the partitions' 192-byte proofs concatenated. Parameters are read\n"
    "unchecked (trusted local files) unless --check-params. --backend: the GPU\n"
    "prover when a device is usable (auto, the default), cuda, or cpu.\n"};

const cli_command cli_verify_porep = {
    "verify porep", verify_porep_run, "verify a PoRep proof against its C1 output",
    "usage: cuzk verify porep --c1 c1.json --param-cache DIR --proof PROOF.bin\n\n"
    "Computes every partition's public inputs from the C1 output natively and\n"
    "verifies the proof with the .vk in DIR. Exit status: 0 valid, 1 invalid, 2 bad\n"
    "input.\n"};
