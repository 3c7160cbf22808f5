/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/name.h"

#include <stdint.h>

/* A-Z a-z 0-9 + - _ . as a bitmap of the 128 ASCII codes: bit (c & 7) of byte c >> 3
 * (tests/unit/test_bls.c checks it against the list, for every byte) */
static const uint8_t portable[16] = {
	0, 0, 0, 0, 0, 0x68, 0xFF, 0x03, 0xFE, 0xFF, 0xFF, 0x87, 0xFE, 0xFF, 0xFF, 0x07,
};

size_t name_portable_span(const char *s, size_t n)
{
	size_t i = 0;
	for (; i < n; i++) {
		uint8_t c = (uint8_t)s[i];
		if (c >= 0x80 || !(portable[c >> 3] >> (c & 7) & 1))
			break;
	}
	return i;
}
