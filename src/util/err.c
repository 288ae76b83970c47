/* err.c - formatting of cuzk_err messages (see include/cuzk/err.h). */
#include "cuzk/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cuzk_errf(cuzk_err *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

int cuzk_err_prefix(cuzk_err *e, const char *fmt, ...)
{
    if (!e) return CUZK_EINVAL;
    char prefix[256], old[sizeof(e->msg)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof(old));
    size_t n = strlen(prefix);
    if (n >= sizeof(e->msg)) n = sizeof(e->msg) - 1;
    memcpy(e->msg, prefix, n);
    size_t rest = sizeof(e->msg) - 1 - n, m = strnlen(old, sizeof(old));
    if (m > rest) m = rest;
    memcpy(e->msg + n, old, m);
    e->msg[n + m] = 0;
    return e->code;
}

const char *cuzk_status_str(int code)
{
    static const char *const names[] = {
        [CUZK_OK] = "ok",
        [CUZK_EINVAL] = "invalid argument",
        [CUZK_ENOMEM] = "out of memory",
        [CUZK_EIO] = "I/O error",
        [CUZK_ELENGTH] = "wrong length",
        [CUZK_EFLAGS] = "bad flag bits",
        [CUZK_ENONCANONICAL] = "non-canonical field element",
        [CUZK_ENOTONCURVE] = "not on curve",
        [CUZK_ENOTINSUBGROUP] = "not in subgroup",
        [CUZK_EIDENTITY] = "identity point",
        [CUZK_ENOSQRT] = "no square root",
        [CUZK_EVERIFY] = "verification failed",
        [CUZK_EUNSUPPORTED] = "unsupported",
        [CUZK_EDEVICE] = "device error",
        [CUZK_ECANCELLED] = "cancelled",
    };
    if (code < 0 || (size_t)code >= sizeof(names) / sizeof(names[0]) || !names[code])
        return "unknown error";
    return names[code];
}
