/*
 * fuzz_config.c - libFuzzer target for the daemon's TOML reader
 * (cuzk_config_parse, config.h).
 *
 * The input is read as a configuration file's text (up to its first NUL
 * byte). The property: no crash or leak; a failure carries a message
 * naming the file; an accepted text leaves every string NUL-terminated
 * inside its field and every list within its bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/config.h"

static void require(int cond)
{
    if (!cond) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    cuzk_config c;
    cuzk_config_default(&c);
    cuzk_err e = {0};
    int rc = cuzk_config_parse(&c, text, "fuzz.toml", &e);
    free(text);
    if (rc) {
        require(e.code == rc && strstr(e.msg, "fuzz.toml") != NULL);
        return 0;
    }
    require(memchr(c.listen, 0, sizeof c.listen) && memchr(c.param_cache, 0, sizeof c.param_cache));
    require(memchr(c.backend, 0, sizeof c.backend) && memchr(c.log_level, 0, sizeof c.log_level));
    require(c.n_devices <= CONFIG_MAX_DEVICES && c.n_preload <= CONFIG_MAX_PRELOAD);
    for (size_t i = 0; i < c.n_preload; i++)
        require(c.preload[i][0] && memchr(c.preload[i], 0, CONFIG_ID_MAX));
    return 0;
}
