/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/str.h"

size_t str_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t str_nlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int str_cmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int str_ncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

int str_casecmp(const char *a, const char *b)
{
	while (*a && chr_lower(*a) == chr_lower(*b)) {
		a++;
		b++;
	}
	return (unsigned char)chr_lower(*a) - (unsigned char)chr_lower(*b);
}

int str_ncasecmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (chr_lower(*a) != chr_lower(*b))
			return (unsigned char)chr_lower(*a) - (unsigned char)chr_lower(*b);
		if (!*a)
			break;
	}
	return 0;
}

bool str_copy_n(char *dst, size_t cap, const char *src, size_t n)
{
	size_t i;
	if (!cap)
		return false;
	for (i = 0; i < n && src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = 0;
	return i == n || !src[i];
}

bool str_copy(char *dst, size_t cap, const char *src)
{
	return str_copy_n(dst, cap, src, (size_t)-1);
}

bool str_to_u64(const char *s, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i >= n)
		return false;
	for (; i < n; i++) {
		char c = chr_lower(s[i]);
		unsigned d;
		if (chr_is_digit(c))
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return false;
		if (v > (~0ULL - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}
