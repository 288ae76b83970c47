/*
 * opts.c - the long options the toolbox commands share (cli.h: cli_opts);
 * each command's --help says which it takes.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_parse(int argc, char **argv, const char *cmd, cli_opts *o)
{
    static const struct option longs[] = {{"r1cs", 1, 0, 'r'},
                                          {"wtns", 1, 0, 'w'},
                                          {"params", 1, 0, 'p'},
                                          {"vk", 1, 0, 'k'},
                                          {"out", 1, 0, 'o'},
                                          {"proof", 1, 0, 'f'},
                                          {"public", 1, 0, 'u'},
                                          {"proof-json", 1, 0, 'j'},
                                          {"seed", 1, 0, 's'},
                                          {"trusted", 0, 0, 't'},
                                          {"row-order", 1, 0, 'R'},
                                          {"kind", 1, 0, 'K'},
                                          {"sector-size", 1, 0, 'S'},
                                          {"param-cache", 1, 0, 'P'},
                                          {"c1", 1, 0, 'C'},
                                          {"check-params", 0, 0, 'X'},
                                          {"vanilla", 1, 0, 'V'},
                                          {"randomness", 1, 0, 'N'},
                                          {"registered-proof", 1, 0, 'G'},
                                          {"comm-r-old", 1, 0, 'O'},
                                          {"comm-r-new", 1, 0, 'W'},
                                          {"comm-d-new", 1, 0, 'D'},
                                          {"backend", 1, 0, 'B'},
                                          {"synthesis", 1, 0, 'Y'},
                                          {"rs-seed", 1, 0, 'Z'},
                                          {"partition", 1, 0, 'T'},
                                          {0, 0, 0, 0}};
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->partition = -1;
    optind = 1;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "o:", longs, NULL)) != -1;) {
        switch (c) {
        case 'r':
            o->r1cs = optarg;
            break;
        case 'w':
            o->wtns = optarg;
            break;
        case 'p':
            o->params = optarg;
            break;
        case 'k':
            o->vk = optarg;
            break;
        case 'o':
            o->out = optarg;
            break;
        case 'f':
            o->proof = optarg;
            break;
        case 'u':
            o->public_json = optarg;
            break;
        case 'j':
            o->proof_json = optarg;
            break;
        case 's':
            o->seed = strtoull(optarg, NULL, 0);
            break;
        case 't':
            o->trusted = 1;
            break;
        case 'K':
            o->kind = optarg;
            break;
        case 'S':
            o->sector_size = optarg;
            break;
        case 'P':
            o->param_cache = optarg;
            break;
        case 'C':
            o->c1 = optarg;
            break;
        case 'X':
            o->check_params = 1;
            break;
        case 'B':
            o->backend = optarg;
            break;
        case 'Y':
            if (strcmp(optarg, "witness") && strcmp(optarg, "full"))
                return cli_usage_error(cmd, "--synthesis takes witness or full, not '%s'", optarg);
            o->full_synthesis = !strcmp(optarg, "full");
            break;
        case 'Z':
            o->has_rs_seed = 1;
            o->rs_seed = strtoull(optarg, NULL, 0);
            break;
        case 'T': {
            char *end;
            o->partition = strtol(optarg, &end, 10);
            if (*optarg < '0' || *optarg > '9' || *end)
                return cli_usage_error(cmd, "--partition takes a partition number, not '%s'",
                                       optarg);
            break;
        }
        case 'V':
            o->vanilla = optarg;
            break;
        case 'N':
            o->randomness = optarg;
            break;
        case 'G':
            o->registered_proof = optarg;
            break;
        case 'O':
            o->comm_r_old = optarg;
            break;
        case 'W':
            o->comm_r_new = optarg;
            break;
        case 'D':
            o->comm_d_new = optarg;
            break;
        case 'R':
            if (strcmp(optarg, "snarkjs") && strcmp(optarg, "bellperson"))
                return cli_usage_error(cmd, "--row-order takes snarkjs or bellperson");
            o->snarkjs_rows = !strcmp(optarg, "snarkjs");
            break;
        default:
            return cli_usage_error(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return CLI_OK;
}

int cli_need(const char *cmd, const char *value, const char *name)
{
    return value ? CLI_OK : cli_usage_error(cmd, "missing %s", name);
}
