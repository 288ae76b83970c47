/*
 * gpu_prove_checks.c - the GPU Groth16 prover (gpu_prove.h) against the
 * CPU prover, run from test_gpu.
 *
 * A random product circuit: `seeds` free aux values drawn by a pattern
 * (random Fr, random bits, all zero, all one), then each further aux
 * v_k = (v_i [+ c v_l]) * v_j over earlier values (the linear term only
 * for the random patterns, so that all-zero and all-one witnesses stay
 * all zero / all one), two public inputs copying v_0 and v_1. Some aux
 * appear only in C, so the A and B densities have holes. With fixed r, s
 * the GPU proof must be byte-identical to groth16_prove's and verify, for
 * domains under 2^10 (CPU H scalars), at 2^10 and above (device NTT),
 * sizes that are not powers of two, batches, the synthetic bit-heavy
 * circuit (r1cs.h), circom's mul3 with its zkey (both H bases), the PoRep
 * partitions of real 2KiB and 8MiB test sectors (sealed from a seed,
 * verified with their public inputs), and
 * through the engine with the CUDA backend; a
 * witness of the wrong shape is an error, not an abort. With two devices
 * or more (gpu_prove_device_checks): the same batch proved on every
 * device at once, each equal to the CPU's, and the engine spreading a
 * job's partitions over the devices.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuzk/engine.h"
#include "cuzk/engine_backend.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "cuzk/filecoin/gen.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/porep_sizes.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/snarkjs.h"
#include "gpu_check.h"
#include "gpu_prove_checks.h"

enum pattern { PAT_RANDOM, PAT_BITS, PAT_ZERO, PAT_ONE };
static const char *pattern_names[] = {"random", "bits", "all-zero", "all-one"};

typedef struct prod_circuit {
    size_t constraints; /* product constraints */
    size_t seeds;       /* free aux values */
    int pattern;
    uint64_t shape_seed, value_seed;
} prod_circuit;

static void seed_value(fr_t *v, int pattern, cuzk_rng *g)
{
    if (pattern == PAT_RANDOM) fr_random(v, g);
    if (pattern == PAT_BITS) *v = cuzk_rng_u64(g) & 1 ? FR_ONE : FR_ZERO;
    if (pattern == PAT_ZERO) *v = FR_ZERO;
    if (pattern == PAT_ONE) *v = FR_ONE;
}

/* Constraint k's operands: i, j, l below n (from the shape stream). */
static void pick(cuzk_rng *g, size_t n, size_t *i, size_t *j, size_t *l, fr_t *c)
{
    *i = cuzk_rng_u64(g) % n;
    *j = cuzk_rng_u64(g) % n;
    *l = cuzk_rng_u64(g) % n;
    fr_from_u64(c, cuzk_rng_u64(g) | 1);
}

static int prod_synthesize(cs_t *cs, void *ctx)
{
    const prod_circuit *p = ctx;
    size_t n = p->seeds + p->constraints;
    fr_t *val = malloc(sizeof(fr_t) * n);
    cs_var *var = malloc(sizeof(cs_var) * n);
    if (!val || !var) return free(val), free(var), CUZK_ENOMEM;
    cuzk_rng vg, sg;
    cuzk_rng_seed(&vg, p->value_seed);
    cuzk_rng_seed(&sg, p->shape_seed);
    bool lin = p->pattern == PAT_RANDOM || p->pattern == PAT_BITS;
    for (size_t k = 0; k < p->seeds; k++) seed_value(&val[k], p->pattern, &vg);
    cs_var in0 = cs_alloc_input(cs, &val[0]), in1 = cs_alloc_input(cs, &val[1]);
    for (size_t k = 0; k < p->seeds; k++) var[k] = cs_alloc(cs, &val[k]);
    cs_lc a = {0}, b = {0}, o = {0};
    for (size_t k = p->seeds; k < n; k++) {
        size_t i, j, l;
        fr_t c, t;
        pick(&sg, k, &i, &j, &l, &c);
        lc_clear(&a), lc_clear(&b), lc_clear(&o);
        lc_add_var(&a, var[i]);
        t = val[i];
        if (lin && k % 3 == 0) {
            lc_add_term(&a, var[l], &c);
            fr_mul(&c, &c, &val[l]);
            fr_add(&t, &t, &c);
        }
        fr_mul(&val[k], &t, &val[j]);
        var[k] = cs_alloc(cs, &val[k]);
        lc_add_var(&b, var[j]);
        lc_add_var(&o, var[k]);
        cs_enforce(cs, &a, &b, &o);
    }
    for (int k = 0; k < 2; k++) { /* in_k * 1 = v_k */
        lc_clear(&a), lc_clear(&b), lc_clear(&o);
        lc_add_var(&a, k ? in1 : in0);
        lc_add_var(&b, cs_one());
        lc_add_var(&o, var[k]);
        cs_enforce(cs, &a, &b, &o);
    }
    lc_free(&a), lc_free(&b), lc_free(&o);
    free(val), free(var);
    return cs_status(cs);
}

/* The witness-only path over the same circuits: the shape recorded once,
 * each circuit's witness with the shape's densities, a, b, c evaluated
 * from the shape on the device (gpu_shape_eval_dev) and on the CPU
 * (groth16_abc): both proofs byte for byte `want`, the prover backend's. */
static void compare_witness_path(const char *what, cs_circuit *circ, size_t n,
                                 const groth16_params *pk, const fr_t *rs,
                                 const groth16_proof *want)
{
    cuzk_err err = {0};
    cs_shape *shape = NULL;
    cs_prover *w = calloc(n, sizeof *w);
    groth16_proof *pc = calloc(n, sizeof *pc), *pg = calloc(n, sizeof *pg);
    int rc = w && pc && pg ? cs_shape_record(&shape, circ[0], &err) : CUZK_ENOMEM;
    for (size_t i = 0; !rc && i < n; i++)
        rc = cs_synthesize_for_shape(&w[i], circ[i], shape, NULL, &err);
    CHECK(rc == 0, "%s: witness path: %s", what, err.msg);
    if (!rc) {
        rc = groth16_prove(pc, pk, w, n, rs, NULL, &err);
        CHECK(rc == 0, "%s: witness path: cpu prove: %s", what, err.msg);
    }
    if (!rc) {
        rc = gpu_groth16_prove(pg, pk, w, n, rs, NULL, &err);
        CHECK(rc == 0, "%s: witness path: gpu prove: %s", what, err.msg);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        uint8_t ew[GROTH16_PROOF_BYTES], ec[GROTH16_PROOF_BYTES], eg[GROTH16_PROOF_BYTES];
        groth16_proof_encode(ew, &want[i]);
        groth16_proof_encode(ec, &pc[i]);
        groth16_proof_encode(eg, &pg[i]);
        CHECK(!memcmp(ew, ec, sizeof ew) && !memcmp(ew, eg, sizeof ew),
              "%s: circuit %zu: witness-path proof bytes differ (CPU %s, GPU %s)", what, i,
              memcmp(ew, ec, sizeof ew) ? "differs" : "equal",
              memcmp(ew, eg, sizeof ew) ? "differs" : "equal");
    }
    if (!rc) printf("prove %s: witness-only path (shape on the device): the same bytes\n", what);
    for (size_t i = 0; w && i < n; i++) cs_prover_free(&w[i]);
    gpu_shape_forget(shape);
    cs_shape_free(shape);
    free(w), free(pc), free(pg);
}

/* n circuits of one shape (value seeds differ): GPU == CPU, GPU verifies;
 * and the witness-only path makes the same bytes. */
