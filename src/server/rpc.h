/*
 * rpc.h - gRPC plumbing shared by the daemon and cuzk-bench on the grpc
 * core C API: byte buffers to and from flat bytes, addresses
 * ("unix:///path", "host:port", "http://host:port"), the 256 MiB message
 * limits of Curio's client, and a blocking unary client call.
 */
#ifndef CUZK_SERVER_RPC_H
#define CUZK_SERVER_RPC_H

#include <grpc/grpc.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

/* Curio's limits: 256 MiB messages both ways. */
#define RPC_MAX_MESSAGE (256 << 20)

/* The eight methods, in proto order, as "/cuzk.v1.ProvingEngine/<Name>". */
enum rpc_method {
    RPC_SUBMIT = 0,
    RPC_AWAIT,
    RPC_PROVE,
    RPC_CANCEL,
    RPC_STATUS,
    RPC_METRICS,
    RPC_PRELOAD,
    RPC_EVICT,
    RPC_METHODS
};
extern const char *const rpc_method_paths[RPC_METHODS];

/* Flattens a (possibly compressed) byte buffer; *data is malloc'd. */
int rpc_read_buffer(grpc_byte_buffer *bb, uint8_t **data, size_t *len, cuzk_err *err);
/* A byte buffer owning a copy of data. */
grpc_byte_buffer *rpc_make_buffer(const void *data, size_t len);
/* The grpc target for an address: strips "http://"; unix:// stays. */
const char *rpc_target(const char *addr);
/* Channel args with the 256 MiB limits (static storage). */
const grpc_channel_args *rpc_channel_args(void);

/* A blocking unary call. On return *status is the gRPC status and details
 * (malloc'd, may be NULL) its message; resp is malloc'd when status is OK. */
typedef struct rpc_reply {
    grpc_status_code status;
    char *details;
    uint8_t *data;
    size_t len;
} rpc_reply;

grpc_channel *rpc_connect(const char *addr);
int rpc_call(grpc_channel *ch, int method, const uint8_t *req, size_t req_len, int64_t timeout_ms,
             rpc_reply *reply, cuzk_err *err);
void rpc_reply_free(rpc_reply *r);

#endif
