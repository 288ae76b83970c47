/*
 * file.h - whole-file reads, atomic writes and mkdir -p, with errors naming the
 * path.
 */
#ifndef CUZK_FILE_H
#define CUZK_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

/* Reads path into a malloc'd buffer with a NUL byte after the data (so text
 * can be parsed in place); fails with CUZK_ELENGTH beyond max bytes. */
int cuzk_read_file(const char *path, uint8_t **data, size_t *len, size_t max, cuzk_err *err);
/* Writes data to path.tmp, then renames it over path. */
int cuzk_write_file(const char *path, const void *data, size_t len, cuzk_err *err);
/* mkdir -p: creates dir and every missing folder above it (mode 0755); an
 * existing folder is fine, anything else in the way fails naming it. */
int cuzk_make_dirs(const char *dir, cuzk_err *err);

#endif
