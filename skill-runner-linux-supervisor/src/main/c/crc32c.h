/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as java.util.zip.CRC32C computes it. */
#ifndef SKILLGATE_CRC32C_H
#define SKILLGATE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a CRC: start with crc = 0; the result of one call is the input of the next. */
uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);

#endif
