/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "common/bits.h"
#include "tools/base/exit_codes.h"

bool parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ULL << 10 }, { "KiB", 1ULL << 10 }, { "KB", 1000ULL },
		{ "M", 1ULL << 20 }, { "MiB", 1ULL << 20 }, { "MB", 1000000ULL },
		{ "G", 1ULL << 30 }, { "GiB", 1ULL << 30 }, { "GB", 1000000000ULL },
		{ "T", 1ULL << 40 }, { "TiB", 1ULL << 40 }, { "TB", 1000000000000ULL },
		{ "P", 1ULL << 50 }, { "PiB", 1ULL << 50 }, { "PB", 1000000000000000ULL },
	};
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].suffix))
			continue;
		if (v && units[i].mult > UINT64_MAX / v)
			return false;
		*out = v * units[i].mult;
		return true;
	}
	return false;
}

bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

const char *human_size(uint64_t bytes, char *buf, size_t cap)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t scale = 1;

	while (u + 1 < ARRAY_SIZE(unit) && bytes / scale >= 1024) {
		scale <<= 10;
		u++;
	}
	if (!u)
		snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, cap, "%.1f %s", (double)bytes / (double)scale, unit[u]);
	return buf;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "anysector: out of memory (%zu bytes)\n", n);
		exit(EXIT_ERRORS);
	}
	return p;
}

void *xmalloc_huge(size_t n)
{
	const size_t huge = 2u << 20;
	void *p;

	if (n < huge)
		return xmalloc(n);
	if (posix_memalign(&p, huge, n)) {
		fprintf(stderr, "anysector: out of memory (%zu bytes)\n", n);
		exit(EXIT_ERRORS);
	}
	/* only a hint: without huge pages the buffer works all the same */
	(void)madvise(p, n, MADV_HUGEPAGE);
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p) {
		fprintf(stderr, "anysector: out of memory\n");
		exit(EXIT_ERRORS);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "anysector: out of memory\n");
		exit(EXIT_ERRORS);
	}
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) {
		fprintf(stderr, "anysector: out of memory\n");
		exit(EXIT_ERRORS);
	}
	return p;
}

bool all_zero(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	/* each byte equal to the one before it, and the first zero: the C library's memcmp is
	 * many times faster than a loop over megabytes of free clusters */
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}
