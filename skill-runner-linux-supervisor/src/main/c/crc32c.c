#include "crc32c.h"

static uint32_t table[256];
static int table_ready;

static void build_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) {
            c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        }
        table[i] = c;
    }
    table_ready = 1;
}

uint32_t crc32c_update(uint32_t crc, const void *data, size_t len) {
    if (!table_ready) {
        build_table();
    }
    const uint8_t *p = data;
    crc = ~crc;
    while (len-- > 0) {
        crc = table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    }
    return ~crc;
}