static void compare(const char *what, cs_circuit *circ, size_t n, const fr_t *inputs,
                    size_t n_inputs, cuzk_rng *g)
{
    cuzk_err err = {0};
    groth16_params pk;
    groth16_pvk pvk;
    cs_prover *w = calloc(n, sizeof *w);
    groth16_proof *pc = calloc(n, sizeof *pc), *pg = calloc(n, sizeof *pg);
    fr_t *rs = calloc(2 * n, sizeof *rs);
    groth16_timings *t = calloc(n, sizeof *t);
    if (groth16_setup_dev(&pk, circ[0], cuzk_rng_u64(g), &err) ||
        groth16_prepare_vk(&pvk, &pk.vk, &err)) {
        CHECK(0, "%s: setup: %s", what, err.msg);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (cs_synthesize_prover(&w[i], circ[i], NULL, &err)) CHECK(0, "%s: %s", what, err.msg);
    for (size_t i = 0; i < 2 * n; i++) fr_random(&rs[i], g);
    int rc = groth16_prove(pc, &pk, w, n, rs, NULL, &err);
    CHECK(rc == 0, "%s: cpu prove: %s", what, err.msg);
    rc = gpu_groth16_prove(pg, &pk, w, n, rs, t, &err);
    CHECK(rc == 0, "%s: gpu prove: %s", what, err.msg);
    for (size_t i = 0; !rc && i < n; i++) {
        uint8_t ec[GROTH16_PROOF_BYTES], eg[GROTH16_PROOF_BYTES];
        groth16_proof_encode(ec, &pc[i]);
        groth16_proof_encode(eg, &pg[i]);
        CHECK(!memcmp(ec, eg, sizeof ec), "%s: circuit %zu: GPU proof bytes differ from the CPU's",
              what, i);
        CHECK(!groth16_verify(&pvk, &pg[i], inputs + i * n_inputs, n_inputs, &err),
              "%s: circuit %zu: GPU proof does not verify: %s", what, i, err.msg);
    }
    char line[768];
    gpu_prove_format_timings(line, sizeof line, &t[0]);
    printf("prove %s: %zu constraints, %zu circuit(s): GPU == CPU bytes, verified (%s)\n", what,
           w[0].num_constraints, n, line);
    if (!rc) compare_witness_path(what, circ, n, &pk, rs, pc);
    gpu_prove_params_free(&pk);
    for (size_t i = 0; i < n; i++) cs_prover_free(&w[i]);
    groth16_params_free(&pk);
    groth16_pvk_free(&pvk);
    free(w), free(pc), free(pg), free(rs), free(t);
}

static void prod_inputs(const prod_circuit *p, fr_t in[2])
{
    cuzk_rng vg;
    cuzk_rng_seed(&vg, p->value_seed);
    for (int k = 0; k < 2; k++) seed_value(&in[k], p->pattern, &vg);
}

static void check_prod(size_t constraints, size_t seeds, int pattern, size_t n, cuzk_rng *g)
{
    prod_circuit p[4];
    cs_circuit c[4];
    fr_t in[8];
    uint64_t shape = cuzk_rng_u64(g);
    for (size_t i = 0; i < n; i++) {
        p[i] = (prod_circuit){constraints, seeds, pattern, shape, cuzk_rng_u64(g)};
        c[i] = (cs_circuit){prod_synthesize, &p[i]};
        prod_inputs(&p[i], &in[2 * i]);
    }
    char what[64];
    snprintf(what, sizeof what, "product/%s", pattern_names[pattern]);
    compare(what, c, n, in, 2, g);
}

/* A product circuit's development parameters and its prover backend's
 * a, b, c (the full-synthesis path), or, with shape, its recorded shape
 * and the witness for it (the witness-only path). */
static int make_prod(groth16_params *pk, cs_shape **shape, cs_prover *w, size_t constraints,
                     size_t seeds, int pattern, cuzk_rng *g, cuzk_err *err)
{
    prod_circuit p = {constraints, seeds, pattern, cuzk_rng_u64(g), cuzk_rng_u64(g)};
    cs_circuit c = {prod_synthesize, &p};
    memset(w, 0, sizeof *w);
    if (shape) *shape = NULL;
    int rc = groth16_setup_dev(pk, c, cuzk_rng_u64(g), err);
    if (rc) {
        memset(pk, 0, sizeof *pk);
        return rc;
    }
    if (!shape) return cs_synthesize_prover(w, c, NULL, err);
    rc = cs_shape_record(shape, c, err);
    return rc ? rc : cs_synthesize_for_shape(w, c, *shape, NULL, err);
}

static void check_synthetic(size_t constraints, cuzk_rng *g)
{
    cs_synthetic s = {constraints, cuzk_rng_u64(g)};
    cs_circuit c = cs_synthetic_circuit(&s);
    cs_witness w;
    cuzk_err err = {0};
    if (cs_synthesize_witness(&w, c, &err)) {
        CHECK(0, "synthetic witness: %s", err.msg);
        return;
    }
    compare("synthetic bit-heavy", &c, 1, &w.input_assignment[1], 1, g);
    cs_witness_free(&w);
}

/* Partition 0 of a test sector of `size` bytes sealed from a random seed
 * (gen.h, as cuzk-seal does): its C1, circuit and public inputs. */
static void check_porep(uint64_t size, cuzk_rng *g)
{
    cuzk_err err = {0};
    fc_test_sector t = {.cfg = fc_porep_config_find(size, FC_POREP_V1_1, &err),
                        .seed = cuzk_rng_u64(g),
                        .sector_id = 1,
                        .miner = 1000};
    fc_sealed sealed;
    vanilla_c1 c1;
    if (!t.cfg || fc_seal_test_sector(&sealed, &t, NULL, NULL, &err)) {
        CHECK(0, "porep %llu: seal: %s", (unsigned long long)size, err.msg);
        return;
    }
    int rc = fc_test_sector_c1(&c1, &sealed, t.seed, &err);
    fc_sealed_free(&sealed);
    if (rc) {
        CHECK(0, "porep %llu: c1: %s", (unsigned long long)size, err.msg);
        return;
    }
    porep_public pub;
    porep_circuit pc;
    fr_t *in = NULL;
    size_t n_in = 0;
    rc = porep_public_from_c1(&pub, &c1, &err);
    if (!rc) rc = porep_circuit_init(&pc, &c1, 0, &err);
    if (!rc) {
        n_in = porep_num_public_inputs(&pc.shape);
        in = malloc(n_in * sizeof *in);
        rc = in ? porep_public_inputs(in, &pub, 0, &err) : cuzk_errf(&err, CUZK_ENOMEM, "inputs");
    }
    if (rc) {
        CHECK(0, "porep %llu: circuit: %s", (unsigned long long)size, err.msg);
    } else {
        char what[64];
        snprintf(what, sizeof what, "porep %s partition 0", t.cfg->name);
        cs_circuit c = porep_circuit_get(&pc);
        compare(what, &c, 1, in, n_in, g);
    }
    free(in);
    vanilla_c1_free(&c1);
}

/* A circom circuit (tests/data/snarkjs/mul3) with its zkey's parameters,
 * H in snarkjs' odd-Lagrange basis and converted to the monomial one. */
/* The folder of tests/data/snarkjs: under $CUZK_SOURCE_DIR, the working
 * directory (a binary built in another checkout runs from this one), or
 * the source tree it was built from. */
static const char *snarkjs_dir(char *buf, size_t len)
{
    const char *roots[] = {getenv("CUZK_SOURCE_DIR"), ".", CUZK_SOURCE_DIR};
    for (size_t k = 0; k < sizeof roots / sizeof *roots; k++) {
        if (!roots[k]) continue;
        snprintf(buf, len, "%s/tests/data/snarkjs/mul3.zkey", roots[k]);
        if (access(buf, R_OK) == 0) {
            snprintf(buf, len, "%s/tests/data/snarkjs/", roots[k]);
            return buf;
        }
    }
    return NULL;
}

static void check_snarkjs(cuzk_rng *g)
{
    char dir[400], zpath[512], wpath[512];
    if (!snarkjs_dir(dir, sizeof dir)) {
        CHECK(0, "snarkjs: tests/data/snarkjs/mul3.zkey not found (set CUZK_SOURCE_DIR)");
        return;
    }
    snprintf(zpath, sizeof zpath, "%smul3.zkey", dir);
    snprintf(wpath, sizeof wpath, "%smul3.wtns", dir);
    snarkjs_zkey z;
    snarkjs_wtns w;
    cuzk_err err = {0};
    if (snarkjs_zkey_read(&z, zpath, SNARKJS_CHECKED, &err) || snarkjs_wtns_read(&w, wpath, &err)) {
        CHECK(0, "snarkjs: %s", err.msg);
        return;
    }
    for (int monomial = 0; monomial < 2; monomial++) {
        groth16_params pk;
        groth16_pvk pvk;
        cs_prover wit;
        groth16_proof pc, pg;
        fr_t rs[2];
        fr_random(&rs[0], g);
        fr_random(&rs[1], g);
        int rc = snarkjs_zkey_to_params(&pk, &z, monomial, &err);
        if (!rc) rc = snarkjs_witness_prover(&wit, &z, &w, &err);
        if (!rc) rc = groth16_prove(&pc, &pk, &wit, 1, rs, NULL, &err);
        if (!rc) rc = gpu_groth16_prove(&pg, &pk, &wit, 1, rs, NULL, &err);
        if (!rc) rc = groth16_prepare_vk(&pvk, &pk.vk, &err);
        CHECK(!rc, "snarkjs mul3: %s", err.msg);
        if (rc) continue;
        uint8_t ec[GROTH16_PROOF_BYTES], eg[GROTH16_PROOF_BYTES];
        groth16_proof_encode(ec, &pc);
        groth16_proof_encode(eg, &pg);
        CHECK(!memcmp(ec, eg, sizeof ec), "snarkjs mul3 (%s H): GPU bytes differ from the CPU's",
              monomial ? "monomial" : "odd-Lagrange");
        CHECK(!groth16_verify(&pvk, &pg, w.values + 1, 2, &err),
              "snarkjs mul3: GPU proof does not verify: %s", err.msg);
        gpu_prove_params_free(&pk);
        groth16_pvk_free(&pvk);
        cs_prover_free(&wit);
        groth16_params_free(&pk);
    }
    printf("prove snarkjs mul3 (odd-Lagrange and monomial H): GPU == CPU bytes, verified\n");
    snarkjs_zkey_free(&z);
    snarkjs_wtns_free(&w);
}

/* The figures of the witness a mode is searched for (cap_for): as it
 * is, kept packed on the device (0: none offered), and whether the mode
 * keeps it packed. */
typedef struct mode_wit {
    size_t bytes, kept;
    bool want_kept;
    gpu_prove_jobs jobs; /* what a start counts for its MSM jobs, either path */
    bool batch;          /* the plan of a batch (its jobs' room for two or a group) */
    unsigned lab_group;  /* the batch's groups wanted (residency rule 9; 0: any) */
} mode_wit;

/* w's figures on the witness-only path (path), else none but its jobs'. */
static mode_wit mode_wit_of(const cs_prover *w, bool path, bool want_kept)
{
    mode_wit m = {0, 0, want_kept, gpu_prove_jobs_bytes(w), false, 0};
    if (path) {
        m.bytes = (w->num_inputs + w->num_aux) * sizeof(fr_t);
        m.kept = gpu_prove_witness_kept_bytes(w);
    }
    return m;
}

/* The same for a batch of the n circuits w[0 .. n): the plan of a batch,
 * its jobs' figure the most of its circuits' (as the prover's run_jobs). */
static mode_wit mode_wit_batch(const cs_prover *w, size_t n, bool path, bool want_kept)
{
    mode_wit m = mode_wit_of(&w[0], path, want_kept);
    m.batch = true;
    for (size_t i = 1; i < n; i++) {
        gpu_prove_jobs j = gpu_prove_jobs_bytes(&w[i]);
        if (j.each > m.jobs.each) m.jobs = j;
    }
    m.jobs.circuits = n;
    return m;
}

/* A cap under which a start on the witness-only path streams every
 * array with three rows of a, b, c (residency.cu rule 4); 0: none. */
static size_t cap_for(const groth16_params *pk, unsigned lg, const mode_wit *w, size_t shape,
                      unsigned rows, bool shared, bool resident, bool g2_streamed, bool ss,
                      bool *g2_cpu);
static unsigned h_log(const groth16_params *pk);
static size_t streamed_cap(const groth16_params *pk, const cs_prover *w, size_t shape)
{
    mode_wit mw = mode_wit_of(w, true, false);
    return cap_for(pk, h_log(pk), &mw, shape, 3, false, false, true, false, NULL);
}

/* Points circuit i counted (G1 and B_G2). */
static uint64_t points_of(const groth16_timings *t, size_t i)
{
    return t[i].xfer.bytes[GROTH16_XFER_POINTS] + t[i].xfer.bytes[GROTH16_XFER_POINTS_G2];
}

/* Rule 9: the share of a pass's `total` bytes that circuit i of n counts,
 * the circuits proved in groups of g (the last one smaller): a k-th each,
 * the group's first circuit keeping what does not divide. */
static uint64_t group_share(uint64_t total, size_t n, unsigned g, size_t i)
{
    size_t first = i / g * g, k = n - first < g ? n - first : g;
    return i == first ? total - (k - 1) * (total / k) : total / k;
}

/* Rules 5, 8 and 9 from pk's arrays and what plan pl keeps: the group a
 * start of n circuits should prove in (four on the witness-only path's
 * batches when anything of L, A, B_G1, B_G2 streams; else one), and the
 * points circuit i counts: H's
 * streamed bytes and its group's share of L, A, B_G1's (*pts, B_G2's
 * share included) and of B_G2's (*g2). */
static unsigned expect_points(const gpu_prove_plan_info *pl, const groth16_params *pk, size_t wit,
                              size_t n, size_t i, uint64_t *pts, uint64_t *g2)
{
    const size_t counts[4] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1};
    uint64_t kept[4], g1 = 0, g2all = pl->b_g2_streamed ? pk->n_b_g2 * sizeof(g2_affine_t) : 0;
    for (int k = 0; k < 4; k++)
        kept[k] = pl->resident[k] ? 0 : counts[k] * sizeof(g1_affine_t) - pl->prefix[k];
    for (int k = 1; k < 4; k++) g1 += kept[k];
    /* groups of 4, or as many as rule 2's room holds the jobs of with the next one's */
    unsigned most = pl->jobs_slots > 1 ? pl->jobs_slots - 1 : 1;
    unsigned g = wit && n > 1 && g1 + g2all ? (most < 4 ? most : 4) : 1;
    *g2 = group_share(g2all, n, g, i);
    *pts = kept[0] + group_share(g1, n, g, i) + *g2;
    CHECK(pl->lab_group == g && pl->streamed == kept[0] + (g1 + g2all) / g,
          "plan: %zu circuits (witness %zu bytes, %u rows): groups of %u, %zu streamed per "
          "partition; expected %u, %llu",
          n, wit, pl->abc_rows, pl->lab_group, pl->streamed, g,
          (unsigned long long)(kept[0] + (g1 + g2all) / g));
    return g;
}

/* Rule 9 under plan pl (a batch whose L/A/B passes are shared): each
 * circuit counts H's points and its group's share of the passes. */
