/* SPDX-License-Identifier: BSD-2-Clause */
/* Paths on a FAT: the one walk fat_open follows, and the comparison the installer makes with the
 * same walk, so that two spellings the loaders open as one file are one file to the installer
 * too. '/' and '\\' both separate (a run of them is one), "." is the directory it is in, ".." its
 * parent (the root's is the root), and names compare without ASCII case. */
#ifndef ANYSECTOR_FAT_PATH_H
#define ANYSECTOR_FAT_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define FAT_PATH_DEPTH 128     /* names a compared path may keep after ".." (FAT_PATH_MAX / 2) */

/* The next name of the path at *p, "." names and separators skipped: *name gets its start and
 * *p moves past it. Returns its length, 0 at the end of the path. ".." comes back like any name
 * (fat_open looks it up; at the root it stays). */
static inline size_t fat_path_next(const char **p, const char **name)
{
	for (;;) {
		while (**p == '/' || **p == '\\')
			(*p)++;
		size_t len = 0;
		while ((*p)[len] && (*p)[len] != '/' && (*p)[len] != '\\')
			len++;
		*name = *p;
		*p += len;
		if (len != 1 || **name != '.')
			return len;
	}
}

/* Whether a and b name the same file as fat_open resolves them: the names fat_path_next gives,
 * each ".." taking back the name before it, compared without ASCII case. (fat_open refuses a
 * ".." after a file; here it still takes the file's name back.) A path keeping more than
 * FAT_PATH_DEPTH names equals none. A long name and its 8.3 alias differ here: only the
 * directory can tell they are one file. */
bool fat_path_eq(const char *a, const char *b);

#endif
