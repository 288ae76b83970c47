/*
 * test_gadgets_sha.c - the SHA-256 circuit against bellpepper's counts and
 * OpenSSL: one compression of an allocated block costs 25,840 constraints
 * and a padded 512-bit message 44,874 (bellpepper's test_full_block and
 * test_full_hash); an all-constant block costs nothing and still hashes
 * (test_blank_hash); digests read back from the prover's witness equal
 * OpenSSL's on random messages of 0..255 bytes with every constraint
 * satisfied; flipping any of a sample of witness bits breaks a
 * constraint; and Filecoin's two uses reproduce: rust-fil-proofs'
 * test_create_label (532,025 constraints, constant layer and node folded)
 * and filecoin-hashers' hash2 of two field elements (45,379), both equal
 * to the native hash trimmed to 254 bits.
 */
#include "gadget_check.h"

#include <openssl/sha.h>

#include "cuzk/gadgets/multipack.h"
#include "cuzk/gadgets/num.h"
#include "cuzk/gadgets/sha256.h"
#include "cuzk/gadgets/uint64.h"

enum mode { BLOCK_ALLOC, BLOCK_CONST, HASH_ALLOC };

typedef struct sha_ctx {
    const uint8_t *msg;
    size_t len; /* bytes; 64 for the block modes */
    int mode;
    bool_var out[256];
} sha_ctx;

static int sha_synth(cs_t *cs, void *p)
{
    sha_ctx *x = p;
    bool_var *bits = malloc(8 * x->len * sizeof(bool_var) + 1);
    assert_non_null(bits);
    for (size_t i = 0; i < 8 * x->len; i++) {
        bool v = (x->msg[i / 8] >> (7 - i % 8)) & 1;
        bits[i] = x->mode == BLOCK_CONST ? bool_const(v) : bit_alloc(cs, v);
    }
    if (x->mode == HASH_ALLOC)
        sha256_gadget(cs, x->out, bits, 8 * x->len);
    else
        sha256_gadget_block(cs, x->out, bits);
    free(bits);
    return cs_status(cs);
}

static cs_circuit sha_circuit(sha_ctx *x)
{
    return (cs_circuit){sha_synth, x};
}

static void random_bytes(cuzk_rng *g, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)cuzk_rng_u64(g);
}

/* The digest bits of out, read from the witness, against want. */
static void check_digest(const cs_prover *p, const bool_var out[256], const uint8_t want[32])
{
    for (int i = 0; i < 256; i++)
        assert_int_equal(witness_bool(p, out[i]), (want[i / 8] >> (7 - i % 8)) & 1);
}

/*
 * Beyond bellpepper's counts, the aux count (one variable per constraint
 * but the 26 / 46 MultiEq batches), the densities and the counter's
 * fingerprint are pinned: recorded from this implementation once its
 * counts matched bellpepper's and its packed addmany matched the plain
 * one (test_gadgets_bits), they guard the exact R1CS against regressions.
 * (Pinned again when the fingerprint became a hash of block digests,
 * in a commit that changed nothing else.)
 */
static void check_pinned(const cs_counts *k, size_t aux, size_t b_aux, const char *fingerprint)
{
    uint8_t want[32];
    test_hex(want, 32, fingerprint);
    assert_int_equal(k->num_inputs, 1);
    assert_int_equal(k->num_aux, aux);
    assert_int_equal(k->a_aux_density, aux);
    assert_int_equal(k->b_input_density, 1);
    assert_int_equal(k->b_aux_density, b_aux);
    assert_memory_equal(k->fingerprint, want, 32);
}

static void test_full_block_count(void **state)
{
    (void)state;
    uint8_t msg[64] = {0};
    sha_ctx x = {msg, 64, BLOCK_ALLOC, {{0}}};
    cs_counts k = count_circuit(sha_circuit(&x));
    assert_int_equal(k.num_constraints - 512, 25840);
    check_pinned(&k, 512 + 25840 - 26, 6822,
                 "3cb464022e8c876d6c5cdf35124559993522f9e40092713cd0fc220307f34aa9");
}

static void test_full_hash_count(void **state)
{
    (void)state;
    uint8_t msg[64] = {0};
    sha_ctx x = {msg, 64, HASH_ALLOC, {{0}}};
    cs_counts k = count_circuit(sha_circuit(&x));
    assert_int_equal(k.num_constraints - 512, 44874);
    check_pinned(&k, 512 + 44874 - 46, 11500,
                 "938448ff54bfdf61ca3d690a41fe4a4ace8ca3aea3f4c9e0a5cad56dbf3ea10a");
}

