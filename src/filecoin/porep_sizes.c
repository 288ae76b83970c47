/*
 * porep_sizes.c - one PoRep partition's sizes by sector size (porep_sizes.h).
 *
 * The counts are `cuzk circuit-info --kind porep --sector-size S --json`
 * (counter backend, 2026-12-03, this project's circuit; every constraint
 * count equals reference/filecoin.md's), the shape bytes `--shape`'s
 * shape_bytes for 2KiB .. 512MiB, the 4.8 GB recorded for a 32GiB
 * partition (docs/architecture.md, src/r1cs), and for 64GiB an estimate
 * at the 36.8 bytes a constraint of the 32GiB shape (not recorded here:
 * it needs about 5 GB of memory). bellperson's parameter layout: H has
 * 2^lg - 1 points, L one per aux, A one per input and A-dense aux, B_G1
 * and B_G2 one per B-dense variable.
 */
#include "cuzk/filecoin/porep_sizes.h"

#include <string.h>

static const porep_sizes SIZES[] = {
    {2048ull, 2687961, 40, 2685673, 2674908, 1 + 685521, 99443975, 0},
    {8ull << 20, 3844969, 40, 3842449, 3814996, 1 + 1011289, 143967511, 0},
    {512ull << 20, 4423473, 40, 4420837, 4385040, 1 + 1174173, 166229247, 0},
    {32ull << 30, 130278869, 328, 130169893, 129753292, 1 + 33112281, 4800000000ull, 0},
    {64ull << 30, 131186177, 328, 131076643, 130637542, 1 + 33386943, 4827000000ull, 1},
};

const porep_sizes *porep_sizes_find(uint64_t sector_size)
{
    for (size_t i = 0; i < sizeof SIZES / sizeof *SIZES; i++)
        if (SIZES[i].sector_size == sector_size) return &SIZES[i];
    return NULL;
}

unsigned porep_sizes_domain_log(const porep_sizes *s)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < s->constraints) lg++;
    return lg;
}

size_t porep_sizes_witness_bytes(const porep_sizes *s)
{
    return (s->inputs + s->aux) * sizeof(fr_t);
}

size_t porep_sizes_witness_kept_bytes(const porep_sizes *s)
{
    size_t pieces = (s->aux + ((size_t)1 << 17) - 1) >> 17;
    return porep_sizes_witness_bytes(s) / 16 + pieces * sizeof(uint64_t) + 16;
}

void porep_sizes_params(const porep_sizes *s, groth16_params *pk)
{
    memset(pk, 0, sizeof *pk);
    pk->n_h = ((size_t)1 << porep_sizes_domain_log(s)) - 1;
    pk->n_l = s->aux;
    pk->n_a = s->inputs + s->a_aux_density;
    pk->n_b_g1 = pk->n_b_g2 = s->b_density;
}
