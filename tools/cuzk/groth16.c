/*
 * groth16.c - `cuzk setup | prove | verify | params info` for circuits given
 * as circom R1CS files, and `cuzk snarkjs import`. Parameters are
 * bellperson .params / .vk files (docs/formats.md); proofs are 192 bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cuzk/file.h"
#include "cuzk/params.h"
#include "cuzk/snarkjs.h"

static int setup_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_setup)) return CLI_OK;
    if (cli_parse(argc, argv, "setup", &o)) return CLI_ERROR;
    if (o.kind) return cli_fc_setup(&o);
    if (cli_need("setup", o.r1cs, "--r1cs") || cli_need("setup", o.out, "-o")) return CLI_ERROR;
    cuzk_err err = {0};
    snarkjs_r1cs r;
    if (snarkjs_r1cs_read(&r, o.r1cs, &err)) return cli_fail(&err);
    snarkjs_r1cs_ctx ctx;
    groth16_setup_backend be;
    fprintf(stderr,
            "cuzk setup: DEVELOPMENT setup from seed %llu: not a trusted setup, anyone "
            "who knows the seed can forge proofs\n",
            o.seed);
    int rc = cli_setup_backend(&o, &be, &err);
    if (!rc) {
        rc = groth16_setup_dev_write(o.out, o.vk, snarkjs_r1cs_circuit(&ctx, &r, NULL), o.seed, &be,
                                     stderr, &err);
        groth16_setup_backend_release(&be);
    }
    snarkjs_r1cs_free(&r);
    return rc ? cli_fail(&err) : CLI_OK;
}

/* Public inputs of a circom witness: wires 1 .. outputs + public inputs. */
static size_t public_count(const snarkjs_r1cs *r)
{
    return r->n_outputs + r->n_pub_inputs;
}

static int prove_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_prove)) return CLI_OK;
    if (cli_parse(argc, argv, "prove", &o)) return CLI_ERROR;
    if (o.kind) return cli_fc_prove(&o);
    if (cli_need("prove", o.params, "--params") || cli_need("prove", o.r1cs, "--r1cs") ||
        cli_need("prove", o.wtns, "--wtns") || cli_need("prove", o.out, "-o"))
        return CLI_ERROR;
    if (o.trusted && o.check_params)
        return cli_usage_error("prove", "--trusted and --check-params exclude each other");
    cuzk_err err = {0};
    snarkjs_r1cs r = {0};
    snarkjs_wtns w = {0};
    groth16_params p = {0};
    cs_prover wit = {0};
    int rc = snarkjs_r1cs_read(&r, o.r1cs, &err);
    if (!rc) rc = snarkjs_wtns_read(&w, o.wtns, &err);
    if (!rc)
        rc = groth16_params_read(&p, o.params,
                                 o.trusted        ? PARAMS_UNCHECKED
                                 : o.check_params ? PARAMS_CHECKED
                                                  : PARAMS_CACHED,
                                 &err);
    snarkjs_r1cs_ctx ctx;
    if (!rc) rc = cs_synthesize_prover(&wit, snarkjs_r1cs_circuit(&ctx, &r, &w), NULL, &err);
    if (!rc && o.snarkjs_rows) rc = snarkjs_reorder_rows(&wit, p.n_h + 1, &err);
    groth16_proof proof;
    groth16_timings t;
    if (!rc) rc = cli_groth16_prove(&o, &proof, &p, &wit, 1, 0, &t, &err);
    if (!rc) {
        uint8_t bytes[GROTH16_PROOF_BYTES];
        groth16_proof_encode(bytes, &proof);
        rc = cuzk_write_file(o.out, bytes, sizeof(bytes), &err);
    }
    if (!rc && o.proof_json) rc = snarkjs_proof_write(o.proof_json, &proof, &err);
    if (!rc && o.public_json)
        rc = snarkjs_public_write(o.public_json, w.values + 1, public_count(&r), &err);
    if (!rc)
        fprintf(stderr,
                "cuzk prove: prep_msm_ms=%.1f ntt_msm_h_ms=%.1f batch_add_ms=%.1f "
                "tail_msm_ms=%.1f b_g2_msm_ms=%.1f total_ms=%.1f\n",
                t.prep_msm_ms, t.ntt_msm_h_ms, t.batch_add_ms, t.tail_msm_ms, t.b_g2_msm_ms,
                t.total_ms);
    cs_prover_free(&wit);
    groth16_params_free(&p);
    snarkjs_wtns_free(&w);
    snarkjs_r1cs_free(&r);
    return rc ? cli_fail(&err) : CLI_OK;
}

