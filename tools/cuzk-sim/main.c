/*
 * cuzk-sim - the SIMULATED 32 GiB mix on one host (sim.h): mixed.sh's
 * replay through the engine on a simulated H200 and the 32 GiB kinds'
 * sizes and times; the report on stdout. Exit 0 when nothing failed,
 * every proof verified, the budget held and every deadline took at most
 * 60 s; 1 otherwise; 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/config.h"
#include "cuzk/engine_log.h"
#include "cuzk/sim.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: cuzk-sim [-t SECONDS] [-x SPEED] [-m HOST] [-g DEVICE] [-c N] [-s N]\n"
        "                [-d SECONDS] [-p PARTS] [-n SECONDS] [-i KINDS] [-r KINDS] [-a SECONDS]\n"
        "                [-w DIR] [-l LEVEL] [-H SECONDS] [-L FACTOR]\n"
        "  -t  simulated seconds replayed (default 3600)\n"
        "  -x  simulated seconds per real second (default 10)\n"
        "  -m  the host's memory (default 128GiB; the budget is \"auto\"'s)\n"
        "  -g  the device's memory (default 139GiB)\n"
        "  -c -s  PoRep / SnapDeals requests in flight (default 2 / 1)\n"
        "  -d  seconds between Window PoSt deadlines (default 120, the first at 20)\n"
        "  -p  partitions per deadline (default 4)\n"
        "  -n  seconds between Winning PoSts (default 30)\n"
        "  -i  srs.pinned, kinds: porep, snap, wpost, winning (default winning,wpost; \"\" none)\n"
        "  -r  srs.preload, kinds (default none)\n"
        "  -a  srs.swap_after in seconds (default the daemon's, 120)\n"
        "  -w  the stand-in circuits' parameters (default data/sim-params, made if absent)\n"
        "  -l  the engine's log level on stderr: error, warn, info, debug (default warn)\n"
        "  -H  read each deadline's Window PoSt set this long before it (PreloadSRS at HIGH;\n"
        "      default 0: none)\n"
        "  -L  the small-circuit lane's slowdown of a partition's GPU time beside a running\n"
        "      start (default 2, an estimate); 0: no lane (gpus.small_lane_max_log = 0)\n");
}

static int size_arg(const char *s, uint64_t *out)
{
    cuzk_err err;
    if (!cuzk_parse_size(s, out, &err)) return 0;
    fprintf(stderr, "cuzk-sim: %s\n", err.msg);
    return -1;
}

int main(int argc, char **argv)
{
    sim_mix m;
    sim_mix_default(&m);
    const char *level = "warn";
    int opt;
    while ((opt = getopt(argc, argv, "t:x:m:g:c:s:d:p:n:i:r:a:w:l:H:L:h")) != -1) {
        switch (opt) {
        case 't':
            m.seconds = atof(optarg);
            break;
        case 'x':
            m.speed = atof(optarg);
            break;
        case 'm':
            if (size_arg(optarg, &m.host_bytes)) return 2;
            break;
        case 'g':
            if (size_arg(optarg, &m.device.bytes)) return 2;
            break;
        case 'c':
            m.porep_inflight = (uint32_t)atoi(optarg);
            break;
        case 's':
            m.snap_inflight = (uint32_t)atoi(optarg);
            break;
        case 'd':
            m.deadline_every_s = atof(optarg);
            break;
        case 'p':
            m.deadline_parts = (uint32_t)atoi(optarg);
            break;
        case 'n':
            m.winning_every_s = atof(optarg);
            break;
        case 'i':
            m.pinned = optarg;
            break;
        case 'a':
            m.swap_after_s = atof(optarg);
            break;
        case 'r':
            m.preload = optarg;
            break;
        case 'w':
            m.param_cache = optarg;
            break;
        case 'l':
            level = optarg;
            break;
        case 'H':
            m.readahead_s = atof(optarg);
            break;
        case 'L':
            m.device.lane_slowdown = atof(optarg);
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || m.seconds <= 0 || m.speed <= 0 || m.device.bytes <= m.device.working) {
        usage(stderr);
        return 2;
    }
    if (engine_log_set_level(level) < 0) {
        fprintf(stderr, "cuzk-sim: -l %s: not a log level (error, warn, info, debug)\n", level);
        return 2;
    }
    sim_report r;
    cuzk_err err;
    int rc = sim_mix_run(&m, &r, &err);
    if (rc) {
        fprintf(stderr, "cuzk-sim: %s\n", err.msg);
        return rc == CUZK_EINVAL ? 2 : 1;
    }
    sim_report_print(&m, &r, stdout);
    uint32_t failed = 0;
    for (int k = 0; k < SIM_KINDS; k++) failed += r.kinds[k].failed;
    bool ok = !failed && !r.rejected && r.budget_peak <= r.budget && r.deadline_max_s <= 60;
    for (uint32_t d = 0; d < r.deadlines; d++) ok &= r.deadline_s[d] >= 0;
    printf("%s\n", ok ? "Goals held: nothing failed, every proof verified, the budget never "
                        "exceeded, every deadline within 60 s."
                      : "GOAL MISSED (see above)");
    return ok ? 0 : 1;
}
