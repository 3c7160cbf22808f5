/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/mounts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"

#define MAX_LOOPS 16
#define MAX_DEVS 256

/* One line of a small sysfs file, without its newline; false when it cannot be read. */
static bool sysfs_line(const char *path, char *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	bool ok = f && fgets(out, (int)cap, f);
	if (f)
		fclose(f);
	if (ok)
		out[strcspn(out, "\n")] = 0;
	return ok;
}

static bool sysfs_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	if (!sysfs_line(path, buf, sizeof buf))
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && end != buf;
}

static bool parse_devno(const char *s, dev_t *d)
{
	unsigned ma, mi;
	if (sscanf(s, "%u:%u", &ma, &mi) != 2)
		return false;
	*d = makedev(ma, mi);
	return true;
}

/* The node and first holder of a device, from /sys/dev/block/M:m. */
static void describe(const char *sys, struct kdev *k)
{
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof path, "%s/uevent", sys);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "DEVNAME=", 8))
			snprintf(k->node, sizeof k->node, "/dev/%.50s", line + 8);
	}
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "%s/holders", sys);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !k->holder[0])
			snprintf(k->holder, sizeof k->holder, "%.60s", e->d_name);
	if (d)
		closedir(d);
}

static struct kdev *add_dev(struct usage *u)
{
	if (u->n == MAX_DEVS)
		return NULL;
	if (!u->dev)
		u->dev = xcalloc(MAX_DEVS, sizeof *u->dev);
	return &u->dev[u->n++];
}

/* A whole device rdev (its bytes start at byte base of the target) and its partitions. */
static void scan_disk(struct usage *u, dev_t rdev, uint64_t base, uint64_t size)
{
	char sys[128], path[2 * PATH_MAX + 400];
	snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(rdev), minor(rdev));
	struct kdev *w = add_dev(u);
	if (!w)
		return;
	w->whole = true;
	w->rdev = rdev;
	w->start = base;
	w->size = size;
	describe(sys, w);
	/* partitions: the directories of the disk's sysfs node that have a "partition" file */
	char real[PATH_MAX];
	if (!realpath(sys, real))
		return;
	DIR *d = opendir(real);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char sub[PATH_MAX + 300], dev[64];
		uint64_t num, start, sectors;
		snprintf(sub, sizeof sub, "%s/%s", real, e->d_name);
		snprintf(path, sizeof path, "%s/partition", sub);
		if (e->d_name[0] == '.' || !sysfs_u64(path, &num))
			continue;
		snprintf(path, sizeof path, "%s/start", sub);
		if (!sysfs_u64(path, &start))
			continue;
		snprintf(path, sizeof path, "%s/size", sub);
		if (!sysfs_u64(path, &sectors))
			continue;
		snprintf(path, sizeof path, "%s/dev", sub);
		struct kdev *k;
		if (!sysfs_line(path, dev, sizeof dev) || !(k = add_dev(u)))
			continue;
		parse_devno(dev, &k->rdev);
		k->number = (unsigned)num;
		/* sysfs counts in 512-byte units whatever the sector size */
		k->start = base + start * 512;
		k->size = sectors * 512;
		describe(sub, k);
	}
	if (d)
		closedir(d);
}

/* Loop devices whose backing file is this image (same inode), with their offset and size. */
static void scan_loops(struct usage *u, const struct hostdev *h)
{
	struct stat ist;
	DIR *dir;
	struct dirent *e;

	if (stat(h->path, &ist) || !(dir = opendir("/sys/block")))
		return;
	while ((e = readdir(dir))) {
		char path[PATH_MAX], backing[PATH_MAX], devno[64];
		struct stat bst;
		uint64_t off = 0, limit = 0, sectors = 0;
		dev_t rdev;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/loop/backing_file", e->d_name);
		if (!sysfs_line(path, backing, sizeof backing))
			continue;
		if (stat(backing, &bst) || bst.st_dev != ist.st_dev || bst.st_ino != ist.st_ino)
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/loop/offset", e->d_name);
		sysfs_u64(path, &off);
		snprintf(path, sizeof path, "/sys/block/%s/loop/sizelimit", e->d_name);
		sysfs_u64(path, &limit);
		snprintf(path, sizeof path, "/sys/block/%s/size", e->d_name);
		sysfs_u64(path, &sectors);
		snprintf(path, sizeof path, "/sys/block/%s/dev", e->d_name);
		if (sysfs_line(path, devno, sizeof devno) && parse_devno(devno, &rdev))
			scan_disk(u, rdev, off, sectors * 512);
	}
	closedir(dir);
}

/* Undoes the octal escapes of mountinfo ("\040" for a space). */
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

