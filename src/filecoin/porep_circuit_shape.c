/*
 * porep_circuit_shape.c - the shapes of the PoRep circuit and its public
 * inputs computed natively (porep_circuit.h).
 *
 * A shape is derived from the sector-size table (vanilla_shape, the same
 * table the C1 reader checks proofs against) or given directly. The public
 * inputs follow StackedCompound::generate_public_inputs: the commitments,
 * then per challenge of partition k the path-index inputs of every
 * inclusion proof the circuit makes. A path index packs the position bits
 * of the leaf (log2(arity) per level, least significant first), which for
 * power-of-two arities is the leaf index itself: one input per path.
 */
#include "cuzk/filecoin/porep_circuit.h"

#include <string.h>

#include "cuzk/filecoin/graph.h"
#include "cuzk/filecoin/sdr.h"

/* ---- shapes ---- */

static unsigned log2_exact(uint64_t v)
{
    return v && !(v & (v - 1)) ? (unsigned)__builtin_ctzll(v) : 0;
}

static bool pow2_or_absent(unsigned a)
{
    return a == 0 || (a >= 2 && !(a & (a - 1)));
}

int porep_shape_make(porep_shape *s, uint64_t nodes, unsigned layers, unsigned challenges,
                     unsigned base_arity, unsigned sub_arity, unsigned top_arity, cuzk_err *err)
{
    memset(s, 0, sizeof(*s));
    unsigned nbits = log2_exact(nodes), bbits = log2_exact(base_arity);
    unsigned sbits = log2_exact(sub_arity), tbits = log2_exact(top_arity);
    bool ok = nbits && bbits && challenges && (layers == 2 || layers == 11) &&
              pow2_or_absent(sub_arity) && pow2_or_absent(top_arity) && (sub_arity || !top_arity);
    ok = ok && nbits >= sbits + tbits + bbits && (nbits - sbits - tbits) % bbits == 0;
    if (!ok)
        return cuzk_errf(err, CUZK_EINVAL,
                         "porep shape: %llu nodes, %u layers, %u challenges, tree %u-%u-%u is "
                         "not a valid StackedDRG shape",
                         (unsigned long long)nodes, layers, challenges, base_arity, sub_arity,
                         top_arity);
    s->nodes = nodes, s->layers = layers, s->challenges = challenges;
    s->tree_d = (por_shape){2, 0, 0, nbits};
    s->tree_r = (por_shape){base_arity, sub_arity, top_arity, (nbits - sbits - tbits) / bbits};
    return CUZK_OK;
}

int porep_shape_for_size(porep_shape *s, uint64_t sector_size, cuzk_err *err)
{
    const vanilla_shape *v = vanilla_shape_for_size(sector_size);
    if (!v)
        return cuzk_errf(err, CUZK_EINVAL, "porep shape: no PoRep for a sector of %llu bytes",
                         (unsigned long long)sector_size);
    return porep_shape_make(s, v->nodes, v->layers, v->challenges, 8, v->sub_arity, v->top_arity,
                            err);
}

size_t porep_num_public_inputs(const porep_shape *s)
{
    return POREP_INPUTS_FIXED + (size_t)POREP_INPUTS_PER_CHALLENGE * s->challenges;
}

/* ---- public inputs ---- */

int porep_public_from_c1(porep_public *pub, const vanilla_c1 *c1, cuzk_err *err)
{
    pub->cfg = fc_porep_config_get((uint64_t)c1->registered_proof);
    if (!pub->cfg)
        return cuzk_errf(err, CUZK_EINVAL, "porep inputs: unknown registered proof %d",
                         c1->registered_proof);
    memcpy(pub->replica_id, c1->replica_id.b, 32);
    memcpy(pub->comm_d, c1->comm_d.b, 32);
    memcpy(pub->comm_r, c1->comm_r.b, 32);
    memcpy(pub->seed, c1->seed.b, 32);
    return CUZK_OK;
}

/* PublicInputs::challenges for partition k, by the proof's kind. */
static void partition_challenges(uint64_t *out, const porep_public *pub, unsigned k)
{
    const fc_porep_config *c = pub->cfg;
    switch (c->kind) {
    case FC_POREP_SYNTHETIC:
        fc_challenges_synthetic(out, c->challenges, k, c->nodes, 0, pub->replica_id, pub->comm_r,
                                pub->seed);
        break;
    case FC_POREP_NI:
        fc_challenges_ni(out, c->challenges, k, c->nodes, pub->replica_id, pub->comm_r);
        break;
    default:
        fc_challenges_interactive(out, c->challenges, k, c->nodes, pub->replica_id, pub->seed);
    }
}

static int commitment_input(fr_t *out, const uint8_t bytes[32], const char *what, cuzk_err *err)
{
    if (!fr_from_bytes_le(out, bytes))
        return cuzk_errf(err, CUZK_ENONCANONICAL, "porep inputs: %s is not a field element", what);
    return CUZK_OK;
}

/* The 18 inputs of one challenge. */
static void challenge_inputs(fr_t *out, const fc_graph *g, uint64_t challenge)
{
    uint32_t parents[FC_DEGREE];
    fc_graph_parents(g, (uint32_t)challenge, parents);
    fr_from_u64(out++, challenge); /* tree-D path */
    for (int i = 0; i < FC_DEGREE; i++) fr_from_u64(out++, parents[i]);
    for (int i = 0; i < 3; i++) fr_from_u64(out++, challenge); /* u64, tree-R, tree-C */
}

int porep_public_inputs(fr_t *out, const porep_public *pub, size_t partition, cuzk_err *err)
{
    const fc_porep_config *c = pub->cfg;
    if (partition >= c->partitions)
        return cuzk_errf(err, CUZK_EINVAL, "porep inputs: partition %zu of %u", partition,
                         c->partitions);
    int rc = commitment_input(&out[0], pub->replica_id, "replica_id", err);
    if (!rc) rc = commitment_input(&out[1], pub->comm_d, "comm_d", err);
    if (!rc) rc = commitment_input(&out[2], pub->comm_r, "comm_r", err);
    fc_graph g;
    if (!rc) rc = fc_graph_for(&g, c, err);
    if (rc) return rc;
    uint64_t ch[32]; /* challenges per partition: at most 18 */
    if (c->challenges > sizeof(ch) / sizeof(ch[0]))
        return cuzk_errf(err, CUZK_EUNSUPPORTED, "porep inputs: %u challenges per partition",
                         c->challenges);
    partition_challenges(ch, pub, (unsigned)partition);
    for (unsigned i = 0; i < c->challenges; i++)
        challenge_inputs(out + POREP_INPUTS_FIXED + (size_t)POREP_INPUTS_PER_CHALLENGE * i, &g,
                         ch[i]);
    return CUZK_OK;
}
