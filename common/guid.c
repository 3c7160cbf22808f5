/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/guid.h"

/* Byte order inside the text: the first three groups are stored reversed. */
static const uint8_t text_to_byte[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

const struct guid GUID_ESP = { { 0x28, 0x73, 0x2A, 0xC1, 0x1F, 0xF8, 0xD2, 0x11,
				 0xBA, 0x4B, 0x00, 0xA0, 0xC9, 0x3E, 0xC9, 0x3B } };
const struct guid GUID_BIOS_BOOT = { { 'H', 'a', 'h', '!', 'I', 'd', 'o', 'n',
				       't', 'N', 'e', 'e', 'd', 'E', 'F', 'I' } };
const struct guid GUID_LINUX_FS = { { 0xAF, 0x3D, 0xC6, 0x0F, 0x83, 0x84, 0x72, 0x47,
				      0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D, 0xE4 } };
const struct guid GUID_MS_BASIC = { { 0xA2, 0xA0, 0xD0, 0xEB, 0xE5, 0xB9, 0x33, 0x44,
				      0x87, 0xC0, 0x68, 0xB6, 0xB7, 0x26, 0x99, 0xC7 } };

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool guid_parse(const char *s, struct guid *out)
{
	struct guid g;
	bool braces = s[0] == '{';
	int k = 0;

	if (braces)
		s++;
	for (int i = 0; i < GUID_STR_LEN;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
			i++;
			continue;
		}
		int hi = hexval(s[i]), lo = hi < 0 ? -1 : hexval(s[i + 1]);
		if (lo < 0)
			return false;
		g.b[text_to_byte[k++]] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	s += GUID_STR_LEN;
	if (braces && *s++ != '}')
		return false;
	if (*s)
		return false;
	*out = g;
	return true;
}

void guid_format(const struct guid *g, char out[GUID_STR_LEN + 1])
{
	static const char hex[] = "0123456789ABCDEF";
	int o = 0;

	for (int k = 0; k < 16; k++) {
		uint8_t v = g->b[text_to_byte[k]];
		if (k == 4 || k == 6 || k == 8 || k == 10)
			out[o++] = '-';
		out[o++] = hex[v >> 4];
		out[o++] = hex[v & 15];
	}
	out[o] = 0;
}

bool guid_eq(const struct guid *a, const struct guid *b)
{
	for (int i = 0; i < 16; i++)
		if (a->b[i] != b->b[i])
			return false;
	return true;
}

bool guid_is_zero(const struct guid *g)
{
	for (int i = 0; i < 16; i++)
		if (g->b[i])
			return false;
	return true;
}
