/*
 * log.c - the logger of engine_log.h. Each line is formatted into a buffer
 * and written with one fputs under stderr's lock; the TIMELINE clock starts
 * at the first log call (the daemon logs at startup).
 */
#include "cuzk/engine_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int level = LOG_INFO;
static const char *const names[] = {"error", "warn", "info", "debug"};

int engine_log_set_level(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i])) return level = i;
    return -1;
}

static double since_start_ms(void)
{
    static struct timespec start;
    static int started;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL)) start = now;
    return 1e3 * (double)(now.tv_sec - start.tv_sec) + 1e-6 * (double)(now.tv_nsec - start.tv_nsec);
}

void engine_log(int lvl, const char *fmt, ...)
{
    since_start_ms();
    if (lvl > level) return;
    char line[2048];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    n += (size_t)snprintf(line + n, sizeof line - n, ".%03ldZ %s ", ts.tv_nsec / 1000000,
                          lvl == LOG_ERROR  ? "ERROR"
                          : lvl == LOG_WARN ? "WARN"
                          : lvl == LOG_INFO ? "INFO"
                                            : "DEBUG");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
}

void engine_timeline(const char *event, const char *job, const char *fmt, ...)
{
    double ms = since_start_ms();
    if (level < LOG_INFO) return;
    char line[1024];
    int n = snprintf(line, sizeof line, "TIMELINE,%.0f,%s,%s,", ms, event, job);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
}
