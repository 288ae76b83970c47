/*
 * srs_fixture.h - the SRS manager tests' shared fixture (test_engine_srs,
 * test_engine_residency): a fresh temporary param cache, also the home
 * of the digest cache of checked files; a 64 MiB budget whose evictor is
 * the SRS manager; the manager, making development setups on the CPU; and
 * the test family's circuit info by id.
 */
#ifndef CUZK_TEST_SRS_FIXTURE_H
#define CUZK_TEST_SRS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine_provider.h"
#include "engine/srs.h"
#include "testutil.h"

typedef struct srs_fixture {
    char dir[64];
    budget b;
    srs_manager m;
    uint64_t bytes[3]; /* sizes a test notes */
} srs_fixture;

/* A fixture in /tmp/cuzk-test-<name>.XXXXXX; unloaded: the manager's
 * unload hook (may be NULL). NULL when the folder cannot be made. */
static inline srs_fixture *srs_fixture_new(const char *name,
                                           void (*unloaded)(const groth16_params *))
{
    srs_fixture *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    snprintf(f->dir, sizeof f->dir, "/tmp/cuzk-test-%s.XXXXXX", name);
    if (!mkdtemp(f->dir)) {
        free(f);
        return NULL;
    }
    setenv("XDG_CACHE_HOME", f->dir, 1);
    budget_init(&f->b, 64 << 20, srs_evict_idle, &f->m);
    srs_init(&f->m, &f->b, f->dir, 0, unloaded, "cpu");
    return f;
}

/* Frees the manager, the budget and the folder; 0 when it went. */
static inline int srs_fixture_free(srs_fixture *f)
{
    srs_destroy(&f->m);
    budget_destroy(&f->b);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    int rc = system(cmd);
    free(f);
    return rc;
}

static inline engine_circuit_info srs_fixture_info(const char *id)
{
    engine_circuit_info info;
    assert_true(engine_test_provider.lookup(id, &info));
    return info;
}

#endif
