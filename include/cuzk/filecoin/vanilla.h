/*
 * vanilla.h - Filecoin vanilla proofs as they reach the prover: the PoRep
 * commit-phase-1 output (c1.json, JSON) and the Fallback PoSt and SnapDeals
 * vanilla proofs (bincode blobs, as Curio sends them), read into typed C
 * structs, validated strictly, and written back in the same formats.
 *
 * Every 32-byte value is kept as it is serialized (vanilla_node: the
 * little-endian Fr representation of a Poseidon or SHA-256 domain element,
 * or raw bytes for seed and ticket). Readers check the shape against the
 * sector size (partitions, challenges, layers, path lengths and arities),
 * that every field element is canonical (< r), that commitments are not
 * zero, and that roots, challenge positions and comm_r = Poseidon(comm_c,
 * comm_r_last) agree inside the proof;
 * each error message names the JSON path or byte offset at fault.
 *
 * The JSON reader streams (src/filecoin/vanilla_json.c): the c1.json
 * wrapper is lexed by hand so that its base64 Phase1Out string is decoded
 * chunk by chunk and fed to a yajl event parser, whose callbacks write
 * straight into preallocated proof blocks. No JSON tree and no copy of the
 * decoded JSON is ever held.
 *
 * Proof blocks are shaped by vanilla_shape (the sector-size table, kept
 * here; the circuits' parameter headers may have their own) and the
 * Merkle paths by vanilla_tree: tree-D is the binary SHA-256 tree over the
 * sector's nodes, tree-R and tree-C the Poseidon 8-ary trees with optional
 * sub and top levels.
 */
#ifndef CUZK_FILECOIN_VANILLA_H
#define CUZK_FILECOIN_VANILLA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"
#include "cuzk/rng.h"

/* A 32-byte value, little-endian Fr repr or raw bytes. */
typedef struct vanilla_node {
    uint8_t b[32];
} vanilla_node;

/* true when the little-endian value is < r (the BLS12-381 scalar modulus). */
bool vanilla_node_canonical(const vanilla_node *n);
bool vanilla_node_is_zero(const vanilla_node *n);
/* n = the 32 bytes spelled by the first 64 characters of hex, which must
 * all be hex digits (no sign, space or 0x; what follows is the caller's
 * to check); false, n unspecified, otherwise. */
bool vanilla_node_from_hex(vanilla_node *n, const char *hex);

/* ---- sector shapes ---------------------------------------------------- */

#define VANILLA_DRG_PARENTS   6
#define VANILLA_EXP_PARENTS   8
#define VANILLA_TOTAL_PARENTS 37 /* labeling hashes 37 parent labels (6 + 8, repeated) */
#define VANILLA_MAX_LEVELS    32 /* tree-D of 64GiB has 31 levels */

typedef struct vanilla_shape {
    const char *name;       /* "2KiB", "32GiB", ... */
    uint64_t sector_size;   /* bytes */
    uint64_t nodes;         /* sector_size / 32 */
    unsigned layers;        /* SDR layers */
    unsigned challenges;    /* PoRep challenges per partition */
    unsigned partitions;    /* interactive PoRep (V1, V1_1, synthetic) */
    unsigned ni_partitions; /* non-interactive PoRep */
    unsigned sub_arity;     /* tree-R/C sub level, 0 when absent */
    unsigned top_arity;     /* tree-R/C top level, 0 when absent */
    unsigned update_partitions, update_challenges, update_apex_leafs; /* SnapDeals */
    unsigned window_sectors; /* Window PoSt sectors per partition */
} vanilla_shape;

#define VANILLA_WINNING_CHALLENGES 66 /* per sector, one sector */
#define VANILLA_WINDOW_CHALLENGES  10 /* per sector */

/* The shape of a supported sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB), or NULL. */
const vanilla_shape *vanilla_shape_for_size(uint64_t sector_size);

