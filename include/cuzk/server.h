/*
 * server.h - the gRPC service of the daemon (cuzk.v1.ProvingEngine on the
 * grpc core C API) and its optional HTTP status page, both in front of an
 * engine (engine.h).
 *
 * Status mapping: a request that cannot be decoded or is malformed gets
 * INVALID_ARGUMENT, an unknown job or circuit NOT_FOUND, EvictSRS of a
 * circuit in use FAILED_PRECONDITION, a request after shutdown began
 * UNAVAILABLE; proving failures are OK with status FAILED and a message.
 */
#ifndef CUZK_SERVER_H
#define CUZK_SERVER_H

#include "cuzk/engine.h"
#include "cuzk/err.h"

typedef struct cuzk_server cuzk_server;

/* Listens on addr (unix:///path or host:port) and serves e. */
int cuzk_server_start(cuzk_server **out, engine_t *e, const char *addr, cuzk_err *err);
/* Stops accepting calls; calls in progress continue (the engine's shutdown
 * finishes them). */
void cuzk_server_stop_accepting(cuzk_server *s);
/* Waits up to grace_ms for calls in progress, cancels the rest, frees. */
void cuzk_server_destroy(cuzk_server *s, uint64_t grace_ms);

typedef struct cuzk_http cuzk_http;

/* GET /status (engine_status_json) and GET /metrics on host:port. */
int cuzk_http_start(cuzk_http **out, engine_t *e, const char *addr, cuzk_err *err);
void cuzk_http_stop(cuzk_http *h);

#endif