static void check_group_points(const char *what, const gpu_prove_plan_info *pl,
                               const groth16_params *pk, size_t wit, const groth16_timings *t,
                               size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t want, g2;
        unsigned g = expect_points(pl, pk, wit, n, i, &want, &g2);
        CHECK(points_of(t, i) == want,
              "%s, circuit %zu of %zu: %llu bytes of points streamed, expected %llu (groups of "
              "%u; the plan's %zu per partition)",
              what, i, n, (unsigned long long)points_of(t, i), (unsigned long long)want, g,
              pl->streamed);
    }
}

/* The MSM calls of a pass: one per chunk of an array's points for whole
 * jobs (random values); split jobs (a bit witness, tails in every chunk)
 * gather their tails of several chunks before one call sums them
 * (stream.cu), so they make fewer calls than the chunks; with regions
 * smaller than a chunk's tails (sliced), more. */
static void check_msm_calls(const char *what, const gpu_prove_plan_info *pl,
                            const groth16_params *pk, const groth16_timings *t, size_t n,
                            bool split, bool sliced)
{
    const size_t g1[3] = {pk->n_l, pk->n_a, pk->n_b_g1};
    size_t c2 = pl->chunk_g2 < 64 ? 64 : pl->chunk_g2; /* b2_pass's bitmap words */
    uint64_t chunks = 0;
    for (int k = 0; k < 3; k++) chunks += (g1[k] + pl->chunk - 1) / pl->chunk;
    if (pl->resident[4] || pl->b_g2_streamed) chunks += (pk->n_b_g2 + c2 - 1) / c2;
    for (size_t i = 0; i < n; i++)
        CHECK(sliced  ? t[i].msm_calls > chunks
              : split ? t[i].msm_calls > 0 && t[i].msm_calls < chunks
                      : t[i].msm_calls == chunks,
              "%s, circuit %zu of %zu: %llu MSM calls for L, A, B_G1 and B_G2 in %llu chunks "
              "(fewer expected for split jobs, as many for whole ones, more in slices)",
              what, i, n, (unsigned long long)t[i].msm_calls, (unsigned long long)chunks);
}

/* A batch of n proved with every split job's tails gathered and summed in
 * slices of 8 points (gpu_prove_set_tail_region): the CPU's proofs
 * byte for byte, in more MSM calls than chunks; *pl the plan it ran. */
static void prove_in_slices(groth16_proof *gpu, const groth16_proof *cpu, const groth16_params *pk,
                            const cs_prover *w, size_t n, const fr_t *rs, groth16_timings *t,
                            gpu_prove_plan_info *pl, const char *what)
{
    cuzk_err err = {0};
    memset(t, 0, n * sizeof *t);
    gpu_prove_set_tail_region(8);
    int rc = gpu_groth16_prove(gpu, pk, w, n, rs, t, &err);
    gpu_prove_set_tail_region(0);
    gpu_prove_device_plan(0, pl);
    CHECK(!rc && !memcmp(gpu, cpu, n * sizeof *gpu), "%s, tails in slices of 8: rc %d (%s)", what,
          rc, err.msg);
    check_msm_calls(what, pl, pk, t, rc ? 0 : n, false, true);
}

/* A feed for gpu_prove_start_fed: circuits w[1..] in the numbers of
 * `plan` (then none), the consumed ones counted in order and wiped (as
 * the engine gives their storage back). */
typedef struct feed_run {
    cs_prover *w;
    size_t given, step, consumed;
    const size_t *plan;
    size_t plan_n;
    bool in_order;
} feed_run;

static size_t feed_more(void *ctx, const cs_prover **circuits, size_t room)
{
    feed_run *f = ctx;
    if (f->step >= f->plan_n) return 0;
    size_t m = f->plan[f->step++];
    if (m > room) m = room;
    *circuits = f->w + f->given;
    f->given += m;
    return m;
}

static void feed_consumed(void *ctx, size_t i)
{
    feed_run *f = ctx;
    f->in_order &= i == f->consumed++;
    memset(&f->w[i], 0, sizeof f->w[i]);
}

/* A fed start on the witness-only path: one circuit given, four fed as
 * the loads end (two, one, one, then none): five proofs that verify, each
 * circuit consumed in order; then a fed circuit of another shape is
 * refused with an error naming it, and the device proves on. */
static void check_feed(cuzk_rng *g, bool streamed)
{
    enum { N = 5 };
    prod_circuit p[N];
    cs_circuit c[N];
    fr_t in[2 * N];
    uint64_t shape_seed = cuzk_rng_u64(g);
    for (size_t i = 0; i < N; i++) {
        p[i] = (prod_circuit){3000, 500, PAT_BITS, shape_seed, cuzk_rng_u64(g)};
        c[i] = (cs_circuit){prod_synthesize, &p[i]};
        prod_inputs(&p[i], &in[2 * i]);
    }
    cuzk_err err = {0};
    groth16_params pk;
    groth16_pvk pvk;
    cs_shape *shape = NULL, *other = NULL;
    cs_prover w[N] = {{0}};
    groth16_proof proofs[N];
    if (groth16_setup_dev(&pk, c[0], cuzk_rng_u64(g), &err) ||
        groth16_prepare_vk(&pvk, &pk.vk, &err)) {
        CHECK(0, "feed: setup: %s", err.msg);
        return;
    }
    int rc = cs_shape_record(&shape, c[0], &err);
    if (!rc) rc = cs_shape_record(&other, c[0], &err);
    for (size_t i = 0; !rc && i < N; i++)
        rc = cs_synthesize_for_shape(&w[i], c[i], shape, NULL, &err);
    CHECK(rc == 0, "feed: witness: %s", err.msg);
    size_t wit = (w[0].num_inputs + w[0].num_aux) * sizeof(fr_t);
    if (streamed) gpu_prove_set_chunk_goal(1024); /* rule 4's modes within reach */
    size_t cap = rc || !streamed ? 0 : streamed_cap(&pk, &w[0], gpu_shape_upload_bytes(shape));
    CHECK(!streamed || cap, "feed: no cap streams every array");
    gpu_prove_set_device_memory(cap);
    const size_t plan[] = {2, 1, 1};
    cs_prover run[N]; /* the start's view, wiped as consumed */
    memcpy(run, w, sizeof run);
    feed_run f = {run, 1, 0, 0, plan, 3, true};
    gpu_prove_feed feed = {&f, N, feed_more, feed_consumed};
    gpu_prove_pending *pend = NULL;
    if (!rc) rc = gpu_prove_start_fed(&pend, 0, &pk, run, 1, &feed, &err);
    CHECK(rc == 0, "feed: start: %s", err.msg);
    size_t count = rc ? 0 : gpu_prove_count(pend);
    groth16_timings t[N];
    memset(t, 0, sizeof t);
    if (!rc) rc = gpu_prove_finish(pend, proofs, t, &err);
    CHECK(rc == 0 && count == N && f.consumed == N && f.in_order,
          "feed: rc %d (%s), %zu proofs, %zu consumed (in order: %d)", rc, err.msg, count,
          f.consumed, f.in_order);
    for (size_t i = 0; !rc && i < count; i++)
        CHECK(!groth16_verify(&pvk, &proofs[i], &in[2 * i], 2, &err),
              "feed: circuit %zu does not verify: %s", i, err.msg);
    if (!rc && streamed) { /* rule 9: circuits 0 .. 3 grouped as fed, 4 alone */
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        CHECK(pl.lab_group > 1, "feed, streamed: the plan groups no circuits");
        check_group_points("feed, streamed", &pl, &pk, wit, t, count);
    }
    gpu_prove_set_device_memory(0);
    gpu_prove_set_chunk_goal(0);
    if (!rc && !streamed) {
        cs_prover odd = w[1];
        odd.shape = other; /* the same counts, a shape the start did not make ready */
        cs_prover two[2] = {w[0], odd};
        const size_t one[] = {1};
        feed_run h = {two, 1, 0, 0, one, 1, true};
        gpu_prove_feed hf = {&h, 2, feed_more, feed_consumed};
        rc = gpu_prove_start_fed(&pend, 0, &pk, two, 1, &hf, &err);
        CHECK(rc != 0 && strstr(err.msg, "circuit 1: gpu prove: a fed circuit of another shape") &&
                  h.consumed == 1,
              "feed: another shape: rc %d (%s), %zu consumed", rc, err.msg, h.consumed);
        rc = gpu_groth16_prove(proofs, &pk, w, 1, NULL, NULL, &err);
        CHECK(rc == 0 && !groth16_verify(&pvk, &proofs[0], in, 2, &err),
              "feed: the device after a refused circuit: %s", err.msg);
        printf("prove: a fed start: 1 + 4 circuits fed as the loads end, verified, consumed in "
               "order; a fed circuit of another shape refused (%s)\n",
               "gpu prove: a fed circuit of another shape");
    }
    if (!rc && streamed)
        printf("prove: a fed start with every array streamed: 1 + 4 circuits verified, L/A/B "
               "passes shared by circuits 0 .. 3 (residency rule 9)\n");
    gpu_prove_params_free(&pk);
    gpu_shape_forget(shape);
    gpu_shape_forget(other);
    cs_shape_free(shape);
    cs_shape_free(other);
    for (size_t i = 0; i < N; i++) cs_prover_free(&w[i]);
    groth16_params_free(&pk);
    groth16_pvk_free(&pvk);
}

static void check_wrong_shape(cuzk_rng *g)
{
    prod_circuit p1 = {1100, 16, PAT_RANDOM, 1, 2}, p2 = {1200, 16, PAT_RANDOM, 1, 2};
    cs_circuit c1 = {prod_synthesize, &p1}, c2 = {prod_synthesize, &p2};
    groth16_params pk;
    cs_prover w;
    groth16_proof proof;
    cuzk_err err = {0};
    if (groth16_setup_dev(&pk, c1, cuzk_rng_u64(g), &err) ||
        cs_synthesize_prover(&w, c2, NULL, &err)) {
        CHECK(0, "wrong shape setup: %s", err.msg);
        return;
    }
    int rc = gpu_groth16_prove(&proof, &pk, &w, 1, NULL, NULL, &err);
    CHECK(rc == CUZK_EINVAL, "wrong shape: rc %d (%s)", rc, err.msg);
    printf("prove: a witness of another shape is refused: %s\n", err.msg);
    gpu_prove_params_free(&pk);
    cs_prover_free(&w);
    groth16_params_free(&pk);
}

int gpu_check_dense_circuit(cuzk_rng *g, groth16_params *pk, cs_shape **shape, cs_prover *w,
                            cuzk_err *err)
{
    return make_prod(pk, shape, w, 3000, 500, PAT_RANDOM, g, err);
}

int gpu_check_witness_circuit(cuzk_rng *g, bool satisfied, groth16_params *pk, cs_shape **shape,
                              cs_prover *w, cuzk_err *err)
{
    cs_synthetic syn = {3000, cuzk_rng_u64(g)};
    cs_circuit good = cs_synthetic_circuit(&syn);
    *shape = NULL;
    memset(w, 0, sizeof *w);
    int rc = groth16_setup_dev(pk, good, cuzk_rng_u64(g), err);
    if (rc) {
        memset(pk, 0, sizeof *pk);
        return rc;
    }
    rc = cs_shape_record(shape, good, err);
    cs_circuit c = satisfied ? good : cs_synthetic_circuit_unsatisfied(&syn);
    if (!rc) rc = cs_synthesize_for_shape(w, c, *shape, NULL, err);
    return rc;
}

