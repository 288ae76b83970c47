/* file.c - whole-file reads, atomic writes and mkdir -p (see include/cuzk/file.h). */
#include "cuzk/file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cuzk_read_file(const char *path, uint8_t **data, size_t *len, size_t max, cuzk_err *err)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, CUZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    int rc = buf ? CUZK_OK : cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    for (size_t got = 1; !rc && got > 0; n += got) {
        if (n == cap) { /* grow, one byte past max to detect oversize files */
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            uint8_t *bigger = ncap > cap ? realloc(buf, ncap + 1) : NULL;
            if (!bigger) {
                rc = ncap > cap
                         ? cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path)
                         : cuzk_errf(err, CUZK_ELENGTH, "%s: larger than %zu bytes", path, max);
                break;
            }
            buf = bigger;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0 && ferror(f)) rc = cuzk_errf(err, CUZK_EIO, "%s: read failed", path);
    }
    fclose(f);
    if (!rc && n > max) rc = cuzk_errf(err, CUZK_ELENGTH, "%s: larger than %zu bytes", path, max);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return CUZK_OK;
}

int cuzk_write_file(const char *path, const void *data, size_t len, cuzk_err *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", path);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    FILE *f = fopen(tmp, "wb");
    int rc = CUZK_OK;
    if (!f)
        rc = cuzk_errf(err, CUZK_EIO, "%s: cannot create: %s", tmp, strerror(errno));
    else {
        if (fwrite(data, 1, len, f) != len)
            rc = cuzk_errf(err, CUZK_EIO, "%s: write failed: %s", tmp, strerror(errno));
        if (fclose(f) != 0 && !rc)
            rc = cuzk_errf(err, CUZK_EIO, "%s: close failed: %s", tmp, strerror(errno));
        if (!rc && rename(tmp, path) != 0)
            rc = cuzk_errf(err, CUZK_EIO, "%s: rename failed: %s", path, strerror(errno));
        if (rc) remove(tmp);
    }
    free(tmp);
    return rc;
}

/* mkdir of path[0..end) when it is missing; anything but a folder there fails. */
static int make_dir(char *path, size_t end, cuzk_err *err)
{
    char saved = path[end];
    path[end] = 0;
    struct stat st;
    int rc = CUZK_OK;
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        rc = cuzk_errf(err, CUZK_EIO, "%s: cannot create the folder: %s", path, strerror(errno));
    else if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = cuzk_errf(err, CUZK_EIO, "%s: not a folder", path);
    path[end] = saved;
    return rc;
}

int cuzk_make_dirs(const char *dir, cuzk_err *err)
{
    size_t n = strlen(dir);
    if (!n) return cuzk_errf(err, CUZK_EINVAL, "an empty folder name");
    char *path = malloc(n + 1);
    if (!path) return cuzk_errf(err, CUZK_ENOMEM, "%s: out of memory", dir);
    memcpy(path, dir, n + 1);
    int rc = CUZK_OK;
    for (size_t i = 1; !rc && i <= n; i++)
        if (i == n || (path[i] == '/' && path[i - 1] != '/')) rc = make_dir(path, i, err);
    free(path);
    return rc;
}
