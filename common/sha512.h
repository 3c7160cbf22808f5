/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-512 and SHA-384 (FIPS 180-4), freestanding: for the TPM's sha384 and sha512 PCR banks
 * (common/tcg.h). SHA-384 is SHA-512 with its own initial values, cut to 48 bytes. */
#ifndef ANYSECTOR_SHA512_H
#define ANYSECTOR_SHA512_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA512_BYTES 64
#define SHA384_BYTES 48
#define SHA512_BLOCK 128

struct sha512 {
	uint64_t h[8];
	uint64_t bytes;          /* 2^64 bytes is far beyond anything hashed here */
	uint8_t block[SHA512_BLOCK];
	bool is384;
};

void sha512_init(struct sha512 *s, bool is384);
void sha512_update(struct sha512 *s, const void *data, size_t len);
/* Writes 64 bytes (SHA-512) or 48 (SHA-384). */
void sha512_final(struct sha512 *s, uint8_t *out);

#endif
