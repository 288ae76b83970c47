/*
 * snarkjs.c - `cuzk snarkjs prove | verify | import`: interoperability with
 * snarkjs Groth16 on curve bls12381 (files described in docs/formats.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/snarkjs.h"

static int prove_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv, &cli_snarkjs_prove)) return CLI_OK;
    const char *file[4]; /* zkey, wtns, proof.json, public.json */
    int n = 0, mode = SNARKJS_CACHED;
    for (int i = 1; i < argc; i++) {
        int flag = !strcmp(argv[i], "--trusted")        ? SNARKJS_TRUSTED
                   : !strcmp(argv[i], "--check-params") ? SNARKJS_CHECKED
                                                        : SNARKJS_CACHED;
        if (flag != SNARKJS_CACHED && mode != SNARKJS_CACHED && flag != mode)
            return cli_usage_error("snarkjs prove",
                                   "--trusted and --check-params exclude each other");
        if (flag != SNARKJS_CACHED)
            mode = flag;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("snarkjs prove", "unknown option '%s'", argv[i]);
        else if (n == 4)
            return cli_usage_error("snarkjs prove", "unexpected argument '%s'", argv[i]);
        else
            file[n++] = argv[i];
    }
    if (n != 4) return cli_usage_error("snarkjs prove", "expected 4 files, got %d", n);
    cuzk_err err = {0};
    snarkjs_zkey z;
    snarkjs_wtns w;
    if (snarkjs_zkey_read(&z, file[0], mode, &err)) return cli_fail(&err);
    if (snarkjs_wtns_read(&w, file[1], &err)) {
        snarkjs_zkey_free(&z);
        return cli_fail(&err);
    }
    groth16_params pk = {0};
    cs_prover wit = {0};
    groth16_proof proof;
    int rc = snarkjs_zkey_to_params(&pk, &z, false, &err);
    if (!rc && (rc = snarkjs_witness_prover(&wit, &z, &w, &err)))
        cuzk_err_prefix(&err, "%s: ", file[1]);
    if (!rc) rc = groth16_prove(&proof, &pk, &wit, 1, NULL, NULL, &err);
    if (!rc) rc = snarkjs_proof_write(file[2], &proof, &err);
    if (!rc) rc = snarkjs_public_write(file[3], w.values + 1, z.n_public, &err);
    cs_prover_free(&wit);
    groth16_params_free(&pk);
    snarkjs_wtns_free(&w);
    snarkjs_zkey_free(&z);
    return rc ? cli_fail(&err) : CLI_OK;
}

static int verify_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv, &cli_snarkjs_verify)) return CLI_OK;
    if (argc != 4)
        return cli_usage_error("snarkjs verify", "expected 3 arguments, got %d", argc - 1);
    cuzk_err err = {0};
    groth16_vk vk;
    groth16_pvk pvk;
    groth16_proof proof;
    fr_t *inputs = NULL;
    size_t n = 0;
    if (snarkjs_vk_read(&vk, argv[1], &err)) return cli_fail(&err);
    int rc = snarkjs_public_read(&inputs, &n, argv[2], &err);
    if (!rc) rc = snarkjs_proof_read(&proof, argv[3], &err);
    if (!rc) rc = groth16_prepare_vk(&pvk, &vk, &err);
    if (!rc) {
        rc = groth16_verify(&pvk, &proof, inputs, n, &err);
        groth16_pvk_free(&pvk);
    }
    free(inputs);
    groth16_vk_free(&vk);
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID proof %s for public inputs %s: %s\n", argv[3], argv[2],
                err.msg);
        return CLI_INVALID;
    }
    if (rc) return cli_fail(&err);
    printf("OK: %s verifies against %s with %zu public inputs\n", argv[3], argv[1], n);
    return CLI_OK;
}

static int setup_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv, &cli_snarkjs_setup)) return CLI_OK;
    const char *r1cs = NULL, *out = NULL;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (argv[i][0] == '-' || r1cs)
            return cli_usage_error("snarkjs setup", "unexpected argument '%s'", argv[i]);
        else
            r1cs = argv[i];
    }
    if (!r1cs || !out) return cli_usage_error("snarkjs setup", "expected R1CS and -o ZKEY");
    cuzk_err err = {0};
    snarkjs_r1cs r;
    if (snarkjs_r1cs_read(&r, r1cs, &err)) return cli_fail(&err);
    fprintf(stderr,
            "cuzk snarkjs setup: DEVELOPMENT zkey from seed %llu: not a trusted setup, "
            "anyone who knows the seed can forge proofs\n",
            seed);
    int rc = snarkjs_zkey_write_dev(out, &r, seed, &err);
    snarkjs_r1cs_free(&r);
    return rc ? cli_fail(&err) : CLI_OK;
}

const cli_command cli_snarkjs_setup = {
    "snarkjs setup", setup_run, "development zkey for a circom R1CS",
    "usage: cuzk snarkjs setup R1CS -o ZKEY [--seed N]\n\n"
    "Writes a snarkjs Groth16 zkey (bls12381) for the circuit from a DEVELOPMENT\n"
    "setup, deterministic from the seed (default 1): anyone who knows the seed can\n"
    "forge proofs. It needs no powers of tau, so snarkjs and cuzk can prove the\n"
    "same large circuit from the same key in benchmarks. `snarkjs zkey export\n"
    "verificationkey` reads it; `snarkjs zkey verify` does not accept it.\n"};

const cli_command cli_snarkjs_prove = {
    "snarkjs prove", prove_run, "prove with a snarkjs zkey and witness",
    "usage: cuzk snarkjs prove [--trusted | --check-params] ZKEY WTNS PROOF_JSON PUBLIC_JSON\n\n"
    "Proves with a snarkjs Groth16 .zkey (curve bls12381) and a circom .wtns\n"
    "witness, writing snarkjs' proof.json and public.json, which\n"
    "`snarkjs groth16 verify` accepts. r and s come from the OS random source.\n"
    "Every zkey point is checked on the curve and in the subgroup, once: a zkey\n"
    "that passed is remembered by the SHA-256 of its content (in\n"
    "$XDG_CACHE_HOME/cuzk, else ~/.cache/cuzk), and later runs on the same bytes\n"
    "check the digest instead of the points (a changed file is checked again).\n"
    "--check-params checks every point again; --trusted skips the subgroup\n"
    "checks (like snarkjs itself) for local files.\n"};

const cli_command cli_snarkjs_verify = {
    "snarkjs verify", verify_run, "verify a snarkjs proof",
    "usage: cuzk snarkjs verify VK_JSON PUBLIC_JSON PROOF_JSON\n\n"
    "Verifies a snarkjs Groth16 proof (bls12381) against verification_key.json.\n"
    "Exit status: 0 valid, 1 invalid (tampered proof or wrong public inputs),\n"
    "2 unreadable or malformed files.\n"};
