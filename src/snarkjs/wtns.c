/*
 * wtns.c - reader of snarkjs .wtns witness files (version 2; section 1
 * header {n8, prime, nWitness}, section 2 the values, 32-byte LE standard
 * form).
 */
#include "cuzk/snarkjs.h"

#include <stdlib.h>
#include <string.h>

#include "snarkjs/binfile.h"

int snarkjs_wtns_read(snarkjs_wtns *w, const char *path, cuzk_err *err)
{
    static const uint32_t known[] = {1, 2};
    memset(w, 0, sizeof(*w));
    binfile f;
    bincursor c;
    int rc = binfile_open(&f, path, "wtns", 2, known, 2, err);
    if (rc) return rc;
    rc = binfile_section(&f, 1, 0, &c, err);
    if (!rc) rc = bincursor_prime(&c, FR_MODULUS, FR_LIMBS, "prime", err);
    if (!rc) rc = bincursor_u32(&c, &w->n, "nWitness", err);
    if (!rc) rc = bincursor_end(&c, err);
    if (!rc) rc = binfile_section(&f, 2, (uint64_t)w->n * 32, &c, err);
    if (!rc && w->n == 0) rc = cuzk_errf(err, CUZK_EINVAL, "%s: empty witness", path);
    if (!rc && !(w->values = malloc(sizeof(fr_t) * w->n)))
        rc = cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    for (uint32_t i = 0; !rc && i < w->n; i++) rc = bincursor_fr(&c, &w->values[i], "value", err);
    if (!rc && !fr_is_one(&w->values[0]))
        rc = cuzk_errf(err, CUZK_EINVAL, "%s: witness value 0 must be 1", path);
    binfile_close(&f);
    if (rc) snarkjs_wtns_free(w);
    return rc;
}

void snarkjs_wtns_free(snarkjs_wtns *w)
{
    free(w->values);
    memset(w, 0, sizeof(*w));
}
