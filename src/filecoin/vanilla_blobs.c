/*
 * vanilla_blobs.c - lists of vanilla proof blobs in the file format of
 * Curio's cuzk-bench gen-vanilla: a JSON array of standard base64 strings
 * (Go's json.Marshal([][]byte), Rust base64's STANDARD engine). yajl
 * delivers each string whole (a blob is at most a few MB: one sector's or
 * partition's proof), which is decoded with the strict streaming decoder of
 * vanilla_base64.c. Anything but one flat array of strings is an error
 * naming the element.
 */
#include "vanilla_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

typedef struct blob_reader {
    vanilla_blobs *out;
    int depth;
    cuzk_err err;
    int failed;
} blob_reader;

static int bfail(blob_reader *r, int code, const char *msg)
{
    if (!r->failed) {
        cuzk_errf(&r->err, code, "vanilla blobs [%zu]: %s", r->out->n, msg);
        r->failed = code;
    }
    return 0;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    blob_reader *r = ctx;
    if (r->depth != 1) return bfail(r, CUZK_EINVAL, "expected an array of base64 strings");
    uint8_t *buf = malloc(n / 4 * 3 + 3);
    if (!buf) return bfail(r, CUZK_ENOMEM, "out of memory");
    vanilla_b64dec d = {0};
    cuzk_err e;
    long k = vanilla_b64_decode(&d, (const char *)s, n, buf, &e);
    if (k >= 0 && vanilla_b64_finish(&d, &e)) k = -1;
    if (k < 0)
        bfail(r, e.code, e.msg);
    else if (vanilla_blobs_add(r->out, buf, (size_t)k, &r->err))
        r->failed = r->err.code;
    free(buf);
    return !r->failed;
}

static int on_other(void *ctx)
{
    return bfail(ctx, CUZK_EINVAL, "expected a base64 string");
}
static int on_bool(void *ctx, int b)
{
    (void)b;
    return on_other(ctx);
}

static int on_number(void *ctx, const char *s, size_t n)
{
    (void)s, (void)n;
    return on_other(ctx);
}

static int on_start_array(void *ctx)
{
    blob_reader *r = ctx;
    return ++r->depth == 1 ? 1 : bfail(r, CUZK_EINVAL, "expected a base64 string, found an array");
}

static int on_end_array(void *ctx)
{
    ((blob_reader *)ctx)->depth--;
    return 1;
}

static int on_start_map(void *ctx)
{
    return bfail(ctx, CUZK_EINVAL, "expected an array of base64 strings, found an object");
}

static const yajl_callbacks CALLBACKS = {
    .yajl_null = on_other,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end_array,
};

int vanilla_blobs_parse(vanilla_blobs *out, const void *buf, size_t len, cuzk_err *err)
{
    memset(out, 0, sizeof(*out));
    blob_reader r = {.out = out};
    yajl_handle y = yajl_alloc(&CALLBACKS, NULL, &r);
    if (!y) return cuzk_errf(err, CUZK_ENOMEM, "vanilla blobs: out of memory");
    yajl_status st = yajl_parse(y, buf, len);
    if (st == yajl_status_ok) st = yajl_complete_parse(y);
    if (st != yajl_status_ok && !r.failed) {
        unsigned char *m = yajl_get_error(y, 0, buf, len);
        cuzk_errf(&r.err, CUZK_EINVAL, "vanilla blobs: %.*s", (int)strcspn((char *)m, "\n"), m);
        yajl_free_error(y, m);
        r.failed = CUZK_EINVAL;
    }
    yajl_free(y);
    if (r.failed) {
        vanilla_blobs_free(out);
        if (err) *err = r.err;
    }
    return r.failed;
}

int vanilla_blobs_read(vanilla_blobs *out, const char *path, cuzk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    int rc = CUZK_OK;
    do {
        if (len == cap) {
            char *p = realloc(buf, cap = cap ? cap * 2 : 1 << 20);
            if (!p) {
                rc = cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = p;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    if (!rc && ferror(f)) rc = cuzk_errf(err, CUZK_EIO, "%s: read error", path);
    fclose(f);
    if (!rc && (rc = vanilla_blobs_parse(out, buf, len, err))) cuzk_err_prefix(err, "%s: ", path);
    free(buf);
    return rc;
}

int vanilla_blobs_write(FILE *f, const vanilla_blobs *b, cuzk_err *err)
{
    size_t max = 0;
    for (size_t i = 0; i < b->n; i++) max = b->len[i] > max ? b->len[i] : max;
    char *enc = malloc(max / 3 * 4 + 4);
    if (!enc) return cuzk_errf(err, CUZK_ENOMEM, "vanilla blobs: out of memory");
    fputc('[', f);
    for (size_t i = 0; i < b->n; i++) {
        size_t n = vanilla_b64_encode(b->data[i], b->len[i], enc);
        fputs(i ? ",\"" : "\"", f);
        fwrite(enc, 1, n, f);
        fputc('"', f);
    }
    fputc(']', f);
    free(enc);
    return ferror(f) ? cuzk_errf(err, CUZK_EIO, "vanilla blobs: write error") : CUZK_OK;
}

int vanilla_blobs_add(vanilla_blobs *b, const void *data, size_t len, cuzk_err *err)
{
    uint8_t **d = realloc(b->data, (b->n + 1) * sizeof(*d));
    if (d) b->data = d;
    size_t *l = d ? realloc(b->len, (b->n + 1) * sizeof(*l)) : NULL;
    if (l) b->len = l;
    uint8_t *copy = l ? malloc(len ? len : 1) : NULL;
    if (!copy) return cuzk_errf(err, CUZK_ENOMEM, "vanilla blobs: out of memory");
    memcpy(copy, data, len);
    b->data[b->n] = copy;
    b->len[b->n++] = len;
    return CUZK_OK;
}

void vanilla_blobs_free(vanilla_blobs *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n; i++) free(b->data[i]);
    free(b->data);
    free(b->len);
    memset(b, 0, sizeof(*b));
}
