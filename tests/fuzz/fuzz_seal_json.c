/*
 * fuzz_seal_json.c - libFuzzer target for the sealed-sector directory
 * reader (fc_replica_read, gen.h): seal.json's sector_id, comm_c and
 * comm_r. At start-up one 2KiB test sector is sealed and written to a
 * temporary directory (cuzk-seal's layout); each input then replaces its
 * seal.json. Any input must give CUZK_OK or an error with a message. An
 * accepted one must name the sealed sector's own comm_c and comm_r, since
 * comm_r is checked against Poseidon-2(comm_c, root of sealed.dat's tree).
 * The sector is `cuzk-seal seal --sector-size 2KiB --seed 3`'s, whose
 * seal.json makes a seed corpus that reaches the accepting path.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/file.h"
#include "cuzk/filecoin/gen.h"

static char dir[] = "/tmp/fuzz_seal_json_XXXXXX";
static fc_sealed sealed;

static void remove_dir(void)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char path[sizeof dir + 256];
    for (struct dirent *e; (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.') unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fc_test_sector t = {.cfg = fc_porep_config_find(2048, FC_POREP_V1_1, NULL),
                        .seed = 3,
                        .sector_id = 0,
                        .miner = 1000}; /* cuzk-seal's defaults */
    if (!t.cfg || !mkdtemp(dir) || fc_seal_test_sector(&sealed, &t, NULL, NULL, NULL) ||
        fc_sealed_write(&sealed, dir, NULL))
        abort();
    atexit(remove_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/seal.json", dir);
    if (cuzk_write_file(path, data, size, NULL)) abort();
    fc_replica r;
    cuzk_err err = {0};
    int rc = fc_replica_read(&r, dir, NULL, NULL, &err);
    if (rc && !err.msg[0]) abort(); /* every error carries a message */
    if (!rc) {
        if (memcmp(r.comm_c.b, sealed.comm_c, 32) || memcmp(r.comm_r.b, sealed.comm_r, 32)) abort();
        fc_replica_free(&r);
    }
    return 0;
}
