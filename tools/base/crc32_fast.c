/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/crc32_fast.h"

#include <stdbool.h>

#include "common/le.h"

#define CRC32_POLY 0xEDB88320u

/* table[0][b]: the CRC of byte b alone; table[s][b]: the same byte followed by s zero bytes,
 * so eight bytes fold in with eight lookups. Built on first use. */
static uint32_t table[8][256];
static bool built;

static void build(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32_POLY : c >> 1;
		table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int s = 1; s < 8; s++)
			table[s][b] = (table[s - 1][b] >> 8) ^ table[0][table[s - 1][b] & 0xFF];
	built = true;
}

uint32_t crc32_fast_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!built)
		build();
	crc = ~crc;
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = le32_load(p) ^ crc, hi = le32_load(p + 4);
		crc = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
		      table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFF];
	return ~crc;
}

/* a(x) * b(x) modulo the CRC's polynomial, in the reflected bit order the CRC uses (bit 31 is
 * x^0). */
static uint32_t mult_mod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			p ^= b;
		b = b & 1 ? (b >> 1) ^ CRC32_POLY : b >> 1;
	}
	return p;
}

/* x^(8 len) modulo the polynomial: the power by squaring x^(2^k). */
static uint32_t shift_bytes(uint64_t len)
{
	uint32_t x_pow = 1u << 30;   /* x^1 */
	uint32_t shift = 1u << 31;   /* x^0 */
	for (uint64_t n = len * 8; n; n >>= 1) {
		if (n & 1)
			shift = mult_mod(shift, x_pow);
		x_pow = mult_mod(x_pow, x_pow);
	}
	return shift;
}

uint32_t crc32_fast_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	/* crc(A || B) = crc_a * x^(8 len_b) + crc_b (the pre- and post-inversions cancel) */
	return mult_mod(shift_bytes(len_b), crc_a) ^ crc_b;
}

uint32_t crc32_fast_zeros(uint32_t crc, uint64_t len)
{
	/* the register (the inverted CRC) shifted through len zero bytes */
	return ~mult_mod(shift_bytes(len), ~crc);
}
