/*
 * porep_sizes.h - what one PoRep partition takes on a GPU, by sector size:
 * its constraint system's counts and densities (so the parameter arrays'
 * lengths), its witness and its recorded shape, for the device-memory
 * plan (gpu_prove.h) without synthesizing anything: cuzk-bench plan, the
 * README's table of GPU memory and the daemon's check of its devices at
 * start.
 */
#ifndef CUZK_FILECOIN_POREP_SIZES_H
#define CUZK_FILECOIN_POREP_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/groth16.h"

typedef struct porep_sizes {
    uint64_t sector_size;
    size_t constraints; /* with bellperson's input constraints */
    size_t inputs, aux; /* variables (inputs include ONE) */
    size_t a_aux_density, b_density;
    size_t shape_bytes; /* the recorded shape (cs_shape), measured or estimated */
    int shape_estimated;
} porep_sizes;

/* The sizes of a partition of sector_size (2KiB, 8MiB, 512MiB, 32GiB,
 * 64GiB); NULL for another size. */
const porep_sizes *porep_sizes_find(uint64_t sector_size);
/* Its domain's log (2^lg >= constraints). */
unsigned porep_sizes_domain_log(const porep_sizes *s);
/* Its witness on the device ([inputs || aux] of 32-byte elements). */
size_t porep_sizes_witness_bytes(const porep_sizes *s);
/* Its witness kept packed on the device (the GPU prover's residency rule
 * 4), an ESTIMATE for planning without a witness: a 16th of its bytes,
 * about twice what a 32 GiB partition's witness crossed as packed (3.25%,
 * 2026-12-04), with its pieces' table; the prover plans with the bytes a
 * witness of the shape took. */
size_t porep_sizes_witness_kept_bytes(const porep_sizes *s);
/* *pk zeroed but for its parameter arrays' lengths (n_h, n_l, n_a,
 * n_b_g1, n_b_g2), what the plan reads. */
void porep_sizes_params(const porep_sizes *s, groth16_params *pk);

#endif
