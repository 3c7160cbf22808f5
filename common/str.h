/* SPDX-License-Identifier: BSD-2-Clause */
/* Bounded string helpers for freestanding code (prefixed so they never clash with libc). */
#ifndef ANYSECTOR_STR_H
#define ANYSECTOR_STR_H

#include <stdbool.h>
#include <stddef.h>

size_t str_len(const char *s);
size_t str_nlen(const char *s, size_t max);
int str_cmp(const char *a, const char *b);
int str_ncmp(const char *a, const char *b, size_t n);
/* ASCII case-insensitive comparisons (FAT names, config keys). */
int str_casecmp(const char *a, const char *b);
int str_ncasecmp(const char *a, const char *b, size_t n);
/* Copies at most cap-1 bytes and always terminates; returns false when src did not fit. */
bool str_copy(char *dst, size_t cap, const char *src);
/* Same, from a counted (not necessarily terminated) source. */
bool str_copy_n(char *dst, size_t cap, const char *src, size_t n);

static inline bool chr_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static inline bool chr_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline char chr_upper(char c)
{
	return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

static inline char chr_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Parses an unsigned decimal (or 0x-prefixed hex) number filling the whole [s, s+n) range;
 * false on empty input, stray characters or overflow. */
bool str_to_u64(const char *s, size_t n, unsigned long long *out);

#endif
