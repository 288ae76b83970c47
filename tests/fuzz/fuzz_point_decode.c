/*
 * fuzz_point_decode.c - libFuzzer target for the point and scalar decoders.
 *
 * The input is fed to every decoder whose length it fits (G1 / G2
 * uncompressed, checked and unchecked, G1 / G2 compressed, Fp and Fr from
 * big- and little-endian bytes). The property: a decoder never crashes,
 * sets an error message whenever it fails, and whatever it accepts
 * re-encodes to exactly the input bytes (the encodings are canonical).
 * Points accepted by the checked decoders must also be on the curve.
 *
 * Random bytes rarely form a valid point, so a 4-byte input also drives a
 * structured mode: bytes 0..1 are a scalar k, byte 2 a position and byte 3
 * an XOR mask; the four encodings of k G1 and k G2 are decoded with that
 * one byte flipped (mask 0 keeps them valid). k stays small so that an
 * execution takes milliseconds under the sanitizers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/ec.h"

static void require(int cond)
{
    if (!cond) abort();
}

/* Runs one decoder; on success, re-encodes and compares with the input. */
#define CHECK_POINT(G, DECODE, ENCODE, LEN, CHECKED)                                               \
    do {                                                                                           \
        G##_affine_t p;                                                                            \
        cuzk_err e = {0};                                                                          \
        int rc = G##_affine_##DECODE(&p, data, size, &e);                                          \
        require(rc == e.code);                                                                     \
        if (size != (LEN)) require(rc == CUZK_ELENGTH);                                            \
        if (rc != CUZK_OK) {                                                                       \
            require(e.msg[0] != 0);                                                                \
            break;                                                                                 \
        }                                                                                          \
        uint8_t out[LEN];                                                                          \
        G##_affine_##ENCODE(out, &p);                                                              \
        require(memcmp(out, data, LEN) == 0);                                                      \
        if (CHECKED) require(G##_affine_on_curve(&p));                                             \
    } while (0)

#define CHECK_SCALAR(F, NBYTES, ENDIAN)                                                            \
    do {                                                                                           \
        F##_t x;                                                                                   \
        uint8_t out[NBYTES];                                                                       \
        if (size != (NBYTES) || !F##_from_bytes_##ENDIAN(&x, data)) break;                         \
        F##_to_bytes_##ENDIAN(out, &x);                                                            \
        require(memcmp(out, data, NBYTES) == 0);                                                   \
    } while (0)

static void check_all(const uint8_t *data, size_t size)
{
    CHECK_POINT(g1, deserialize, serialize, G1_UNCOMPRESSED_BYTES, 1);
    CHECK_POINT(g1, deserialize_unchecked, serialize, G1_UNCOMPRESSED_BYTES, 0);
    CHECK_POINT(g1, uncompress, compress, G1_COMPRESSED_BYTES, 1);
    CHECK_POINT(g2, deserialize, serialize, G2_UNCOMPRESSED_BYTES, 1);
    CHECK_POINT(g2, deserialize_unchecked, serialize, G2_UNCOMPRESSED_BYTES, 0);
    CHECK_POINT(g2, uncompress, compress, G2_COMPRESSED_BYTES, 1);
    CHECK_SCALAR(fp, FP_BYTES, be);
    CHECK_SCALAR(fp, FP_BYTES, le);
    CHECK_SCALAR(fr, FR_BYTES, be);
    CHECK_SCALAR(fr, FR_BYTES, le);
}

/* Encodes k G with ENCODE, flips one byte, and checks every decoder on it. */
#define CHECK_MUTATED(G, ENCODE, LEN, k, pos, mask)                                                \
    do {                                                                                           \
        G##_jac_t j;                                                                               \
        G##_affine_t a;                                                                            \
        uint8_t buf[LEN];                                                                          \
        G##_jac_from_affine(&j, &G##_GENERATOR);                                                   \
        G##_jac_mul_limbs(&j, &j, &(k), 1);                                                        \
        G##_jac_to_affine(&a, &j);                                                                 \
        G##_affine_##ENCODE(buf, &a);                                                              \
        buf[(pos) % (LEN)] ^= (mask);                                                              \
        check_all(buf, LEN);                                                                       \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_all(data, size);
    if (size != 4) return 0;
    uint64_t k = (uint64_t)data[0] << 8 | data[1];
    CHECK_MUTATED(g1, serialize, G1_UNCOMPRESSED_BYTES, k, data[2], data[3]);
    CHECK_MUTATED(g1, compress, G1_COMPRESSED_BYTES, k, data[2], data[3]);
    CHECK_MUTATED(g2, serialize, G2_UNCOMPRESSED_BYTES, k, data[2], data[3]);
    CHECK_MUTATED(g2, compress, G2_COMPRESSED_BYTES, k, data[2], data[3]);
    return 0;
}
