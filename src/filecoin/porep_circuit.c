/*
 * porep_circuit.c - StackedCircuit::synthesize for one partition
 * (porep_circuit.h), in rust-fil-proofs' order:
 *
 *   replica_id: alloc, inputize, to_bits_le (255 bits + packing), bit
 *   numbering reversed per byte (256 bits); comm_d and comm_r: alloc,
 *   inputize; comm_r_last, comm_c: alloc; Poseidon-2(comm_c, comm_r_last)
 *   and comm_r * ONE = hash.
 *
 *   per challenge (params.rs Proof::synthesize): data leaf; its tree-D
 *   inclusion; for the 6 DRG then 8 expander parents: the column's rows
 *   (one per layer), the Poseidon column hash, its tree-C inclusion; the
 *   challenge as 64 allocated bits packed into an input; per layer the
 *   parents' labels to bits (to_bits_le, reversed per byte: DRG rows of
 *   this layer, expander rows of the previous one from layer 2 on), the
 *   37 parents repeated as the labeling does, and create_label:
 *   SHA-256(replica_id || layer u32 BE || challenge u64 BE || zeros to 512
 *   bits || 37 x 256 parent bits), bit numbering reversed, the first 254
 *   bits packed; encoding = last label + data leaf (constraint::add) and
 *   its tree-R inclusion; the Poseidon hash of the challenge's labels and
 *   its tree-C inclusion.
 *
 * Every inclusion is PoRCircuit with an allocated leaf and root and a
 * private root (por.h): its only input is the packed path index. Values
 * come from the vanilla proofs of one partition; without a C1 every value
 * is missing (NULL) and the same R1CS is built.
 *
 * The challenges are independent units of one size (r1cs.h cs_run_units):
 * after the commitments, the prover backend synthesizes them in parallel,
 * each on its own scratch (a synth copied from the commitments' one) into
 * the window sequential synthesis gives it; within a challenge, the labels
 * of layers 2 .. L (14 parents each, the bulk of the work) are units too,
 * so an 18-challenge 32GiB partition spreads evenly over many cores. The
 * sizes are measured once per shape (a challenge on the blank circuit).
 */
#include "cuzk/filecoin/porep_circuit.h"

#include <stdlib.h>
#include <string.h>

#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/poseidon.h"
#include "cuzk/gadgets/sha256.h"
#include "cuzk/gadgets/uint32.h"
#include "cuzk/gadgets/uint64.h"
#include "cuzk/poseidon.h"

/* Label preimage: replica_id (256) + layer and node padded to 256 + 37
 * parents x 256 = 9,984 bits (20 SHA-256 blocks with padding). */
#define LABEL_BITS ((1 + 1 + VANILLA_TOTAL_PARENTS) * 256)
#define N_COLUMNS  (VANILLA_DRG_PARENTS + VANILLA_EXP_PARENTS)
#define MAX_LAYERS 11
/* Siblings of a whole path: at most 32 levels of up to 16 children. */
#define MAX_SIBLINGS (POR_MAX_LEVELS * (POR_MAX_ARITY - 1))

/* One synthesis: the circuit, the cs, the numbers every challenge uses and
 * scratch buffers (about 100 KB, on the heap). */
typedef struct synth {
    const porep_circuit *pc;
    cs_t *cs;
    bool values;
    bool_var replica_bits[256];
    bool_var label_bits[LABEL_BITS];
    bool_var parent_bits[N_COLUMNS][256]; /* one layer's parents, reversed */
    num_var comm_d, comm_c, comm_r_last;
    fr_t siblings[MAX_SIBLINGS];
} synth;

/* A 32-byte node as a value for alloc (NULL without values, when n may be
 * NULL too). */
static const fr_t *node_value(synth *s, fr_t *buf, const vanilla_node *n)
{
    if (!s->values) return NULL;
    if (!fr_from_bytes_le(buf, n->b)) {
        cs_fail(s->cs, CUZK_ENONCANONICAL, "porep circuit: a vanilla proof node is not canonical");
        fr_from_u64(buf, 0);
    }
    return buf;
}

