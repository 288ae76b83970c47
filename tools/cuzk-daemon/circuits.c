/*
 * circuits.c - cuzk-daemon --list-circuits: every circuit id the daemon
 * serves, by proof kind (Curio's ProofKind) and sector size, then the
 * official parameter file each one is read from in srs.param_cache.
 *
 * The ids and file names come from filecoin/param_names.h, the table the
 * providers resolve ids with, so this list cannot drift from what
 * srs.preload, PreloadSRS and EvictSRS accept. docs/curio.md holds the
 * same table (tests/integration/config_examples.py compares them).
 */
#include "circuits.h"

#include "cuzk/filecoin/param_names.h"

static const char *const kind_names[FC_CIRCUIT_KINDS] = {
    [FC_CIRCUIT_POREP] = "POREP_SEAL_COMMIT",
    [FC_CIRCUIT_WINNING_POST] = "WINNING_POST",
    [FC_CIRCUIT_WINDOW_POST] = "WINDOW_POST_PARTITION",
    [FC_CIRCUIT_UPDATE] = "SNAP_DEALS_UPDATE",
};

/* One cell of the grid: padded, but for the last column. */
static void cell(FILE *out, size_t i, const char *text)
{
    fprintf(out, fc_sector_size_at(i + 1) ? " %-12s" : " %s", text);
}

/* "2KiB", "512MiB", "32GiB" */
static void size_name(uint64_t bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes % 1024 == 0) bytes /= 1024, u++;
    snprintf(buf, cap, "%llu%s", (unsigned long long)bytes, units[u]);
}

void list_circuits(FILE *out)
{
    char size[16];
    fprintf(out,
            "Circuit ids (srs.preload, PreloadSRS, EvictSRS, GetStatus) by proof kind and "
            "sector size:\n\n%-22s",
            "proof kind");
    for (size_t i = 0; fc_sector_size_at(i); i++) {
        size_name(fc_sector_size_at(i), size, sizeof size);
        cell(out, i, size);
    }
    for (int k = 0; k < FC_CIRCUIT_KINDS; k++) {
        fprintf(out, "\n%-22s", kind_names[k]);
        for (size_t i = 0; fc_sector_size_at(i); i++)
            cell(out, i, fc_circuit_id((fc_circuit_kind)k, fc_sector_size_at(i)));
    }
    fprintf(out, "\n\n--test-circuits adds the synthetic test-N (N constraints; tests only).\n\n"
                 "Each is read from its official parameter file in srs.param_cache (.params, with "
                 "its .vk):\n\n");
    for (int k = 0; k < FC_CIRCUIT_KINDS; k++)
        for (size_t i = 0; fc_sector_size_at(i); i++)
            fprintf(out, "%-12s %s\n", fc_circuit_id((fc_circuit_kind)k, fc_sector_size_at(i)),
                    fc_param_name((fc_circuit_kind)k, fc_sector_size_at(i)));
}
