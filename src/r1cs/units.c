/*
 * units.c - independent units of a circuit synthesized in parallel into one
 * constraint system (r1cs.h: cs_run_units, cs_unit_size).
 *
 * Allocation is deterministic, so a circuit whose units (PoRep challenges,
 * PoSt sectors) all allocate the same numbers of inputs, aux variables and
 * constraints knows where sequential synthesis would put unit k: `size`
 * times k past the current counts. The backend reserves room for all n
 * units, then each unit runs on a child of the cs (cs_fork_ops) that
 * writes exactly that window, one OpenMP task per unit (in the enclosing
 * parallel region, or a new one); the parent's counts then move past the n
 * windows. Units may run units of their own (PoRep: a challenge's layers):
 * a child forks into grandchildren inside its window, as more tasks. The
 * result is the sequential one byte for byte. The core bounds every child
 * by its window, and a unit that does not fill its window exactly fails
 * the cs, so a wrong size can never shift or overlap variables silently.
 *
 * Sizes are measured by running one unit on a counting child (no storage,
 * no values) at the current position, and cached process-wide under a key
 * the circuit derives from its shape.
 */
#include "r1cs/cs_internal.h"

#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static cs_capacity scaled(const cs_capacity *s, size_t k)
{
    return (cs_capacity){s->constraints * k, s->inputs * k, s->aux * k};
}

/* Unit k started at start; it must have allocated exactly size. */
static int check_filled(cs_t *cs, size_t k, const cs_capacity *start, const cs_capacity *size)
{
    if (cs->status) return cs->status;
    size_t in = cs->num_inputs - start->inputs, aux = cs->num_aux - start->aux,
           con = cs->num_constraints - start->constraints;
    if (in == size->inputs && aux == size->aux && con == size->constraints) return 0;
    return cs_fail(cs, CUZK_EINVAL,
                   "unit %zu made %zu inputs, %zu aux, %zu constraints; its size is %zu, %zu, %zu",
                   k, in, aux, con, size->inputs, size->aux, size->constraints);
}

static cs_capacity position(const cs_t *cs)
{
    return (cs_capacity){cs->num_constraints, cs->num_inputs, cs->num_aux};
}

static void run_one(cs_t *cs, size_t k, const cs_capacity *size, cs_unit_fn unit, void *ctx)
{
    cs_capacity start = position(cs);
    int rc = unit(cs, k, ctx);
    if (rc && !cs->status) cs_fail(cs, rc, "unit %zu failed: %s", k, cuzk_status_str(rc));
    check_filled(cs, k, &start, size);
    cs_store_fence(); /* the unit's bits, before its fork is released */
}

/* One OpenMP task per unit, each on its fork; returns when all are done. */
static void run_tasks(cs_t *cs, cs_t **child, size_t n, const cs_capacity *size, cs_unit_fn unit,
                      void *ctx)
{
    for (size_t k = 0; k < n; k++) {
#pragma omp task firstprivate(k)
        {
            cs_capacity at = scaled(size, k);
            child[k] = cs->fork_ops->fork(cs, &at, size);
            if (child[k]) run_one(child[k], k, size, unit, ctx);
        }
    }
#pragma omp taskwait
}

static int run_forked(cs_t *cs, size_t n, const cs_capacity *size, cs_unit_fn unit, void *ctx)
{
    cs_capacity total = scaled(size, n);
    cs_t **child = calloc(n, sizeof(*child));
    if (!child) return cs_fail(cs, CUZK_ENOMEM, "units: out of memory");
    if (omp_in_parallel()) {
        run_tasks(cs, child, n, size, unit, ctx);
    } else {
#pragma omp parallel
#pragma omp single
        run_tasks(cs, child, n, size, unit, ctx);
    }
    for (size_t k = 0; k < n; k++) {
        if (!cs->status && !child[k]) cs_fail(cs, CUZK_ENOMEM, "unit %zu: out of memory", k);
        if (!child[k]) continue;
        if (!cs->status && child[k]->status) {
            cs->status = child[k]->status;
            cs->err = child[k]->err;
        }
        cs->fork_ops->release(child[k]);
    }
    free(child);
    if (!cs->status) {
        cs->num_inputs += total.inputs;
        cs->num_aux += total.aux;
        cs->num_constraints += total.constraints;
    }
    return cs->status;
}

/* Whether n units on cs would run on forks. */
static bool parallel(const cs_t *cs, size_t n)
{
    return cs->fork_ops && n > 1 && (omp_in_parallel() || omp_get_max_threads() > 1);
}

