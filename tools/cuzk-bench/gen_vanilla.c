/*
 * gen_vanilla.c - cuzk-bench gen-vanilla: real vanilla proofs of test
 * sectors sealed from a seed (the same sealing as cuzk-seal seal) or, with
 * --sealed DIR, of a sector cuzk-seal sealed into DIR, through the
 * library's generators (gen.h):
 *
 *   porep         the c1.json wrapper (commit-phase-1 output), as
 *                 cuzk-seal seal --c1 writes it; above 512MiB (32GiB,
 *                 64GiB), or at any size with --sparse, the C1 of a sparse
 *                 committed-capacity sector instead (gen.h fc_sparse_c1:
 *                 test data computed only where challenged, seconds
 *                 instead of hours; V1 and V1_1 only);
 *   winning-post  one FallbackPoStSectorProof (66 challenges);
 *   window-post   one per sector of --sectors N (seeds seed.., sector ids
 *                 sector-id..), challenged as the registered proof says
 *                 (V1_2: FIP-0061 indexes, or V1); above 512MiB, or at
 *                 any size with --sparse, both are proofs of sparse
 *                 committed-capacity sectors (gen.h fc_sparse_post_sectors: test
 *                 data, only the challenged paths computed), Window PoSt
 *                 then a full partition (2349 sectors at 32GiB) unless
 *                 --sectors says otherwise;
 *   snap-prove    new data from the seed encoded into the sector: one
 *                 PartitionProof per partition; above 512MiB, or at any
 *                 size with --sparse, the update of a structured test
 *                 sector instead (gen.h fc_sparse_update: test data made
 *                 in under a CPU-second at 32GiB).
 *
 * PoSt and SnapDeals files are Curio's format (vanilla.h vanilla_blobs: a
 * JSON array of base64 bincode blobs). The values a prover request and a
 * verifier need besides the blobs are printed on stdout, one "name value"
 * per line (32-byte values as hex of their little-endian bytes):
 * randomness, registered_proof, sector_size, per sector sector_id and
 * comm_r; for SnapDeals h, comm_r_old, comm_d_new, comm_r_new; for PoRep
 * comm_r (sparse: comm_d, replica_id and comm_r). Progress and the sparse
 * C1's timing go to stderr.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk/config.h"
#include "cuzk/filecoin/gen.h"

#define TAG_RANDOMNESS 0x72616e646f6dULL   /* "random" */
#define TAG_NEW_DATA   0x6e657764617461ULL /* "newdata" */

/* Above this size PoRep C1s and PoSt proofs are sparse: sealing would take hours. */
#define SEALED_MAX_SIZE (512ull << 20)
/* --sectors not given: 1, or a sparse Window PoSt's full partition. */
#define SECTORS_UNSET UINT64_MAX

typedef struct gen_opts {
    const char *size, *out, *data, *proof, *sealed;
    uint64_t seed, sector_id, miner, sectors;
    bool sparse;
} gen_opts;

static int parse(gen_opts *o, int argc, char **argv)
{
    *o = (gen_opts){.seed = 1, .sector_id = 1, .miner = 1000, .sectors = SECTORS_UNSET};
    for (int i = 2; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--sparse")) {
            o->sparse = true;
            continue;
        }
        const char *val = i + 1 < argc ? argv[++i] : NULL;
        const char **str = !strcmp(opt, "--sector-size")        ? &o->size
                           : !strcmp(opt, "-o")                 ? &o->out
                           : !strcmp(opt, "--data")             ? &o->data
                           : !strcmp(opt, "--registered-proof") ? &o->proof
                           : !strcmp(opt, "--sealed")           ? &o->sealed
                                                                : NULL;
        uint64_t *num = !strcmp(opt, "--seed")        ? &o->seed
                        : !strcmp(opt, "--sector-id") ? &o->sector_id
                        : !strcmp(opt, "--miner")     ? &o->miner
                        : !strcmp(opt, "--sectors")   ? &o->sectors
                                                      : NULL;
        if (!val) return bench_usage("missing value after %s", opt);
        if (str)
            *str = val;
        else if (!num || cuzk_parse_size(val, num, NULL))
            return bench_usage("gen-vanilla: bad option %s", opt);
    }
    if (!o->size || !o->out) return bench_usage("%s", "gen-vanilla needs --sector-size and -o");
    if (!o->sectors) return bench_usage("%s", "gen-vanilla: --sectors must be at least 1");
    if (o->sectors != SECTORS_UNSET && o->sectors > (1u << 20))
        return bench_usage("%s", "gen-vanilla: --sectors is at most 1048576");
    if (o->sealed && o->sectors != SECTORS_UNSET && o->sectors != 1)
        return bench_usage("%s", "gen-vanilla: --sealed DIR is one sector (no --sectors)");
    if (o->sealed && o->sparse)
        return bench_usage("%s", "gen-vanilla: --sealed DIR is a sealed sector (no --sparse)");
    return BENCH_OK;
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

