/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/utf8.h"

#include <stdint.h>

size_t utf8_seq_len(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t len;
	uint8_t lo = 0x80, hi = 0xBF;    /* the second byte's range (Table 3-7 of Unicode) */

	if (!n)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xC2 || p[0] > 0xF4)  /* continuation bytes, overlong C0/C1, past U+10FFFF */
		return 0;
	len = p[0] < 0xE0 ? 2 : p[0] < 0xF0 ? 3 : 4;
	if (p[0] == 0xE0)
		lo = 0xA0;               /* overlong three-byte forms */
	else if (p[0] == 0xED)
		hi = 0x9F;               /* surrogates */
	else if (p[0] == 0xF0)
		lo = 0x90;               /* overlong four-byte forms */
	else if (p[0] == 0xF4)
		hi = 0x8F;               /* past U+10FFFF */
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

bool utf8_valid(const char *s, size_t n, size_t *bad)
{
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(s + i, n - i);
		if (!k) {
			if (bad)
				*bad = i;
			return false;
		}
		i += k;
	}
	return true;
}

unsigned utf8_copy(char *dst, size_t cap, const char *s, size_t n)
{
	size_t o = 0;
	unsigned r = 0;

	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(s + i, n - i);
		const char *from = k ? s + i : UTF8_REPLACEMENT;
		size_t len = k ? k : 3;
		r |= !k;
		if (o + len >= cap) {
			r |= 2;
			break;
		}
		for (size_t j = 0; j < len; j++)
			dst[o++] = from[j];
		i += k ? k : 1;
	}
	dst[o] = 0;
	return r;
}
