/*
 * fuzz_snarkjs.c - libFuzzer target for the circom / snarkjs readers: the
 * first byte picks the format (.r1cs, .wtns, .zkey, proof.json,
 * verification_key.json, public.json), the rest is the file, handed to the
 * reader through an in-memory file (memfd). Any input must give CUZK_OK or
 * an error with a message, never a crash, leak or hang.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuzk/snarkjs.h"

static void read_as(int kind, const char *path)
{
    cuzk_err err = {0};
    int rc;
    switch (kind) {
    case 0: {
        snarkjs_r1cs r;
        if (!(rc = snarkjs_r1cs_read(&r, path, &err))) snarkjs_r1cs_free(&r);
        break;
    }
    case 1: {
        snarkjs_wtns w;
        if (!(rc = snarkjs_wtns_read(&w, path, &err))) snarkjs_wtns_free(&w);
        break;
    }
    case 2: {
        snarkjs_zkey z;
        if (!(rc = snarkjs_zkey_read(&z, path, SNARKJS_CHECKED, &err))) snarkjs_zkey_free(&z);
        break;
    }
    case 3: {
        groth16_proof p;
        rc = snarkjs_proof_read(&p, path, &err);
        break;
    }
    case 4: {
        groth16_vk vk;
        if (!(rc = snarkjs_vk_read(&vk, path, &err))) groth16_vk_free(&vk);
        break;
    }
    default: {
        fr_t *in;
        size_t n;
        if (!(rc = snarkjs_public_read(&in, &n, path, &err))) free(in);
        break;
    }
    }
    if (rc && !err.msg[0]) abort(); /* every error carries a message */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int fd = memfd_create("cuzk-fuzz", 0);
    if (fd < 0) return 0;
    if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1)) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        read_as(data[0] % 6, path);
    }
    close(fd);
    return 0;
}
