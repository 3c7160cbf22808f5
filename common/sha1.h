/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-1 (FIPS 180-4), freestanding: only for the TPM's sha1 PCR bank, which measured boot must
 * extend like every other active bank (common/tcg.h); nothing in anysector trusts it. */
#ifndef ANYSECTOR_SHA1_H
#define ANYSECTOR_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define SHA1_BYTES 20
#define SHA1_BLOCK 64

struct sha1 {
	uint32_t h[5];
	uint64_t bytes;
	uint8_t block[SHA1_BLOCK];
};

void sha1_init(struct sha1 *s);
void sha1_update(struct sha1 *s, const void *data, size_t len);
void sha1_final(struct sha1 *s, uint8_t out[SHA1_BYTES]);

#endif
