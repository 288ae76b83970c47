/*
 * vanilla_json.c - the streaming C1 reader: c1.json wrapper or bare
 * SealCommitPhase1Output JSON into a vanilla_c1, with no JSON tree.
 *
 * Two layers. The outer one lexes the wrapper {"SectorNum": u64,
 * "Phase1Out": "<base64>", "SectorSize": u64} by hand, so that the base64
 * string (~52 MB for 32GiB) is never buffered: runs of it (found with
 * memchr) are decoded in 32 KiB chunks and the decoded JSON is fed to yajl
 * as it comes (yajl would otherwise collect the whole string before its
 * callback). In bare mode every byte goes to yajl directly; AUTO looks at
 * the first key and replays what it consumed.
 *
 * The inner layer is yajl's event parser. Its callbacks drive a stack of
 * frames, one per open JSON container, each knowing what it is (a context
 * of the serde layout: Proof, MerkleProof data, path element, ...) and the
 * struct it fills. A value event asks expect() what the open container
 * wants at its current key or index, checks the JSON type, and either
 * pushes a frame or stores the scalar. Proof blocks are allocated whole
 * when a partition starts (the vanilla_proofs key names the sector shape),
 * so values land in place: each byte of a 32-byte array goes straight to
 * its node. Counts, field sets, canonical field elements and path digits
 * are checked as containers close; errors name the JSON path from the
 * stack. Whole-proof consistency is vanilla_c1_check at the end (the shape
 * alone, vanilla_c1_check_shape, with VANILLA_C1_UNCHECKED).
 *
 * Memory is the typed result (~10 MB for 32GiB: 1,759 nodes per
 * challenge) plus fixed buffers. A partition block is allocated when its
 * array opens, and at most the shape's partition count of them (NI-PoRep's
 * 126 for unknown registered proofs), so a hostile input can make the
 * reader allocate at most one full C1 of its declared size.
 */
#include "vanilla_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* ---- inner layer: contexts and fields ---- */

enum ctx {
    X_TOP,      /* SealCommitPhase1Output */
    X_VP,       /* vanilla_proofs: {"StackedDrg<size>V1": partitions} */
    X_PARTS,    /* [[Proof]] */
    X_CHALS,    /* [Proof] of one partition */
    X_PROOF,    /* stacked::Proof */
    X_MERKLE,   /* MerkleProof {"data"} */
    X_DATA,     /* ProofData {"Single" | "Sub" | "Top"} */
    X_BODY,     /* SingleProof / SubProof / TopProof */
    X_IPATH,    /* InclusionPath {"path"} */
    X_ELEMS,    /* [PathElement] */
    X_ELEM,     /* PathElement {"hashes", "index"} */
    X_RCP,      /* ReplicaColumnProof */
    X_COLS,     /* [ColumnProof] */
    X_COLPROOF, /* ColumnProof {"column", "inclusion_proof"} */
    X_COLUMN,   /* Column {"index", "rows", "_h"} */
    X_LABELS,   /* [LabelingProof] */
    X_LABEL,    /* LabelingProof / EncodingProof */
    X_NODES,    /* [node] */
    X_NODE,     /* [32 bytes] */
    /* scalars */
    X_BYTE,
    X_U32,
    X_U64,
    X_INDEX, /* a path element's index: a digit of the leaf position */
    X_NAME,  /* registered_proof */
    X_NULL,  /* Column's PhantomData */
    X_NCTX
};

enum jtype { J_MAP, J_ARRAY, J_NUMBER, J_STRING, J_NULL, J_BOOL };
static const char *const JTYPE_NAMES[] = {"an object", "an array", "a number",
                                          "a string",  "null",     "a boolean"};

/* The JSON type each context is. */
static const uint8_t CTX_JTYPE[X_NCTX] = {
    [X_TOP] = J_MAP,    [X_VP] = J_MAP,       [X_PARTS] = J_ARRAY,  [X_CHALS] = J_ARRAY,
    [X_PROOF] = J_MAP,  [X_MERKLE] = J_MAP,   [X_DATA] = J_MAP,     [X_BODY] = J_MAP,
    [X_IPATH] = J_MAP,  [X_ELEMS] = J_ARRAY,  [X_ELEM] = J_MAP,     [X_RCP] = J_MAP,
    [X_COLS] = J_ARRAY, [X_COLPROOF] = J_MAP, [X_COLUMN] = J_MAP,   [X_LABELS] = J_ARRAY,
    [X_LABEL] = J_MAP,  [X_NODES] = J_ARRAY,  [X_NODE] = J_ARRAY,   [X_BYTE] = J_NUMBER,
    [X_U32] = J_NUMBER, [X_U64] = J_NUMBER,   [X_INDEX] = J_NUMBER, [X_NAME] = J_STRING,
    [X_NULL] = J_NULL,
};

