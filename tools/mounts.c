#include "tools/mounts.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tools/util.h"

#define MAX_DISKS 16

/* The whole disk a block device number belongs to (itself when it is not a partition). */
static dev_t whole_disk(dev_t d)
{
	char path[128], buf[64];
	unsigned ma, mi;

	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/partition", major(d), minor(d));
	if (access(path, F_OK))
		return d;
	/* /sys/dev/block/M:m -> .../block/sda/sda1; the parent directory is the disk. */
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/../dev", major(d), minor(d));
	FILE *f = fopen(path, "r");
	if (!f)
		return d;
	dev_t out = d;
	if (fgets(buf, sizeof buf, f) && sscanf(buf, "%u:%u", &ma, &mi) == 2)
		out = makedev(ma, mi);
	fclose(f);
	return out;
}

/* Loop devices whose backing file is this image (same inode). */
static unsigned loops_backed_by(const char *image, dev_t *out, unsigned max)
{
	struct stat ist;
	unsigned n = 0;
	DIR *dir;
	struct dirent *e;

	if (stat(image, &ist) || !(dir = opendir("/sys/block")))
		return 0;
	while ((e = readdir(dir)) && n < max) {
		char path[PATH_MAX], backing[PATH_MAX], devno[64];
		struct stat bst;
		unsigned ma, mi;
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		bool got = fgets(backing, sizeof backing, f) != NULL;
		fclose(f);
		if (!got)
			continue;
		backing[strcspn(backing, "\n")] = 0;
		if (stat(backing, &bst) || bst.st_dev != ist.st_dev || bst.st_ino != ist.st_ino)
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/dev", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(devno, sizeof devno, f) && sscanf(devno, "%u:%u", &ma, &mi) == 2)
			out[n++] = makedev(ma, mi);
		fclose(f);
	}
	closedir(dir);
	return n;
}

static bool in_set(dev_t d, const dev_t *set, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (set[i] == d)
			return true;
	return false;
}

/* Undoes the octal escapes /proc/self/mounts uses for spaces and the like. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

/* Scans a mounts-like (source first, target second) or swaps-like (source first) file. */
static bool scan(const char *file, bool swaps, const dev_t *disks, unsigned nd, const char *note,
		 char *what, size_t cap)
{
	FILE *f = fopen(file, "r");
	char line[4096];
	bool hit = false;

	if (!f)
		return false;
	while (!hit && fgets(line, sizeof line, f)) {
		char src[PATH_MAX], dst[PATH_MAX];
		struct stat st;

		if (sscanf(line, "%4095s %4095s", src, dst) < 1 || src[0] != '/')
			continue;
		unescape(src);
		if (stat(src, &st) || !S_ISBLK(st.st_mode))
			continue;
		if (!in_set(whole_disk(st.st_rdev), disks, nd))
			continue;
		unescape(dst);
		if (swaps)
			snprintf(what, cap, "%s is in use as swap%s", src, note);
		else
			snprintf(what, cap, "%s is mounted on %s%s", src, dst, note);
		hit = true;
	}
	fclose(f);
	return hit;
}

bool target_in_use(const struct hostdev *h, char *what, size_t cap)
{
	dev_t disks[MAX_DISKS];
	unsigned nd = 0;
	const char *note = "";

	if (h->is_block) {
		disks[nd++] = h->rdev;
	} else {
		nd = loops_backed_by(h->path, disks, MAX_DISKS);
		note = " (a loop device backed by this image)";
	}
	if (!nd)
		return false;
	return scan("/proc/self/mounts", false, disks, nd, note, what, cap) ||
	       scan("/proc/swaps", true, disks, nd, note, what, cap);
}

int refuse_if_in_use(const struct hostdev *h)
{
	char what[PATH_MAX * 2 + 64];

	if (!target_in_use(h, what, sizeof what))
		return 0;
	t_error("refuse.mounted", "%s is in use: %s; unmount it first", h->path, what);
	return EXIT_REFUSED;
}
