/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/measure.h"

#include "common/fmt.h"

#if FEATURE_MEASURE
void measure_file(struct measure *m, unsigned pcr, const char *what, const char *path,
		  const void *a, size_t alen, const void *b, size_t blen)
{
	char desc[MEASURE_DESC_MAX];
	int n;

	if (!m)
		return;
	n = fmt_snprintf(desc, sizeof desc, "anysector %s %s", what, path);
	if (n < 0 || (size_t)n >= sizeof desc)
		n = (int)sizeof desc - 1;   /* cut: the digest still covers the whole file */
	m->extend(m, pcr, a, alen, b, blen, desc, (size_t)n + 1);
}
#endif

size_t measure_utf16(const char *s, uint8_t *out, size_t cap)
{
	size_t k = 0;

	for (;; s++) {
		if (k + 2 > cap)
			return k;
		out[k++] = (uint8_t)*s;
		out[k++] = 0;
		if (!*s)
			return k;
	}
}
