/*
 * main.c - cuzk-daemon: the persistent proving daemon (reference/cuzk-api.md).
 *
 *   cuzk-daemon -c cuzk.toml [-l unix:///path|host:port] [--log-level L]
 *   cuzk-daemon --print-default-config
 *   cuzk-daemon --list-circuits
 *
 * Reads the config, starts the engine (CPU prover backend), the gRPC
 * server and the optional HTTP status page, logs each GPU that is too
 * small for 32 / 64 GiB PoRep partitions and by how much, or its plan
 * for them (devices.c), then waits for SIGINT or
 * SIGTERM: it stops accepting calls, lets jobs finish for
 * daemon.shutdown_grace, fails the rest with a clear status, answers the
 * calls still open and exits 0. Signals are blocked in every thread and
 * taken by sigwait here, so no work happens in a signal handler.
 *
 * The Filecoin PoRep, Winning / Window PoSt and SnapDeals providers
 * (filecoin/providers.h) are always registered; their parameters must be
 * in srs.param_cache under the official names. --dev-params lets them
 * make DEVELOPMENT parameters (not a trusted setup) for a missing file
 * instead: for tests and demos, never on by default. With either flag the
 * param cache folder is made at the start (mkdir -p), or the start refused
 * naming it, since development parameters are written there.
 * --test-circuits registers the synthetic "test-<constraints>" circuit
 * family (engine_provider.h) for tests and benchmarks; it is never on by
 * default.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/config.h"
#include "cuzk/engine.h"
#include "cuzk/engine_log.h"
#include "cuzk/engine_provider.h"
#include "cuzk/file.h"
#include "cuzk/filecoin/providers.h"
#include "cuzk/server.h"

#include "circuits.h"
#include "devices.h"

static const char usage[] =
    "usage: cuzk-daemon -c cuzk.toml [-l unix:///path|host:port] [--log-level L]\n"
    "       cuzk-daemon --print-default-config | --list-circuits\n"
    "\n"
    "  -c, --config FILE       TOML configuration (see --print-default-config)\n"
    "  -l, --listen ADDR       overrides daemon.listen\n"
    "      --log-level L       error, warn, info or debug (overrides logging.level)\n"
    "      --test-circuits     serve the synthetic test-<constraints> circuits (tests only)\n"
    "      --dev-params        make DEVELOPMENT parameters (not a trusted setup) for\n"
    "                          circuits whose parameter file is missing (tests, demos);\n"
    "                          srs.param_cache is made if it does not exist\n"
    "      --print-default-config  print the defaults as TOML and exit\n"
    "      --list-circuits     print the circuit ids (srs.preload, PreloadSRS) by proof\n"
    "                          kind and sector size, and their parameter files, and exit\n";

typedef struct options {
    const char *config, *listen, *log_level;
    bool test_circuits, dev_params;
} options;

/* 0: run, 1: exit 0 (help printed), 2: usage error. */
static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) return fputs(usage, stdout), 1;
        if (!strcmp(a, "--print-default-config")) return cuzk_config_print_default(stdout), 1;
        if (!strcmp(a, "--list-circuits")) return list_circuits(stdout), 1;
        if (!strcmp(a, "--test-circuits") || !strcmp(a, "--dev-params")) {
            *(!strcmp(a, "--dev-params") ? &o->dev_params : &o->test_circuits) = true;
            continue;
        }
        const char **slot = !strcmp(a, "-c") || !strcmp(a, "--config")   ? &o->config
                            : !strcmp(a, "-l") || !strcmp(a, "--listen") ? &o->listen
                            : !strcmp(a, "--log-level")                  ? &o->log_level
                                                                         : NULL;
        if (!slot || !next) {
            fprintf(stderr, "cuzk-daemon: %s '%s'\n%s",
                    slot ? "missing value after" : "unknown option", a, usage);
            return 2;
        }
        *slot = next;
        i++;
    }
    return 0;
}

static int configure(const options *o, cuzk_config *cfg)
{
    cuzk_err err = {0};
    cuzk_config_default(cfg);
    if (o->config && cuzk_config_load(cfg, o->config, &err)) {
        fprintf(stderr, "cuzk-daemon: %s\n", err.msg);
        return 2;
    }
    if (o->listen) snprintf(cfg->listen, sizeof cfg->listen, "%s", o->listen);
    if (o->log_level) snprintf(cfg->log_level, sizeof cfg->log_level, "%s", o->log_level);
    if (engine_log_set_level(cfg->log_level) < 0) {
        fprintf(stderr, "cuzk-daemon: log level '%s': expected error, warn, info or debug\n",
                cfg->log_level);
        return 2;
    }
    return 0;
}

/* The test family first: it claims only its own records, the Filecoin
 * providers every request of their kind. */
static int register_providers(engine_t *e, const cuzk_config *cfg, const options *o, cuzk_err *err)
{
    /* Development parameters are written into the cache: make it now, or
     * refuse to start naming it, rather than fail every job later. */
    if ((o->test_circuits || o->dev_params) && cuzk_make_dirs(cfg->param_cache, err))
        return cuzk_err_prefix(err, "srs.param_cache: ");
    if (o->test_circuits && engine_register_provider(e, &engine_test_provider, err)) return -1;
    const char *dev = o->dev_params ? cfg->param_cache : NULL;
    if (engine_register_provider(e, fc_porep_provider(dev), err) ||
        engine_register_provider(e, fc_winning_post_provider(dev), err) ||
        engine_register_provider(e, fc_window_post_provider(dev), err) ||
        engine_register_provider(e, fc_update_provider(dev), err))
        return -1;
    if (o->test_circuits) engine_log(LOG_WARN, "test circuits enabled (development parameters)");
    if (o->dev_params)
        engine_log(LOG_WARN,
                   "--dev-params: missing Filecoin parameter files are replaced by DEVELOPMENT "
                   "parameters in %s (not a trusted setup; never use them on chain)",
                   cfg->param_cache);
    return 0;
}

static int serve(const cuzk_config *cfg, const options *o, const sigset_t *signals)
{
    cuzk_err err = {0};
    engine_t *e = NULL;
    cuzk_server *srv = NULL;
    cuzk_http *http = NULL;
    if (engine_create(&e, cfg, NULL, &err) || register_providers(e, cfg, o, &err) ||
        engine_start_preload(e, &err) || cuzk_server_start(&srv, e, cfg->listen, &err) ||
        (cfg->status_listen[0] && cuzk_http_start(&http, e, cfg->status_listen, &err))) {
        engine_log(LOG_ERROR, "cuzk-daemon: %s", err.msg);
        if (srv) cuzk_server_destroy(srv, 0);
        engine_destroy(e);
        return 1;
    }
    daemon_check_devices(e, cfg->device_memory);
    engine_log(LOG_INFO, "cuzk-daemon ready");
    int sig = 0;
    sigwait(signals, &sig);
    engine_log(LOG_INFO, "%s: shutting down (grace %llu s)", sig == SIGINT ? "SIGINT" : "SIGTERM",
               (unsigned long long)cfg->shutdown_grace_s);
    cuzk_server_stop_accepting(srv);
    engine_shutdown(e, cfg->shutdown_grace_s * 1000);
    /* Results are out; give clients a moment to read them. */
    cuzk_server_destroy(srv, 2000);
    cuzk_http_stop(http);
    engine_destroy(e);
    engine_log(LOG_INFO, "cuzk-daemon stopped");
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : 2;
    cuzk_config cfg;
    if ((rc = configure(&o, &cfg))) return rc;
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    signal(SIGPIPE, SIG_IGN);
    return serve(&cfg, &o, &signals);
}