void gpu_check_witness_circuit_free(groth16_params *pk, cs_shape *shape, cs_prover *w, size_t n)
{
    gpu_prove_params_free(pk);
    if (shape) gpu_shape_forget(shape);
    cs_shape_free(shape);
    for (size_t i = 0; i < n; i++) cs_prover_free(&w[i]);
    groth16_params_free(pk);
}

/* A witness that fails a constraint on the witness-only path: the
 * device's check refuses it before anything is proved, naming the
 * constraint (cs_synthetic_circuit_unsatisfied: constraint 130). */
static void check_unsatisfied(cuzk_rng *g)
{
    groth16_params pk;
    cs_shape *shape;
    cs_prover w;
    groth16_proof proof;
    cuzk_err err = {0};
    int rc = gpu_check_witness_circuit(g, false, &pk, &shape, &w, &err);
    CHECK(rc == 0, "unsatisfied: setup and witness: %s", err.msg);
    if (!rc) {
        rc = gpu_groth16_prove(&proof, &pk, &w, 1, NULL, NULL, &err);
        CHECK(rc == CUZK_EINVAL && strstr(err.msg, "constraint 130 is not satisfied"),
              "unsatisfied witness on the device: rc %d (%s)", rc, err.msg);
        printf("prove: an unsatisfied witness is refused on the device: %s\n", err.msg);
    }
    gpu_check_witness_circuit_free(&pk, shape, &w, 1);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A request of the engine's test family for `partitions` circuits of
 * `constraints`, from seed, none of them bad. */
static void gpu_check_test_record(uint8_t rec[ENGINE_TEST_RECORD_BYTES], uint32_t constraints,
                                  uint32_t partitions, uint32_t seed)
{
    memset(rec, 0, ENGINE_TEST_RECORD_BYTES);
    memcpy(rec, ENGINE_TEST_MAGIC, 8);
    put32(rec + 8, constraints);
    put32(rec + 12, partitions);
    put32(rec + 16, seed);
    put32(rec + 24, 0xffffffffu); /* no bad partition */
}

engine_t *gpu_check_engine(char dir[64], const char *name, cuzk_err *err)
{
    snprintf(dir, 64, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(dir)) {
        cuzk_errf(err, CUZK_EIO, "mkdtemp %s", dir);
        return NULL;
    }
    engine_log_set_level("error");
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    cfg.small_lane_max_log = 12; /* the test circuits' domain: a lane of a few MB */
    cfg.small_lane_params = 8 << 20;
    engine_t *e;
    if (engine_create(&e, &cfg, &engine_cuda_backend, err)) return NULL;
    if (engine_register_provider(e, &engine_test_provider, err)) {
        engine_destroy(e);
        return NULL;
    }
    return e;
}

int gpu_check_engine_job(engine_t *e, uint32_t partitions, uint32_t seed, engine_result *res,
                         cuzk_err *err)
{
    uint8_t rec[ENGINE_TEST_RECORD_BYTES];
    gpu_check_test_record(rec, 3000, partitions, seed);
    engine_request r = {
        .kind = ENGINE_POREP, .priority = ENGINE_PRIO_NORMAL, .vanilla_proof = {rec, sizeof rec}};
    char id[ENGINE_ID_MAX];
    int rc = engine_submit(e, &r, id, NULL, err);
    return rc ? rc : engine_await(e, id, 0, res, NULL, NULL, err);
}

void gpu_check_engine_done(engine_t *e, const char *dir)
{
    engine_destroy(e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) printf("note: could not remove %s\n", dir);
}

/* The engine on the CUDA backend: a 3-partition test-family request
 * completes, so each partition self-verified; GetStatus shows the device
 * and its free memory; evicting the circuit's SRS drops the device copy of
 * its points too (the backend's params_unloaded). */
static void check_engine(void)
{
    char dir[64];
    cuzk_err err = {0};
    gpu_prove_release(); /* an empty device parameter cache to start from */
    engine_t *e = gpu_check_engine(dir, "cuzk-gpu-engine", &err);
    if (!e) {
        CHECK(0, "engine: %s", err.msg);
        return;
    }
    engine_result res = {0};
    engine_status_t st;
    int rc = gpu_check_engine_job(e, 3, 7, &res, &err);
    CHECK(!rc && res.status == ENGINE_COMPLETED && res.proof_len == 3 * GROTH16_PROOF_BYTES,
          "engine (cuda): rc %d status %d: %s %s", rc, (int)res.status, err.msg, res.error);
    if (!engine_status(e, &st, &err)) {
        CHECK(st.n_devices == 1 && strstr(st.devices[0].name, "cuda:0"),
              "engine status: device '%s'", st.n_devices ? st.devices[0].name : "none");
        CHECK(st.n_devices == 1 && st.devices[0].vram_free > 0 &&
                  st.devices[0].vram_free < st.devices[0].vram_total,
              "engine status: free device memory not reported");
        printf("engine: cuda backend, device %s: 3 partitions proved and self-verified\n",
               st.n_devices ? st.devices[0].name : "none");
        engine_status_free(&st);
    }
    size_t cached = gpu_prove_params_bytes();
    bool was = false;
    uint64_t freed = 0;
    /* at once: the items let go of the SRS before their jobs complete */
    rc = engine_evict(e, "test-3000", &was, &freed, &err);
    CHECK(!rc && was && freed > 0 && cached > 0 && gpu_prove_params_bytes() == 0,
          "engine evict: rc %d (%s), %zu bytes of device points before, %zu after", rc, err.msg,
          cached, gpu_prove_params_bytes());
    engine_result_free(&res);
    gpu_check_engine_done(e, dir);
}

/* A batch proved on one device (one thread of check_devices_at_once). */
typedef struct device_run {
    int device;
    const groth16_params *pk;
    const cs_prover *w;
    size_t n;
    const fr_t *rs;
    groth16_proof *proofs;
    int rc;
    cuzk_err err;
} device_run;

static void *device_prove(void *arg)
{
    device_run *r = arg;
    gpu_prove_pending *p;
    r->rc = gpu_prove_start(&p, r->device, r->pk, r->w, r->n, r->rs, &r->err);
    if (!r->rc) r->rc = gpu_prove_finish(p, r->proofs, NULL, &r->err);
    return NULL;
}

/* A batch of two bit-heavy product circuits (split jobs: batch addition
 * and tail MSMs) proved on devices 0 .. n_dev - 1 at once, one thread a
 * device; each device's proofs equal the CPU's, and each device holds its
 * own copy of the parameters. */
static void check_devices_at_once(size_t n_dev, cuzk_rng *g)
{
    prod_circuit p[2];
    cs_circuit c[2];
    cs_prover w[2];
    fr_t rs[4];
    groth16_params pk;
    groth16_proof cpu[2], *gpu = calloc(2 * n_dev, sizeof *gpu);
    device_run *runs = calloc(n_dev, sizeof *runs);
    pthread_t *th = calloc(n_dev, sizeof *th);
    cuzk_err err = {0};
    uint64_t shape = cuzk_rng_u64(g);
    for (int i = 0; i < 2; i++) {
        p[i] = (prod_circuit){1000, 200, PAT_BITS, shape, cuzk_rng_u64(g)};
        c[i] = (cs_circuit){prod_synthesize, &p[i]};
        fr_random(&rs[2 * i], g), fr_random(&rs[2 * i + 1], g);
    }
    if (!gpu || !runs || !th || groth16_setup_dev(&pk, c[0], cuzk_rng_u64(g), &err) ||
        cs_synthesize_prover(&w[0], c[0], NULL, &err) ||
        cs_synthesize_prover(&w[1], c[1], NULL, &err) ||
        groth16_prove(cpu, &pk, w, 2, rs, NULL, &err)) {
        CHECK(0, "devices: setup: %s", err.msg);
        return;
    }
    gpu_prove_release();
    for (size_t d = 0; d < n_dev; d++) {
        runs[d] = (device_run){(int)d, &pk, w, 2, rs, gpu + 2 * d, 0, {0}};
        if (pthread_create(&th[d], NULL, device_prove, &runs[d])) device_prove(&runs[d]), th[d] = 0;
    }
    for (size_t d = 0; d < n_dev; d++) {
        if (th[d]) pthread_join(th[d], NULL);
        CHECK(runs[d].rc == 0, "device %zu: %s", d, runs[d].err.msg);
        CHECK(runs[d].rc || !memcmp(gpu + 2 * d, cpu, sizeof cpu),
              "device %zu: proofs differ from the CPU's", d);
        CHECK(gpu_prove_device_params_bytes((int)d) == gpu_prove_device_params_bytes(0) &&
                  gpu_prove_device_params_bytes((int)d) > 0,
              "device %zu holds %zu bytes of parameters, device 0 %zu", d,
              gpu_prove_device_params_bytes((int)d), gpu_prove_device_params_bytes(0));
    }
    printf("devices: a batch of 2 proved on %zu devices at once, each == CPU, each with its own "
           "%zu bytes of parameters\n",
           n_dev, gpu_prove_device_params_bytes(0));
    gpu_prove_params_free(&pk);
    CHECK(gpu_prove_params_bytes() == 0, "devices: parameters left after gpu_prove_params_free");
    groth16_params_free(&pk);
    cs_prover_free(&w[0]), cs_prover_free(&w[1]);
    free(gpu), free(runs), free(th);
}

/* The engine over every device: a test job of 4 partitions completes
 * (each self-verified), every device idle and in service after it, and
 * the partitions each proved add up (how they spread depends on timing:
 * test_engine_multigpu checks the spreading itself). */
static void check_engine_devices(size_t n_dev)
{
    char dir[64];
    cuzk_err err = {0};
    engine_t *e = gpu_check_engine(dir, "cuzk-gpu-devices", &err);
    if (!e) {
        CHECK(0, "engine: %s", err.msg);
        return;
    }
    engine_result res = {0};
    int rc = gpu_check_engine_job(e, 4, 11, &res, &err);
    CHECK(!rc && res.status == ENGINE_COMPLETED, "engine on %zu devices: rc %d status %d: %s %s",
          n_dev, rc, (int)res.status, err.msg, res.error);
    engine_status_t st;
    if (!engine_status(e, &st, &err)) {
        size_t used = 0;
        uint64_t parts = 0;
        for (size_t i = 0; i < st.n_devices; i++) {
            used += st.devices[i].partitions > 0;
            parts += st.devices[i].partitions;
            CHECK(!strcmp(st.devices[i].state, "idle"), "device %u: %s (%s)", st.devices[i].ordinal,
                  st.devices[i].state, st.devices[i].error);
        }
        CHECK(st.n_devices == n_dev && parts == 4,
              "engine: %zu devices, %zu of them proved, %llu partitions", st.n_devices, used,
              (unsigned long long)parts);
        printf("engine: 4 partitions over %zu devices, %zu of them proving\n", st.n_devices, used);
        engine_status_free(&st);
    }
    engine_result_free(&res);
    gpu_check_engine_done(e, dir);
}

/* The log of pk's domain (its H holds one point less). */
static unsigned h_log(const groth16_params *pk)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < pk->n_h + 1) lg++;
    return lg;
}

/* Whether every G1 array of plan pl is resident. */
static bool g1_resident(const gpu_prove_plan_info *pl)
{
    return pl->resident[0] && pl->resident[1] && pl->resident[2] && pl->resident[3];
}