/* The geometry of one kind of Merkle path for a shape. */
typedef struct vanilla_tree {
    unsigned levels;                   /* path elements, base levels first */
    unsigned hashes;                   /* siblings on the whole path: sum of (arity - 1) */
    unsigned base_levels;              /* levels of the base tree(s) */
    unsigned sub_arity, top_arity;     /* 0 when absent */
    uint8_t arity[VANILLA_MAX_LEVELS]; /* per level */
} vanilla_tree;

/* tree-D: binary, log2(nodes) levels. tree-R / tree-C: 8-ary base + sub + top. */
void vanilla_tree_d(vanilla_tree *t, const vanilla_shape *s);
void vanilla_tree_r(vanilla_tree *t, const vanilla_shape *s);

/* ---- Merkle inclusion proofs ------------------------------------------ */

/*
 * One inclusion proof. The path's per-level indices are kept as the leaf
 * position `index` (level l's index is digit l in the mixed radix of the
 * tree's arities); `hashes` holds the siblings of every level in order
 * (t->hashes in all), pointing into the owner's node block.
 */
typedef struct vanilla_merkle {
    vanilla_node root, leaf;
    uint64_t index;
    vanilla_node *hashes;
} vanilla_merkle;

/* Level l of m: returns its arity[l] - 1 siblings and sets *index to its position. */
const vanilla_node *vanilla_merkle_level(const vanilla_merkle *m, const vanilla_tree *t,
                                         unsigned level, unsigned *index);

/* ---- PoRep C1 output ---------------------------------------------------- */

/* Registered seal proofs, numbered as their porep ids: 5 sizes per API group. */
enum vanilla_seal_group {
    VANILLA_SEAL_V1 = 0,         /* StackedDrg<size>V1 */
    VANILLA_SEAL_V1_1 = 5,       /* StackedDrg<size>V1_1 */
    VANILLA_SEAL_SYNTHETIC = 10, /* StackedDrg<size>V1_1_Feat_SyntheticPoRep */
    VANILLA_SEAL_NI = 15,        /* StackedDrg<size>V1_2_Feat_NonInteractivePoRep */
    VANILLA_SEAL_COUNT = 20,
};

/* "StackedDrg32GiBV1_1" for id 8; NULL for an unknown id. */
const char *vanilla_seal_proof_name(int id);
/* The id of a registered seal proof name, or -1. */
int vanilla_seal_proof_id(const char *name);
/* Sector size of a registered seal proof id (0 if unknown). */
uint64_t vanilla_seal_proof_sector_size(int id);

typedef struct vanilla_column {
    uint32_t index;       /* the column's node */
    vanilla_node *rows;   /* one label per layer */
    vanilla_merkle proof; /* tree-C inclusion */
} vanilla_column;

/* LabelingProof and EncodingProof: the 37 parent labels hashed into a label. */
typedef struct vanilla_label {
    uint32_t layer; /* 1-based */
    uint64_t node;
    vanilla_node *parents; /* VANILLA_TOTAL_PARENTS */
} vanilla_label;

/* One challenge's proof (storage-proofs-porep stacked::Proof). */
typedef struct vanilla_porep_proof {
    vanilla_merkle comm_d;      /* comm_d_proofs: tree-D */
    vanilla_merkle comm_r_last; /* comm_r_last_proof: tree-R */
    vanilla_column c_x;
    vanilla_column drg[VANILLA_DRG_PARENTS];
    vanilla_column exp[VANILLA_EXP_PARENTS];
    vanilla_label *labels; /* labeling_proofs, layers of them */
    vanilla_label encoding;
} vanilla_porep_proof;

typedef struct vanilla_c1 {
    bool wrapped;         /* read from / to be written as the c1.json wrapper */
    uint64_t sector_num;  /* wrapper SectorNum */
    int registered_proof; /* seal proof id */
    const vanilla_shape *shape;
    vanilla_tree tree_d, tree_r;
    vanilla_node comm_r, comm_d, replica_id, seed, ticket;
    size_t partitions, challenges; /* challenges per partition */
    vanilla_porep_proof **part;    /* part[k][i]: partition k, challenge i */
} vanilla_c1;

