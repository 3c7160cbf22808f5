/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/hostdev_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/base/exit_codes.h"
#include "tools/dev/mounts.h"

static int open_as(struct hostdev *h, const char *path, bool writable, bool live);

int hostdev_open(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, false);
}

int hostdev_open_live(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, true);
}

/* Whether O_EXCL on the disk failed for more than its partitions in use: the disk itself
 * mounted, swap or held, or nothing of it in use that the system shows (then a program holds
 * it open exclusively). */
static bool whole_disk_in_use(const struct hostdev *h)
{
	struct usage u;
	char what[64];
	bool whole = false, part = false;

	usage_scan(h, &u);
	for (unsigned i = 0; i < u.n; i++) {
		bool used = kdev_in_use(&u.dev[i], what, sizeof what);
		whole |= used && u.dev[i].whole;
		part |= used && !u.dev[i].whole;
	}
	usage_free(&u);
	return whole || !part;
}

static int open_as(struct hostdev *h, const char *path, bool writable, bool live)
{
	struct stat st;

	memset(h, 0, sizeof *h);
	h->fd = -1;
	snprintf(h->path, sizeof h->path, "%s", path);
	h->writable = writable;
	if (stat(path, &st)) {
		t_error("open", "%s: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (S_ISBLK(st.st_mode)) {
		char p[256];
		h->is_block = true;
		h->rdev = st.st_rdev;
		hostdev_sysfs_path(p, sizeof p, st.st_rdev, "partition");
		if (!access(p, F_OK)) {
			t_error("open.partition",
				"%s is a partition; anysector works on whole disks: give the disk it "
				"belongs to",
				path);
			return EXIT_USAGE;
		}
	} else if (!S_ISREG(st.st_mode)) {
		t_error("open.type", "%s is neither an image file nor a block device", path);
		return EXIT_USAGE;
	}
	/* O_EXCL on a block device fails while the kernel holds it (a mounted filesystem, RAID, LVM). */
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	if (writable && h->is_block)
		flags |= O_EXCL;
	h->fd = open(path, flags);
	if (h->fd < 0 && errno == EBUSY && live) {
		/* only partitions are in use: the change checks each write against them */
		if (!whole_disk_in_use(h)) {
			h->fd = open(path, flags & ~O_EXCL);
			h->live = h->fd >= 0;
		} else {
			errno = EBUSY;
		}
	}
	if (h->fd < 0) {
		if (errno == EBUSY) {
			char what[8192];
			if (target_in_use(h, what, sizeof what)) {
				t_error("refuse.mounted", "%s is in use: %s; unmount it first", path,
					what);
				return EXIT_REFUSED;
			}
			t_error("refuse.busy",
				"%s is in use (a mounted filesystem, swap, RAID or LVM holds it); "
				"refusing to write to it",
				path);
			return EXIT_REFUSED;
		}
		t_error("open", "%s: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (h->is_block) {
		uint64_t size = 0;
		if (ioctl(h->fd, BLKGETSIZE64, &size)) {
			t_error("open", "%s: BLKGETSIZE64: %s", path, strerror(errno));
			return EXIT_ERRORS;
		}
		h->size_bytes = size;
	} else {
		h->size_bytes = (uint64_t)st.st_size;
	}
	return 0;
}

int hostdev_sync(struct hostdev *h)
{
	if (h->fd >= 0 && h->writable && fsync(h->fd)) {
		t_error("io.sync", "%s: fsync failed: %s", h->path, strerror(errno));
		return EXIT_ERRORS;
	}
	return 0;
}
