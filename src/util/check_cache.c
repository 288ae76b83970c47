/*
 * check_cache.c - the digest cache of checked parameter files
 * (include/cuzk/check_cache.h). An entry is an empty file whose name is the
 * whole record, so creating one is atomic and concurrent readers and writers
 * need no locking: two processes that check the same file both create it.
 */
#include "cuzk/check_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_CACHE_PATH_MAX 1024

int check_cache_dir(char *out, size_t cap, cuzk_err *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, cap, "%s/cuzk/checked", xdg);
    else if (home && home[0])
        n = snprintf(out, cap, "%s/.cache/cuzk/checked", home);
    else
        return cuzk_errf(err, CUZK_EINVAL,
                         "check cache: neither an absolute XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= cap)
        return cuzk_errf(err, CUZK_EINVAL, "check cache: directory name too long");
    return CUZK_OK;
}

void check_cache_digest(uint8_t digest[CHECK_DIGEST_BYTES], const void *data, size_t len)
{
    unsigned int n = CHECK_DIGEST_BYTES;
    EVP_Digest(data, len, digest, &n, EVP_sha256(), NULL);
}

/* dir/format-<hex digest> */
static int entry_path(char *out, size_t cap, const char *format,
                      const uint8_t digest[CHECK_DIGEST_BYTES], cuzk_err *err)
{
    int rc = check_cache_dir(out, cap, err);
    if (rc) return rc;
    size_t n = strlen(out);
    int w = snprintf(out + n, cap - n, "/%s-", format);
    if (w < 0 || (size_t)w + 2 * CHECK_DIGEST_BYTES >= cap - n)
        return cuzk_errf(err, CUZK_EINVAL, "check cache: entry name too long");
    n += (size_t)w;
    for (int i = 0; i < CHECK_DIGEST_BYTES; i++) snprintf(out + n + 2 * i, 3, "%02x", digest[i]);
    return CUZK_OK;
}

bool check_cache_has(const char *format, const uint8_t digest[CHECK_DIGEST_BYTES])
{
    char path[CHECK_CACHE_PATH_MAX];
    struct stat st;
    return !entry_path(path, sizeof path, format, digest, NULL) && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* mkdir -p of every directory above path's last component. */
static int make_parents(char *path, cuzk_err *err)
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
        int saved = errno;
        if (bad) {
            int rc = cuzk_errf(err, CUZK_EIO, "check cache: cannot create %s: %s", path,
                               strerror(saved));
            *s = '/';
            return rc;
        }
        *s = '/';
    }
    return CUZK_OK;
}

int check_cache_add(const char *format, const uint8_t digest[CHECK_DIGEST_BYTES], cuzk_err *err)
{
    char path[CHECK_CACHE_PATH_MAX];
    int rc = entry_path(path, sizeof path, format, digest, err);
    if (!rc) rc = make_parents(path, err);
    if (rc) return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return cuzk_errf(err, CUZK_EIO, "check cache: cannot create %s: %s", path, strerror(errno));
    close(fd);
    return CUZK_OK;
}

bool check_cache_begin(check_cache_use *u, const char *format, const void *data, size_t len,
                       bool cached)
{
    u->format = format;
    check_cache_digest(u->digest, data, len);
    return !cached || !check_cache_has(format, u->digest);
}

void check_cache_passed(const check_cache_use *u)
{
    check_cache_add(u->format, u->digest, NULL);
}