/* The count does not depend on the values. */
static void test_count_value_independent(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t a[64], b[64];
    random_bytes(&g, a, 64), random_bytes(&g, b, 64);
    sha_ctx x = {a, 64, BLOCK_ALLOC, {{0}}}, y = {b, 64, BLOCK_ALLOC, {{0}}};
    cs_counts kx = count_circuit(sha_circuit(&x)), ky = count_circuit(sha_circuit(&y));
    assert_memory_equal(kx.fingerprint, ky.fingerprint, 32);
    assert_int_equal(kx.num_aux, ky.num_aux);
}

static void test_blank_hash(void **state)
{
    (void)state;
    uint8_t msg[64] = {0x80}; /* the padded empty message */
    sha_ctx x = {msg, 64, BLOCK_CONST, {{0}}};
    cs_counts k = count_circuit(sha_circuit(&x));
    assert_int_equal(k.num_constraints, 0);
    assert_int_equal(k.num_aux, 0);
    uint8_t want[32];
    test_hex(want, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    for (int i = 0; i < 256; i++) {
        assert_int_equal(x.out[i].kind, BOOL_CONST);
        assert_int_equal(x.out[i].value, (want[i / 8] >> (7 - i % 8)) & 1);
    }
}

/* sha256_block_no_padding of a padded 55-byte message is its digest. */
static void test_block_against_openssl(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t msg[64] = {0}, want[32];
    random_bytes(&g, msg, 55);
    SHA256(msg, 55, want);
    msg[55] = 0x80;
    msg[62] = (55 * 8) >> 8, msg[63] = (55 * 8) & 0xff;
    sha_ctx x = {msg, 64, BLOCK_ALLOC, {{0}}};
    cs_prover p;
    prove_satisfied(&p, sha_circuit(&x));
    check_digest(&p, x.out, want);
    cs_prover_free(&p);
}

/* bellpepper's test_against_vectors: lengths 0..31 and 32..255 step 8. */
static void test_hash_against_openssl(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    size_t step = quick() ? 37 : 1;
    for (size_t len = 0; len < 256; len += len < 32 ? step : 8 * step) {
        uint8_t msg[256], want[32];
        random_bytes(&g, msg, len);
        SHA256(msg, len, want);
        sha_ctx x = {msg, len, HASH_ALLOC, {{0}}};
        cs_prover p;
        prove_satisfied(&p, sha_circuit(&x));
        check_digest(&p, x.out, want);
        cs_prover_free(&p);
    }
}

/* Every aux variable of the circuit is pinned: flipping any breaks it. */
static void test_tampered_witness(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t msg[64];
    random_bytes(&g, msg, 64);
    sha_ctx x = {msg, 64, BLOCK_ALLOC, {{0}}};
    cs_prover p;
    prove_satisfied(&p, sha_circuit(&x));
    size_t idx[64];
    size_t n = quick() ? 8 : 64;
    idx[0] = 0, idx[1] = p.num_aux - 1, idx[2] = x.out[0].var;
    for (size_t i = 3; i < n; i++) idx[i] = cuzk_rng_u64(&g) % p.num_aux;
    tamper_breaks(&p, sha_circuit(&x), idx, n);
    cs_prover_free(&p);
}

/* ---- Filecoin's uses: PoRep labels and SHA-256 tree nodes ---- */

/* storage-proofs-porep create_label_circuit over bellpepper's sha256:
 * replica_id (32 bytes) | layer u32 BE | node u64 BE | zeros to 64 bytes |
 * 37 parents of 32 bytes, hashed, bit numbering reversed per byte, the
 * first 254 bits packed. Layer and node are constants (folded). */
typedef struct label_ctx {
    const uint8_t *id, *parents; /* 32 and 37 x 32 bytes */
    uint32_t layer;
    uint64_t node;
    num_var out;
} label_ctx;

static int label_synth(cs_t *cs, void *p)
{
    label_ctx *x = p;
    size_t n = 0, total = (1 + 1 + 37) * 256;
    bool_var *bits = malloc(total * sizeof(bool_var)), out[256], rev[256];
    assert_non_null(bits);
    bool_alloc_bytes_be(cs, bits, x->id, 32), n = 256;
    u32_var layer;
    u64_var node;
    u32_const(&layer, x->layer), u64_const(&node, x->node);
    u32_into_bits_be(bits + n, &layer), n += 32;
    u64_into_bits_be(bits + n, &node), n += 64;
    while (n < 512) bits[n++] = bool_const(0);
    for (int k = 0; k < 37; k++, n += 256)
        bool_alloc_bytes_be(cs, bits + n, x->parents + 32 * k, 32);
    sha256_gadget(cs, out, bits, n);
    bool_reverse_bit_numbering(rev, out, 256);
    x->out = multipack_pack_bits(cs, rev, FR_CAPACITY);
    free(bits);
    return cs_status(cs);
}

/* The native value: SHA-256 of the same bytes, read little-endian with the
 * top two bits cleared (Filecoin's trim to 254 bits). */
static void trimmed_digest(fr_t *out, const uint8_t *data, size_t len)
{
    uint8_t d[32];
    SHA256(data, len, d);
    d[31] &= 0x3f;
    assert_true(fr_from_bytes_le(out, d));
}

/* rust-fil-proofs' test_create_label: 532,025 constraints with the
 * replica id and the 37 parents allocated bit by bit (9,728 bits). */
static void test_create_label(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    uint8_t buf[39 * 32] = {0};
    random_bytes(&g, buf, 32);
    random_bytes(&g, buf + 64, 37 * 32);
    label_ctx x = {buf, buf + 64, 3, 22, {{0}, {{0}}}};
    cs_counts k = count_circuit((cs_circuit){label_synth, &x});
    assert_int_equal(k.num_constraints, 532025);
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){label_synth, &x});
    buf[32 + 3] = 3, buf[32 + 4 + 7] = 22; /* layer BE at 32, node BE at 36 */
    fr_t want;
    trimmed_digest(&want, buf, sizeof(buf));
    assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &want));
    cs_prover_free(&p);
}

