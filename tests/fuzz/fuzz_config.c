/*
 * fuzz_config.c - a libFuzzer target for the configuration parser: the input
 * is written to a file and loaded; a configuration that loads is also
 * applied (-s style settings from its own first line) and built into a model.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachet/cachet.h"
#include "fuzz_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    ct_config *c = NULL;
    ct_sim *s = NULL;
    ct_error err = {0};

    if (!path[0])
        fuzz_path(path, sizeof path, "config.ini");
    fuzz_write(path, data, size);
    if (ct_config_load(&c, path, &err) == CT_OK) {
        char line[256];
        size_t n = 0;
        /* the first line, as a -s setting (mostly rejected, sometimes not) */
        while (n < size && n < sizeof line - 1 && data[n] != '\n')
            n++;
        memcpy(line, data, n);
        line[n] = '\0';
        (void)ct_config_set(c, line, &err);
        /* keep models small: skip configurations whose caches are huge */
        {
            char buf[64];
            const char *sz;
            int big = 0;
            static const char *const levels[] = {"l1i", "l1d", "l2", "l3"};
            for (int i = 0; i < 4; i++)
                if ((sz = ct_config_get(c, levels[i], "size", buf, sizeof buf)) &&
                    strtoull(sz, NULL, 10) > (64u << 20))
                    big = 1;
            if ((sz = ct_config_get(c, "system", "cores", buf, sizeof buf)) &&
                strtoull(sz, NULL, 10) > 16)
                big = 1;
            if (!big && ct_sim_create(&s, c, &err) == CT_OK) {
                ct_access a = {.vaddr = 0x1000, .size = 8, .kind = CT_STORE};
                ct_sim_access(s, &a);
                ct_sim_finish(s);
                ct_sim_free(s);
            }
        }
        ct_config_free(c);
    }
    return 0;
}
