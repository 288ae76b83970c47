/*
 * err.h - the one error type of cuzk.
 *
 * Every fallible function returns an int status (0 = success, otherwise one
 * of the codes below) and, when the caller passes a cuzk_err, fills in a
 * message that names what was wrong and where ("params file x.params: L
 * point 17 is not on the curve"). A NULL cuzk_err is allowed everywhere.
 */
#ifndef CUZK_ERR_H
#define CUZK_ERR_H

enum cuzk_status {
    CUZK_OK = 0,
    CUZK_EINVAL,         /* bad argument or malformed input */
    CUZK_ENOMEM,         /* allocation failed */
    CUZK_EIO,            /* file or socket I/O failed */
    CUZK_ELENGTH,        /* input has the wrong length */
    CUZK_EFLAGS,         /* point encoding flag bits are inconsistent */
    CUZK_ENONCANONICAL,  /* field element >= modulus */
    CUZK_ENOTONCURVE,    /* point is not on the curve */
    CUZK_ENOTINSUBGROUP, /* point is not in the prime-order subgroup */
    CUZK_EIDENTITY,      /* point at infinity where it is not allowed */
    CUZK_ENOSQRT,        /* x has no matching y on the curve */
    CUZK_EVERIFY,        /* proof verification failed */
    CUZK_EUNSUPPORTED,   /* valid but unsupported input */
    CUZK_EDEVICE,        /* accelerator error */
    CUZK_ECANCELLED,     /* work was cancelled */
};

typedef struct cuzk_err {
    int code;
    char msg[512];
} cuzk_err;

/* Sets e (if non-NULL) to code and the formatted message; returns code. */
int cuzk_errf(cuzk_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes e's message with the formatted context ("file x: " + msg); returns e->code. */
int cuzk_err_prefix(cuzk_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A short constant name for a status code ("not on curve"). */
const char *cuzk_status_str(int code);

#endif