static int verify_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_verify)) return CLI_OK;
    if (cli_parse(argc, argv, "verify", &o)) return CLI_ERROR;
    if (o.kind) return cli_fc_verify(&o);
    if (cli_need("verify", o.proof, "--proof") || cli_need("verify", o.public_json, "--public"))
        return CLI_ERROR;
    if (!o.vk && !o.params) return cli_usage_error("verify", "missing --vk or --params");
    cuzk_err err = {0};
    groth16_vk vk = {0};
    groth16_pvk pvk = {0};
    groth16_proof proof;
    fr_t *inputs = NULL;
    size_t n = 0, len = 0;
    uint8_t *bytes = NULL;
    int rc = o.vk ? groth16_vk_read(&vk, o.vk, PARAMS_CHECKED, &err)
                  : groth16_vk_read_from_params(&vk, o.params, PARAMS_CHECKED, &err);
    if (!rc) rc = snarkjs_public_read(&inputs, &n, o.public_json, &err);
    if (!rc) rc = cuzk_read_file(o.proof, &bytes, &len, 1u << 20, &err);
    if (!rc && (rc = groth16_proof_decode(&proof, bytes, len, &err)))
        cuzk_err_prefix(&err, "%s: ", o.proof);
    if (!rc) rc = groth16_prepare_vk(&pvk, &vk, &err);
    if (!rc) rc = groth16_verify(&pvk, &proof, inputs, n, &err);
    groth16_pvk_free(&pvk);
    groth16_vk_free(&vk);
    free(inputs);
    free(bytes);
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID proof %s for public inputs %s\n", o.proof, o.public_json);
        return CLI_INVALID;
    }
    if (rc) return cli_fail(&err);
    printf("OK: %s verifies\n", o.proof);
    return CLI_OK;
}

/* Maps path read-only; *len 0 maps nothing. */
static int map_file(const char *path, const uint8_t **data, size_t *len, cuzk_err *err)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0) close(fd);
        return cuzk_errf(err, CUZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    *len = (size_t)st.st_size;
    void *m = *len ? mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (m == MAP_FAILED)
        return cuzk_errf(err, CUZK_EIO, "%s: cannot map: %s", path, strerror(errno));
    *data = m;
    return CUZK_OK;
}

static int info_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv, &cli_params_info)) return CLI_OK;
    int check = argc == 3 && !strcmp(argv[1], "--check");
    if (argc != 2 + check) return cli_usage_error("params info", "expected [--check] FILE");
    const char *path = argv[1 + check];
    cuzk_err err = {0};
    const uint8_t *data = NULL;
    size_t len = 0;
    params_layout lay;
    int rc = map_file(path, &data, &len, &err);
    if (!rc) rc = params_scan(&lay, data, len, PARAMS_SECTIONS, path, &err);
    if (!rc && lay.size != len)
        rc = cuzk_errf(&err, CUZK_ELENGTH, "%s: %zu trailing bytes after B_G2", path,
                       (size_t)(len - lay.size));
    uint8_t digest[SHA256_DIGEST_LENGTH];
    if (!rc) /* the verifying key: what a .vk file holds, up to the last IC point */
        SHA256(data, lay.offset[PARAMS_IC] + (uint64_t)lay.count[PARAMS_IC] * G1_UNCOMPRESSED_BYTES,
               digest);
    if (data) munmap((void *)data, len);
    groth16_params p;
    if (!rc && check && !(rc = groth16_params_read(&p, path, PARAMS_CHECKED, &err)))
        groth16_params_free(&p);
    if (rc) return cli_fail(&err);
    printf("file:      %s\nsize:      %zu bytes\n", path, len);
    printf("domain:    %llu (H points %u)\n", (unsigned long long)lay.count[PARAMS_H] + 1,
           lay.count[PARAMS_H]);
    for (int s = 0; s < PARAMS_SECTIONS; s++)
        printf("%-10s %u points\n", params_section_name(s), lay.count[s]);
    printf("vk sha256: ");
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) printf("%02x", digest[i]);
    printf("\n%s\n", check ? "points:    all on the curve and in the subgroup"
                           : "points:    not decoded (--check decodes and checks every one)");
    return CLI_OK;
}

