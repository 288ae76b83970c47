/*
 * vanilla_json_write.c - writes a vanilla_c1 as serde_json writes
 * SealCommitPhase1Output (compact, fields in declaration order, 32-byte
 * values as arrays of 32 integers), optionally inside the c1.json wrapper
 * {"SectorNum":..,"Phase1Out":"<base64>","SectorSize":..} as Go's
 * encoding/json writes it.
 *
 * Output goes through one 64 KiB buffer; in wrapped mode each full buffer
 * (a multiple of 3 bytes) is base64-encoded on its way to the file, so the
 * inner JSON is never held whole. Bytes are formatted from a table of the
 * 256 decimal strings. Values are written as they are (no checks), so tests
 * can make invalid files.
 */
#include "vanilla_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WBUF 65535 /* a multiple of 3: whole base64 groups per flush */

typedef struct wout {
    FILE *f;
    bool b64;
    int failed;
    size_t n;
    char buf[WBUF];
    char enc[WBUF / 3 * 4 + 4];
} wout;

static char BYTE_STR[256][4];
static uint8_t BYTE_LEN[256];

__attribute__((constructor)) static void byte_table_init(void)
{
    for (int i = 0; i < 256; i++) BYTE_LEN[i] = (uint8_t)snprintf(BYTE_STR[i], 4, "%d", i);
}

static void flush_out(wout *w, bool last)
{
    if (w->failed || !w->n) return;
    size_t n = w->n;
    const char *p = w->buf;
    if (w->b64) {
        size_t whole = last ? n : n - n % 3;
        n = vanilla_b64_encode((const uint8_t *)w->buf, whole, w->enc);
        p = w->enc;
        memmove(w->buf, w->buf + whole, w->n - whole);
        w->n -= whole;
    } else {
        w->n = 0;
    }
    if (fwrite(p, 1, n, w->f) != n) w->failed = 1;
}

static void put(wout *w, const char *s, size_t n)
{
    while (n) {
        if (w->n == WBUF) flush_out(w, false);
        size_t k = WBUF - w->n < n ? WBUF - w->n : n;
        memcpy(w->buf + w->n, s, k);
        w->n += k, s += k, n -= k;
    }
}

static void puts_(wout *w, const char *s)
{
    put(w, s, strlen(s));
}

static void put_u64(wout *w, uint64_t v)
{
    char b[24];
    put(w, b, (size_t)snprintf(b, sizeof(b), "%llu", (unsigned long long)v));
}

static void put_node(wout *w, const vanilla_node *v)
{
    char b[32 * 4 + 2];
    size_t n = 0;
    b[n++] = '[';
    for (int i = 0; i < 32; i++) {
        memcpy(b + n, BYTE_STR[v->b[i]], 4);
        n += BYTE_LEN[v->b[i]];
        b[n++] = ',';
    }
    b[n - 1] = ']';
    put(w, b, n);
}

static void put_nodes(wout *w, const vanilla_node *v, size_t n)
{
    put(w, "[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i) put(w, ",", 1);
        put_node(w, &v[i]);
    }
    put(w, "]", 1);
}

/* {"path":[{"hashes":[..],"index":i}, ..]} for levels [from, from + count). */
static void put_ipath(wout *w, const vanilla_merkle *m, const vanilla_tree *t, unsigned from,
                      unsigned count)
{
    puts_(w, "{\"path\":[");
    for (unsigned l = from; l < from + count; l++) {
        unsigned idx;
        const vanilla_node *h = vanilla_merkle_level(m, t, l, &idx);
        puts_(w, l > from ? ",{\"hashes\":" : "{\"hashes\":");
        put_nodes(w, h, t->arity[l] - 1u);
        puts_(w, ",\"index\":");
        put_u64(w, idx);
        put(w, "}", 1);
    }
    puts_(w, "]}");
}

static void put_merkle(wout *w, const vanilla_merkle *m, const vanilla_tree *t)
{
    int v = vanilla_tree_variant(t);
    puts_(w, "{\"data\":{\"");
    puts_(w, vanilla_variant_names[v]);
    puts_(w, "\":{");
    if (v == 0) {
        puts_(w, "\"root\":");
        put_node(w, &m->root);
        puts_(w, ",\"leaf\":");
        put_node(w, &m->leaf);
        puts_(w, ",\"path\":");
        put_ipath(w, m, t, 0, t->levels);
    } else {
        puts_(w, "\"base_proof\":");
        put_ipath(w, m, t, 0, t->base_levels);
        puts_(w, ",\"sub_proof\":");
        put_ipath(w, m, t, t->base_levels, 1);
        if (v == 2) {
            puts_(w, ",\"top_proof\":");
            put_ipath(w, m, t, t->base_levels + 1, 1);
        }
        puts_(w, ",\"root\":");
        put_node(w, &m->root);
        puts_(w, ",\"leaf\":");
        put_node(w, &m->leaf);
    }
    puts_(w, "}}}");
}