/* Where a plan puts B_G2: kept on the device, streamed from host memory,
 * or left to the CPU (no room even for its stream). */
typedef enum { G2_KEPT, G2_STREAMED, G2_CPU } g2_where;

static g2_where g2_of(const gpu_prove_plan_info *pl)
{
    return pl->resident[4] ? G2_KEPT : pl->b_g2_streamed ? G2_STREAMED : G2_CPU;
}

/* The least cap (gpus.device_memory) under which the plan for pk's
 * circuits (domain 2^lg, wit and shape device bytes) keeps `rows` rows
 * of a, b, c on the device (the witness sharing the one row or not),
 * every G1 array resident or not, and B_G2 where g2 says: stepping up
 * from the least in steps of CAP_STEP bytes (a 4096th of caps above 16
 * MiB) of plan arithmetic; 0 when no cap gives that mode. A mode holds
 * over a narrow range of caps for these small circuits: one row fewer for
 * one row's bytes (128 KiB at 2^12) where the MSM workspace hardly
 * depends on the chunk (a real device's: CUB's and the buckets' floor);
 * steps of a 64th of the cap (200 KiB) found no cap for the 1- and 2-row
 * modes on the H200 (2026-12-03), while the stand-in runtime's workspace
 * model hit them. */
#define CAP_STEP ((size_t)4096)
static size_t step_at(size_t cap)
{
    return cap / 4096 > CAP_STEP ? cap / 4096 : CAP_STEP;
}

static size_t cap_search(const groth16_params *pk, unsigned lg, const mode_wit *w, size_t shape,
                         unsigned rows, bool shared, bool resident, g2_where g2, bool ss)
{
    size_t least = gpu_prove_min_device_memory(lg, w->bytes, shape);
    for (size_t cap = least; cap < 4096 * least; cap += step_at(cap)) {
        gpu_prove_plan_info pl;
        cuzk_err err = {0};
        if (gpu_prove_plan_for(&pl, pk, lg, w->bytes, w->kept, shape, &w->jobs, w->batch, cap,
                               &err))
            continue;
        if (pl.abc_rows == rows && pl.witness_shared == shared && g1_resident(&pl) == resident &&
            g2_of(&pl) == g2 && pl.shape_streamed == ss && pl.witness_kept == w->want_kept &&
            (!w->lab_group || pl.lab_group == w->lab_group))
            return cap;
    }
    return 0;
}

/* cap_search for B_G2 kept (!g2_streamed) or streamed. On a real device
 * the small circuits' modes with fewer than three rows (and the resident
 * one beside a streamed B_G2) may leave no room for B_G2's stream, whose
 * MSM workspace has the device's floor (on the H200 none of them does):
 * then the same mode with B_G2 on the CPU, the plan's own fallback, is
 * the one this device can run, and *g2_cpu says so (NULL: not wanted).
 * With no cap at all, the modes the caps gave are printed where they
 * change. */
static size_t cap_for(const groth16_params *pk, unsigned lg, const mode_wit *w, size_t shape,
                      unsigned rows, bool shared, bool resident, bool g2_streamed, bool ss,
                      bool *g2_cpu)
{
    if (g2_cpu) *g2_cpu = false;
    size_t cap = cap_search(pk, lg, w, shape, rows, shared, resident,
                            g2_streamed ? G2_STREAMED : G2_KEPT, ss);
    if (!cap && g2_streamed && g2_cpu) {
        cap = cap_search(pk, lg, w, shape, rows, shared, resident, G2_CPU, ss);
        *g2_cpu = cap != 0;
    }
    if (cap) return cap;
    /* none: the modes the caps gave, for the log (where they change) */
    size_t least = gpu_prove_min_device_memory(lg, w->bytes, shape);
    char last[96] = "";
    for (cap = least; cap < 64 * least; cap += step_at(cap)) {
        gpu_prove_plan_info pl;
        cuzk_err err = {0};
        char now[96];
        if (gpu_prove_plan_for(&pl, pk, lg, w->bytes, w->kept, shape, &w->jobs, w->batch, cap,
                               &err))
            continue;
        static const char *const where[] = {"kept", "streamed", "cpu"};
        snprintf(now, sizeof now,
                 "rows %u shared %d g1 resident %d b_g2 %s shape streamed %d witness kept %d",
                 pl.abc_rows, pl.witness_shared, g1_resident(&pl), where[g2_of(&pl)],
                 pl.shape_streamed, pl.witness_kept);
        if (strcmp(now, last)) printf("  cap %zu: %s\n", cap, now);
        snprintf(last, sizeof last, "%s", now);
    }
    return 0;
}

long long (*gpu_check_copied)(bool to_host);

void gpu_check_copied_now(long long out[2])
{
    for (int k = 0; k < 2; k++) out[k] = gpu_check_copied ? gpu_check_copied(k == 1) : 0;
}

/* Circuit i's bytes of kind k (GROTH16_XFER_*). */
static uint64_t xb(const groth16_timings *t, size_t i, int k)
{
    return t[i].xfer.bytes[k];
}

int gpu_check_xfer(const char *what, const gpu_prove_plan_info *pl, const groth16_params *pk,
                   const cs_prover *w, size_t wit, const groth16_timings *t, size_t n,
                   const long long copied0[2])
{
    int before = failures;
    unsigned lg = 0;
    while (((size_t)1 << lg) < pk->n_h + 1) lg++;
    size_t row = ((size_t)32 << lg), used = w->num_constraints * sizeof(fr_t);
    bool shared = pl->abc_rows == 1 && pl->witness_shared;
    uint64_t parked = pl->abc_rows == 1 ? 2 * row + (shared ? 3 * used : 0) : 0;
    uint64_t input = wit ? gpu_prove_witness_upload_bytes(w) : 3 * used, h2d = 0, d2h = 0;
    if (wit && pl->witness_kept) /* and the table of where its pieces stay (wit_view.cuh) */
        input += (w->num_aux + ((size_t)1 << 17) - 1) / ((size_t)1 << 17) * sizeof(uint64_t);
    for (size_t i = 0; i < n; i++) {
        const groth16_xfer *x = &t[i].xfer;
        uint64_t sh = xb(t, i, GROTH16_XFER_SHAPE);
        CHECK(pl->shape_streamed ? sh > 0 && sh <= pl->shape_up : sh == 0,
              "%s, circuit %zu: %llu bytes of shape slices up, the plan (shape streamed %d) at "
              "most %zu",
              what, i, (unsigned long long)sh, pl->shape_streamed, pl->shape_up);
        uint64_t pts = points_of(t, i), want, g2;
        expect_points(pl, pk, wit, n, i, &want, &g2);
        CHECK(pts == want && xb(t, i, GROTH16_XFER_POINTS_G2) == g2,
              "%s, circuit %zu: %llu bytes of points streamed (B_G2 %llu), expected %llu (B_G2 "
              "%llu; the plan's %zu per partition)",
              what, i, (unsigned long long)pts,
              (unsigned long long)xb(t, i, GROTH16_XFER_POINTS_G2), (unsigned long long)want,
              (unsigned long long)g2, pl->streamed);
        CHECK(xb(t, i, GROTH16_XFER_PARK) == parked && xb(t, i, GROTH16_XFER_UNPARK) == parked &&
                  parked <= pl->parked,
              "%s, circuit %zu: %llu bytes parked, %llu back; the mode (%u rows, shared %d) %llu "
              "each way, the plan at most %zu",
              what, i, (unsigned long long)xb(t, i, GROTH16_XFER_PARK),
              (unsigned long long)xb(t, i, GROTH16_XFER_UNPARK), pl->abc_rows, shared,
              (unsigned long long)parked, pl->parked);
        CHECK(xb(t, i, GROTH16_XFER_INPUT) == input && input <= pl->input,
              "%s, circuit %zu: %llu bytes of input up, expected %llu (the plan at most %zu)", what,
              i, (unsigned long long)xb(t, i, GROTH16_XFER_INPUT), (unsigned long long)input,
              pl->input);
        CHECK(x->timed && x->copies > 0 && x->copy_ms >= 0 && x->kernel_ms > 0 &&
                  x->hidden_ms <= x->copy_ms + 1e-9,
              "%s, circuit %zu: times: timed %d, %llu copies in %.3f ms, kernels %.3f ms, "
              "hidden %.3f ms",
              what, i, x->timed, (unsigned long long)x->copies, x->copy_ms, x->kernel_ms,
              x->hidden_ms);
        h2d += x->h2d, d2h += x->d2h;
    }
    if (!gpu_check_copied) return failures - before;
    long long up = gpu_check_copied(false) - copied0[0], down = gpu_check_copied(true) - copied0[1];
    CHECK(up == (long long)h2d && down == (long long)d2h,
          "%s: the runtime copied %lld bytes up and %lld down, the prover counted %llu and %llu",
          what, up, down, (unsigned long long)h2d, (unsigned long long)d2h);
    return failures - before;
}

/* w proved under each mode of the H step: three rows with every array
 * resident (B_G2 kept, then streamed from host memory), three streamed,
 * two rows, one row (its rows parked on the host), one row the witness
 * shares (the witness-only path), B_G2 streamed in each streamed mode;
 * with fewer than three rows also as a batch of two (one a/b/c buffer,
 * the next circuit's loader behind this one's H step); each GPU proof
 * byte for byte the CPU's, the plan of the single proof the mode asked
 * for, B_G2 run on the device (the timings: a CPU B_G2 adds to total_ms
 * alone). */
