/*
 * cli.h - shared pieces of the `cuzk` toolbox: the command table entry and
 * small helpers for reporting errors (every error names the file and what
 * was wrong) and for option parsing.
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdbool.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

/* Exit codes: 0 success, 1 a proof did not verify, 2 bad usage or input. */
enum { CLI_OK = 0, CLI_INVALID = 1, CLI_ERROR = 2 };

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    const char *summary;
    const char *usage; /* full --help text */
} cli_command;

/* Prints "cuzk: <message>" for err and returns CLI_ERROR. */
int cli_fail(const cuzk_err *err);
/* Prints "cuzk <cmd>: <formatted>" and returns CLI_ERROR. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv holds -h or --help (then the usage text was printed). */
bool cli_wants_help(int argc, char **argv, const cli_command *c);

/* Options shared by the commands; each command says which it takes. */
typedef struct cli_opts {
    const char *r1cs, *wtns, *params, *vk, *out, *proof, *public_json, *proof_json;
    const char *kind, *sector_size, *param_cache, *c1;   /* Filecoin circuits */
    const char *vanilla, *randomness, *registered_proof; /* PoSt and SnapDeals */
    const char *comm_r_old, *comm_r_new, *comm_d_new;    /* SnapDeals */
    unsigned long long seed;
    int trusted;         /* read parameters unchecked */
    int check_params;    /* check every parameter point (no digest cache; slow on Filecoin files) */
    int snarkjs_rows;    /* --row-order snarkjs: parameters imported from a zkey */
    const char *backend; /* --backend auto|cuda|cpu (gpus.backend's rule); NULL: auto */
    int full_synthesis;  /* --synthesis full: the prover backend (default witness: a, b, c
                            from the circuit's recorded shape) */
    int has_rs_seed;     /* --rs-seed N: r, s from a seeded generator (byte comparisons only) */
    unsigned long long rs_seed;
    long partition; /* --partition K: only partition K (-1: all) */
} cli_opts;

/* Proves n circuits with pk on the backend o->backend picks (backend.c):
 * the GPU prover when usable, else the CPU's; the same proofs. r and s
 * from the OS CSPRNG, or with --rs-seed from a generator seeded with the
 * seed plus the circuit's index in the whole proof (first + i), so that
 * two runs make the same bytes however they chunk the circuits (for
 * comparing synthesis paths; such proofs are not zero-knowledge). */
int cli_groth16_prove(const cli_opts *o, groth16_proof *proofs, const groth16_params *pk,
                      const cs_prover *circuits, size_t n, size_t first, groth16_timings *t,
                      cuzk_err *err);
/* The setup backend o->backend picks (release with
 * groth16_setup_backend_release); says which on stderr. */
int cli_setup_backend(const cli_opts *o, groth16_setup_backend *be, cuzk_err *err);

/* Parses argv[1..] (argv[0] is the command) into o; CLI_OK or CLI_ERROR. */
int cli_parse(int argc, char **argv, const char *cmd, cli_opts *o);
/* CLI_OK when value is set, else a usage error naming the option. */
int cli_need(const char *cmd, const char *value, const char *name);

extern const cli_command cli_setup, cli_prove, cli_verify, cli_params_info;
extern const cli_command cli_prove_porep, cli_verify_porep;
/* `cuzk verify-vanilla porep` (verify_vanilla.c). */
extern const cli_command cli_verify_vanilla_porep;
/* `cuzk verify-vanilla winning-post | window-post` (verify_vanilla_post.c). */
extern const cli_command cli_verify_vanilla_winning, cli_verify_vanilla_window;
/* `cuzk verify-vanilla update` (verify_vanilla_update.c). */
extern const cli_command cli_verify_vanilla_update;

/* `cuzk setup --kind ...`: development parameters for a Filecoin circuit. */
int cli_fc_setup(const cli_opts *o);
/* `cuzk prove | verify --kind ...` (filecoin.c): every kind; exit codes as above. */
int cli_fc_prove(const cli_opts *o);
int cli_fc_verify(const cli_opts *o);
/* Synthesizes and proves n partition circuits with the .params at params,
 * writes their 192-byte proofs concatenated to o->out; a cuzk error code. */
int cli_fc_prove_circuits(const cli_opts *o, const char *params, cs_circuit *circ, size_t n,
                          cuzk_err *err);
/* Verifies the n proofs of o->proof, partition k against inputs + k x
 * n_inputs, with the .vk at vk_path; CLI_OK, CLI_INVALID (naming the
 * partition and `against`) or CLI_ERROR. */
int cli_fc_verify_proofs(const cli_opts *o, const char *vk_path, const fr_t *inputs,
                         size_t n_inputs, size_t n, const char *against);
/* PoSt and SnapDeals (filecoin_vanilla.c); kind is an fc_circuit_kind. */
int cli_fc_prove_vanilla(const cli_opts *o, int kind);
int cli_fc_verify_vanilla(const cli_opts *o, int kind);
extern const cli_command cli_snarkjs_prove, cli_snarkjs_verify, cli_snarkjs_import,
    cli_snarkjs_setup;
extern const cli_command cli_circuit_info;

#endif