static void print_hex(const char *name, const uint8_t b[32])
{
    printf("%s ", name);
    for (int i = 0; i < 32; i++) printf("%02x", b[i]);
    printf("\n");
}

/* RegisteredPoStProof / RegisteredUpdateProof: one id per size, in this order. */
static int size_index(uint64_t size)
{
    static const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int i = 0; i < 5; i++)
        if (sizes[i] == size) return i;
    return -1;
}

static int write_blobs(const char *path, const vanilla_blobs *b, cuzk_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return cuzk_errf(err, CUZK_EIO, "%s: cannot create", path);
    int rc = vanilla_blobs_write(f, b, err);
    if (fclose(f) && !rc) rc = cuzk_errf(err, CUZK_EIO, "%s: write failed", path);
    return rc;
}

static int seal(fc_sealed *s, const gen_opts *o, const fc_porep_config *cfg, uint64_t i,
                cuzk_err *err)
{
    fc_test_sector t = {.cfg = cfg,
                        .seed = o->seed + i,
                        .sector_id = o->sector_id + i,
                        .miner = o->miner,
                        .data_path = i ? NULL : o->data};
    return fc_seal_test_sector(s, &t, fc_progress_bar, NULL, err);
}

/* The C1 of a sparse committed-capacity sector (gen.h fc_sparse_c1). */
static int gen_porep_sparse(const gen_opts *o, const fc_porep_config *cfg, cuzk_err *err)
{
    fc_test_sector t = {.cfg = cfg,
                        .seed = o->seed,
                        .sector_id = o->sector_id,
                        .miner = o->miner,
                        .data_path = o->data,
                        .cc = true};
    vanilla_c1 c1;
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = fc_sparse_c1(&c1, &t, err);
    if (rc) return rc;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rc = vanilla_c1_write_file(o->out, &c1, err);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    if (!rc) {
        print_hex("comm_d", c1.comm_d.b);
        print_hex("replica_id", c1.replica_id.b);
        print_hex("comm_r", c1.comm_r.b);
        fprintf(stderr, "sparse %s: C1 computed in %.2f s, written in %.2f s\n", cfg->name,
                seconds(&t0, &t1), seconds(&t1, &t2));
    }
    vanilla_c1_free(&c1);
    return rc;
}

static int gen_porep(const gen_opts *o, const fc_porep_config *cfg, cuzk_err *err)
{
    if (o->sparse || cfg->sector_size > SEALED_MAX_SIZE) return gen_porep_sparse(o, cfg, err);
    fc_sealed s;
    vanilla_c1 c1;
    int rc = seal(&s, o, cfg, 0, err);
    if (!rc && !(rc = fc_test_sector_c1(&c1, &s, o->seed, err))) {
        rc = vanilla_c1_write_file(o->out, &c1, err);
        vanilla_c1_free(&c1);
    }
    if (!rc) print_hex("comm_r", s.comm_r);
    fc_sealed_free(&s);
    return rc;
}

/* Sector i: sealed from seed + i, or read from --sealed DIR. */
static int replica(fc_replica *r, const gen_opts *o, const fc_porep_config *cfg, uint64_t i,
                   cuzk_err *err)
{
    fc_sealed s;
    int rc = o->sealed ? fc_replica_read(r, o->sealed, fc_progress_bar, NULL, err)
                       : seal(&s, o, cfg, i, err);
    if (o->sealed) {
        if (!rc && r->sector_size != cfg->sector_size)
            rc = cuzk_errf(err, CUZK_EINVAL, "%s holds a %llu-byte sector, not %s", o->sealed,
                           (unsigned long long)r->sector_size, o->size);
        return rc;
    }
    if (!rc) rc = fc_replica_from_sealed(r, &s, fc_progress_bar, NULL, err);
    fc_sealed_free(&s);
    return rc;
}

/* Sector i's vanilla proof, encoded into b; prints its id and comm_r. */
static int post_sector(vanilla_blobs *b, const gen_opts *o, const fc_porep_config *cfg, int kind,
                       const post_shape *sh, int api, const uint8_t rnd[32], uint64_t i,
                       cuzk_err *err)
{
    fc_replica r = {0};
    vanilla_post_sector v = {0};
    void *blob = NULL;
    size_t len = 0;
    int rc = replica(&r, o, cfg, i, err);
    fc_post_replica pr = fc_replica_post(&r);
    if (!rc) rc = fc_gen_post_sector(&v, kind, sh, api, rnd, &pr, i, err);
    if (!rc) rc = vanilla_post_sector_encode(&blob, &len, &v, err);
    if (!rc) rc = vanilla_blobs_add(b, blob, len, err);
    if (!rc) {
        printf("sector_id %llu\n", (unsigned long long)r.sector_id);
        print_hex("comm_r", r.comm_r.b);
    }
    free(blob);
    vanilla_post_sector_free(&v);
    fc_replica_free(&r);
    return rc;
}