static void check_modes_of(const char *what, const groth16_params *pk, const cs_prover *w,
                           size_t wit, size_t shape)
{
    static const struct {
        unsigned rows;
        bool shared, resident, g2_streamed, ss, kept;
        const char *name;
    } modes[] = {
        {3, false, true, false, false, false, "resident"},
        {3, false, true, true, false, false, "resident, B_G2 streamed"},
        {3, false, false, true, false, false, "streamed, 3 rows"},
        {2, false, false, true, false, false, "streamed, 2 rows"},
        {2, false, false, true, false, true, "streamed, 2 rows, witness kept packed"},
        {2, false, false, true, true, false, "streamed, 2 rows, shape streamed"},
        {2, false, false, true, true, true,
         "streamed, 2 rows, shape streamed, witness kept packed"},
        {1, false, false, true, false, false, "streamed, 1 row + host park"},
        {1, false, false, true, true, false, "streamed, 1 row + host park, shape streamed"},
        {1, true, false, true, false, false,
         "streamed, 1 row shared with the witness + host park"}};
    unsigned lg = h_log(pk);
    cuzk_err err = {0};
    int rc = CUZK_OK;
    cs_prover two[2] = {*w, *w};
    fr_t rs[4] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    groth16_proof cpu[2], gpu[2];
    if (groth16_prove(cpu, pk, two, 2, rs, NULL, &err)) return;
    /* a shape ring of a quarter of the shape (the default's least, 1 MiB,
     * is more than these shapes): the streamed-shape modes in reach */
    if (wit) gpu_prove_set_shape_ring(shape / 4);
    for (size_t k = 0; k < sizeof modes / sizeof *modes; k++) {
        if ((modes[k].shared || modes[k].ss || modes[k].kept) && !wit) continue;
        bool g2_cpu;
        /* the modes of the witness as it is with the packed ones switched off: they
         * take the caps of some (rule 4's order) */
        gpu_prove_set_witness_kept(modes[k].kept ? GPU_KEPT_TIGHT : GPU_KEPT_OFF);
        mode_wit mw = mode_wit_of(w, wit != 0, modes[k].kept);
        if (!modes[k].kept) mw.kept = 0;
        size_t cap = cap_for(pk, lg, &mw, shape, modes[k].rows, modes[k].shared, modes[k].resident,
                             modes[k].g2_streamed, modes[k].ss, &g2_cpu);
        CHECK(cap, "%s: no cap gives the mode %s", what, modes[k].name);
        if (!cap) continue;
        gpu_prove_set_device_memory(cap);
        groth16_timings t = {0}, tt[2];
        long long c0[2];
        gpu_check_copied_now(c0);
        rc = gpu_groth16_prove(gpu, pk, w, 1, rs, &t, &err);
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        if (!rc) gpu_check_xfer(modes[k].name, &pl, pk, w, wit, &t, 1, c0);
        /* the parked rows' host memory, which the engine's budget counts */
        CHECK(rc || (pl.park ? gpu_prove_parked_host_bytes(0) >= pl.park : true),
              "%s, %s: %zu bytes parked, %zu held for the budget", what, modes[k].name, pl.park,
              gpu_prove_parked_host_bytes(0));
        CHECK(rc || g2_cpu || t.total_ms == t.gpu_total_ms,
              "%s, %s: B_G2 on the CPU (%.1f ms of %.1f)", what, modes[k].name, t.b_g2_msm_ms,
              t.total_ms);
        CHECK(!rc && !memcmp(&gpu[0], &cpu[0], sizeof *gpu), "%s, %s: rc %d (%s), GPU == CPU: %d",
              what, modes[k].name, rc, err.msg, !rc && !memcmp(&gpu[0], &cpu[0], sizeof *gpu));
        CHECK(pl.abc_rows == modes[k].rows && pl.witness_shared == modes[k].shared &&
                  pl.witness_kept == modes[k].kept && g1_resident(&pl) == modes[k].resident &&
                  g2_of(&pl) == (!modes[k].g2_streamed ? G2_KEPT
                                 : g2_cpu              ? G2_CPU
                                                       : G2_STREAMED) &&
                  (pl.park != 0) == (modes[k].rows == 1) && pl.shape_streamed == modes[k].ss,
              "%s, %s: the plan kept %u rows (shared %d), streamed %zu bytes (B_G2 %d), parked %zu",
              what, modes[k].name, pl.abc_rows, pl.witness_shared, pl.streamed, pl.b_g2_streamed,
              pl.park);
        if (modes[k].rows < 3) { /* three rows: check_residency's batches */
            gpu_check_copied_now(c0);
            rc = gpu_groth16_prove(gpu, pk, two, 2, rs, tt, &err);
            CHECK(!rc && !memcmp(gpu, cpu, sizeof gpu), "%s, %s, batch of 2: rc %d (%s)", what,
                  modes[k].name, rc, err.msg);
            gpu_prove_plan_info pb;
            gpu_prove_device_plan(0, &pb);
            if (!rc) gpu_check_xfer(modes[k].name, &pb, pk, w, wit, tt, 2, c0);
        }
        char line[512];
        gpu_prove_format_plan(line, sizeof line, &pl);
        printf("h modes: %s, %s%s (cap %zu KiB): == CPU: %s\n", what, modes[k].name,
               g2_cpu ? " (B_G2 on the CPU: no cap streams it in this mode here)" : "", cap >> 10,
               line);
    }
    gpu_prove_set_device_memory(0);
    gpu_prove_set_shape_ring(0);
    gpu_prove_set_witness_kept(GPU_KEPT_FIRST); /* the default */
}

/* Circuits p[0 .. n) of one shape on the witness-only path: development
 * parameters from p[0], the shape recorded from it, each circuit's witness
 * for that shape, r and s (rs: 2 n) and the CPU's proofs of all, the
 * seeds drawn from g. */
static int prod_batch(groth16_params *pk, cs_shape **shape, cs_prover *w, groth16_proof *cpu,
                      fr_t *rs, prod_circuit *p, size_t n, cuzk_rng *g, cuzk_err *err)
{
    cs_circuit c = {prod_synthesize, &p[0]};
    *shape = NULL;
    for (size_t i = 0; i < 2 * n; i++) fr_random(&rs[i], g);
    int rc = groth16_setup_dev(pk, c, cuzk_rng_u64(g), err);
    if (rc) memset(pk, 0, sizeof *pk);
    if (!rc) rc = cs_shape_record(shape, c, err);
    for (size_t i = 0; !rc && i < n; i++) {
        c.ctx = &p[i];
        rc = cs_synthesize_for_shape(&w[i], c, *shape, NULL, err);
    }
    return rc ? rc : groth16_prove(cpu, pk, w, n, rs, NULL, err);
}

/* Rule 9 on the witness-only path with every array streamed: a batch's
 * circuits proved in groups of four, one pass of L, A, B_G1 and B_G2
 * serving a group, for jobs that split (a bit witness) and whole ones
 * (random values), with three rows (the next loader waiting for the a/b/c
 * buffer itself) and one row (the H step in pieces, the next loader
 * starting at witness_read). Batches of 5 and 3: each proof the CPU's byte
 * for byte, each circuit counting H's points and its group's share of the
 * passes (the last group smaller), and the runtime copying what the
 * prover counted. */
static void check_groups(cuzk_rng *g)
{
    enum { N = 5 };
    static const int pats[2] = {PAT_BITS, PAT_RANDOM};
    gpu_prove_set_chunk_goal(1024);
    for (int d = 0; d < 2; d++) {
        prod_circuit p[N];
        uint64_t shape_seed = cuzk_rng_u64(g);
        for (size_t i = 0; i < N; i++)
            p[i] = (prod_circuit){3000, 500, pats[d], shape_seed, cuzk_rng_u64(g)};
        cuzk_err err = {0};
        groth16_params pk;
        cs_shape *shape;
        cs_prover w[N] = {{0}};
        fr_t rs[2 * N];
        groth16_proof cpu[N], gpu[N];
        int rc = prod_batch(&pk, &shape, w, cpu, rs, p, N, g, &err);
        CHECK(!rc, "groups: setup: %s", err.msg);
        size_t wit = (w[0].num_inputs + w[0].num_aux) * sizeof(fr_t);
        mode_wit mw = mode_wit_batch(w, N, true, false);
        const char *kind = d ? "whole jobs" : "split jobs";
        static const unsigned modes[2] = {3, 1}; /* rows: a/b/c at once, the H step in pieces */
        for (int m = 0; !rc && m < 2; m++) {
            unsigned rows = modes[m];
            bool g2_cpu;
            mw.lab_group = 4; /* groups of 4 where a cap gives them (rule 2's room), else any */
            size_t cap = cap_for(&pk, h_log(&pk), &mw, gpu_shape_upload_bytes(shape), rows, false,
                                 false, true, false, &g2_cpu);
            mw.lab_group = 0;
            bool fours = cap != 0;
            if (!cap)
                cap = cap_for(&pk, h_log(&pk), &mw, gpu_shape_upload_bytes(shape), rows, false,
                              false, true, false, &g2_cpu);
            CHECK(cap, "groups: no cap streams every array with %u rows", rows);
            unsigned group = 0;
            if (!cap) continue;
            gpu_prove_set_device_memory(cap);
            for (size_t n = N; n >= N - 2; n -= 2) {
                groth16_timings t[N];
                memset(t, 0, sizeof t);
                long long c0[2];
                gpu_check_copied_now(c0);
                int prc = gpu_groth16_prove(gpu, &pk, w, n, rs, t, &err);
                CHECK(!prc && !memcmp(gpu, cpu, n * sizeof *gpu),
                      "groups, %s, %u rows, %zu circuits: rc %d (%s)", kind, rows, n, prc, err.msg);
                if (prc) continue;
                gpu_prove_plan_info pl;
                gpu_prove_device_plan(0, &pl);
                group = pl.lab_group;
                CHECK(!fours || group == 4, "groups, %s, %u rows: groups of %u at a cap for 4",
                      kind, rows, group);
                check_group_points(kind, &pl, &pk, wit, t, n);
                check_msm_calls(kind, &pl, &pk, t, n, d == 0, false);
                long long up = 0, counted = 0;
                if (gpu_check_copied) up = gpu_check_copied(false) - c0[0];
                for (size_t i = 0; i < n; i++) counted += (long long)t[i].xfer.h2d;
                CHECK(!gpu_check_copied || up == counted,
                      "groups, %s, %u rows, %zu circuits: the runtime copied %lld bytes up, the "
                      "prover counted %lld",
                      kind, rows, n, up, counted);
            }
            if (d == 0) { /* regions of 8 tails: every chunk's tails summed in slices */
                groth16_timings t[N];
                gpu_prove_plan_info pl;
                prove_in_slices(gpu, cpu, &pk, w, N, rs, t, &pl, "groups, streamed");
            }
            printf("prove: groups of %u (residency rule 9), %s, %u rows: batches of 5 and 3 with "
                   "every %sarray streamed == CPU, each group's L/A/B passes shared%s\n",
                   group, kind, rows, g2_cpu ? "G1 (B_G2 on the CPU: no cap streams it here) " : "",
                   d == 0 ? "; tails gathered over chunks, and in slices of 8" : "");
        }
        gpu_prove_set_device_memory(0);
        if (d == 0 && !rc) { /* resident: one call an array, its tails in slices of 8 */
            groth16_timings t[N];
            gpu_prove_plan_info pl;
            prove_in_slices(gpu, cpu, &pk, w, N, rs, t, &pl, "groups, resident");
            size_t most = pk.n_l > pk.n_a ? pk.n_l : pk.n_a;
            most = most > pk.n_b_g1 ? most : pk.n_b_g1;
            CHECK(pl.resident[1] && pl.chunk >= most,
                  "groups, resident: not one MSM call an array (chunk %zu, arrays of %zu)",
                  pl.chunk, most);
            printf("prove: resident, one MSM call an array, a job's tails in slices of 8 (the "
                   "plan's bounded gather buffer) == CPU\n");
        }
        gpu_check_witness_circuit_free(&pk, shape, w, N);
    }
    gpu_prove_set_chunk_goal(0);
}

/* Rule 9's groups with a bad member: a batch of three on the witness-only
 * path with every array streamed (groups of four), its second circuit's
 * witness unsatisfied, with three rows (refused by its loader) and one
 * row (by its H step, run as a member of circuit 0's group): the start
 * fails naming circuit 1 and its constraint, and the device then proves
 * the good ones. */