/*
 * Allocates an empty, fully shaped C1 for a registered proof (all values
 * zero, every pointer wired): the sealing tool and tests fill it in.
 */
int vanilla_c1_alloc(vanilla_c1 *c1, int registered_proof, cuzk_err *err);
void vanilla_c1_free(vanilla_c1 *c1);

/* Input formats of the reader. */
enum vanilla_c1_format {
    VANILLA_C1_AUTO,    /* wrapper or bare, told apart by the first key */
    VANILLA_C1_WRAPPED, /* {"SectorNum", "Phase1Out", "SectorSize"} */
    VANILLA_C1_BARE,    /* SealCommitPhase1Output JSON */
    /* Or'ed into a format: the reader checks the shape (vanilla_c1_check_shape)
     * but not the consistency of vanilla_c1_check, for a caller that checks
     * the proofs itself (fc_porep_c1_verify) and names the faults its way. */
    VANILLA_C1_UNCHECKED = 0x10,
};

/* Streaming reader: feed any chunks, then finish. */
typedef struct vanilla_c1_reader vanilla_c1_reader;
vanilla_c1_reader *vanilla_c1_reader_new(int format);
int vanilla_c1_reader_feed(vanilla_c1_reader *r, const void *buf, size_t len, cuzk_err *err);
/* Checks completeness and consistency; on success moves the result into *out. */
int vanilla_c1_reader_finish(vanilla_c1_reader *r, vanilla_c1 *out, cuzk_err *err);
void vanilla_c1_reader_free(vanilla_c1_reader *r);

/* One-shot readers over a buffer or a file (read in 1 MiB chunks). */
int vanilla_c1_parse(vanilla_c1 *out, const void *buf, size_t len, int format, cuzk_err *err);
int vanilla_c1_read(vanilla_c1 *out, const char *path, int format, cuzk_err *err);

/*
 * Writes c1 as serde_json does (compact, fields in declaration order),
 * inside the base64 wrapper when c1->wrapped (SectorSize from the shape).
 * Values are written as they are, so invalid inputs can be made for tests.
 */
int vanilla_c1_write(FILE *f, const vanilla_c1 *c1, cuzk_err *err);
int vanilla_c1_write_file(const char *path, const vanilla_c1 *c1, cuzk_err *err);

/* Checks what the reader checks once the structure is complete (used by finish). */
int vanilla_c1_check(const vanilla_c1 *c1, cuzk_err *err);
/* The part of it about the whole C1 (registered proof, sector size,
 * partition count; comm_r, comm_d and replica_id non-zero and canonical). */
int vanilla_c1_check_shape(const vanilla_c1 *c1, cuzk_err *err);

/*
 * A synthetic but well-formed C1 (for tests, benchmarks and synthesis
 * timing): the right shape, random canonical nodes, challenge positions,
 * layers and roots consistent, so vanilla_c1_check passes. It proves
 * nothing (the hashes do not chain).
 */
int vanilla_c1_synthetic(vanilla_c1 *c1, int registered_proof, cuzk_rng *g, cuzk_err *err);

/* ---- Fallback PoSt (bincode FallbackPoStSectorProof) -------------------- */

enum vanilla_post_kind {
    VANILLA_POST_WINNING,
    VANILLA_POST_WINDOW,
    /* Or'ed into the parser's kind: the shape is read and checked, but not
     * the consistency inside the proof (comm_r = Poseidon(comm_c,
     * comm_r_last), the proofs' roots), for a caller that checks the proof
     * itself (post_verify.h fc_post_vanilla_verify) and names the faults. */
    VANILLA_POST_UNCHECKED = 0x10,
};

typedef struct vanilla_post_sector {
    uint64_t sector_id;
    vanilla_node comm_r, comm_c, comm_r_last;
    vanilla_tree tree;      /* tree-R */
    size_t n_proofs;        /* 66 winning, 10 window */
    vanilla_merkle *proofs; /* tree-R inclusion proofs, one per challenge */
    vanilla_node *nodes;    /* the block the proofs' hashes point into */
} vanilla_post_sector;

