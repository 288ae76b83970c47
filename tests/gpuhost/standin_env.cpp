/*
 * standin_env.cpp - the stand-in device of cuzk-daemon-standin: its
 * memory from CUZK_STANDIN_DEVICE_MIB (default 4096 MiB), set before the
 * daemon's main runs, so that the daemon plans and proves within it.
 */
#include <stdio.h>

static struct standin_env {
    standin_env()
    {
        const char *s = getenv("CUZK_STANDIN_DEVICE_MIB");
        long long mib = s ? atoll(s) : 4096;
        if (mib <= 0) {
            fprintf(stderr, "CUZK_STANDIN_DEVICE_MIB=%s: a positive number of MiB\n", s);
            exit(2);
        }
        host_device_limit[0].store(mib << 20);
    }
} standin;
