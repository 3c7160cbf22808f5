/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/fat_path.h"

#include "common/str.h"

struct resolved {
	unsigned n;
	const char *name[FAT_PATH_DEPTH];
	size_t len[FAT_PATH_DEPTH];
};

/* The names path keeps once each ".." has taken back the one before it; false when more than
 * FAT_PATH_DEPTH remain at some point. */
static bool resolve(const char *path, struct resolved *r)
{
	const char *name;
	size_t len;

	r->n = 0;
	while ((len = fat_path_next(&path, &name))) {
		if (len == 2 && name[0] == '.' && name[1] == '.') {
			if (r->n)
				r->n--;
			continue;
		}
		if (r->n == FAT_PATH_DEPTH)
			return false;
		r->name[r->n] = name;
		r->len[r->n++] = len;
	}
	return true;
}

bool fat_path_eq(const char *a, const char *b)
{
	struct resolved ra, rb;

	if (!resolve(a, &ra) || !resolve(b, &rb) || ra.n != rb.n)
		return false;
	for (unsigned i = 0; i < ra.n; i++)
		if (ra.len[i] != rb.len[i] || str_ncasecmp(ra.name[i], rb.name[i], ra.len[i]))
			return false;
	return true;
}
