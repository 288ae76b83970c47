/*
 * rpc.c - the gRPC helpers of rpc.h. The client call runs one batch (send
 * metadata, message and close; receive metadata, message and status) on a
 * completion queue of its own, so any number of threads may call at once.
 */
#include "rpc.h"

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <stdlib.h>
#include <string.h>

const char *const rpc_method_paths[RPC_METHODS] = {
    "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
    "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
    "/cuzk.v1.ProvingEngine/GetStatus",   "/cuzk.v1.ProvingEngine/GetMetrics",
    "/cuzk.v1.ProvingEngine/PreloadSRS",  "/cuzk.v1.ProvingEngine/EvictSRS",
};

int rpc_read_buffer(grpc_byte_buffer *bb, uint8_t **data, size_t *len, cuzk_err *err)
{
    grpc_byte_buffer_reader reader;
    *data = NULL, *len = 0;
    if (!bb) return cuzk_errf(err, CUZK_EINVAL, "no message");
    if (!grpc_byte_buffer_reader_init(&reader, bb))
        return cuzk_errf(err, CUZK_EINVAL, "message cannot be decompressed");
    grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    *len = GRPC_SLICE_LENGTH(all);
    *data = malloc(*len ? *len : 1);
    if (*data) memcpy(*data, GRPC_SLICE_START_PTR(all), *len);
    grpc_slice_unref(all);
    return *data ? CUZK_OK
                 : cuzk_errf(err, CUZK_ENOMEM, "message of %zu bytes: out of memory", *len);
}

grpc_byte_buffer *rpc_make_buffer(const void *data, size_t len)
{
    grpc_slice s = grpc_slice_from_copied_buffer(data, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

const char *rpc_target(const char *addr)
{
    return strncmp(addr, "http://", 7) ? addr : addr + 7;
}

const grpc_channel_args *rpc_channel_args(void)
{
    static grpc_arg args[2];
    static grpc_channel_args list = {2, args};
    args[0].type = args[1].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[0].value.integer = args[1].value.integer = RPC_MAX_MESSAGE;
    return &list;
}

grpc_channel *rpc_connect(const char *addr)
{
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    grpc_channel *ch = grpc_channel_create(rpc_target(addr), creds, rpc_channel_args());
    grpc_channel_credentials_release(creds);
    return ch;
}

void rpc_reply_free(rpc_reply *r)
{
    free(r->details);
    free(r->data);
    memset(r, 0, sizeof *r);
}

int rpc_call(grpc_channel *ch, int method, const uint8_t *req, size_t req_len, int64_t timeout_ms,
             rpc_reply *reply, cuzk_err *err)
{
    memset(reply, 0, sizeof *reply);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    gpr_timespec deadline = timeout_ms > 0
                                ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                                               gpr_time_from_millis(timeout_ms, GPR_TIMESPAN))
                                : gpr_inf_future(GPR_CLOCK_REALTIME);
    grpc_slice path = grpc_slice_from_static_string(rpc_method_paths[method]);
    grpc_call *call =
        grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, path, NULL, deadline, NULL);
    grpc_byte_buffer *send = rpc_make_buffer(req, req_len), *recv = NULL;
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial);
    grpc_metadata_array_init(&trailing);
    grpc_slice details = grpc_empty_slice();
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE, ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
    ops[4].op = GRPC_OP_RECV_MESSAGE, ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
    ops[5].data.recv_status_on_client.status = &reply->status;
    ops[5].data.recv_status_on_client.status_details = &details;
    int rc = CUZK_OK;
    if (grpc_call_start_batch(call, ops, 6, call, NULL) != GRPC_CALL_OK)
        rc = cuzk_errf(err, CUZK_EIO, "cannot start the %s call", rpc_method_paths[method]);
    else
        grpc_completion_queue_pluck(cq, call, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    if (!rc && GRPC_SLICE_LENGTH(details)) {
        size_t n = GRPC_SLICE_LENGTH(details);
        if ((reply->details = malloc(n + 1))) {
            memcpy(reply->details, GRPC_SLICE_START_PTR(details), n);
            reply->details[n] = 0;
        }
    }
    if (!rc && reply->status == GRPC_STATUS_OK)
        rc = rpc_read_buffer(recv, &reply->data, &reply->len, err);
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&initial);
    grpc_metadata_array_destroy(&trailing);
    grpc_byte_buffer_destroy(send);
    if (recv) grpc_byte_buffer_destroy(recv);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    grpc_completion_queue_destroy(cq);
    return rc;
}
