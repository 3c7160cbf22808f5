/* SPDX-License-Identifier: BSD-2-Clause */
/* The fuzzers' CRC-32: the same function as common/crc32.c (same name, same results), but
 * slicing by 4 with 4 KiB of tables instead of a nibble at a time. common/crc32.c is kept small
 * for stage2 and runs ~220 MB/s under ASan, which made CRCs of 16 KiB GPT arrays most of
 * fuzz_gpt's time. Linked ahead of libcommon.a, so the archive's crc32.o is not pulled in.
 * A constructor checks it against common/crc32.c (built as crc32_update_reference) before any
 * input runs, so a wrong table cannot silently change what the parsers see. Input bytes are
 * still read one at a time under ASan, so an over-long length is caught as before. */
#include <stddef.h>
#include <stdint.h>

#include "common/crc32.h"

uint32_t crc32_update_reference(uint32_t crc, const void *buf, size_t len);

static uint32_t table[4][256];

uint32_t crc32_update(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	for (; len >= 4; len -= 4, p += 4) {
		crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		crc = table[3][crc & 0xFF] ^ table[2][(crc >> 8) & 0xFF] ^ table[1][(crc >> 16) & 0xFF] ^
		      table[0][crc >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFF];
	return ~crc;
}

__attribute__((constructor)) static void crc32_fast_init(void)
{
	static uint8_t buf[1031];
	uint32_t x = 1;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 4; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	/* every length and alignment up to 64, then a long odd piece, chained from a seed */
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 64; len++)
			if (crc32_update(len, buf + off, len) != crc32_update_reference(len, buf + off, len))
				__builtin_trap();
	if (crc32_update(7, buf, sizeof buf) != crc32_update_reference(7, buf, sizeof buf) ||
	    crc32_update(0, "123456789", 9) != 0xCBF43926u)
		__builtin_trap();
}
