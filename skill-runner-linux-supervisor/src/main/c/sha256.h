/* SHA-256 (FIPS 180-4), small and dependency-free. Checked against known vectors by --selftest. */
#ifndef SKILLGATE_SHA256_H
#define SKILLGATE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length_bytes;
    uint8_t block[64];
    size_t block_used;
} sha256_ctx;

void sha256_init(sha256_ctx *ctx);
void sha256_update(sha256_ctx *ctx, const void *data, size_t len);
void sha256_final(sha256_ctx *ctx, uint8_t out[32]);

#endif
