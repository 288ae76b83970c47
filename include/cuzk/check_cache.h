/*
 * check_cache.h - remembers parameter files that passed the full point check
 * (every point on the curve and in the subgroup), by the SHA-256 of their
 * content, so that later reads of the same bytes check the digest instead
 * of the points.
 *
 * The cache is a directory, $XDG_CACHE_HOME/cuzk/checked (an absolute
 * XDG_CACHE_HOME, as the XDG spec wants), else $HOME/.cache/cuzk/checked,
 * holding one empty file per passed file, named by the format and the digest
 * ("zkey-<64 hex>"). An entry is created only after a full check passed, and
 * the digest is taken over the very bytes that were decoded (the reader's
 * mapping), so a file changed since is a miss and is checked again. Anyone
 * who can write the cache directory can vouch for a file; it lives in the
 * user's own cache, next to the files it speaks for.
 *
 * Nothing here is fatal to a read: a cache that cannot be found, created or
 * written only means the next read checks the points again.
 */
#ifndef CUZK_CHECK_CACHE_H
#define CUZK_CHECK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#define CHECK_DIGEST_BYTES 32

/* The cache directory (".../cuzk/checked") into out; fails with CUZK_EINVAL
 * when neither an absolute XDG_CACHE_HOME nor HOME is set. */
int check_cache_dir(char *out, size_t cap, cuzk_err *err);

/* SHA-256 of data. */
void check_cache_digest(uint8_t digest[CHECK_DIGEST_BYTES], const void *data, size_t len);

/* Whether bytes of this format ("zkey", "params", "vk") with this digest
 * passed a full check before. */
bool check_cache_has(const char *format, const uint8_t digest[CHECK_DIGEST_BYTES]);

/* Records that bytes of this format with this digest passed a full check
 * (creating the directory when needed). */
int check_cache_add(const char *format, const uint8_t digest[CHECK_DIGEST_BYTES], cuzk_err *err);

/*
 * The readers' use of the above, for a file whose bytes are data:
 * check_cache_begin takes their digest into u and returns whether the
 * points must be checked in full (always when cached is false, else unless
 * the digest is in the cache). After a full check passed,
 * check_cache_passed records the digest (failures ignored: they only cost
 * the check next time).
 */
typedef struct check_cache_use {
    const char *format;
    uint8_t digest[CHECK_DIGEST_BYTES];
} check_cache_use;

bool check_cache_begin(check_cache_use *u, const char *format, const void *data, size_t len,
                       bool cached);
void check_cache_passed(const check_cache_use *u);

#endif
