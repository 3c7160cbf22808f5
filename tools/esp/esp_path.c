/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_path.h"

#include <string.h>
#include <strings.h>

/* The next component of a path: skips separators, returns its length. */
static size_t component(const char **p)
{
	while (**p == '/' || **p == '\\')
		(*p)++;
	size_t n = 0;
	while ((*p)[n] && (*p)[n] != '/' && (*p)[n] != '\\')
		n++;
	return n;
}

bool esp_path_eq(const char *a, const char *b)
{
	for (;;) {
		size_t na = component(&a), nb = component(&b);
		if (na != nb || strncasecmp(a, b, na))
			return false;
		if (!na)
			return true;
		a += na;
		b += nb;
	}
}