int cs_run_units(cs_t *cs, size_t n, const cs_capacity *size, cs_unit_fn unit, void *ctx)
{
    if (cs->status || n == 0) return cs->status;
    if (cs->fork_ops) { /* room for every unit at once, forked or not */
        cs_capacity total = scaled(size, n);
        int rc = cs->fork_ops->reserve(cs, &total);
        if (rc)
            return cs_fail(cs, rc, "units: no room for %zu units of %zu constraints, %zu aux", n,
                           size->constraints, size->aux);
    }
    if (parallel(cs, n)) return run_forked(cs, n, size, unit, ctx);
    for (size_t k = 0; k < n && !cs->status; k++) run_one(cs, k, size, unit, ctx);
    return cs->status;
}

/* ---- sizes ---- */

static int count_alloc(cs_t *cs, uint32_t kind, const fr_t *value)
{
    (void)cs, (void)kind, (void)value;
    return 0;
}

static int count_enforce(cs_t *cs, const cs_lc *a, const cs_lc *b, const cs_lc *c)
{
    (void)cs, (void)a, (void)b, (void)c;
    return 0;
}

static const cs_ops count_ops = {count_alloc, count_enforce};

/* Sizes measured so far (a process has a few shapes; past MEMO_MAX the
 * sizes are measured every time). */
#define MEMO_MAX 32
static struct {
    uint8_t key[CS_UNIT_KEY_MAX];
    size_t len;
    cs_capacity size;
} memo[MEMO_MAX];
static size_t memo_n;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool memo_get(const void *key, size_t len, cs_capacity *out)
{
    bool found = false;
    pthread_mutex_lock(&memo_lock);
    for (size_t i = 0; i < memo_n && !found; i++)
        if (memo[i].len == len && !memcmp(memo[i].key, key, len)) *out = memo[i].size, found = true;
    pthread_mutex_unlock(&memo_lock);
    return found;
}

static void memo_put(const void *key, size_t len, const cs_capacity *size)
{
    cs_capacity old;
    if (memo_get(key, len, &old)) return;
    pthread_mutex_lock(&memo_lock);
    if (memo_n < MEMO_MAX) {
        memcpy(memo[memo_n].key, key, len);
        memo[memo_n].len = len;
        memo[memo_n++].size = *size;
    }
    pthread_mutex_unlock(&memo_lock);
}

int cs_unit_size(cs_t *cs, cs_capacity *out, const void *key, size_t key_len, cs_unit_fn unit,
                 size_t k, void *ctx)
{
    if (cs->status) return cs->status;
    if (key && key_len > CS_UNIT_KEY_MAX)
        return cs_fail(cs, CUZK_EINVAL, "unit size: a key of %zu bytes (at most %d)", key_len,
                       CS_UNIT_KEY_MAX);
    if (key && memo_get(key, key_len, out)) return 0;
    cs_t c;
    cs_capacity zero = {0, 0, 0};
    cs_init_child(&c, cs, &count_ops, &zero, &zero);
    c.lim_inputs = c.lim_aux = CS_MAX_VARS;
    c.lim_constraints = SIZE_MAX;
    c.needs_values = false;
    int rc = unit(&c, k, ctx);
    if (rc && !c.status) cs_fail(&c, rc, "unit %zu failed: %s", k, cuzk_status_str(rc));
    if (c.status) {
        cs->status = c.status;
        cs->err = c.err;
        cuzk_err_prefix(&cs->err, "measuring unit %zu: ", k);
        return cs->status;
    }
    *out = (cs_capacity){c.num_constraints - cs->num_constraints, c.num_inputs - cs->num_inputs,
                         c.num_aux - cs->num_aux};
    if (key) memo_put(key, key_len, out);
    return 0;
}

int cs_run_units_auto(cs_t *cs, size_t n, const void *key, size_t key_len, cs_unit_fn unit,
                      void *measure_ctx, void *ctx)
{
    if (!parallel(cs, n)) {
        for (size_t k = 0; k < n && !cs->status; k++) {
            int rc = unit(cs, k, ctx);
            if (rc && !cs->status) cs_fail(cs, rc, "unit %zu failed: %s", k, cuzk_status_str(rc));
        }
        return cs->status;
    }
    cs_capacity size;
    if (!cs_unit_size(cs, &size, key, key_len, unit, 0, measure_ctx))
        cs_run_units(cs, n, &size, unit, ctx);
    return cs->status;
}
