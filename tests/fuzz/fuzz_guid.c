/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: guid_parse on any text (a GUID given on the command line or read from a file).
 * It must not read past the terminator, must accept only 8-4-4-4-12 hex (braces optional), and
 * what it accepts must format back to the same GUID in the canonical upper-case form. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct guid g, again;
	char text[GUID_STR_LEN + 1];

	/* an exact-size, NUL-terminated copy, so ASan sees any read past the terminator */
	char *s = malloc(size + 1);
	if (!s)
		__builtin_trap();
	memcpy(s, data, size);
	s[size] = 0;
	if (guid_parse(s, &g)) {
		/* the accepted text, without braces, is 36 characters of hex and four dashes */
		const char *p = s;
		size_t n = strlen(s);
		if (n == GUID_STR_LEN + 2) {
			if (s[0] != '{' || s[n - 1] != '}')
				__builtin_trap();
			p++;
			n -= 2;
		}
		if (n != GUID_STR_LEN)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if ((i == 8 || i == 13 || i == 18 || i == 23) ? p[i] != '-' : hexval(p[i]) < 0)
				__builtin_trap();
		guid_format(&g, text);
		if (strlen(text) != GUID_STR_LEN || !guid_parse(text, &again) || !guid_eq(&g, &again))
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if (p[i] != text[i] && (hexval(p[i]) < 0 || hexval(p[i]) != hexval(text[i])))
				__builtin_trap();
	}
	free(s);
	return 0;
}