/* mountinfo: "id parent M:m root mountpoint options [optional...] - fstype source superopts".
 * The device number is the kernel's, so a mount through any node name is found. */
static void scan_mounts(struct usage *u)
{
	const char *file = getenv(MOUNTINFO_ENV);
	FILE *f = fopen(file && *file ? file : "/proc/self/mountinfo", "r");
	char line[3 * PATH_MAX];

	while (f && fgets(line, sizeof line, f)) {
		char devno[32], root[PATH_MAX], mnt[PATH_MAX], opts[512], fstype[64];
		dev_t rdev;
		const char *dash = strstr(line, " - ");
		if (sscanf(line, "%*s %*s %31s %4095s %4095s %511s", devno, root, mnt, opts) != 4 ||
		    !dash || sscanf(dash + 3, "%63s", fstype) != 1 || !parse_devno(devno, &rdev))
			continue;
		unescape(root);
		unescape(mnt);
		for (unsigned i = 0; i < u->n; i++) {
			struct kdev *k = &u->dev[i];
			if (k->rdev != rdev || k->mount[0])
				continue;
			snprintf(k->mount, sizeof k->mount, "%s", mnt);
			snprintf(k->fstype, sizeof k->fstype, "%.31s", fstype);
			k->mount_ro = !strncmp(opts, "ro", 2) && (opts[2] == ',' || !opts[2]);
			k->mount_subtree = strcmp(root, "/") != 0;
		}
	}
	if (f)
		fclose(f);
}

static void scan_swaps(struct usage *u)
{
	FILE *f = fopen("/proc/swaps", "r");
	char line[PATH_MAX + 128], src[PATH_MAX];
	struct stat st;

	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%4095s", src) != 1 || src[0] != '/')
			continue;
		unescape(src);
		if (stat(src, &st) || !S_ISBLK(st.st_mode))
			continue;
		for (unsigned i = 0; i < u->n; i++)
			if (u->dev[i].rdev == st.st_rdev)
				u->dev[i].swap = true;
	}
	if (f)
		fclose(f);
}

int usage_scan(const struct hostdev *h, struct usage *u)
{
	memset(u, 0, sizeof *u);
	if (h->is_block)
		scan_disk(u, h->rdev, 0, h->size_bytes);
	else
		scan_loops(u, h);
	scan_mounts(u);
	scan_swaps(u);
	return 0;
}

void usage_free(struct usage *u)
{
	free(u->dev);
	u->dev = NULL;
	u->n = 0;
}

bool kdev_in_use(const struct kdev *d, char *what, size_t cap)
{
	const char *name = d->node[0] ? d->node : "a partition";
	if (d->mount[0])
		snprintf(what, cap, "%s is mounted on %s", name, d->mount);
	else if (d->swap)
		snprintf(what, cap, "%s is in use as swap", name);
	else if (d->holder[0])
		snprintf(what, cap, "%s holds %s (device-mapper, RAID or LVM)", d->holder, name);
	else
		return false;
	return true;
}

const struct kdev *usage_in_use_at(const struct usage *u, uint64_t start, uint64_t len)
{
	char what[16];
	for (unsigned i = 0; i < u->n; i++) {
		const struct kdev *d = &u->dev[i];
		if (start < d->start + d->size && d->start < start + len &&
		    kdev_in_use(d, what, sizeof what))
			return d;
	}
	return NULL;
}

const struct kdev *usage_partition(const struct usage *u, uint64_t start, uint64_t size)
{
	for (unsigned i = 0; i < u->n; i++)
		if (!u->dev[i].whole && u->dev[i].start == start && u->dev[i].size == size)
			return &u->dev[i];
	return NULL;
}

int kdev_claim(const struct kdev *d)
{
	if (!d->node[0]) {
		errno = ENOENT;
		return -1;
	}
	return open(d->node, O_RDONLY | O_EXCL | O_CLOEXEC);
}

bool target_in_use(const struct hostdev *h, char *what, size_t cap)
{
	struct usage u;
	bool hit = false;

	usage_scan(h, &u);
	for (unsigned i = 0; i < u.n && !hit; i++)
		hit = kdev_in_use(&u.dev[i], what, cap);
	if (hit && !h->is_block) {
		size_t n = strlen(what);
		snprintf(what + n, cap - n, " (a loop device backed by this image)");
	}
	usage_free(&u);
	return hit;
}

int refuse_if_in_use(const struct hostdev *h)
{
	char what[PATH_MAX * 2 + 64];

	if (!target_in_use(h, what, sizeof what))
		return 0;
	t_error("refuse.mounted", "%s is in use: %s; unmount it first", h->path, what);
	return EXIT_REFUSED;
}