/* n sparse sectors' proofs (gen.h fc_sparse_post_sectors) into b; prints each id and comm_r. */
static int post_sparse(vanilla_blobs *b, const gen_opts *o, int kind, const post_shape *sh, int api,
                       const uint8_t rnd[32], size_t n, cuzk_err *err)
{
    vanilla_post_sector *v = calloc(n, sizeof *v);
    if (!v) return cuzk_errf(err, CUZK_ENOMEM, "out of memory for %zu sector proofs", n);
    fc_sparse_post g = {.kind = kind,
                        .shape = sh,
                        .api_version = api,
                        .randomness = rnd,
                        .seed = o->seed,
                        .sector_id = o->sector_id};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = fc_sparse_post_sectors(v, n, &g, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (size_t i = 0; !rc && i < n; i++) {
        void *blob = NULL;
        size_t len = 0;
        if (!(rc = vanilla_post_sector_encode(&blob, &len, &v[i], err)))
            rc = vanilla_blobs_add(b, blob, len, err);
        free(blob);
        printf("sector_id %llu\n", (unsigned long long)v[i].sector_id);
        print_hex("comm_r", v[i].comm_r.b);
    }
    for (size_t i = 0; i < n; i++) vanilla_post_sector_free(&v[i]);
    free(v);
    if (!rc)
        fprintf(stderr, "sparse PoSt: %zu sector proof(s) computed in %.2f s\n", n,
                seconds(&t0, &t1));
    return rc;
}

static int gen_post(const gen_opts *o, const fc_porep_config *cfg, int kind, cuzk_err *err)
{
    bool win = kind == VANILLA_POST_WINNING;
    bool v1 = o->proof && !strcmp(o->proof, "V1");
    bool sparse = !o->sealed && (o->sparse || cfg->sector_size > SEALED_MAX_SIZE);
    if (o->proof && !v1 && strcmp(o->proof, "V1_2"))
        return cuzk_errf(err, CUZK_EINVAL, "--registered-proof for PoSt is V1 or V1_2, not '%s'",
                         o->proof);
    if (win && ((o->sectors != SECTORS_UNSET && o->sectors != 1) || v1))
        return cuzk_errf(err, CUZK_EINVAL, "Winning PoSt proves one sector (StackedDrgWinningV1)");
    post_shape sh;
    int rc = post_shape_for_size(&sh, kind, cfg->sector_size, err);
    if (rc) return rc;
    uint64_t n = o->sectors != SECTORS_UNSET ? o->sectors : sparse && !win ? sh.sectors : 1;
    uint8_t rnd[32];
    fc_test_bytes(rnd, o->seed, TAG_RANDOMNESS);
    /* StackedDrgWinning<size>V1: 0..4, StackedDrgWindow<size>V1: 5..9, V1_2: 10..14. */
    int id = size_index(cfg->sector_size) + (win ? 0 : v1 ? 5 : 10);
    int api = v1 || win ? FC_API_V1_1 : FC_API_V1_2;
    print_hex("randomness", rnd);
    printf("registered_proof %d\nsector_size %llu\n", id, (unsigned long long)cfg->sector_size);
    vanilla_blobs b = {0};
    if (sparse) rc = post_sparse(&b, o, kind, &sh, api, rnd, n, err);
    for (uint64_t i = 0; !sparse && !rc && i < n; i++)
        rc = post_sector(&b, o, cfg, kind, &sh, api, rnd, i, err);
    if (!rc) rc = write_blobs(o->out, &b, err);
    vanilla_blobs_free(&b);
    return rc;
}

/* The new data from the seed, as field elements. */
static int new_data(fr_t **data, uint64_t n, uint64_t seed, cuzk_err *err)
{
    uint8_t *bytes = malloc(n * 32);
    *data = malloc(n * sizeof(fr_t));
    int rc = bytes && *data ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "out of memory");
    if (!rc) {
        fc_seal_random_data(bytes, n, seed ^ TAG_NEW_DATA);
        rc = fc_nodes_to_fr(*data, bytes, n, "new data", err);
    }
    free(bytes);
    return rc;
}

static int snap_write(const gen_opts *o, const fc_update *u, cuzk_err *err)
{
    vanilla_blobs b = {0};
    int rc = CUZK_OK;
    for (size_t k = 0; !rc && k < u->n_partitions; k++) {
        void *blob = NULL;
        size_t len = 0;
        if (!(rc = vanilla_update_encode(&blob, &len, &u->parts[k], err)))
            rc = vanilla_blobs_add(&b, blob, len, err);
        free(blob);
    }
    if (!rc) rc = write_blobs(o->out, &b, err);
    vanilla_blobs_free(&b);
    return rc;
}