static num_var alloc_node(synth *s, const vanilla_node *n)
{
    fr_t v;
    return num_alloc(s->cs, node_value(s, &v, n));
}

/* enforce_inclusion: PoRCircuit over tree (tree-D or tree-R/C) with the
 * allocated leaf and root, private root; m NULL without values. */
static void inclusion(synth *s, bool sha, const vanilla_merkle *m, const num_var *leaf,
                      const num_var *root)
{
    const por_shape *shape = sha ? &s->pc->shape.tree_d : &s->pc->shape.tree_r;
    const vanilla_tree *t = s->values ? (sha ? &s->pc->c1->tree_d : &s->pc->c1->tree_r) : NULL;
    size_t levels = por_shape_levels(shape), k = 0;
    por_level path[POR_MAX_LEVELS];
    for (size_t l = 0; l < levels; l++) {
        path[l] = (por_level){0, NULL};
        if (!t) continue;
        unsigned idx, n = (unsigned)t->arity[l] - 1;
        const vanilla_node *sib = vanilla_merkle_level(m, t, (unsigned)l, &idx);
        path[l] = (por_level){idx, &s->siblings[k]};
        for (unsigned i = 0; i < n; i++) node_value(s, &s->siblings[k++], &sib[i]);
    }
    por_hasher h = sha ? por_sha256_hasher() : por_poseidon_hasher();
    por_root lr = {true, *leaf, NULL}, rr = {true, *root, NULL};
    por_circuit(s->cs, &h, shape, &lr, path, &rr, true);
}

/* Column::alloc, hash_single_column and the column's tree-C inclusion. */
static void column(synth *s, const vanilla_column *col, num_var *rows)
{
    unsigned layers = s->pc->shape.layers;
    for (unsigned l = 0; l < layers; l++) {
        fr_t v;
        rows[l] = num_alloc(s->cs, s->values ? node_value(s, &v, &col->rows[l]) : NULL);
    }
    num_var h = poseidon_gadget_hash(s->cs, poseidon_std(layers), rows);
    inclusion(s, false, s->values ? &col->proof : NULL, &h, &s->comm_c);
}

/* The parent i of a layer to 256 bits: to_bits_le then reverse_bit_numbering. */
static void parent_to_bits(synth *s, unsigned i, const num_var *value)
{
    bool_var le[FR_NUM_BITS];
    num_to_bits_le(s->cs, le, value);
    bool_reverse_bit_numbering(s->parent_bits[i], le, FR_NUM_BITS);
}

/* The 37 parents as the labeling hashes them, into the preimage. */
static void expand_parents(synth *s, unsigned layer)
{
    unsigned n = layer == 1 ? VANILLA_DRG_PARENTS : N_COLUMNS;
    bool_var *dst = s->label_bits + 512;
    for (unsigned j = 0; j < VANILLA_TOTAL_PARENTS; j++, dst += 256)
        memcpy(dst, s->parent_bits[j % n], 256 * sizeof(bool_var));
}

/* create_label_circuit; returns the packed label. */
static num_var create_label(synth *s, unsigned layer, const u64_var *node)
{
    bool_var *b = s->label_bits, out[256], rev[256];
    memcpy(b, s->replica_bits, sizeof(s->replica_bits));
    u32_var l;
    u32_const(&l, layer);
    u32_into_bits_be(b + 256, &l);
    u64_into_bits_be(b + 256 + 32, node);
    for (size_t i = 256 + 32 + 64; i < 512; i++) b[i] = bool_const(false);
    expand_parents(s, layer);
    sha256_gadget(s->cs, out, b, LABEL_BITS);
    bool_reverse_bit_numbering(rev, out, 256);
    return multipack_pack_bits(s->cs, rev, FR_CAPACITY);
}