int vanilla_post_sector_alloc(vanilla_post_sector *p, int kind, uint64_t sector_size,
                              cuzk_err *err);
/* The blocks of p for the tree and n_proofs already set, each proof's path
 * wired into them (vanilla_post_sector_alloc for a sector size and kind). */
int vanilla_post_sector_layout(vanilla_post_sector *p, cuzk_err *err);
void vanilla_post_sector_free(vanilla_post_sector *p);
int vanilla_post_sector_parse(vanilla_post_sector *out, int kind, uint64_t sector_size,
                              const void *blob, size_t len, cuzk_err *err);
/* Encodes as bincode 1.x does; *blob is malloc'd. */
int vanilla_post_sector_encode(void **blob, size_t *len, const vanilla_post_sector *p,
                               cuzk_err *err);
/* A well-formed random sector proof (see vanilla_c1_synthetic). */
int vanilla_post_sector_synthetic(vanilla_post_sector *p, int kind, uint64_t sector_size,
                                  cuzk_rng *g, cuzk_err *err);

/* ---- SnapDeals (bincode storage-proofs-update PartitionProof) ----------- */

typedef struct vanilla_update_challenge {
    vanilla_merkle r_old; /* proof_r_old: tree-R of the old replica */
    vanilla_merkle d_new; /* proof_d_new: tree-D of the new data */
    vanilla_merkle r_new; /* proof_r_new: tree-R of the new replica */
} vanilla_update_challenge;

typedef struct vanilla_update_partition {
    vanilla_node comm_c;
    vanilla_tree tree_r, tree_d;
    size_t n_apex;
    vanilla_node *apex_leafs;
    size_t n_challenges;
    vanilla_update_challenge *challenges;
    vanilla_node *nodes;
} vanilla_update_partition;

int vanilla_update_alloc(vanilla_update_partition *p, uint64_t sector_size, cuzk_err *err);
/* The blocks of p for the tree_r, tree_d, n_apex and n_challenges already
 * set, every challenge's three paths wired into them (vanilla_update_alloc
 * for a sector size; the generators' test shapes set their own). */
int vanilla_update_layout(vanilla_update_partition *p, cuzk_err *err);
void vanilla_update_free(vanilla_update_partition *p);
int vanilla_update_parse(vanilla_update_partition *out, uint64_t sector_size, const void *blob,
                         size_t len, cuzk_err *err);
int vanilla_update_encode(void **blob, size_t *len, const vanilla_update_partition *p,
                          cuzk_err *err);
/* A well-formed random partition proof (see vanilla_c1_synthetic). */
int vanilla_update_synthetic(vanilla_update_partition *p, uint64_t sector_size, cuzk_rng *g,
                             cuzk_err *err);

/* ---- blob lists (cuzk-bench gen-vanilla files) --------------------------- */

/*
 * PoSt and SnapDeals vanilla proofs as Curio's cuzk-bench gen-vanilla
 * writes them to a file: a JSON array of standard base64 strings, one blob
 * per sector (PoSt) or partition (SnapDeals), as Go's json.Marshal([][]byte).
 */
typedef struct vanilla_blobs {
    size_t n;
    uint8_t **data;
    size_t *len;
} vanilla_blobs;

int vanilla_blobs_parse(vanilla_blobs *out, const void *buf, size_t len, cuzk_err *err);
int vanilla_blobs_read(vanilla_blobs *out, const char *path, cuzk_err *err);
int vanilla_blobs_write(FILE *f, const vanilla_blobs *b, cuzk_err *err);
/* Appends a copy of one blob. */
int vanilla_blobs_add(vanilla_blobs *b, const void *data, size_t len, cuzk_err *err);
void vanilla_blobs_free(vanilla_blobs *b);

#endif