static int import_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_snarkjs_import)) return CLI_OK;
    if (argc < 2 || argv[1][0] == '-')
        return cli_usage_error("snarkjs import", "expected ZKEY first");
    const char *zkey = argv[1];
    if (cli_parse(argc - 1, argv + 1, "snarkjs import", &o) ||
        cli_need("snarkjs import", o.out, "-o"))
        return CLI_ERROR;
    cuzk_err err = {0};
    snarkjs_zkey z;
    groth16_params p;
    if (snarkjs_zkey_read(&z, zkey, SNARKJS_CHECKED, &err)) return cli_fail(&err);
    int rc = snarkjs_zkey_to_params(&p, &z, true, &err);
    snarkjs_zkey_free(&z);
    if (!rc) {
        rc = groth16_params_write(o.out, &p, &err);
        if (!rc && o.vk) rc = groth16_vk_write(o.vk, &p.vk, &err);
        groth16_params_free(&p);
    }
    return rc ? cli_fail(&err) : CLI_OK;
}

const cli_command cli_setup = {
    "setup", setup_run, "development Groth16 setup for a circom R1CS",
    "usage: cuzk setup --r1cs FILE.r1cs -o OUT.params [--vk OUT.vk] [--seed N]\n"
    "                  [--backend auto|cuda|cpu]\n"
    "       cuzk setup --kind porep|winning-post|window-post|update --sector-size SIZE\n"
    "                  --param-cache DIR [--seed N] [--backend auto|cuda|cpu]\n\n"
    "Writes bellperson-format parameters for a circom circuit, or for one\n"
    "partition of a Filecoin circuit into DIR under the official v28 file name\n"
    "(kept if present, so official files dropped there are used instead). This\n"
    "is a DEVELOPMENT setup, deterministic from the seed (default 1): anyone who\n"
    "knows the seed can forge proofs. Use it for tests and benchmarks only.\n"
    "The file is streamed (the R1CS is never held, the points are written a\n"
    "chunk at a time), with progress lines on stderr. --backend: the GPU for the\n"
    "fixed-base multiplications and the NTT when a device is usable (auto, the\n"
    "default), cuda, or cpu; the bytes are the same.\n"};

