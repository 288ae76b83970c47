/*
 * test_snarkjs.c - the snarkjs readers and writers on files made by circom2
 * 0.2.23 and snarkjs 0.7.6 (tests/data/snarkjs: mul3.circom, out = a b c + a
 * with a = 3, b = 5, c = 7): snarkjs' proof verifies through our verifier,
 * our proof from the zkey verifies, the zkey converted to bellperson's H
 * basis proves too, JSON round trips, and every prefix and many single-byte
 * corruptions of the binary files are rejected with an error, never a crash.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/file.h"
#include "cuzk/snarkjs.h"

#define DATA CUZK_SOURCE_DIR "/tests/data/snarkjs/"

static void read_all(void **state)
{
    (void)state;
    cuzk_err err;
    snarkjs_r1cs r;
    snarkjs_wtns w;
    assert_int_equal(snarkjs_r1cs_read(&r, DATA "mul3.r1cs", &err), CUZK_OK);
    assert_int_equal(r.n_wires, 6);
    assert_int_equal(r.n_constraints, 2);
    assert_int_equal(r.n_outputs + r.n_pub_inputs, 2);
    assert_int_equal(snarkjs_wtns_read(&w, DATA "mul3.wtns", &err), CUZK_OK);
    assert_int_equal(w.n, 6);
    fr_t v;
    fr_from_u64(&v, 108); /* out = 3 * 5 * 7 + 3 */
    assert_true(fr_eq(&w.values[1], &v));
    /* the witness satisfies every constraint of the r1cs */
    for (uint32_t j = 0; j < r.n_constraints; j++) {
        fr_t s[3];
        for (int k = 0; k < 3; k++) {
            s[k] = FR_ZERO;
            for (uint64_t t = r.off[3 * j + k]; t < r.off[3 * j + k + 1]; t++) {
                fr_t x;
                fr_mul(&x, &r.terms[t].coef, &w.values[r.terms[t].wire]);
                fr_add(&s[k], &s[k], &x);
            }
        }
        fr_mul(&s[0], &s[0], &s[1]);
        assert_true(fr_eq(&s[0], &s[2]));
    }
    snarkjs_r1cs_free(&r);
    snarkjs_wtns_free(&w);
    assert_int_equal(snarkjs_wtns_read(&w, DATA "mul3.bn128.wtns", &err), CUZK_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "another curve"));
}

static void verify_snarkjs_proof(void **state)
{
    (void)state;
    cuzk_err err;
    groth16_vk vk;
    groth16_pvk pvk;
    groth16_proof proof;
    fr_t *in;
    size_t n;
    assert_int_equal(snarkjs_vk_read(&vk, DATA "mul3.vk.json", &err), CUZK_OK);
    assert_int_equal(snarkjs_proof_read(&proof, DATA "mul3.proof.json", &err), CUZK_OK);
    assert_int_equal(snarkjs_public_read(&in, &n, DATA "mul3.public.json", &err), CUZK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(groth16_prepare_vk(&pvk, &vk, &err), CUZK_OK);
    assert_int_equal(groth16_verify(&pvk, &proof, in, n, &err), CUZK_OK);
    fr_add(&in[1], &in[1], &FR_ONE);
    assert_int_equal(groth16_verify(&pvk, &proof, in, n, &err), CUZK_EVERIFY);
    free(in);
    groth16_pvk_free(&pvk);
    groth16_vk_free(&vk);
}

/* Proves from the zkey (both H bases) and checks against the zkey's vk. */
static void prove_from_zkey(void **state)
{
    (void)state;
    cuzk_err err;
    snarkjs_zkey z;
    snarkjs_wtns w;
    assert_int_equal(snarkjs_zkey_read(&z, DATA "mul3.zkey", SNARKJS_CHECKED, &err), CUZK_OK);
    assert_int_equal(snarkjs_wtns_read(&w, DATA "mul3.wtns", &err), CUZK_OK);
    for (int monomial = 0; monomial < 2; monomial++) {
        groth16_params pk;
        groth16_pvk pvk;
        cs_prover wit;
        groth16_proof proof;
        assert_int_equal(snarkjs_zkey_to_params(&pk, &z, monomial, &err), CUZK_OK);
        assert_int_equal(pk.h_basis, monomial ? GROTH16_H_MONOMIAL : GROTH16_H_ODD_LAGRANGE);
        assert_int_equal(snarkjs_witness_prover(&wit, &z, &w, &err), CUZK_OK);
        assert_int_equal(groth16_prove(&proof, &pk, &wit, 1, NULL, NULL, &err), CUZK_OK);
        assert_int_equal(groth16_prepare_vk(&pvk, &pk.vk, &err), CUZK_OK);
        assert_int_equal(groth16_verify(&pvk, &proof, w.values + 1, 2, &err), CUZK_OK);
        /* the JSON writers and readers round trip */
        char path[] = "/tmp/cuzk-test-proof-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        groth16_proof back;
        assert_int_equal(snarkjs_proof_write(path, &proof, &err), CUZK_OK);
        assert_int_equal(snarkjs_proof_read(&back, path, &err), CUZK_OK);
        assert_true(g1_affine_eq(&back.a, &proof.a) && g2_affine_eq(&back.b, &proof.b) &&
                    g1_affine_eq(&back.c, &proof.c));
        fr_t *in;
        size_t n;
        assert_int_equal(snarkjs_public_write(path, w.values + 1, 2, &err), CUZK_OK);
        assert_int_equal(snarkjs_public_read(&in, &n, path, &err), CUZK_OK);
        assert_int_equal(n, 2);
        assert_memory_equal(in, w.values + 1, 2 * sizeof(fr_t));
        free(in);
        unlink(path);
        groth16_pvk_free(&pvk);
        cs_prover_free(&wit);
        groth16_params_free(&pk);
    }
    snarkjs_wtns_free(&w);
    snarkjs_zkey_free(&z);
}

typedef int (*reader_fn)(const char *path, cuzk_err *err);
static int read_r1cs(const char *p, cuzk_err *e)
{
    snarkjs_r1cs r;
    int rc = snarkjs_r1cs_read(&r, p, e);
    if (!rc) snarkjs_r1cs_free(&r);
    return rc;
}
static int read_wtns(const char *p, cuzk_err *e)
{
    snarkjs_wtns w;
    int rc = snarkjs_wtns_read(&w, p, e);
    if (!rc) snarkjs_wtns_free(&w);
    return rc;
}
static int read_zkey(const char *p, cuzk_err *e)
{
    snarkjs_zkey z;
    int rc = snarkjs_zkey_read(&z, p, SNARKJS_CHECKED, e);
    if (!rc) snarkjs_zkey_free(&z);
    return rc;
}

/* Every proper prefix fails with a message naming the file; every flipped
 * byte either fails or (for a don't-care byte such as a label) still reads. */
static void corrupt(const char *name, reader_fn read, size_t step)
{
    uint8_t *data;
    size_t len;
    cuzk_err err;
    assert_int_equal(cuzk_read_file(name, &data, &len, 1 << 20, &err), CUZK_OK);
    char path[] = "/tmp/cuzk-test-corrupt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t cut = 0; cut < len; cut += step) {
        assert_int_equal(cuzk_write_file(path, data, cut, &err), CUZK_OK);
        err.msg[0] = 0;
        assert_int_not_equal(read(path, &err), CUZK_OK);
        assert_non_null(strstr(err.msg, path));
    }
    for (size_t at = 0; at < len; at += step) {
        data[at] ^= 0x5a;
        assert_int_equal(cuzk_write_file(path, data, len, &err), CUZK_OK);
        read(path, &err); /* must not crash (the sanitizer build checks) */
        data[at] ^= 0x5a;
    }
    unlink(path);
    free(data);
}