static void snap_print(const fc_update *u, uint64_t sector_size)
{
    printf("registered_proof %d\nsector_size %llu\nh %u\n", size_index(sector_size),
           (unsigned long long)sector_size, u->h);
    print_hex("comm_r_old", u->comm_r_old.b);
    print_hex("comm_d_new", u->comm_d_new.b);
    print_hex("comm_r_new", u->comm_r_new.b);
}

/* The update of a structured test sector (gen.h fc_sparse_update). */
static int gen_snap_sparse(const gen_opts *o, const fc_porep_config *cfg, cuzk_err *err)
{
    if (o->sealed || o->data)
        return cuzk_errf(err, CUZK_EINVAL,
                         "a sparse update makes its own sector and data "
                         "(no --sealed or --data)");
    update_shape sh;
    fc_update u = {0};
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = update_shape_for_size(&sh, cfg->sector_size, err);
    if (!rc) rc = fc_sparse_update(&u, &sh, sh.hs[3], o->seed, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!rc) rc = snap_write(o, &u, err);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    if (!rc) {
        snap_print(&u, cfg->sector_size);
        fprintf(stderr, "sparse %s update: %u partitions computed in %.2f s, written in %.2f s\n",
                vanilla_shape_for_size(cfg->sector_size)->name, sh.partitions, seconds(&t0, &t1),
                seconds(&t1, &t2));
    }
    fc_update_free(&u);
    return rc;
}

static int gen_snap(const gen_opts *o, const fc_porep_config *cfg, cuzk_err *err)
{
    if (o->sparse || cfg->sector_size > SEALED_MAX_SIZE) return gen_snap_sparse(o, cfg, err);
    update_shape sh;
    fc_replica r = {0};
    fr_t *data = NULL;
    fc_update u = {0};
    int rc = update_shape_for_size(&sh, cfg->sector_size, err);
    if (!rc) rc = replica(&r, o, cfg, 0, err);
    if (!rc) rc = new_data(&data, sh.nodes, o->seed, err);
    if (!rc) {
        fprintf(stderr, "encoding the new data and proving %u partition(s)\n", sh.partitions);
        rc = fc_gen_update(&u, &sh, sh.hs[3], r.nodes, &r.comm_c, data, fc_progress_bar, NULL, err);
    }
    if (!rc) rc = snap_write(o, &u, err);
    if (!rc) snap_print(&u, cfg->sector_size);
    fc_update_free(&u);
    free(data);
    fc_replica_free(&r);
    return rc;
}

int bench_gen_vanilla(int argc, char **argv)
{
    static const char *const kinds[] = {"porep", "winning-post", "window-post", "snap-prove"};
    int kind = -1;
    for (int k = 0; argc >= 2 && k < 4; k++)
        if (!strcmp(argv[1], kinds[k])) kind = k;
    if (argc >= 2 && !strcmp(argv[1], "test")) return bench_gen_test(argc, argv);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return bench_help();
    if (kind < 0)
        return bench_usage("%s",
                           "gen-vanilla: porep, winning-post, window-post, snap-prove or test");
    gen_opts o;
    int rc = parse(&o, argc, argv);
    if (rc) return rc;
    if (kind == 0 && o.sealed)
        return bench_usage("%s", "gen-vanilla porep seals its own sector (use cuzk-seal --c1)");
    cuzk_err err = {0};
    uint64_t size;
    int seal_kind = FC_POREP_V1_1;
    const fc_porep_config *cfg = NULL;
    rc = cuzk_parse_size(o.size, &size, &err);
    if (!rc && kind == 0 && o.proof) rc = fc_porep_kind_parse(o.proof, &seal_kind, &err);
    if (!rc && !(cfg = fc_porep_config_find(size, seal_kind, &err))) rc = CUZK_EINVAL;
    if (!rc) {
        if (kind == 0) rc = gen_porep(&o, cfg, &err);
        if (kind == 1) rc = gen_post(&o, cfg, VANILLA_POST_WINNING, &err);
        if (kind == 2) rc = gen_post(&o, cfg, VANILLA_POST_WINDOW, &err);
        if (kind == 3) rc = gen_snap(&o, cfg, &err);
    }
    if (rc)
        return fprintf(stderr, "cuzk-bench: gen-vanilla %s: %s\n", argv[1], err.msg), BENCH_FAILED;
    fprintf(stderr, "gen-vanilla %s: wrote %s\n", argv[1], o.out);
    return BENCH_OK;
}