static void check_group_refusal(cuzk_rng *g)
{
    gpu_prove_set_chunk_goal(1024);
    cs_synthetic syn = {3000, cuzk_rng_u64(g)};
    cs_circuit good = cs_synthetic_circuit(&syn), bad = cs_synthetic_circuit_unsatisfied(&syn);
    groth16_params pk;
    cs_shape *shape = NULL;
    cs_prover w[3] = {{0}};
    cuzk_err err = {0};
    int rc = groth16_setup_dev(&pk, good, cuzk_rng_u64(g), &err);
    if (rc) memset(&pk, 0, sizeof pk);
    if (!rc) rc = cs_shape_record(&shape, good, &err);
    for (size_t i = 0; !rc && i < 3; i++)
        rc = cs_synthesize_for_shape(&w[i], i == 1 ? bad : good, shape, NULL, &err);
    CHECK(!rc, "group refusal: setup: %s", err.msg);
    mode_wit mw = mode_wit_of(&w[0], !rc, false);
    static const unsigned modes[2] = {3, 1};
    for (int m = 0; !rc && m < 2; m++) {
        bool g2_cpu;
        size_t cap = cap_for(&pk, h_log(&pk), &mw, gpu_shape_upload_bytes(shape), modes[m], false,
                             false, true, false, &g2_cpu);
        CHECK(cap, "group refusal: no cap streams every array with %u rows", modes[m]);
        if (!cap) continue;
        gpu_prove_set_device_memory(cap);
        groth16_proof proofs[3];
        int prc = gpu_groth16_prove(proofs, &pk, w, 3, NULL, NULL, &err);
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        CHECK(prc == CUZK_EINVAL && pl.lab_group == 4 && strstr(err.msg, "circuit 1: ") &&
                  strstr(err.msg, "constraint 130 is not satisfied"),
              "group refusal, %u rows (groups of %u): rc %d (%s)", modes[m], pl.lab_group, prc,
              err.msg);
        cs_prover two[2] = {w[0], w[2]};
        prc = gpu_groth16_prove(proofs, &pk, two, 2, NULL, NULL, &err);
        CHECK(prc == 0, "group refusal, %u rows: the good ones after: %s", modes[m], err.msg);
        printf("prove: a group's bad member (%u rows%s) refused naming circuit 1 and its "
               "constraint; the device proves on\n",
               modes[m], g2_cpu ? ", B_G2 on the CPU" : "");
    }
    gpu_prove_set_device_memory(0);
    gpu_prove_set_chunk_goal(0);
    gpu_check_witness_circuit_free(&pk, shape, w, 3);
}

/* A witness kept packed that needs more than the plan kept for it
 * (prove_gpu.cu's load_witness): the start plans with what its shape's
 * witnesses took so far (a bit witness's few bytes) and a circuit of the
 * same shape with random values comes in the batch: it goes as it is into
 * the a/b/c buffer's second row, its H step with one row (its rows parked
 * on the host), the others kept packed, and every proof is the CPU's byte
 * for byte; the shape's figure grows for the next start. */
static void check_kept_overflow(cuzk_rng *g)
{
    enum { N = 3 };
    static const int pats[N] = {PAT_BITS, PAT_RANDOM, PAT_BITS};
    prod_circuit p[N];
    uint64_t shape_seed = cuzk_rng_u64(g);
    uint64_t bits = cuzk_rng_u64(g); /* the two bit witnesses the same: the first's figure */
    for (size_t i = 0; i < N; i++)
        p[i] = (prod_circuit){3000, 500, pats[i], shape_seed, i == 1 ? cuzk_rng_u64(g) : bits};
    cuzk_err err = {0};
    groth16_params pk;
    cs_shape *shape;
    cs_prover w[N] = {{0}};
    fr_t rs[2 * N];
    groth16_proof cpu[N], gpu[N];
    int rc = prod_batch(&pk, &shape, w, cpu, rs, p, N, g, &err);
    CHECK(!rc, "kept overflow: setup: %s", err.msg);
    gpu_prove_release();
    gpu_prove_set_chunk_goal(1024);
    mode_wit mw = mode_wit_batch(w, rc ? 1 : N, !rc, true);
    bool g2_cpu;
    size_t cap = rc ? 0
                    : cap_for(&pk, h_log(&pk), &mw, gpu_shape_upload_bytes(shape), 2, false, false,
                              true, false, &g2_cpu);
    CHECK(rc || cap, "kept overflow: no cap keeps the bit witness packed with 2 rows");
    if (cap) {
        gpu_prove_set_device_memory(cap);
        size_t row = (size_t)32 << h_log(&pk), before = mw.kept;
        groth16_timings t[N];
        memset(t, 0, sizeof t);
        int prc = gpu_groth16_prove(gpu, &pk, w, N, rs, t, &err);
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        bool parked[N];
        for (size_t i = 0; i < N; i++)
            parked[i] =
                xb(t, i, GROTH16_XFER_PARK) == 2 * row && xb(t, i, GROTH16_XFER_UNPARK) == 2 * row;
        CHECK(!prc && !memcmp(gpu, cpu, sizeof gpu) && pl.witness_kept && pl.abc_rows == 2 &&
                  !parked[0] && parked[1] && !parked[2],
              "kept overflow: rc %d (%s), == CPU %d, plan kept %d with %u rows, rows parked "
              "%d %d %d",
              prc, err.msg, !prc && !memcmp(gpu, cpu, sizeof gpu), pl.witness_kept, pl.abc_rows,
              parked[0], parked[1], parked[2]);
        size_t after = gpu_prove_witness_kept_bytes(&w[0]);
        CHECK(after > before, "kept overflow: the shape's figure %zu after, %zu before", after,
              before);
        printf("prove: a random witness in a batch planned for a bit witness kept packed (%zu "
               "bytes) goes as it is beside the one row, its rows parked; the batch == CPU; the "
               "shape's figure now %zu bytes\n",
               before, after);
    }
    gpu_prove_set_device_memory(0);
    gpu_prove_set_chunk_goal(0);
    gpu_check_witness_circuit_free(&pk, shape, w, N);
}

/* The process's CPU time so far (user + system), ms. */
static double process_cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

/* A witness of several pieces (wit_view.cuh: 2^17 elements a piece, the
 * last partial) kept packed, through the whole prover (on a real device
 * the kernels that read it are nvcc's; the stand-in runtime's staging
 * check reads pieces packed and as they are element by element,
 * host_device.cpp): a batch of two planned with two rows and the witness
 * kept packed, each proof the CPU's byte for byte; each circuit's helper
 * threads (its loader and the staging pool's copy threads packing its
 * witness) counted some CPU, together no more than the process spent. */
static void check_kept_pieces(cuzk_rng *g)
{
    enum { N = 2 };
    prod_circuit p[N];
    uint64_t shape_seed = cuzk_rng_u64(g);
    for (size_t i = 0; i < N; i++)
        p[i] = (prod_circuit){200000, 20000, PAT_BITS, shape_seed, cuzk_rng_u64(g)};
    cuzk_err err = {0};
    groth16_params pk;
    cs_shape *shape;
    cs_prover w[N] = {{0}};
    fr_t rs[2 * N];
    groth16_proof cpu[N], gpu[N];
    int rc = prod_batch(&pk, &shape, w, cpu, rs, p, N, g, &err);
    CHECK(!rc, "kept pieces: setup: %s", err.msg);
    gpu_prove_release();
    gpu_prove_set_chunk_goal(1024);
    mode_wit mw = mode_wit_of(&w[0], !rc, true);
    size_t cap = rc ? 0
                    : cap_for(&pk, h_log(&pk), &mw, gpu_shape_upload_bytes(shape), 2, false, false,
                              true, false, NULL);
    CHECK(rc || cap, "kept pieces: no cap keeps the witness packed with 2 rows");
    if (cap) {
        gpu_prove_set_device_memory(cap);
        groth16_timings t[N];
        memset(t, 0, sizeof t);
        double cpu0 = process_cpu_ms();
        int prc = gpu_groth16_prove(gpu, &pk, w, N, rs, t, &err);
        double spent = process_cpu_ms() - cpu0;
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        CHECK(!prc && !memcmp(gpu, cpu, sizeof gpu) && pl.witness_kept && pl.abc_rows == 2,
              "kept pieces: rc %d (%s), == CPU %d, plan kept %d with %u rows", prc, err.msg,
              !prc && !memcmp(gpu, cpu, sizeof gpu), pl.witness_kept, pl.abc_rows);
        CHECK(t[0].xfer.cpu_ms > 0 && t[1].xfer.cpu_ms > 0 &&
                  t[0].xfer.cpu_ms + t[1].xfer.cpu_ms <= spent + 1,
              "kept pieces: helper CPU %.3f and %.3f ms, the process %.3f ms", t[0].xfer.cpu_ms,
              t[1].xfer.cpu_ms, spent);
        printf("prove: a witness of %zu pieces kept packed on the device (%zu bytes planned), a "
               "batch of 2 == CPU; helper threads' CPU %.1f and %.1f ms\n",
               (w[0].num_aux + ((size_t)1 << 17) - 1) >> 17, mw.kept, t[0].xfer.cpu_ms,
               t[1].xfer.cpu_ms);
    }
    gpu_prove_set_device_memory(0);
    gpu_prove_set_chunk_goal(0);
    gpu_check_witness_circuit_free(&pk, shape, w, N);
}

/* A start that plans with a mode before those keeping the witness packed
 * (here the whole device's memory: everything resident) never counts the
 * witness's packed figure (residency.cuh prove_kept): after a bit witness
 * is proved so, a random witness of its shape is given its own figure,
 * not the bit witness's (which a count at that start would have left as
 * the shape's), and that figure is larger than the bit witness's. */
static void check_kept_lazy(cuzk_rng *g)
{
    enum { N = 2 };
    static const int pats[N] = {PAT_BITS, PAT_RANDOM};
    prod_circuit p[N];
    uint64_t shape_seed = cuzk_rng_u64(g);
    for (size_t i = 0; i < N; i++)
        p[i] = (prod_circuit){3000, 500, pats[i], shape_seed, cuzk_rng_u64(g)};
    cuzk_err err = {0};
    groth16_params pk;
    cs_shape *shape;
    cs_prover w[N] = {{0}};
    fr_t rs[2 * N];
    groth16_proof cpu[N], gpu[1];
    int rc = prod_batch(&pk, &shape, w, cpu, rs, p, N, g, &err);
    CHECK(!rc, "kept lazy: setup: %s", err.msg);
    if (!rc) {
        gpu_prove_release();
        gpu_prove_set_device_memory(0);
        int prc = gpu_groth16_prove(gpu, &pk, w, 1, rs, NULL, &err);
        gpu_prove_plan_info pl;
        gpu_prove_device_plan(0, &pl);
        bool all = true;
        for (int k = 0; k < GPU_PLAN_ARRAYS; k++) all = all && pl.resident[k];
        size_t random_fig = gpu_prove_witness_kept_bytes(&w[1]);
        gpu_shape_forget(shape); /* the shape's figures too */
        size_t bits_fig = gpu_prove_witness_kept_bytes(&w[0]);
        CHECK(!prc && !memcmp(gpu, cpu, sizeof gpu) && all && !pl.witness_kept &&
                  random_fig > bits_fig,
              "kept lazy: rc %d (%s), == CPU %d, all resident %d, kept %d; the random "
              "witness's figure %zu after the start, the bit witness's %zu",
              prc, err.msg, !prc && !memcmp(gpu, cpu, sizeof gpu), all, pl.witness_kept, random_fig,
              bits_fig);
        printf("prove: a start with everything resident counts no packed witness (a random "
               "witness of its shape then planned at %zu bytes, the bit witness at %zu)\n",
               random_fig, bits_fig);
    }
    gpu_check_witness_circuit_free(&pk, shape, w, N);
}

/* The H step's modes (residency.cu rule 4) with a small chunk goal, so
 * that these small circuits reach each: the product circuit (a, b, c
 * uploaded from the host) and the witness-only one (evaluated from its
 * shape on the device, checked in pieces); an unsatisfied witness with
 * one and two rows refused naming its constraint. */