/* The label of the challenged node in one layer. */
static num_var layer_label(synth *s, num_var cols[N_COLUMNS][MAX_LAYERS], const u64_var *node,
                           unsigned layer)
{
    for (unsigned i = 0; i < VANILLA_DRG_PARENTS; i++) parent_to_bits(s, i, &cols[i][layer - 1]);
    if (layer > 1)
        for (unsigned i = VANILLA_DRG_PARENTS; i < N_COLUMNS; i++)
            parent_to_bits(s, i, &cols[i][layer - 2]);
    return create_label(s, layer, node);
}

/* What the layer units of one challenge read and write. */
typedef struct layers_ctx {
    const synth *s;
    num_var (*cols)[MAX_LAYERS];
    const u64_var *node;
    num_var *out; /* out[layer - 1] */
} layers_ctx;

/* A synth for another cs, with its own scratch (the head copied). */
static synth *synth_copy(const synth *from, cs_t *cs, bool values)
{
    synth *s = malloc(sizeof(*s));
    if (!s) {
        cs_fail(cs, CUZK_ENOMEM, "porep circuit: out of memory");
        return NULL;
    }
    s->pc = from->pc, s->cs = cs, s->values = values;
    memcpy(s->replica_bits, from->replica_bits, sizeof(s->replica_bits));
    s->comm_d = from->comm_d, s->comm_c = from->comm_c, s->comm_r_last = from->comm_r_last;
    return s;
}

/* cs_unit_fn: the label of layer k + 2 (layers 2 .. L are units of one size). */
static int layer_unit(cs_t *cs, size_t k, void *ctx)
{
    const layers_ctx *x = ctx;
    synth *s = synth_copy(x->s, cs, x->s->values);
    if (!s) return cs_status(cs);
    x->out[k + 1] = layer_label(s, x->cols, x->node, (unsigned)k + 2);
    free(s);
    return cs_status(cs);
}

/* The memo key of a size: its tag, then the shape's numbers. */
static void size_key(uint64_t key[8], uint64_t tag, const porep_shape *sh)
{
    const por_shape *d = &sh->tree_d, *r = &sh->tree_r;
    key[0] = tag;
    key[1] = sh->layers;
    key[2] = d->base_levels;
    key[3] = (uint64_t)d->base_arity << 32 | d->sub_arity;
    key[4] = d->top_arity;
    key[5] = (uint64_t)r->base_arity << 32 | r->sub_arity;
    key[6] = r->top_arity;
    key[7] = r->base_levels;
}

/* The labels of the challenged node in every layer: layer 1 (6 parents),
 * then layers 2 .. L (14 parents each) as units. */
static void labels(synth *s, num_var cols[N_COLUMNS][MAX_LAYERS], const u64_var *node, num_var *out)
{
    out[0] = layer_label(s, cols, node, 1);
    unsigned layers = s->pc->shape.layers;
    if (layers < 2 || cs_status(s->cs)) return;
    layers_ctx x = {s, cols, node, out};
    uint64_t key[8];
    size_key(key, 0x706f7265702d6c79, &s->pc->shape); /* "porep-ly" */
    cs_run_units_auto(s->cs, layers - 1, key, sizeof(key), layer_unit, &x, &x);
}

/* Proof::synthesize for one challenge (p NULL without values). */
static void challenge(synth *s, const vanilla_porep_proof *p)
{
    unsigned layers = s->pc->shape.layers;
    num_var leaf = alloc_node(s, p ? &p->comm_d.leaf : NULL), cols[N_COLUMNS][MAX_LAYERS];
    inclusion(s, true, p ? &p->comm_d : NULL, &leaf, &s->comm_d);
    for (unsigned i = 0; i < N_COLUMNS && !cs_status(s->cs); i++) {
        const vanilla_column *c = NULL;
        if (p) c = i < VANILLA_DRG_PARENTS ? &p->drg[i] : &p->exp[i - VANILLA_DRG_PARENTS];
        column(s, c, cols[i]);
    }
    u64_var node;
    u64_alloc(s->cs, &node, p ? p->labels[0].node : 0);
    u64_pack_into_input(s->cs, &node);
    num_var column_labels[MAX_LAYERS];
    labels(s, cols, &node, column_labels);
    if (cs_status(s->cs)) return;
    num_var encoded = num_add(s->cs, &column_labels[layers - 1], &leaf);
    inclusion(s, false, p ? &p->comm_r_last : NULL, &encoded, &s->comm_r_last);
    num_var h = poseidon_gadget_hash(s->cs, poseidon_std(layers), column_labels);
    inclusion(s, false, p ? &p->c_x.proof : NULL, &h, &s->comm_c);
}

