/*
 * gpu_hold.cu - cuzk-gpu-hold: emulates a smaller card by taking all but
 * GIB GiB of a device's free memory and holding it until killed.
 *
 *   cuzk-gpu-hold GIB [DEVICE]
 *
 * It allocates in 1 GiB pieces (then smaller ones down to 16 MiB) while
 * the device has more than GIB GiB free, prints one line "held H MiB on
 * device D, free now F MiB" once done (scripts wait for it), then sleeps
 * until SIGTERM / SIGINT; the memory goes with the process. Any other
 * process on the device (the daemon under test) sees only GIB GiB free,
 * as on a 16 or 24 GB card. scripts/porep32.sh -G starts it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda_runtime.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    double gib = argc > 1 ? strtod(argv[1], &end) : -1;
    int dev = argc > 2 ? atoi(argv[2]) : 0;
    if (argc < 2 || argc > 3 || !end || *end || gib < 0) {
        fprintf(stderr, "usage: cuzk-gpu-hold GIB [DEVICE]: holds all but GIB GiB of the "
                        "device's free memory until killed\n");
        return 2;
    }
    size_t keep = (size_t)(gib * 1073741824.0), free_b = 0, total = 0, held = 0;
    cudaError_t e = cudaSetDevice(dev);
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_b, &total);
    if (e != cudaSuccess) {
        fprintf(stderr, "cuzk-gpu-hold: device %d: %s\n", dev, cudaGetErrorString(e));
        return 1;
    }
    for (size_t piece = (size_t)1 << 30; piece >= ((size_t)16 << 20);) {
        void *p;
        if (free_b <= keep + piece || cudaMalloc(&p, piece) != cudaSuccess) {
            cudaGetLastError();
            piece /= 2;
        } else {
            held += piece;
        }
        if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) break;
    }
    printf("held %zu MiB on device %d, free now %zu MiB of %zu MiB\n", held >> 20, dev,
           free_b >> 20, total >> 20);
    fflush(stdout);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    while (!stop) pause();
    return 0;
}
