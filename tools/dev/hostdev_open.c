/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/hostdev_open.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bits.h"
#include "tools/base/exit_codes.h"
#include "tools/dev/lock.h"
#include "tools/dev/loop_alias.h"
#include "tools/dev/mounts.h"

enum open_as_mode { OPEN_LOCKED, OPEN_LIVE, OPEN_OWN };

static int open_as(struct hostdev *h, const char *path, bool writable, enum open_as_mode mode);

int hostdev_open(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, OPEN_LOCKED);
}

int hostdev_open_live(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, OPEN_LIVE);
}

int hostdev_open_own(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, OPEN_OWN);
}

/* Why O_EXCL on the disk failed. */
enum busy_kind {
	BUSY_PARTS,     /* only partitions of it are in use */
	BUSY_WHOLE,     /* the disk itself is mounted, swap or held */
	BUSY_UNSEEN,    /* nothing of it in use that the system shows: a program holds it open
			   exclusively */
};

static enum busy_kind busy_kind(const struct hostdev *h)
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
	return whole ? BUSY_WHOLE : part ? BUSY_PARTS : BUSY_UNSEEN;
}

/* After O_EXCL failed with EBUSY: a disk of which only partitions are in use opens without it
 * for a live change; a disk no one is seen using is tried again for up to two seconds when we
 * hold its lock, because the writer that held the lock before us may still be closing it (a
 * process that ends, or is killed, closes its files in no promised order, so its O_EXCL can
 * outlive its lock by a moment). Returns the descriptor or -1 with errno, as open does. */
static int open_busy(struct hostdev *h, const char *path, int flags, bool live)
{
	for (unsigned waited = 0;; waited += 20) {
		enum busy_kind k = busy_kind(h);
		if (live && k == BUSY_PARTS) {
			int fd = open(path, flags & ~O_EXCL);
			h->live = fd >= 0;
			return fd;
		}
		if (k != BUSY_UNSEEN || !h->lock || waited >= 2000)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
		int fd = open(path, flags);
		if (fd >= 0 || errno != EBUSY)
			return fd;
	}
	errno = EBUSY;
	return -1;
}

static int report_busy(struct hostdev *h, const char *path)
{
	char what[8192];
	if (target_in_use(h, what, sizeof what)) {
		t_error("refuse.mounted", "%s is in use: %s; unmount it first", path, what);
		return EXIT_REFUSED;
	}
	t_error("refuse.busy",
		"%s is in use (a mounted filesystem, swap, RAID or LVM holds it); refusing to write "
		"to it",
		path);
	return EXIT_REFUSED;
}

/* Takes the target's lock on each of its names (an image and the loop devices over it), in
 * loop_aliases' order; h->lock is path's own. Returns 0 or an exit code (the locks taken so far
 * are dropped by hostdev_close). */
static int lock_target(struct hostdev *h, const char *path, const struct stat *st, bool writable)
{
	static char names[LOOP_ALIAS_MAX][PATH_MAX];
	unsigned self, k = 0;
	unsigned n = loop_aliases(path, st, names, &self);

	_Static_assert(LOOP_ALIAS_MAX <= ARRAY_SIZE(h->alias_locks) + 1, "room for every alias");
	for (unsigned i = 0; i < n; i++) {
		int rc = lock_take(names[i], writable, false, i == self ? &h->lock
						     : &h->alias_locks[k++]);
		if (rc)
			return rc;
	}
	return 0;
}

static int open_as(struct hostdev *h, const char *path, bool writable, enum open_as_mode mode)
{
	struct stat st;
	int rc;

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
	/* the lock first: nothing of the target is read before it is ours */
	if (mode != OPEN_OWN && (rc = lock_target(h, path, &st, writable)))
		return rc;
	/* O_EXCL on a block device fails while the kernel holds it (a mounted filesystem, RAID, LVM). */
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	if (writable && h->is_block)
		flags |= O_EXCL;
	h->fd = open(path, flags);
	if (h->fd < 0 && errno == EBUSY)
		h->fd = open_busy(h, path, flags, mode == OPEN_LIVE);
	if (h->fd < 0) {
		if (errno == EBUSY)
			return report_busy(h, path);
		t_error("open", "%s: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (writable && mode != OPEN_OWN && (rc = lock_refuse_record_locks(h->fd, path)))
		return rc;
	if (h->is_block) {
		uint64_t size = 0;
		if (ioctl(h->fd, BLKGETSIZE64, &size)) {
			t_error("open", "%s: BLKGETSIZE64: %s", path, strerror(errno));
			return EXIT_ERRORS;
		}
		h->size_bytes = size;
	} else {
		/* the size now that the file is ours, not as stat saw it before */
		if (fstat(h->fd, &st)) {
			t_error("open", "%s: %s", path, strerror(errno));
			return EXIT_ERRORS;
		}
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