static void corruptions(void **state)
{
    (void)state;
    size_t step = getenv("CUZK_TEST_QUICK") ? 7 : 1;
    corrupt(DATA "mul3.r1cs", read_r1cs, step);
    corrupt(DATA "mul3.wtns", read_wtns, step);
    corrupt(DATA "mul3.zkey", read_zkey, step * 16);
}

static void named_errors(void **state)
{
    (void)state;
    cuzk_err err;
    snarkjs_zkey z;
    assert_int_equal(snarkjs_zkey_read(&z, DATA "mul3.wtns", SNARKJS_CHECKED, &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "not a zkey file"));
    assert_int_equal(snarkjs_zkey_read(&z, DATA "missing.zkey", SNARKJS_CHECKED, &err), CUZK_EIO);
    /* an r1cs whose first section (the constraints, id 2) claims id 7 */
    uint8_t *data;
    size_t len;
    assert_int_equal(cuzk_read_file(DATA "mul3.r1cs", &data, &len, 1 << 20, &err), CUZK_OK);
    assert_int_equal(data[12], 2);
    data[12] = 7;
    char path[] = "/tmp/cuzk-test-r1cs-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cuzk_write_file(path, data, len, &err), CUZK_OK);
    snarkjs_r1cs r;
    assert_int_equal(snarkjs_r1cs_read(&r, path, &err), CUZK_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "unknown section id 7"));
    unlink(path);
    free(data);
    /* a header claiming 2^32 - 1 constraints over mul3's few bytes of them:
     * refused before anything is allocated for them (it asked for 100 GB
     * once: fuzz_snarkjs) */
    assert_int_equal(cuzk_read_file(DATA "mul3.r1cs", &data, &len, 1 << 20, &err), CUZK_OK);
    size_t at = 12, count_at = 0;
    while (at + 12 <= len) { /* sections: u32 id, u64 length, payload */
        uint32_t id;
        uint64_t n;
        memcpy(&id, data + at, 4), memcpy(&n, data + at + 4, 8);
        if (id == 1) count_at = at + 12 + 4 + 32 + 16 + 8; /* nConstraints in the header */
        at += 12 + n;
    }
    assert_true(count_at && count_at + 4 <= len);
    memset(data + count_at, 0xff, 4);
    assert_int_equal(cuzk_write_file(path, data, len, &err), CUZK_OK);
    assert_int_equal(snarkjs_r1cs_read(&r, path, &err), CUZK_ELENGTH);
    assert_non_null(strstr(err.msg, "header claims 4294967295 constraints"));
    unlink(path);
    free(data);
    groth16_vk vk;
    assert_int_equal(snarkjs_vk_read(&vk, DATA "mul3.r1cs", &err), CUZK_EINVAL);
    assert_non_null(strstr(err.msg, "JSON"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_all),        cmocka_unit_test(verify_snarkjs_proof),
        cmocka_unit_test(prove_from_zkey), cmocka_unit_test(corruptions),
        cmocka_unit_test(named_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
