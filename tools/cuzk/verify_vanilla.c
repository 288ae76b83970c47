/*
 * verify_vanilla.c - `cuzk verify-vanilla porep --c1 FILE`: the native
 * check of a PoRep commit-phase-1 output (vanilla_verify.h) that the
 * daemon runs before synthesis, as a command. The C1 is read for its
 * shape only (VANILLA_C1_UNCHECKED), so that every inconsistency, the
 * reader's whole-proof ones included, is reported by the check with its
 * partition, challenge and node. Exit status: 0 the C1 checks, 1 it does
 * not (the first failure named), 2 bad usage or unreadable input.
 */
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "cuzk/filecoin/vanilla_verify.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int verify_vanilla_porep(const cli_opts *o)
{
    if (cli_need("verify-vanilla porep", o->c1, "--c1")) return CLI_ERROR;
    vanilla_c1 c1;
    cuzk_err err = {0};
    if (vanilla_c1_read(&c1, o->c1, VANILLA_C1_AUTO | VANILLA_C1_UNCHECKED, &err))
        return cli_fail(&err);
    double t0 = seconds();
    int rc = fc_porep_c1_verify(&c1, &err);
    if (rc == CUZK_EVERIFY) {
        fprintf(stderr, "cuzk: INVALID: %s: %s\n", o->c1, err.msg);
        rc = CLI_INVALID;
    } else if (rc) {
        cuzk_err_prefix(&err, "%s: ", o->c1);
        rc = cli_fail(&err);
    } else {
        printf("OK: %s (%s, %zu partition%s x %zu challenges) checks in %.3f s\n", o->c1,
               vanilla_seal_proof_name(c1.registered_proof), c1.partitions,
               c1.partitions == 1 ? "" : "s", c1.challenges, seconds() - t0);
    }
    vanilla_c1_free(&c1);
    return rc;
}

static int verify_vanilla_porep_run(int argc, char **argv)
{
    cli_opts o;
    if (cli_wants_help(argc, argv, &cli_verify_vanilla_porep)) return CLI_OK;
    if (cli_parse(argc, argv, "verify-vanilla porep", &o)) return CLI_ERROR;
    return verify_vanilla_porep(&o);
}

const cli_command cli_verify_vanilla_porep = {
    "verify-vanilla porep", verify_vanilla_porep_run,
    "check a PoRep C1 output natively, as the circuit will",
    "usage: cuzk verify-vanilla porep --c1 c1.json\n\n"
    "Checks natively, challenges in parallel, everything the PoRep circuit will\n"
    "enforce on the commit-phase-1 output (the c1.json wrapper or bare\n"
    "SealCommitPhase1Output JSON): each challenge index against replica_id and the\n"
    "seed (synthetic PoRep: the selection; NI: comm_r), the graph's parents of each\n"
    "challenge, every tree-D, tree-C and tree-R opening against comm_d, comm_c and\n"
    "comm_r_last, every label against its parents' labels, the encoding of the last\n"
    "label with the data into the replica, and comm_r = Poseidon(comm_c,\n"
    "comm_r_last). The daemon runs the same check on every PoRep request.\n"
    "Exit status: 0 the C1 checks, 1 it does not (the first failure is named by\n"
    "partition, challenge and node), 2 bad usage or unreadable input.\n"};