/* The top of StackedCircuit::synthesize: ids, commitments, comm_r check. */
static void commitments(synth *s, const vanilla_porep_proof *first)
{
    const vanilla_c1 *c1 = s->pc->c1;
    num_var rid = alloc_node(s, c1 ? &c1->replica_id : NULL);
    num_inputize(s->cs, &rid);
    bool_var le[FR_NUM_BITS];
    num_to_bits_le(s->cs, le, &rid);
    bool_reverse_bit_numbering(s->replica_bits, le, FR_NUM_BITS);
    s->comm_d = alloc_node(s, c1 ? &c1->comm_d : NULL);
    num_inputize(s->cs, &s->comm_d);
    num_var comm_r = alloc_node(s, c1 ? &c1->comm_r : NULL);
    num_inputize(s->cs, &comm_r);
    s->comm_r_last = alloc_node(s, first ? &first->comm_r_last.root : NULL);
    s->comm_c = alloc_node(s, first ? &first->c_x.proof.root : NULL);
    num_var pre[2] = {s->comm_c, s->comm_r_last};
    num_var h = poseidon_gadget_hash(s->cs, poseidon_std(2), pre);
    num_enforce_equal(s->cs, &comm_r, &h);
}

/* What every challenge unit reads: the synth after the commitments. */
typedef struct units_ctx {
    const synth *head;
    bool blank; /* measuring: no values whatever the circuit has */
} units_ctx;

/* cs_unit_fn: challenge k on its own copy of the synth. */
static int challenge_unit(cs_t *cs, size_t k, void *ctx)
{
    const units_ctx *u = ctx;
    const porep_circuit *pc = u->head->pc;
    synth *s = synth_copy(u->head, cs, u->head->values && !u->blank);
    if (!s) return cs_status(cs);
    challenge(s, s->values ? &pc->c1->part[pc->partition][k] : NULL);
    free(s);
    return cs_status(cs);
}

static int synthesize(cs_t *cs, void *ctx)
{
    const porep_circuit *pc = ctx;
    synth *s = malloc(sizeof(*s));
    if (!s) return cs_fail(cs, CUZK_ENOMEM, "porep circuit: out of memory");
    s->pc = pc, s->cs = cs, s->values = pc->c1 != NULL;
    commitments(s, pc->c1 ? pc->c1->part[pc->partition] : NULL);
    units_ctx blank = {s, true}, full = {s, false};
    uint64_t key[8];
    size_key(key, 0x706f7265702d6368, &pc->shape); /* "porep-ch" */
    cs_run_units_auto(cs, pc->shape.challenges, key, sizeof(key), challenge_unit, &blank, &full);
    free(s);
    return cs_status(cs);
}

int porep_circuit_init(porep_circuit *pc, const vanilla_c1 *c1, size_t partition, cuzk_err *err)
{
    const vanilla_shape *v = c1->shape;
    int rc = porep_shape_make(&pc->shape, v->nodes, v->layers, (unsigned)c1->challenges, 8,
                              v->sub_arity, v->top_arity, err);
    if (rc) return rc;
    if (partition >= c1->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "porep circuit: partition %zu of %zu", partition,
                         c1->partitions);
    pc->c1 = c1, pc->partition = partition;
    return CUZK_OK;
}

void porep_circuit_blank(porep_circuit *pc, const porep_shape *s)
{
    *pc = (porep_circuit){*s, NULL, 0};
}

cs_circuit porep_circuit_get(porep_circuit *pc)
{
    return (cs_circuit){synthesize, pc};
}