/* Field names of the object contexts, in serde declaration order. */
#define MAX_FIELDS 7
static const char *const FIELDS[X_NCTX][MAX_FIELDS] = {
    [X_TOP] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed",
               "ticket"},
    [X_PROOF] = {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs",
                 "encoding_proof"},
    [X_MERKLE] = {"data"},
    [X_DATA] = {"Single", "Sub", "Top"},
    [X_BODY] = {"root", "leaf", "path", "base_proof", "sub_proof", "top_proof"},
    [X_IPATH] = {"path"},
    [X_ELEM] = {"hashes", "index"},
    [X_RCP] = {"c_x", "drg_parents", "exp_parents"},
    [X_COLPROOF] = {"column", "inclusion_proof"},
    [X_COLUMN] = {"index", "rows", "_h"},
    [X_LABEL] = {"parents", "layer_index", "node"},
};

/* SingleProof: root leaf path; SubProof: + base_proof sub_proof - path; TopProof: + top_proof. */
static const uint32_t BODY_FIELDS[3] = {0x07, 0x1b, 0x3b};

enum { TREE_D, TREE_R };

typedef struct frame {
    uint8_t ctx;
    uint8_t tree;   /* Merkle contexts: TREE_D or TREE_R */
    uint8_t level;  /* X_ELEMS: first level of the section; X_ELEM: its level */
    int8_t key;     /* objects: field being read, -1 between fields */
    uint32_t need;  /* objects: fields required (bit per field) */
    uint32_t seen;  /* objects: fields seen */
    uint32_t n;     /* arrays: elements so far */
    uint32_t cap;   /* arrays: elements expected */
    bool canonical; /* X_NODE: must be < r */
    void *dst;
} frame;

#define MAX_DEPTH 24

/* ---- outer layer: the wrapper lexer ---- */

enum wstate {
    W_START,    /* before '{' */
    W_KEY0,     /* after '{': key or '}' */
    W_KEY_NEXT, /* after ',': key */
    W_KEY,      /* inside a key */
    W_COLON,
    W_VALUE,
    W_NUMBER,
    W_BASE64, /* inside the Phase1Out string */
    W_ESCAPE, /* after '\' in it */
    W_AFTER,  /* after a value: ',' or '}' */
    W_END,    /* after the closing '}' */
    W_BARE,   /* AUTO decided on bare JSON: bytes go to yajl */
};

enum wkey { WK_SECTOR_NUM, WK_PHASE1OUT, WK_SECTOR_SIZE, WK_COUNT };
static const char *const WRAPPER_KEYS[WK_COUNT] = {"SectorNum", "Phase1Out", "SectorSize"};

#define B64_CHUNK 32768

struct vanilla_c1_reader {
    int format;     /* enum vanilla_c1_format, VANILLA_C1_UNCHECKED cleared */
    bool unchecked; /* finish checks the shape only (vanilla_c1_check_shape) */
    yajl_handle y;
    int failed;   /* sticky status once an error is reported */
    cuzk_err err; /* the first error */
    frame st[MAX_DEPTH];
    int depth;
    bool done;     /* the inner top-level object closed */
    vanilla_c1 c1; /* being filled */
    /* wrapper */
    int w;
    uint64_t off; /* outer bytes consumed */
    char key[64];
    size_t key_len;
    bool kesc; /* the last key byte was an escaping backslash */
    int wkey;
    uint32_t wseen;
    uint64_t wnum;
    size_t wdigits;
    uint64_t sector_size;
    vanilla_b64dec b64;
    uint64_t inner_off; /* decoded bytes fed to yajl */
    uint8_t dec[B64_CHUNK / 4 * 3 + 3];
};

/* ---- error reporting with the JSON path ---- */

static frame *top(vanilla_c1_reader *r)
{
    return &r->st[r->depth - 1];
}

static size_t path_of(const vanilla_c1_reader *r, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < r->depth && n < cap; i++) {
        const frame *f = &r->st[i];
        int k = -1;
        if (CTX_JTYPE[f->ctx] == J_ARRAY && f->n > 0) {
            k = snprintf(out + n, cap - n, "[%u]", f->n - 1);
        } else if (f->ctx == X_VP && r->c1.shape) {
            k = snprintf(out + n, cap - n, ".StackedDrg%sV1", r->c1.shape->name);
        } else if (CTX_JTYPE[f->ctx] == J_MAP && f->key >= 0) {
            k = snprintf(out + n, cap - n, "%s%s", i ? "." : "", FIELDS[f->ctx][f->key]);
        }
        if (k > 0) n += (size_t)k;
    }
    return n < cap ? n : cap - 1;
}

/* Records the first error as "C1 <path>: msg"; whole = the path stops at the open
 * container (its own key or index left out). Returns 0 (yajl: stop). */
static int vfail(vanilla_c1_reader *r, bool whole, int code, const char *fmt, va_list ap)
{
    if (r->failed) return 0;
    char path[320], msg[256];
    int saved_key = r->depth ? top(r)->key : -1;
    uint32_t saved_n = r->depth ? top(r)->n : 0;
    if (whole && r->depth) top(r)->key = -1, top(r)->n = 0;
    path_of(r, path, sizeof(path));
    if (whole && r->depth) top(r)->key = (int8_t)saved_key, top(r)->n = saved_n;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    cuzk_errf(&r->err, code, "C1%s%s: %s", path[0] ? " " : "", path, msg);
    r->failed = code;
    return 0;
}

