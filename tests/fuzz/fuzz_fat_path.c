/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: fat_path_next and fat_path_eq (common/fat_path.c) on two paths of any bytes (the
 * input split at its first NUL; without one, the second path is the first spelt another way).
 * The walk must stay inside the string, give non-empty names without separators and never ".",
 * and end at the terminator. fat_path_eq must be reflexive and symmetric, hold between a path
 * and itself respelt (case of ASCII letters, '/' for '\\' and back, "./" and "x/../" inserted),
 * and agree with a reference written here from the rule: the names after separators, "." and
 * ".." are resolved, compared without ASCII case, at most FAT_PATH_DEPTH of them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fat_path.h"

static void check_walk(const char *s)
{
	const char *p = s, *name, *end = s + strlen(s);
	size_t len;

	while ((len = fat_path_next(&p, &name))) {
		if (name < s || name + len != p || p > end)
			__builtin_trap();
		if (len == 1 && name[0] == '.')
			__builtin_trap();
		for (size_t i = 0; i < len; i++)
			if (!name[i] || name[i] == '/' || name[i] == '\\')
				__builtin_trap();
	}
	if (p != end)
		__builtin_trap();
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The rule, written out: the resolved names of s, lower-cased, each ended by a '/'; NULL when
 * more than FAT_PATH_DEPTH remain at some point. */
static char *reference(const char *s)
{
	size_t n = strlen(s), depth = 0, at = 0;
	char *out = malloc(n + 2);
	size_t *starts = malloc((n + 1) * sizeof *starts);

	if (!out || !starts)
		__builtin_trap();
	for (size_t i = 0; i <= n;) {
		size_t j = i;
		while (j < n && s[j] != '/' && s[j] != '\\')
			j++;
		size_t len = j - i;
		if (len == 2 && s[i] == '.' && s[i + 1] == '.') {
			if (depth)
				at = starts[--depth];
		} else if (len && !(len == 1 && s[i] == '.')) {
			if (depth == FAT_PATH_DEPTH) {
				free(out);
				free(starts);
				return NULL;
			}
			starts[depth++] = at;
			for (size_t k = i; k < j; k++)
				out[at++] = lower(s[k]);
			out[at++] = '/';
		}
		i = j + 1;
	}
	out[at] = 0;
	free(starts);
	return out;
}

/* s spelt another way that names the same file; the caller frees it. */
static char *respell(const char *s, uint8_t how)
{
	size_t n = strlen(s);
	char *out = malloc(3 * n + 16), *o = out;

	if (!out)
		__builtin_trap();
	if (how & 1)
		o = stpcpy(o, "./");
	if (how & 2)
		o = stpcpy(o, "zz/../");
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((how & 4) && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if ((how & 4) && c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((how & 8) && (c == '/' || c == '\\'))
			c = c == '/' ? '\\' : '/';
		*o++ = c;
		if ((how & 16) && (c == '/' || c == '\\'))
			o = stpcpy(o, "./");
	}
	*o = 0;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 2);
	if (!buf)
		__builtin_trap();
	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = 0;
	const char *a = buf;
	size_t alen = strlen(a);
	char *b = alen < size ? strdup(buf + alen + 1) : respell(a, size ? data[0] : 0);
	if (!b)
		__builtin_trap();

	check_walk(a);
	check_walk(b);
	char *ra = reference(a), *rb = reference(b);
	bool eq = fat_path_eq(a, b);
	if (eq != fat_path_eq(b, a) || eq != (ra && rb && !strcmp(ra, rb)))
		__builtin_trap();
	if (fat_path_eq(a, a) != (ra != NULL))
		__builtin_trap();
	/* A respelling (chosen by the last byte) of a path that fits names it still. */
	if (ra) {
		char *r = respell(a, size ? data[size - 1] : 0);
		if (!fat_path_eq(a, r))
			__builtin_trap();
		free(r);
	}
	free(ra);
	free(rb);
	free(b);
	free(buf);
	return 0;
}
