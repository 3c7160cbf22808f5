/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/loop_alias.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* The first line of a sysfs file, without its newline; false when it cannot be read. */
static bool sysfs_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(out, (int)cap, f);
	if (f)
		fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = 0;
	return ok && out[0];
}

static int by_number(const void *a, const void *b)
{
	return atoi((const char *)a + strlen("/dev/loop")) -
	       atoi((const char *)b + strlen("/dev/loop"));
}

/* The loop devices whose backing file is the file st, as /dev/loopN, by number. Returns the
 * count (at most cap). */
static unsigned loops_over(const struct stat *st, char (*names)[PATH_MAX], unsigned cap)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *e;
	unsigned n = 0;

	while (dir && n < cap && (e = readdir(dir))) {
		char path[PATH_MAX], backing[PATH_MAX];
		struct stat bst, dst;
		if (strncmp(e->d_name, "loop", 4) || strlen(e->d_name) > 32)
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", e->d_name);
		if (!sysfs_line(path, backing, sizeof backing) || stat(backing, &bst) ||
		    bst.st_dev != st->st_dev || bst.st_ino != st->st_ino)
			continue;
		snprintf(names[n], PATH_MAX, "/dev/%s", e->d_name);
		if (!stat(names[n], &dst) && S_ISBLK(dst.st_mode))
			n++;
	}
	if (dir)
		closedir(dir);
	qsort(names, n, sizeof *names, by_number);
	return n;
}

unsigned loop_aliases(const char *path, const struct stat *st, char (*names)[PATH_MAX],
		      unsigned *self)
{
	struct stat file = *st;
	char sys[128], backing[PATH_MAX];
	unsigned n = 0;

	*self = 0;
	snprintf(names[0], PATH_MAX, "%s", path);
	if (S_ISBLK(st->st_mode)) {
		snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u/loop/backing_file",
			 major(st->st_rdev), minor(st->st_rdev));
		if (!sysfs_line(sys, backing, sizeof backing) || stat(backing, &file) ||
		    !S_ISREG(file.st_mode))
			return 1;
		snprintf(names[n++], PATH_MAX, "%s", backing);
	} else {
		n = 1;
	}
	unsigned first = n;
	n += loops_over(&file, names + n, LOOP_ALIAS_MAX - n);
	for (unsigned i = first; S_ISBLK(st->st_mode) && i < n; i++) {
		struct stat d;
		if (!stat(names[i], &d) && d.st_rdev == st->st_rdev) {
			snprintf(names[i], PATH_MAX, "%s", path);
			*self = i;
			return n;
		}
	}
	if (S_ISBLK(st->st_mode)) { /* not among them (more than LOOP_ALIAS_MAX): itself alone */
		snprintf(names[0], PATH_MAX, "%s", path);
		return 1;
	}
	return n;
}
