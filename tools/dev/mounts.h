/* SPDX-License-Identifier: BSD-2-Clause */
/* What of the target the running system uses: the kernel's view of the disk (the device
 * itself, or for an image file the loop devices backed by it) and of each of its partitions
 * (sysfs), whether each is mounted (/proc/self/mountinfo), active swap (/proc/swaps) or held by
 * a device-mapper, RAID or LVM device (sysfs holders), and, when asked, whether another program
 * holds it open exclusively (O_EXCL on the partition's node fails with EBUSY while it is mounted
 * or held, the kernel's own rule).
 *
 * partition, mkimage and restore refuse a target of which anything is in use. install, add,
 * remove and set-default refuse only a write into something in use: the root, home and swap
 * partitions of a running system may stay mounted; a mounted boot partition (Debian's
 * /boot/efi) is changed through its mounted filesystem (tools/esp/espdir.c).
 *
 * Test seam: ANYSECTOR_TEST_MOUNTINFO names a file read instead of /proc/self/mountinfo (same
 * format), so a test can declare a partition mounted on a plain directory (vfat cannot be
 * mounted on every test machine). */
#ifndef ANYSECTOR_TOOLS_MOUNTS_H
#define ANYSECTOR_TOOLS_MOUNTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tools/dev/hostdev.h"

#define MOUNTINFO_ENV "ANYSECTOR_TEST_MOUNTINFO"

/* A partition (or the whole disk) as the kernel knows it. */
struct kdev {
	bool whole;                 /* the disk (or loop device) itself */
	unsigned number;            /* partition number (0: whole) */
	uint64_t start, size;       /* bytes of the target */
	dev_t rdev;
	char node[64];              /* "/dev/sda1" */
	char mount[PATH_MAX];       /* where it is mounted ("" when not) */
	char fstype[32];
	bool mount_ro;              /* mounted read-only */
	bool mount_subtree;         /* only a subdirectory of it is mounted there (a bind mount) */
	bool swap;
	char holder[64];            /* a device built on it ("dm-0"), "" when none */
};

struct usage {
	struct kdev *dev;
	unsigned n;
};

/* Fills u with the target's devices and partitions and their use; an image file no loop device
 * shows has none. Returns 0 or an AS_* code. */
int usage_scan(const struct hostdev *h, struct usage *u);
void usage_free(struct usage *u);

/* Whether d is in use (mounted, swap or held); what gets a sentence ("/dev/sda2 is mounted on
 * /boot/efi"). */
bool kdev_in_use(const struct kdev *d, char *what, size_t cap);

/* The first device of u in use whose bytes overlap [start, start + len), or NULL. */
const struct kdev *usage_in_use_at(const struct usage *u, uint64_t start, uint64_t len);

/* The partition of u that starts at byte start with size bytes (the boot partition), or NULL. */
const struct kdev *usage_partition(const struct usage *u, uint64_t start, uint64_t size);

/* Opens d's node with O_EXCL (read-only), which fails while anything mounts or holds it. Returns
 * the descriptor, or -1 with errno (EBUSY: in use), as open(2) does (exit_codes.h's exception). */
int kdev_claim(const struct kdev *d);

/* True when anything of the target is in use; what gets a sentence naming it. */
bool target_in_use(const struct hostdev *h, char *what, size_t cap);

/* Refuses (reports and returns EXIT_REFUSED) when anything of the target is in use, else 0. */
int refuse_if_in_use(const struct hostdev *h);

#endif
