/*
 * bench_vanilla.c - reading vanilla proofs: a 32GiB-shaped C1 (180
 * challenges, synthetic but well-formed, ~39 MB of JSON, ~52 MB as the
 * base64 c1.json wrapper) read from a file in the page cache, with the
 * time and the peak RSS growth of the read (measured in a forked child
 * that first returns its inherited free heap, like test_vanilla_json);
 * the writer's speed; and the bincode readers on a whole 32GiB Window PoSt
 * partition (2,349 sector blobs) and a SnapDeals proof (16 partitions).
 * --quick uses a 512MiB C1 and fewer PoSt sectors.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/filecoin/vanilla.h"

static void die(const cuzk_err *e)
{
    fprintf(stderr, "bench_vanilla: %s\n", e->msg);
    abort();
}

static double file_mb(const char *path)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    double mb = ftell(f) / 1e6;
    fclose(f);
    return mb;
}

typedef struct read_figures {
    double seconds, cpu_seconds; /* fastest of three reads: wall, user + system */
    long peak_kib;
} read_figures;

static double cpu_now(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6 + (double)u.ru_stime.tv_sec +
           u.ru_stime.tv_usec * 1e-6;
}

/* Best of three reads, in a child whose peak RSS starts at its current RSS. */
static read_figures read_in_child(const char *path)
{
    int fd[2];
    if (pipe(fd)) abort();
    pid_t pid = fork();
    if (pid == 0) {
        malloc_trim(0);
        FILE *cr = fopen("/proc/self/clear_refs", "w");
        if (cr) fputs("5", cr), fclose(cr);
        struct rusage u0, u1;
        getrusage(RUSAGE_SELF, &u0);
        read_figures rf = {1e30, 1e30, 0};
        for (int rep = 0; rep < 3; rep++) {
            vanilla_c1 c1;
            cuzk_err e;
            double t0 = bench_now(), c0 = cpu_now();
            if (vanilla_c1_read(&c1, path, VANILLA_C1_AUTO, &e)) die(&e);
            double t = bench_now() - t0, c = cpu_now() - c0;
            rf.seconds = t < rf.seconds ? t : rf.seconds;
            rf.cpu_seconds = c < rf.cpu_seconds ? c : rf.cpu_seconds;
            vanilla_c1_free(&c1);
        }
        getrusage(RUSAGE_SELF, &u1);
        rf.peak_kib = u1.ru_maxrss - u0.ru_maxrss;
        _exit(write(fd[1], &rf, sizeof(rf)) == sizeof(rf) ? 0 : 1);
    }
    close(fd[1]);
    read_figures rf = {0};
    if (read(fd[0], &rf, sizeof(rf)) != sizeof(rf)) abort();
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return rf;
}

BENCH(95, bench_vanilla_c1)
{
    int id = VANILLA_SEAL_V1_1 + (ctx->quick ? 2 : 3); /* 512MiB or 32GiB */
    const char *size = ctx->quick ? "512MiB" : "32GiB";
    cuzk_rng g;
    cuzk_rng_seed(&g, 95);
    vanilla_c1 c1;
    cuzk_err e;
    if (vanilla_c1_synthetic(&c1, id, &g, &e)) die(&e);
    char paths[2][64];
    double mb[2];
    for (int w = 0; w < 2; w++) {
        snprintf(paths[w], sizeof(paths[w]), "/tmp/cuzk-bench-c1-%d-%d.json", w, (int)getpid());
        c1.wrapped = w;
        double t0 = bench_now();
        if (vanilla_c1_write_file(paths[w], &c1, &e)) die(&e);
        mb[w] = file_mb(paths[w]);
        char fig[96];
        snprintf(fig, sizeof(fig), "C1 %s write (%s, %.1f MB)", size, w ? "c1.json" : "bare JSON",
                 mb[w]);
        bench_report(fig, mb[w] / (bench_now() - t0), "MB/s", 0, NULL, "");
    }
    vanilla_c1_free(&c1);
    for (int w = 0; w < 2; w++) {
        read_figures rf = read_in_child(paths[w]);
        char fig[96];
        snprintf(fig, sizeof(fig), "C1 %s read (%s, %.1f MB)", size, w ? "c1.json" : "bare JSON",
                 mb[w]);
        bench_report(fig, rf.seconds, "s", 0, NULL, "< 1 s (32GiB)");
        snprintf(fig, sizeof(fig), "C1 %s read CPU time (%s)", size, w ? "c1.json" : "bare JSON");
        bench_report(fig, rf.cpu_seconds, "s", 0, NULL, "< 1 s (32GiB)");
        snprintf(fig, sizeof(fig), "C1 %s read peak RSS growth (%s)", size,
                 w ? "c1.json" : "bare JSON");
        char goal[48];
        snprintf(goal, sizeof(goal), "< 2x JSON (%.0f MB)", 2 * mb[0]);
        bench_report(fig, rf.peak_kib * 1024.0 / 1e6, "MB", 0, NULL, goal);
        unlink(paths[w]);
    }
}

BENCH(96, bench_vanilla_post_update)
{
    uint64_t gib32 = 32ull << 30;
    size_t sectors = ctx->quick ? 200 : 2349; /* Window PoSt sectors per 32GiB partition */
    cuzk_rng g;
    cuzk_rng_seed(&g, 96);
    cuzk_err e;
    vanilla_post_sector p;
    if (vanilla_post_sector_synthetic(&p, VANILLA_POST_WINDOW, gib32, &g, &e)) die(&e);
    void *blob;
    size_t len;
    if (vanilla_post_sector_encode(&blob, &len, &p, &e)) die(&e);
    vanilla_post_sector_free(&p);
    double t0 = bench_now();
    for (size_t i = 0; i < sectors; i++) {
        if (vanilla_post_sector_parse(&p, VANILLA_POST_WINDOW, gib32, blob, len, &e)) die(&e);
        vanilla_post_sector_free(&p);
    }
    double t = bench_now() - t0;
    char fig[96];
    snprintf(fig, sizeof(fig), "Window PoSt 32GiB vanilla read (%zu sectors, %.1f MB)", sectors,
             sectors * len / 1e6);
    bench_report(fig, t * 2349 / sectors, "s/partition", 0, NULL, "");
    free(blob);
    vanilla_update_partition u;
    if (vanilla_update_synthetic(&u, gib32, &g, &e)) die(&e);
    if (vanilla_update_encode(&blob, &len, &u, &e)) die(&e);
    vanilla_update_free(&u);
    t0 = bench_now();
    for (int k = 0; k < 16; k++) {
        if (vanilla_update_parse(&u, gib32, blob, len, &e)) die(&e);
        vanilla_update_free(&u);
    }
    snprintf(fig, sizeof(fig), "SnapDeals 32GiB vanilla read (16 partitions, %.1f MB)",
             16 * len / 1e6);
    bench_report(fig, bench_now() - t0, "s", 0, NULL, "");
    free(blob);
}