const cli_command cli_prove = {
    "prove", prove_run, "prove a circom circuit with .params, or a Filecoin proof (--kind)",
    "usage: cuzk prove --params FILE.params --r1cs FILE.r1cs --wtns FILE.wtns -o PROOF.bin\n"
    "                  [--proof-json P.json] [--public P.json] [--trusted | --check-params]\n"
    "                  [--row-order bellperson|snarkjs]\n"
    "       cuzk prove --kind porep --c1 c1.json --param-cache DIR -o PROOF.bin\n"
    "       cuzk prove --kind winning-post|window-post --sector-size SIZE --param-cache DIR\n"
    "                  --vanilla FILE --randomness HEX [--registered-proof V1|V1_2] -o PROOF.bin\n"
    "       cuzk prove --kind update --sector-size SIZE --param-cache DIR --vanilla FILE\n"
    "                  --comm-r-old HEX --comm-d-new HEX --comm-r-new HEX -o PROOF.bin\n"
    "       (each also [--backend auto|cuda|cpu] [--synthesis witness|full]\n"
    "        [--partition K] [--rs-seed N])\n\n"
    "Filecoin kinds (--kind): every partition proved with the parameters of the\n"
    "sector size in DIR (official file names, read unchecked unless\n"
    "--check-params); the partitions' 192-byte proofs are written concatenated.\n"
    "FILE is a JSON array of base64 bincode vanilla proofs (cuzk-bench\n"
    "gen-vanilla, Curio): one sector proof for Winning PoSt, one per sector for\n"
    "Window PoSt (V1_2 challenge indexes unless --registered-proof V1), one per\n"
    "partition for update; HEX values are 32 bytes (little-endian field\n"
    "elements). --synthesis witness (the default, the daemon's\n"
    "synthesis.witness_only): the circuit's shape is recorded once and each\n"
    "partition synthesizes only its witness, a, b, c evaluated from the shape\n"
    "(on the device with the GPU prover) and every constraint checked; full: the\n"
    "prover backend builds a, b, c; the proofs verify alike. The shape is recorded\n"
    "in every run (32 GiB PoRep: ~30 s of the H200 host's 16 cores), so a single\n"
    "32 GiB proof may finish sooner with full; the daemon records once.\n"
    "--partition K proves only partition K. --rs-seed N takes r and s from a\n"
    "generator seeded with N + the partition's number instead of the OS CSPRNG,\n"
    "so that two runs write the same bytes (comparing the paths; such proofs are\n"
    "NOT zero-knowledge).\n\n"
    "Proves on the GPU when a device is usable (--backend auto, the default;\n"
    "cuda insists, cpu never; the proofs are the same) and writes the 192-byte\n"
    "proof; optionally also snarkjs' proof.json and public.json. Every point of\n"
    "FILE.params is checked on the curve and in the subgroup, once: a file that\n"
    "passed is remembered by the SHA-256 of its content (in $XDG_CACHE_HOME/cuzk,\n"
    "else ~/.cache/cuzk), and later runs check the digest instead. --check-params\n"
    "checks the points again; --trusted skips the curve and subgroup checks (for\n"
    "local files you made). --row-order snarkjs is\n"
    "for parameters imported from a zkey (`cuzk snarkjs import`): snarkjs puts\n"
    "constraint j at the j-th power of its own root of unity (from 5, ours and\n"
    "bellperson's from 7). Per-phase timings go to stderr.\n"};

const cli_command cli_verify = {
    "verify", verify_run, "verify a 192-byte proof, or a Filecoin proof (--kind)",
    "usage: cuzk verify (--vk FILE.vk | --params FILE.params) --public PUBLIC.json\n"
    "                   --proof PROOF.bin\n"
    "       cuzk verify --kind KIND --param-cache DIR --proof PROOF.bin (the inputs of\n"
    "                   cuzk prove --kind KIND, without -o; update needs no --vanilla)\n\n"
    "Filecoin kinds: the public inputs are computed natively (PoSt: each sector's\n"
    "id and comm_r from the vanilla file with the randomness; update: the three\n"
    "commitments) and every partition is verified with the .vk in DIR.\n"
    "Exit status: 0 valid, 1 invalid, 2 unreadable or malformed input.\n"};

const cli_command cli_params_info = {
    "params info", info_run, "sizes, counts and the vk hash of a .params file",
    "usage: cuzk params info [--check] FILE.params\n\n"
    "Prints the file's size, the domain, the number of IC, H, L, A, B_G1 and\n"
    "B_G2 points and the SHA-256 of its verifying key, from the section headers\n"
    "alone (instant on a 47 GiB file). --check also decodes every point and\n"
    "checks it is on the curve and in the subgroup.\n"};

const cli_command cli_snarkjs_import = {
    "snarkjs import", import_run, "convert a snarkjs zkey to .params",
    "usage: cuzk snarkjs import ZKEY -o FILE.params [--vk FILE.vk]\n\n"
    "Converts a snarkjs Groth16 zkey (bls12381) to bellperson's parameter\n"
    "format, H re-expressed from snarkjs' odd Lagrange basis to tau^i t(tau)/delta\n"
    "(a DFT over G1, a one-time cost), so the circuit proves with\n"
    "`cuzk prove --row-order snarkjs`.\n"};
