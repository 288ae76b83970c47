/*
 * engine_log.h - the one logger of the daemon: leveled lines on stderr
 * ("2026-11-29T23:59:00.123Z INFO message") and the TIMELINE lines of
 * reference/cuzk-api.md, `TIMELINE,<ms since start>,<EVENT>,<job>,<detail>`,
 * printed at level info whole (one write each, so lines never interleave).
 */
#ifndef CUZK_ENGINE_LOG_H
#define CUZK_ENGINE_LOG_H

enum engine_log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* "error", "warn", "info", "debug"; returns -1 (level unchanged) otherwise. */
int engine_log_set_level(const char *name);
void engine_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void engine_timeline(const char *event, const char *job, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