static void check_h_modes(cuzk_rng *g)
{
    gpu_prove_set_chunk_goal(1024);
    gpu_prove_release();
    groth16_params pk;
    cs_prover w;
    cuzk_err err = {0};
    int rc = make_prod(&pk, NULL, &w, 3000, 500, PAT_RANDOM, g, &err);
    CHECK(!rc, "h modes: product circuit: %s", err.msg);
    if (!rc) check_modes_of("product circuit", &pk, &w, 0, 0);
    gpu_prove_params_free(&pk);
    groth16_params_free(&pk);
    cs_prover_free(&w);
    for (int satisfied = 1; satisfied >= 0; satisfied--) {
        cs_shape *shape;
        rc = gpu_check_witness_circuit(g, satisfied, &pk, &shape, &w, &err);
        CHECK(!rc, "h modes: witness circuit: %s", err.msg);
        size_t wit = rc ? 0 : (w.num_inputs + w.num_aux) * sizeof(fr_t);
        size_t shb = rc ? 0 : gpu_shape_upload_bytes(shape);
        unsigned lg = rc ? 0 : h_log(&pk);
        if (!rc && satisfied) check_modes_of("witness path", &pk, &w, wit, shb);
        gpu_prove_set_witness_kept(GPU_KEPT_TIGHT); /* the modes with the witness as it is */
        for (unsigned m = 0; !rc && !satisfied && m < 4; m++) {
            unsigned rows = m == 0 ? 2 : 1;
            gpu_prove_set_shape_ring(m == 3 ? shb / 4 : 0); /* 3: the shape streamed */
            bool g2_cpu;
            mode_wit mw = mode_wit_of(&w, true, false);
            size_t cap = cap_for(&pk, lg, &mw, shb, rows, m == 2, false, true, m == 3, &g2_cpu);
            gpu_prove_set_device_memory(cap);
            groth16_proof proof;
            int prc = gpu_groth16_prove(&proof, &pk, &w, 1, NULL, NULL, &err);
            CHECK(cap && prc == CUZK_EINVAL && strstr(err.msg, "constraint 130 is not satisfied"),
                  "h modes: unsatisfied witness with %u rows (shared %d, shape streamed %d): rc %d "
                  "(%s)",
                  rows, m == 2, m == 3, prc, err.msg);
            gpu_prove_set_device_memory(0);
            gpu_prove_set_shape_ring(0);
        }
        gpu_prove_set_witness_kept(GPU_KEPT_FIRST); /* the default */
        if (!rc && !satisfied)
            printf("h modes: an unsatisfied witness with 2 rows, 1, 1 shared, 1 with the shape "
                   "streamed: %s\n",
                   err.msg);
        gpu_check_witness_circuit_free(&pk, shape, &w, 1);
    }
    gpu_prove_set_chunk_goal(0);
    gpu_prove_release();
    CHECK(gpu_prove_parked_host_bytes(0) == 0, "h modes: %zu parked bytes held after the release",
          gpu_prove_parked_host_bytes(0));
}

/* The plan (pure arithmetic, gpu_prove_plan_for) for a 32 GiB and a
 * 64 GiB PoRep partition as the daemon proves them: the witness-only
 * path at 2^27 with the sizes of porep_sizes.h (cuzk circuit-info's
 * counts, the shape's bytes on the device). A 16 GiB and a 24 GiB card,
 * each less 1 GiB for the CUDA context and what else holds memory there:
 * every plan fits with MSM chunks of 2^20 points or more, in fewer than
 * three rows of a, b, c, B_G2 streamed on the device; three rows beside the witness, the shape, the
 * NTT's tables and the least headroom would not fit at all (the plan
 * before the H step in pieces: too small for the first, 32768-point
 * chunks for the second). */
static void check_plan_porep32(void)
{
    const uint64_t sectors[] = {32ull << 30, 64ull << 30};
    size_t gib = (size_t)1 << 30, budgets[] = {15 * gib, 23 * gib};
    for (int i = 0; i < 2; i++) {
        const porep_sizes *s = porep_sizes_find(sectors[i]);
        CHECK(s, "no sizes of a %llu-byte PoRep", (unsigned long long)sectors[i]);
        if (!s) continue;
        groth16_params pk;
        porep_sizes_params(s, &pk);
        unsigned lg = porep_sizes_domain_log(s);
        size_t wit = porep_sizes_witness_bytes(s), row = ((size_t)1 << lg) * sizeof(fr_t);
        size_t kept = porep_sizes_witness_kept_bytes(s);
        size_t three = 3 * row + wit + s->shape_bytes + gpu_ntt_tables_for(lg) + ((size_t)8 << lg);
        for (int k = 0; k < 2; k++) {
            gpu_prove_plan_info pl;
            cuzk_err err = {0};
            gpu_prove_set_witness_kept(GPU_KEPT_TIGHT); /* "first" below */
            int rc = gpu_prove_plan_for(&pl, &pk, lg, wit, kept, s->shape_bytes, NULL, true,
                                        budgets[k], &err);
            char line[512];
            gpu_prove_format_plan(line, sizeof line, &pl);
            CHECK(!rc && pl.chunk >= ((size_t)1 << 20) && pl.use <= budgets[k] && pl.abc_rows < 3 &&
                      pl.b_g2_streamed,
                  "porep %uGiB plan in %zu GiB: rc %d (%s): %s", (unsigned)(sectors[i] >> 30),
                  budgets[k] / gib, rc, err.msg, line);
            CHECK(three > budgets[k], "porep: three rows (%zu MiB) fit in %zu GiB", three >> 20,
                  budgets[k] / gib);
            /* rule 4: at 15 GiB the witness as it is leaves the H step one row (8 GiB parked
             * each way a partition); kept packed, two rows and nothing parked */
            gpu_prove_plan_info dense;
            rc = gpu_prove_plan_for(&dense, &pk, lg, wit, 0, s->shape_bytes, NULL, true, budgets[k],
                                    &err);
            CHECK(!rc && !dense.witness_kept &&
                      (k ? pl.abc_rows == dense.abc_rows && !pl.witness_kept
                         : dense.abc_rows == 1 && pl.abc_rows == 2 && pl.witness_kept &&
                               pl.parked == 0 && pl.moved + ((size_t)8 << 30) < dense.moved),
                  "porep %uGiB in %zu GiB: kept packed %u rows (kept %d, %zu moved), as it is %u "
                  "rows (%zu moved)",
                  (unsigned)(sectors[i] >> 30), budgets[k] / gib, pl.abc_rows, pl.witness_kept,
                  pl.moved, dense.abc_rows, dense.moved);
            /* gpus.witness_kept = "first": at 23 GiB too, the room it frees going to larger
             * MSM calls and H's first points */
            gpu_prove_plan_info first;
            gpu_prove_set_witness_kept(GPU_KEPT_FIRST);
            rc = gpu_prove_plan_for(&first, &pk, lg, wit, kept, s->shape_bytes, NULL, true,
                                    budgets[k], &err);
            gpu_prove_set_witness_kept(GPU_KEPT_TIGHT); /* pl's */
            CHECK(!rc && first.witness_kept && first.abc_rows == 2 &&
                      (k ? first.chunk > pl.chunk && first.moved < pl.moved
                         : first.chunk == pl.chunk && first.moved == pl.moved),
                  "porep %uGiB in %zu GiB, kept first: kept %d, %u rows, chunk %zu (tight %zu), "
                  "%zu moved (tight %zu)",
                  (unsigned)(sectors[i] >> 30), budgets[k] / gib, first.witness_kept,
                  first.abc_rows, first.chunk, pl.chunk, first.moved, pl.moved);
            /* rule 9: the batch's L/A/B passes serve groups; the room left goes to
             * larger MSM calls, then to H's first points (rule 5: on the H200 at
             * 23 GiB calls of 2^22 took it all) */
            gpu_prove_plan_info one;
            rc = gpu_prove_plan_for(&one, &pk, lg, wit, kept, s->shape_bytes, NULL, false,
                                    budgets[k], &err);
            CHECK(!rc && pl.lab_group == 4 && one.lab_group == 1 &&
                      (pl.prefix[0] > 0 || pl.chunk > ((size_t)1 << 21)) &&
                      pl.streamed < one.streamed && pl.moved < one.moved,
                  "porep %uGiB in %zu GiB: the batch's plan (group %u, H kept %zu, %zu streamed) "
                  "against a single proof's (group %u, %zu streamed)",
                  (unsigned)(sectors[i] >> 30), budgets[k] / gib, pl.lab_group, pl.prefix[0],
                  pl.streamed, one.lab_group, one.streamed);
            printf("plan: %uGiB PoRep in %zu GiB: %s\n", (unsigned)(sectors[i] >> 30),
                   budgets[k] / gib, line);
        }
        gpu_prove_set_witness_kept(GPU_KEPT_FIRST); /* the default */
        if (i) continue;
        /* the H200 (about 135.5 GiB beside its lane): a batch in one MSM call an array with
         * B_G2 and two a/b/c buffers on the device, as the steady 11.2 s a proof was
         * measured with (rule 3's gather buffer bounded: planned at its worst case, the
         * calls shrank to 2^26 there and a partition took 1.24 s against 1.17). With the
         * MSM workspace's host estimate (cuzk-bench plan) that plan needed more than 138
         * GiB before, 132 now; the stand-in runtime's sort sizes are smaller (128, 118). */
        gpu_prove_plan_info pl;
        cuzk_err err = {0};
        int rc = gpu_prove_plan_for(&pl, &pk, lg, wit, kept, s->shape_bytes, NULL, true, 134 * gib,
                                    &err);
        char line[512];
        gpu_prove_format_plan(line, sizeof line, &pl);
        CHECK(!rc && !pl.b_g2_streamed && pl.resident[0] && pl.resident[4] && pl.chunk >= pk.n_h &&
                  pl.abc_buffers == 2 && pl.abc_rows == 3,
              "porep 32GiB batch in 134 GiB: rc %d (%s): %s", rc, err.msg, line);
        printf("plan: 32GiB PoRep in 134 GiB: %s\n", line);
    }
}

int gpu_prove_device_checks(cuzk_rng *g)
{
    int before = failures;
    size_t n = 0;
    char names[16][128];
    uint64_t vram[16];
    if (engine_cuda_backend.devices(&n, names, vram, 16) || n < 2) {
        printf("devices: %zu device(s), the multi-device checks need two\n", n);
        return 0;
    }
    check_devices_at_once(n, g);
    check_engine_devices(n);
    return failures - before;
}

int gpu_prove_checks(cuzk_rng *g, int quick)
{
    check_prod(40, 8, PAT_RANDOM, 1, g);    /* m = 64: CPU H scalars */
    check_prod(1000, 16, PAT_RANDOM, 1, g); /* 1002 + 3 -> m = 1024, device NTT */
    check_prod(3000, 64, PAT_ZERO, 1, g);
    check_prod(3000, 64, PAT_ONE, 1, g);
    check_prod(3000, 500, PAT_BITS, 3, g); /* batch of 3 */
    if (!quick) {
        check_prod(20000, 2000, PAT_RANDOM, 2, g);
        check_prod(40000, 30000, PAT_BITS, 1, g);
        check_synthetic(100000, g);
        check_porep(2048, g);
        check_porep(8 << 20, g);
    }
    check_snarkjs(g);
    check_wrong_shape(g);
    check_unsatisfied(g);
    check_h_modes(g);
    check_kept_overflow(g);
    check_kept_pieces(g);
    check_kept_lazy(g);
    check_plan_porep32();
    check_feed(g, false);
    check_feed(g, true);
    check_groups(g);
    check_group_refusal(g);
    check_engine();
    return failures;
}
