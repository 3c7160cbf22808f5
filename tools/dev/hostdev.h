/* SPDX-License-Identifier: BSD-2-Clause */
/* The installer's block driver: an image file or a block device behind struct blockdev, with its
 * topology from the kernel (ioctls, sysfs) or, for image files, from flags and detection
 * (tools/disk/topology.h; docs/FIRMWARE.md "Alignment", "GPT"). */
#ifndef ANYSECTOR_TOOLS_HOSTDEV_H
#define ANYSECTOR_TOOLS_HOSTDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/align.h"
#include "common/blockdev.h"
#include "tools/base/report.h"

/* Topology flags as given on the command line; has_* says which were given. */
struct topo_flags {
	uint32_t lss, pss, aoff, io_min, io_opt;
	bool has_lss, has_pss, has_aoff, has_io_min, has_io_opt;
	bool any_lss;        /* --sector-size any (partition, mkimage: a dual GPT) */
};

enum topo_origin {
	TOPO_DEVICE,        /* the kernel's ioctls (flags may override all but the sector size) */
	TOPO_FLAGS,         /* --sector-size on an image file */
	TOPO_DETECTED,      /* a valid GPT header found at one sector size */
	TOPO_DEFAULT,       /* an image with no GPT or MBR (blank, or holding other things): 512 */
	TOPO_GIVEN,         /* set by the caller (restore: the journal's sector size) */
};

struct hostdev {
	struct blockdev dev;
	struct topology topo;
	char path[4096];
	int fd;
	bool is_block;
	bool writable;
	bool live;                  /* opened without O_EXCL: partitions of the disk are in use */
	int lock;                   /* tools/dev/lock.h handle: LOCK_EX when writable, else
				       LOCK_SH; 0 with --no-lock or for a file of our own */
	int alias_locks[8];         /* the same lock on its other names (tools/dev/loop_alias.h) */
	dev_t rdev;                 /* block device number */
	uint64_t size_bytes;
	enum topo_origin origin;
	char origin_text[256];      /* how the topology was found, for info/check */
	uint8_t *scratch;
};

/* (Opening and syncing a target: tools/dev/hostdev_open.h; its topology: tools/dev/hostdev_topo.h
 * and tools/disk/topology.h.) */

/* "/sys/dev/block/MAJ:MIN/leaf" of a block device number. */
void hostdev_sysfs_path(char *out, size_t cap, dev_t rdev, const char *leaf);

/* Sets an explicit logical sector size (PSS = LSS, no offset) for an image file. */
void hostdev_set_sector_size(struct hostdev *h, uint32_t lss, enum topo_origin origin,
			     const char *why);

/* The same disk seen at another logical sector size (a dual GPT has one table per size): reads
 * and writes go to h's file or device by byte offset (the kernel's page cache takes any
 * alignment), sectors = whole lss-sized blocks of it. Writable when h is. AS_ERANGE when fewer
 * than 2 such sectors. Free with hostdev_view_free. */
int hostdev_view(struct hostdev *h, uint32_t lss, struct blockdev *out);
void hostdev_view_free(struct blockdev *view);

/* The block device view of h at h->topo: sectors, limits, the driver, a new scratch sector. */
void hostdev_geometry_apply(struct hostdev *h);
/* Closes the target, then drops its lock (in that order: a waiting writer that gets the lock
 * must find the disk free of our O_EXCL). */
void hostdev_close(struct hostdev *h);

#endif
