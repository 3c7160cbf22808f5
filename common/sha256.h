/* SPDX-License-Identifier: BSD-2-Clause */
/* SHA-256 (FIPS 180-4), freestanding: the digests that pin an entry's files (anysector.cfg's
 * sha256 lines), computed by stage2 and BOOTX64.EFI once each file is in memory and by the
 * installer. */
#ifndef ANYSECTOR_SHA256_H
#define ANYSECTOR_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX_LEN (2 * SHA256_BYTES)   /* lower-case hex, without the terminator */
#define SHA256_BLOCK 64

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;          /* message length so far; the standard limit is 2^64 bits */
	uint8_t block[SHA256_BLOCK];
};

void sha256_init(struct sha256 *s);
/* Feeds pieces of any length, in order. */
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Pads, writes the digest and leaves s to be initialised again. */
void sha256_final(struct sha256 *s, uint8_t out[SHA256_BYTES]);

static inline void sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES])
{
	struct sha256 s;
	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
}

/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(const uint8_t d[SHA256_BYTES], char out[SHA256_HEX_LEN + 1]);
/* Exactly 64 hex digits (either case) from text[0..n); false for anything else. */
bool sha256_from_hex(const char *text, size_t n, uint8_t out[SHA256_BYTES]);

#endif