/* filecoin-hashers Sha256Function::hash2_circuit: both numbers to 255
 * bits, each padded to 32 bytes with bit numbering reversed (their
 * little-endian bytes, most significant bit first), hashed and packed.
 * 45,379 constraints (the 45,382 of a tree-D level less the path bit and
 * the two picks of insert). */
typedef struct hash2_ctx {
    fr_t a, b;
    num_var out;
} hash2_ctx;

static int hash2_synth(cs_t *cs, void *p)
{
    hash2_ctx *x = p;
    num_var a = num_alloc(cs, &x->a), b = num_alloc(cs, &x->b);
    bool_var ab[FR_NUM_BITS], bb[FR_NUM_BITS], pre[512], out[256], rev[256];
    num_to_bits_le(cs, ab, &a), num_to_bits_le(cs, bb, &b);
    bool_reverse_bit_numbering(pre, ab, FR_NUM_BITS);
    bool_reverse_bit_numbering(pre + 256, bb, FR_NUM_BITS);
    sha256_gadget(cs, out, pre, 512);
    bool_reverse_bit_numbering(rev, out, 256);
    x->out = multipack_pack_bits(cs, rev, FR_CAPACITY);
    return cs_status(cs);
}

static void test_hash2(void **state)
{
    (void)state;
    cuzk_rng g;
    test_rng(&g);
    hash2_ctx x;
    fr_random(&x.a, &g), fr_random(&x.b, &g);
    cs_counts k = count_circuit((cs_circuit){hash2_synth, &x});
    assert_int_equal(k.num_constraints, 45379);
    cs_prover p;
    prove_satisfied(&p, (cs_circuit){hash2_synth, &x});
    uint8_t pre[64];
    fr_to_bytes_le(pre, &x.a), fr_to_bytes_le(pre + 32, &x.b);
    fr_t want;
    trimmed_digest(&want, pre, 64);
    assert_true(fr_eq(&p.aux_assignment[x.out.var.index], &want));
    cs_prover_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_block_count),
        cmocka_unit_test(test_full_hash_count),
        cmocka_unit_test(test_count_value_independent),
        cmocka_unit_test(test_blank_hash),
        cmocka_unit_test(test_block_against_openssl),
        cmocka_unit_test(test_hash_against_openssl),
        cmocka_unit_test(test_tampered_witness),
        cmocka_unit_test(test_create_label),
        cmocka_unit_test(test_hash2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