static void put_column(wout *w, const vanilla_column *c, const vanilla_c1 *c1)
{
    puts_(w, "{\"column\":{\"index\":");
    put_u64(w, c->index);
    puts_(w, ",\"rows\":");
    put_nodes(w, c->rows, c1->shape->layers);
    puts_(w, ",\"_h\":null},\"inclusion_proof\":");
    put_merkle(w, &c->proof, &c1->tree_r);
    put(w, "}", 1);
}

static void put_columns(wout *w, const vanilla_column *c, size_t n, const vanilla_c1 *c1)
{
    put(w, "[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i) put(w, ",", 1);
        put_column(w, &c[i], c1);
    }
    put(w, "]", 1);
}

static void put_label(wout *w, const vanilla_label *l)
{
    puts_(w, "{\"parents\":");
    put_nodes(w, l->parents, VANILLA_TOTAL_PARENTS);
    puts_(w, ",\"layer_index\":");
    put_u64(w, l->layer);
    puts_(w, ",\"node\":");
    put_u64(w, l->node);
    put(w, "}", 1);
}

static void put_proof(wout *w, const vanilla_porep_proof *p, const vanilla_c1 *c1)
{
    puts_(w, "{\"comm_d_proofs\":");
    put_merkle(w, &p->comm_d, &c1->tree_d);
    puts_(w, ",\"comm_r_last_proof\":");
    put_merkle(w, &p->comm_r_last, &c1->tree_r);
    puts_(w, ",\"replica_column_proofs\":{\"c_x\":");
    put_column(w, &p->c_x, c1);
    puts_(w, ",\"drg_parents\":");
    put_columns(w, p->drg, VANILLA_DRG_PARENTS, c1);
    puts_(w, ",\"exp_parents\":");
    put_columns(w, p->exp, VANILLA_EXP_PARENTS, c1);
    puts_(w, "},\"labeling_proofs\":[");
    for (unsigned l = 0; l < c1->shape->layers; l++) {
        if (l) put(w, ",", 1);
        put_label(w, &p->labels[l]);
    }
    puts_(w, "],\"encoding_proof\":");
    put_label(w, &p->encoding);
    put(w, "}", 1);
}

static void put_c1(wout *w, const vanilla_c1 *c1)
{
    puts_(w, "{\"registered_proof\":\"");
    puts_(w, vanilla_seal_proof_name(c1->registered_proof));
    puts_(w, "\",\"vanilla_proofs\":{\"StackedDrg");
    puts_(w, c1->shape->name);
    puts_(w, "V1\":[");
    for (size_t k = 0; k < c1->partitions; k++) {
        puts_(w, k ? ",[" : "[");
        for (size_t i = 0; i < c1->challenges; i++) {
            if (i) put(w, ",", 1);
            put_proof(w, &c1->part[k][i], c1);
        }
        put(w, "]", 1);
    }
    const char *names[] = {"comm_r", "comm_d", "replica_id", "seed", "ticket"};
    const vanilla_node *v[] = {&c1->comm_r, &c1->comm_d, &c1->replica_id, &c1->seed, &c1->ticket};
    puts_(w, "]}");
    for (int i = 0; i < 5; i++) {
        puts_(w, ",\"");
        puts_(w, names[i]);
        puts_(w, "\":");
        put_node(w, v[i]);
    }
    put(w, "}", 1);
}

int vanilla_c1_write(FILE *f, const vanilla_c1 *c1, cuzk_err *err)
{
    if (!c1->shape || !vanilla_seal_proof_name(c1->registered_proof))
        return cuzk_errf(err, CUZK_EINVAL, "C1 write: no shape or registered proof");
    wout *w = calloc(1, sizeof(*w));
    if (!w) return cuzk_errf(err, CUZK_ENOMEM, "C1 write: out of memory");
    w->f = f;
    if (c1->wrapped)
        fprintf(f, "{\"SectorNum\":%llu,\"Phase1Out\":\"", (unsigned long long)c1->sector_num);
    w->b64 = c1->wrapped;
    put_c1(w, c1);
    flush_out(w, true);
    if (c1->wrapped)
        fprintf(f, "\",\"SectorSize\":%llu}", (unsigned long long)c1->shape->sector_size);
    int failed = w->failed || ferror(f);
    free(w);
    return failed ? cuzk_errf(err, CUZK_EIO, "C1 write: %s", strerror(errno)) : CUZK_OK;
}

int vanilla_c1_write_file(const char *path, const vanilla_c1 *c1, cuzk_err *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    int rc = vanilla_c1_write(f, c1, err);
    if (fclose(f) && !rc) rc = cuzk_errf(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    if (rc && err) cuzk_err_prefix(err, "%s: ", path);
    return rc;
}