static int failf(vanilla_c1_reader *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int failf(vanilla_c1_reader *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(r, false, code, fmt, ap);
    va_end(ap);
    return 0;
}

/* An error about the open container as a whole (counts, fields). */
static int failc(vanilla_c1_reader *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int failc(vanilla_c1_reader *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(r, true, code, fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- frames ---- */

static int push(vanilla_c1_reader *r, const frame *f)
{
    if (r->depth == MAX_DEPTH) return failf(r, CUZK_EINVAL, "nested too deeply");
    frame *g = &r->st[r->depth++];
    *g = *f;
    g->key = -1;
    g->n = g->seen = 0;
    return 1;
}

static int new_partition(vanilla_c1_reader *r, frame *child)
{
    cuzk_err e;
    if (vanilla_c1_add_partition(&r->c1, &e)) return failf(r, e.code, "%s", e.msg);
    child->ctx = X_CHALS;
    child->cap = (uint32_t)r->c1.challenges;
    child->dst = r->c1.part[r->c1.partitions - 1];
    return 1;
}

static unsigned max_partitions(const vanilla_c1_reader *r)
{
    const vanilla_shape *s = r->c1.shape;
    if (r->c1.registered_proof < 0)
        return s->ni_partitions > s->partitions ? s->ni_partitions : s->partitions;
    return r->c1.registered_proof >= VANILLA_SEAL_NI ? s->ni_partitions : s->partitions;
}

/* What the element at index i (0-based) of an array frame f is. */
static int expect_element(vanilla_c1_reader *r, frame *f, frame *c)
{
    unsigned i = f->n;
    if (i >= f->cap) return failc(r, CUZK_ELENGTH, "more than %u elements", f->cap);
    c->tree = f->tree;
    c->canonical = f->canonical;
    switch (f->ctx) {
    case X_PARTS:
        return new_partition(r, c);
    case X_CHALS:
        c->ctx = X_PROOF, c->dst = (vanilla_porep_proof *)f->dst + i;
        break;
    case X_ELEMS:
        c->ctx = X_ELEM, c->dst = f->dst, c->level = (uint8_t)(f->level + i);
        break;
    case X_COLS:
        c->ctx = X_COLPROOF, c->dst = (vanilla_column *)f->dst + i;
        break;
    case X_LABELS:
        c->ctx = X_LABEL, c->dst = (vanilla_label *)f->dst + i;
        break;
    case X_NODES:
        c->ctx = X_NODE, c->dst = (vanilla_node *)f->dst + i;
        break;
    case X_NODE:
        c->ctx = X_BYTE, c->dst = (uint8_t *)f->dst + i;
        break;
    default:
        return failf(r, CUZK_EINVAL, "internal: array context %d", f->ctx);
    }
    return 1;
}

static const vanilla_tree *tree_of(const vanilla_c1_reader *r, int tree)
{
    return tree == TREE_D ? &r->c1.tree_d : &r->c1.tree_r;
}

static void nodes(frame *c, void *dst, uint32_t cap)
{
    c->ctx = X_NODES, c->dst = dst, c->cap = cap, c->canonical = true;
}

static void merkle(frame *c, vanilla_merkle *m, int tree)
{
    c->ctx = X_MERKLE, c->dst = m, c->tree = (uint8_t)tree;
}

/* A section of a Sub/Top proof or a Single proof's path: its levels. */
static void inclusion_path(const vanilla_c1_reader *r, const frame *f, frame *c)
{
    const vanilla_tree *t = tree_of(r, f->tree);
    c->ctx = X_IPATH, c->dst = f->dst, c->tree = f->tree;
    switch (f->key) {
    case 4:
        c->level = (uint8_t)t->base_levels, c->cap = 1;
        break; /* sub_proof */
    case 5:
        c->level = (uint8_t)(t->base_levels + 1), c->cap = 1;
        break; /* top_proof */
    default:
        c->level = 0, c->cap = t->base_levels; /* path, base_proof */
    }
}

static void expect_proof_field(vanilla_c1_reader *r, frame *f, frame *c)
{
    vanilla_porep_proof *p = f->dst;
    switch (f->key) {
    case 0:
        merkle(c, &p->comm_d, TREE_D);
        break;
    case 1:
        merkle(c, &p->comm_r_last, TREE_R);
        break;
    case 2:
        c->ctx = X_RCP, c->dst = p;
        break;
    case 3:
        c->ctx = X_LABELS, c->dst = p->labels, c->cap = r->c1.shape->layers;
        break;
    default:
        c->ctx = X_LABEL, c->dst = &p->encoding;
    }
}

static void expect_body_field(vanilla_c1_reader *r, frame *f, frame *c)
{
    vanilla_merkle *m = f->dst;
    if (f->key == 0)
        c->ctx = X_NODE, c->dst = &m->root, c->canonical = true;
    else if (f->key == 1)
        c->ctx = X_NODE, c->dst = &m->leaf, c->canonical = true;
    else
        inclusion_path(r, f, c);
}

static void expect_misc_field(vanilla_c1_reader *r, frame *f, frame *c)
{
    switch (f->ctx) {
    case X_IPATH: /* "path": the section's elements */
        c->ctx = X_ELEMS, c->dst = f->dst, c->tree = f->tree, c->level = f->level, c->cap = f->cap;
        break;
    case X_ELEM: {
        vanilla_merkle *m = f->dst;
        const vanilla_tree *t = tree_of(r, f->tree);
        if (f->key == 0)
            nodes(c, m->hashes + vanilla_level_offset(t, f->level), t->arity[f->level] - 1u);
        else
            c->ctx = X_INDEX, c->dst = m, c->tree = f->tree, c->level = f->level;
        break;
    }
    case X_RCP: {
        vanilla_porep_proof *p = f->dst;
        if (f->key == 0)
            c->ctx = X_COLPROOF, c->dst = &p->c_x;
        else if (f->key == 1)
            c->ctx = X_COLS, c->dst = p->drg, c->cap = VANILLA_DRG_PARENTS;
        else
            c->ctx = X_COLS, c->dst = p->exp, c->cap = VANILLA_EXP_PARENTS;
        break;
    }
    case X_COLPROOF: {
        vanilla_column *col = f->dst;
        if (f->key == 0)
            c->ctx = X_COLUMN, c->dst = col;
        else
            merkle(c, &col->proof, TREE_R);
        break;
    }
    case X_COLUMN: {
        vanilla_column *col = f->dst;
        if (f->key == 0)
            c->ctx = X_U32, c->dst = &col->index;
        else if (f->key == 1)
            nodes(c, col->rows, r->c1.shape->layers);
        else
            c->ctx = X_NULL;
        break;
    }
    default: { /* X_LABEL */
        vanilla_label *l = f->dst;
        if (f->key == 0)
            nodes(c, l->parents, VANILLA_TOTAL_PARENTS);
        else if (f->key == 1)
            c->ctx = X_U32, c->dst = &l->layer;
        else
            c->ctx = X_U64, c->dst = &l->node;
    }
    }
}

static void expect_top_field(vanilla_c1_reader *r, frame *f, frame *c)
{
    vanilla_node *v[] = {NULL,        NULL,         &r->c1.comm_r, &r->c1.comm_d, &r->c1.replica_id,
                         &r->c1.seed, &r->c1.ticket};
    if (f->key == 0)
        c->ctx = X_NAME;
    else if (f->key == 1)
        c->ctx = X_VP;
    else
        c->ctx = X_NODE, c->dst = v[f->key], c->canonical = f->key <= 4; /* seed, ticket: bytes */
}

/* What the value at the current key of object frame f is. */
static int expect_field(vanilla_c1_reader *r, frame *f, frame *c)
{
    c->tree = f->tree;
    switch (f->ctx) {
    case X_TOP:
        expect_top_field(r, f, c);
        break;
    case X_VP:
        c->ctx = X_PARTS, c->cap = max_partitions(r);
        break;
    case X_PROOF:
        expect_proof_field(r, f, c);
        break;
    case X_MERKLE:
        c->ctx = X_DATA, c->dst = f->dst;
        break;
    case X_DATA:
        c->ctx = X_BODY, c->dst = f->dst, c->need = BODY_FIELDS[f->key];
        break;
    case X_BODY:
        expect_body_field(r, f, c);
        break;
    default:
        expect_misc_field(r, f, c);
    }
    return 1;
}

/* Opens a value of JSON type j in the current container; fills c with what it is. */
static int begin_value(vanilla_c1_reader *r, int j, frame *c)
{
    memset(c, 0, sizeof(*c));
    if (r->depth == 0) {
        if (r->done) return failf(r, CUZK_EINVAL, "data after the top-level object");
        c->ctx = X_TOP;
        c->need = (1u << 7) - 1;
        c->dst = &r->c1;
    } else {
        frame *f = top(r);
        int ok = CTX_JTYPE[f->ctx] == J_ARRAY ? expect_element(r, f, c) : expect_field(r, f, c);
        if (!ok) return 0;
        if (CTX_JTYPE[f->ctx] == J_ARRAY) f->n++;
    }
    if (CTX_JTYPE[c->ctx] != j)
        return failf(r, CUZK_EINVAL, "expected %s, found %s", JTYPE_NAMES[CTX_JTYPE[c->ctx]],
                     JTYPE_NAMES[j]);
    if (c->ctx == X_NODE) c->cap = 32;
    if (CTX_JTYPE[c->ctx] == J_MAP && !c->need) {
        unsigned k = 0;
        while (k < MAX_FIELDS && FIELDS[c->ctx][k]) k++;
        c->need = (1u << k) - 1;
    }
    return 1;
}

/* ---- closing containers: counts and fields ---- */

static int close_object(vanilla_c1_reader *r, frame *f)
{
    uint32_t missing = f->need & ~f->seen;
    if (f->ctx == X_VP && !f->seen) return failc(r, CUZK_EINVAL, "no proofs");
    if (f->ctx == X_DATA && !f->seen) return failc(r, CUZK_EINVAL, "no proof variant");
    if (f->ctx != X_DATA && missing) {
        unsigned k = (unsigned)__builtin_ctz(missing);
        return failc(r, CUZK_EINVAL, "missing field \"%s\"", FIELDS[f->ctx][k]);
    }
    return 1;
}

static int close_array(vanilla_c1_reader *r, frame *f)
{
    if (f->ctx == X_NODE) {
        if (f->n != 32) return failc(r, CUZK_ELENGTH, "%u bytes, expected 32", f->n);
        if (f->canonical && !vanilla_node_canonical(f->dst))
            return failc(r, CUZK_ENONCANONICAL, "not a canonical field element (>= r)");
        return 1;
    }
    if (f->ctx == X_PARTS) return 1; /* the count depends on registered_proof: checked at the end */
    if (f->n != f->cap) return failc(r, CUZK_ELENGTH, "%u elements, expected %u", f->n, f->cap);
    return 1;
}

/* ---- scalars ---- */

static int parse_u64(vanilla_c1_reader *r, const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    int shown = n > 40 ? 40 : (int)n;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (d > 9) return failf(r, CUZK_EINVAL, "%.*s is not an unsigned integer", shown, s);
        if (x > (UINT64_MAX - d) / 10) return failf(r, CUZK_EINVAL, "%.*s overflows u64", shown, s);
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

static int store_index(vanilla_c1_reader *r, const frame *c, uint64_t v)
{
    const vanilla_tree *t = tree_of(r, c->tree);
    if (v >= t->arity[c->level])
        return failf(r, CUZK_EINVAL, "%llu is not below the level's arity %u",
                     (unsigned long long)v, t->arity[c->level]);
    ((vanilla_merkle *)c->dst)->index += v * vanilla_level_weight(t, c->level);
    return 1;
}

static int store_number(vanilla_c1_reader *r, const frame *c, uint64_t v)
{
    switch (c->ctx) {
    case X_BYTE:
        if (v > 255) return failf(r, CUZK_EINVAL, "%llu is not a byte", (unsigned long long)v);
        *(uint8_t *)c->dst = (uint8_t)v;
        return 1;
    case X_U32:
        if (v > UINT32_MAX)
            return failf(r, CUZK_EINVAL, "%llu overflows u32", (unsigned long long)v);
        *(uint32_t *)c->dst = (uint32_t)v;
        return 1;
    case X_U64:
        *(uint64_t *)c->dst = v;
        return 1;
    default:
        return store_index(r, c, v);
    }
}

/* ---- yajl callbacks ---- */

static int on_number(void *ctx, const char *s, size_t n)
{
    vanilla_c1_reader *r = ctx;
    frame *f = r->depth ? top(r) : NULL;
    if (f && f->ctx == X_NODE && f->n < 32 && n <= 3) { /* the hot path: one byte of a node */
        unsigned v = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (d > 9) goto slow;
            v = v * 10 + d;
        }
        if (v > 255) goto slow;
        ((uint8_t *)f->dst)[f->n++] = (uint8_t)v;
        return 1;
    }
slow:;
    frame c;
    uint64_t v = 0;
    if (!begin_value(r, J_NUMBER, &c) || !parse_u64(r, s, n, &v)) return 0;
    return store_number(r, &c, v);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    vanilla_c1_reader *r = ctx;
    frame c;
    if (!begin_value(r, J_STRING, &c)) return 0;
    char name[64];
    if (n >= sizeof(name)) return failf(r, CUZK_EINVAL, "unknown registered proof (too long)");
    memcpy(name, s, n);
    name[n] = 0;
    int id = vanilla_seal_proof_id(name);
    if (id < 0) return failf(r, CUZK_EINVAL, "unknown registered proof \"%s\"", name);
    if (r->c1.shape && r->c1.shape->sector_size != vanilla_seal_proof_sector_size(id))
        return failf(r, CUZK_EINVAL, "%s does not match the %s proofs", name, r->c1.shape->name);
    r->c1.registered_proof = id;
    return 1;
}

static int on_null(void *ctx)
{
    frame c;
    return begin_value(ctx, J_NULL, &c);
}

static int on_bool(void *ctx, int b)
{
    frame c;
    (void)b;
    return begin_value(ctx, J_BOOL, &c);
}

static int on_start_map(void *ctx)
{
    vanilla_c1_reader *r = ctx;
    frame c;
    return begin_value(r, J_MAP, &c) && push(r, &c);
}

static int on_start_array(void *ctx)
{
    vanilla_c1_reader *r = ctx;
    frame c;
    return begin_value(r, J_ARRAY, &c) && push(r, &c);
}

static int vp_key(vanilla_c1_reader *r, frame *f, const char *key)
{
    if (f->seen) return failc(r, CUZK_EINVAL, "more than one proof variant");
    const vanilla_shape *s = NULL;
    size_t n = strlen(key);
    if (n > 12 && !strncmp(key, "StackedDrg", 10) && !strcmp(key + n - 2, "V1")) {
        char size[16];
        snprintf(size, sizeof(size), "%.*s", (int)(n - 12), key + 10);
        for (int id = 0; id < 5 && !s; id++)
            if (!strcmp(vanilla_shape_for_size(vanilla_seal_proof_sector_size(id))->name, size))
                s = vanilla_shape_for_size(vanilla_seal_proof_sector_size(id));
    }
    if (!s) return failc(r, CUZK_EINVAL, "unknown proof variant \"%s\"", key);
    if (r->c1.registered_proof >= 0 &&
        vanilla_seal_proof_sector_size(r->c1.registered_proof) != s->sector_size)
        return failc(r, CUZK_EINVAL, "variant %s does not match registered_proof %s", key,
                     vanilla_seal_proof_name(r->c1.registered_proof));
    vanilla_c1_set_shape(&r->c1, s);
    f->seen = 1;
    f->key = 0;
    return 1;
}

static int on_map_key(void *ctx, const unsigned char *s, size_t n)
{
    vanilla_c1_reader *r = ctx;
    frame *f = top(r);
    char key[64];
    snprintf(key, sizeof(key), "%.*s", (int)(n < sizeof(key) ? n : sizeof(key) - 1), s);
    f->key = -1;
    if (f->ctx == X_VP) return vp_key(r, f, key);
    int k = 0;
    while (k < MAX_FIELDS && FIELDS[f->ctx][k] &&
           (strlen(FIELDS[f->ctx][k]) != n || memcmp(FIELDS[f->ctx][k], s, n)))
        k++;
    if (k == MAX_FIELDS || !FIELDS[f->ctx][k] || !(f->need & (1u << k)))
        return failc(r, CUZK_EINVAL, "unknown field \"%s\"", key);
    if (f->seen & (1u << k)) return failc(r, CUZK_EINVAL, "duplicate field \"%s\"", key);
    if (f->ctx == X_DATA) {
        int want = vanilla_tree_variant(tree_of(r, f->tree));
        if (f->seen) return failc(r, CUZK_EINVAL, "more than one proof variant");
        if (k != want)
            return failc(r, CUZK_EINVAL, "variant %s, expected %s (%s of %s sectors)", key,
                         vanilla_variant_names[want], f->tree == TREE_D ? "tree-D" : "tree-R/C",
                         r->c1.shape->name);
    }
    f->seen |= 1u << k;
    f->key = (int8_t)k;
    return 1;
}

static int on_end(void *ctx)
{
    vanilla_c1_reader *r = ctx;
    frame *f = top(r);
    int ok = CTX_JTYPE[f->ctx] == J_MAP ? close_object(r, f) : close_array(r, f);
    if (!ok) return 0;
    if (--r->depth == 0) r->done = true;
    return 1;
}

static const yajl_callbacks CALLBACKS = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

/* ---- decoded JSON into yajl ---- */

static int inner_feed(vanilla_c1_reader *r, const uint8_t *buf, size_t n)
{
    if (r->failed) return r->failed;
    yajl_status st = yajl_parse(r->y, buf, n);
    if (st == yajl_status_ok) {
        r->inner_off += n;
        return CUZK_OK;
    }
    if (!r->failed) {
        unsigned char *m = yajl_get_error(r->y, 0, buf, n);
        size_t len = strcspn((const char *)m, "\n");
        cuzk_errf(&r->err, CUZK_EINVAL, "C1 JSON byte %llu: %.*s",
                  (unsigned long long)(r->inner_off + yajl_get_bytes_consumed(r->y)), (int)len, m);
        yajl_free_error(r->y, m);
        r->failed = CUZK_EINVAL;
    }
    return r->failed;
}

static int inner_complete(vanilla_c1_reader *r)
{
    if (r->failed) return r->failed;
    if (yajl_complete_parse(r->y) != yajl_status_ok && !r->failed) {
        unsigned char *m = yajl_get_error(r->y, 0, NULL, 0);
        size_t len = strcspn((const char *)m, "\n");
        cuzk_errf(&r->err, CUZK_EINVAL, "C1 JSON ends early (byte %llu): %.*s",
                  (unsigned long long)r->inner_off, (int)len, m);
        yajl_free_error(r->y, m);
        r->failed = CUZK_EINVAL;
    }
    return r->failed;
}

/* Base64 characters of Phase1Out, decoded in chunks and fed on. */
static int b64_feed(vanilla_c1_reader *r, const char *s, size_t n)
{
    while (n && !r->failed) {
        size_t k = n < B64_CHUNK ? n : B64_CHUNK;
        cuzk_err e;
        long m = vanilla_b64_decode(&r->b64, s, k, r->dec, &e);
        if (m < 0) {
            cuzk_errf(&r->err, e.code, "c1.json Phase1Out: %s", e.msg);
            return r->failed = e.code;
        }
        if (inner_feed(r, r->dec, (size_t)m)) break;
        s += k, n -= k;
    }
    return r->failed;
}

/* ---- the wrapper lexer ---- */

static int wfail(vanilla_c1_reader *r, const char *what)
{
    if (!r->failed) {
        cuzk_errf(&r->err, CUZK_EINVAL, "c1.json byte %llu: %s", (unsigned long long)r->off, what);
        r->failed = CUZK_EINVAL;
    }
    return r->failed;
}

static bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* AUTO mode found no wrapper: replay what was consumed (nothing, "{", or "{" and
 * the first key so far) to yajl, which takes all further bytes. */
enum { REPLAY_NONE, REPLAY_BRACE, REPLAY_KEY };
static int go_bare(vanilla_c1_reader *r, int replay)
{
    r->w = W_BARE;
    if (replay >= REPLAY_BRACE && inner_feed(r, (const uint8_t *)"{", 1)) return r->failed;
    if (replay < REPLAY_KEY) return CUZK_OK;
    if (inner_feed(r, (const uint8_t *)"\"", 1)) return r->failed;
    return inner_feed(r, (const uint8_t *)r->key, r->key_len);
}

static int key_done(vanilla_c1_reader *r)
{
    int k = 0;
    while (k < WK_COUNT &&
           (strlen(WRAPPER_KEYS[k]) != r->key_len || memcmp(WRAPPER_KEYS[k], r->key, r->key_len)))
        k++;
    if (k == WK_COUNT) {
        if (r->format == VANILLA_C1_AUTO && r->wseen == 0) {
            if (go_bare(r, REPLAY_KEY)) return r->failed;
            return inner_feed(r, (const uint8_t *)"\"", 1);
        }
        return wfail(r, "unknown wrapper field (expected SectorNum, Phase1Out, SectorSize)");
    }
    if (r->wseen & (1u << k)) return wfail(r, "duplicate wrapper field");
    r->wseen |= 1u << k;
    r->wkey = k;
    r->format = VANILLA_C1_WRAPPED;
    r->w = W_COLON;
    return CUZK_OK;
}

static int number_done(vanilla_c1_reader *r)
{
    if (!r->wdigits) return wfail(r, "expected an unsigned integer");
    if (r->wkey == WK_SECTOR_NUM)
        r->c1.sector_num = r->wnum;
    else
        r->sector_size = r->wnum;
    r->w = W_AFTER;
    return CUZK_OK;
}

static int number_char(vanilla_c1_reader *r, uint8_t c)
{
    unsigned d = (unsigned)(c - '0');
    if (d <= 9) {
        if (r->wdigits == 1 && r->wnum == 0) return wfail(r, "leading zero in a number");
        if (r->wnum > (UINT64_MAX - d) / 10) return wfail(r, "number overflows u64");
        r->wnum = r->wnum * 10 + d, r->wdigits++;
        return CUZK_OK;
    }
    if (is_ws(c) || c == ',' || c == '}') {
        if (number_done(r)) return r->failed;
        return -1; /* not consumed: the caller looks at it again */
    }
    return wfail(r, "expected an unsigned integer");
}

static int value_start(vanilla_c1_reader *r, uint8_t c)
{
    if (r->wkey == WK_PHASE1OUT) {
        if (c != '"') return wfail(r, "Phase1Out: expected a base64 string");
        r->w = W_BASE64;
        return CUZK_OK;
    }
    r->w = W_NUMBER;
    r->wnum = 0, r->wdigits = 0;
    int rc = number_char(r, c);
    return rc < 0 ? wfail(r, "expected an unsigned integer") : rc;
}

static int phase1out_end(vanilla_c1_reader *r)
{
    cuzk_err e;
    if (vanilla_b64_finish(&r->b64, &e)) {
        cuzk_errf(&r->err, e.code, "c1.json Phase1Out: %s", e.msg);
        return r->failed = e.code;
    }
    r->w = W_AFTER;
    return inner_complete(r);
}

/* Consumes the base64 run at s; returns bytes used. */
static size_t base64_run(vanilla_c1_reader *r, const uint8_t *s, size_t n)
{
    const uint8_t *quote = memchr(s, '"', n);
    size_t end = quote ? (size_t)(quote - s) : n;
    const uint8_t *bs = memchr(s, '\\', end);
    size_t i = bs ? (size_t)(bs - s) : end;
    if (i && b64_feed(r, (const char *)s, i)) return i;
    if (i < n) {
        if (s[i] == '"')
            phase1out_end(r);
        else
            r->w = W_ESCAPE;
        i++;
    }
    return i;
}

/* One structural byte of the wrapper (not inside the base64 string). */
static int wrapper_char(vanilla_c1_reader *r, uint8_t c)
{
    switch (r->w) {
    case W_START:
        if (is_ws(c)) return CUZK_OK;
        if (c == '{') return r->w = W_KEY0, CUZK_OK;
        if (r->format == VANILLA_C1_AUTO) return go_bare(r, REPLAY_NONE) ? r->failed : -1;
        return wfail(r, "expected '{'");
    case W_KEY0:
    case W_KEY_NEXT:
        if (is_ws(c)) return CUZK_OK;
        if (c == '}' && r->w == W_KEY0) {
            if (r->format == VANILLA_C1_AUTO) return go_bare(r, REPLAY_BRACE) ? r->failed : -1;
            return r->w = W_END, CUZK_OK;
        }
        if (c != '"') return wfail(r, "expected a field name");
        r->key_len = 0, r->kesc = false;
        return r->w = W_KEY, CUZK_OK;
    case W_KEY:
        if (c == '"' && !r->kesc) return key_done(r);
        if (r->key_len == sizeof(r->key)) {
            if (r->format == VANILLA_C1_AUTO && r->wseen == 0)
                return go_bare(r, REPLAY_KEY) ? r->failed : -1;
            return wfail(r, "unknown wrapper field");
        }
        r->kesc = c == '\\' && !r->kesc;
        r->key[r->key_len++] = (char)c;
        return CUZK_OK;
    case W_COLON:
        if (is_ws(c)) return CUZK_OK;
        if (c != ':') return wfail(r, "expected ':'");
        return r->w = W_VALUE, CUZK_OK;
    case W_VALUE:
        return is_ws(c) ? CUZK_OK : value_start(r, c);
    case W_NUMBER:
        return number_char(r, c);
    case W_ESCAPE:
        if (c != '/') return wfail(r, "Phase1Out: only the escape \\/ can occur in base64");
        r->w = W_BASE64;
        return b64_feed(r, "/", 1);
    case W_AFTER:
        if (is_ws(c)) return CUZK_OK;
        if (c == ',') return r->w = W_KEY_NEXT, CUZK_OK;
        if (c == '}') return r->w = W_END, CUZK_OK;
        return wfail(r, "expected ',' or '}'");
    default: /* W_END */
        return is_ws(c) ? CUZK_OK : wfail(r, "data after the wrapper object");
    }
}

int vanilla_c1_reader_feed(vanilla_c1_reader *r, const void *buf, size_t len, cuzk_err *err)
{
    const uint8_t *s = buf;
    size_t i = 0;
    while (i < len && !r->failed) {
        if (r->format == VANILLA_C1_BARE || r->w == W_BARE) {
            inner_feed(r, s + i, len - i);
            r->off += len - i;
            break;
        }
        if (r->w == W_BASE64) {
            size_t k = base64_run(r, s + i, len - i);
            i += k, r->off += k;
            continue;
        }
        int rc = wrapper_char(r, s[i]);
        if (rc < 0) continue; /* the byte is looked at again in the new state */
        i++, r->off++;
    }
    if (r->failed && err) *err = r->err;
    return r->failed;
}

vanilla_c1_reader *vanilla_c1_reader_new(int format)
{
    vanilla_c1_reader *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    r->y = yajl_alloc(&CALLBACKS, NULL, r);
    if (!r->y) {
        free(r);
        return NULL;
    }
    r->format = format & ~VANILLA_C1_UNCHECKED;
    r->unchecked = (format & VANILLA_C1_UNCHECKED) != 0;
    r->c1.registered_proof = -1;
    r->c1.wrapped = r->format == VANILLA_C1_WRAPPED;
    return r;
}

void vanilla_c1_reader_free(vanilla_c1_reader *r)
{
    if (!r) return;
    yajl_free(r->y);
    vanilla_c1_free(&r->c1);
    free(r);
}

static int finish_wrapper(vanilla_c1_reader *r)
{
    if (r->w != W_END) return wfail(r, "the wrapper object is not complete");
    for (int k = 0; k < WK_COUNT; k++)
        if (!(r->wseen & (1u << k))) {
            cuzk_errf(&r->err, CUZK_EINVAL, "c1.json: missing field %s", WRAPPER_KEYS[k]);
            return r->failed = CUZK_EINVAL;
        }
    if (r->c1.shape && r->sector_size != r->c1.shape->sector_size) {
        cuzk_errf(&r->err, CUZK_EINVAL, "c1.json SectorSize: %llu, the proofs are for %s sectors",
                  (unsigned long long)r->sector_size, r->c1.shape->name);
        return r->failed = CUZK_EINVAL;
    }
    r->c1.wrapped = true;
    return CUZK_OK;
}

int vanilla_c1_reader_finish(vanilla_c1_reader *r, vanilla_c1 *out, cuzk_err *err)
{
    if (!r->failed) {
        if (r->format == VANILLA_C1_WRAPPED)
            finish_wrapper(r);
        else if (r->format == VANILLA_C1_BARE || r->w == W_BARE)
            inner_complete(r);
        else
            wfail(r, "empty input");
    }
    if (!r->failed && !r->done) {
        cuzk_errf(&r->err, CUZK_EINVAL, "C1: no SealCommitPhase1Output object");
        r->failed = CUZK_EINVAL;
    }
    if (!r->failed && (r->unchecked ? vanilla_c1_check_shape(&r->c1, &r->err)
                                    : vanilla_c1_check(&r->c1, &r->err)))
        r->failed = r->err.code;
    if (r->failed) {
        if (err) *err = r->err;
        return r->failed;
    }
    *out = r->c1;
    memset(&r->c1, 0, sizeof(r->c1));
    return CUZK_OK;
}

int vanilla_c1_parse(vanilla_c1 *out, const void *buf, size_t len, int format, cuzk_err *err)
{
    vanilla_c1_reader *r = vanilla_c1_reader_new(format);
    if (!r) return cuzk_errf(err, CUZK_ENOMEM, "C1: out of memory");
    int rc = vanilla_c1_reader_feed(r, buf, len, err);
    if (!rc) rc = vanilla_c1_reader_finish(r, out, err);
    vanilla_c1_reader_free(r);
    return rc;
}

int vanilla_c1_read(vanilla_c1 *out, const char *path, int format, cuzk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    vanilla_c1_reader *r = vanilla_c1_reader_new(format);
    char *buf = malloc(1 << 20);
    int rc = r && buf ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "C1: out of memory");
    size_t n;
    while (!rc && (n = fread(buf, 1, 1 << 20, f)) > 0) rc = vanilla_c1_reader_feed(r, buf, n, err);
    if (!rc && ferror(f)) rc = cuzk_errf(err, CUZK_EIO, "%s: read error", path);
    if (!rc) rc = vanilla_c1_reader_finish(r, out, err);
    if (rc && err) cuzk_err_prefix(err, "%s: ", path);
    free(buf);
    vanilla_c1_reader_free(r);
    fclose(f);
    return rc;
}
