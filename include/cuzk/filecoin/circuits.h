/*
 * circuits.h - Filecoin's circuits by kind and sector size, as the toolbox
 * and the daemon need them: the blank circuit of a kind (no values: setup
 * and counting) and development parameters written under the official file
 * names (param_names.h), so official files in the same directory win.
 */
#ifndef CUZK_FILECOIN_CIRCUITS_H
#define CUZK_FILECOIN_CIRCUITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"
#include "cuzk/filecoin/param_names.h"
#include "cuzk/filecoin/porep_circuit.h"
#include "cuzk/filecoin/post_circuit.h"
#include "cuzk/filecoin/update_circuit.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"

/* Storage for whichever circuit a kind needs (it must outlive its use). */
typedef struct fc_blank {
    union {
        porep_circuit porep;
        post_circuit post;
        update_circuit update;
    } u;
} fc_blank;

/* The blank circuit of one partition of kind at sector_size. */
int fc_blank_circuit(fc_blank *b, fc_circuit_kind kind, uint64_t sector_size, cs_circuit *out,
                     cuzk_err *err);

/* dir/<official name>.params and .vk into params / vk (cap bytes each). */
int fc_param_paths(char *params, char *vk, size_t cap, const char *dir, fc_circuit_kind kind,
                   uint64_t sector_size, cuzk_err *err);

/*
 * Makes DEVELOPMENT parameters (groth16_setup_dev_write from seed: not
 * trusted) for kind at sector_size in dir under the official names, unless
 * both files are there already (*created tells which happened); the heavy
 * steps on be (groth16_setup_backend_choose), progress lines to log (NULL:
 * none).
 */
int fc_dev_params(const char *dir, fc_circuit_kind kind, uint64_t sector_size, uint64_t seed,
                  const groth16_setup_backend *be, FILE *log, bool *created, cuzk_err *err);

#endif
