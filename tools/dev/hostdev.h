/* SPDX-License-Identifier: BSD-2-Clause */
/* The installer's block driver: an image file or a block device behind struct blockdev, with its
 * topology from the kernel (ioctls, sysfs) or, for image files, from flags and detection
 * (docs/FIRMWARE.md "Alignment", "GPT"). */
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
	dev_t rdev;                 /* block device number */
	uint64_t size_bytes;
	enum topo_origin origin;
	char origin_text[256];      /* how the topology was found, for info/check */
	uint8_t *scratch;
};

/* Opens an existing image file or whole-disk block device; refuses a partition ("give the whole
 * disk"), anything else, and (writable) a block device another user holds open exclusively.
 * Returns 0 or an exit code after reporting why. */
int hostdev_open(struct hostdev *h, const char *path, bool writable);
/* The same for a change that writes only outside what is in use (install, add, remove,
 * set-default on a running system): a block device whose partitions are mounted or held is
 * opened without O_EXCL (h->live), and the change refuses each write into a partition in use
 * itself (tools/dev/mounts.h); the disk itself mounted or held is still refused. */
int hostdev_open_live(struct hostdev *h, const char *path, bool writable);

/* Decides the topology. Block devices: the kernel's values; --sector-size must match it, the
 * other flags override (with a note). Image files: --sector-size when given, else a CRC-valid
 * GPT header (primary at LBA 1 or backup at the last LBA) at 512/1024/2048/4096 (valid at more
 * than one size: the smallest with a warning, or EXIT_ERRORS when opened for writing), else for
 * a protective MBR without a valid header the one size its remains point to ("EFI PART" where a
 * header belongs, else the 0xEE entry's size; EXIT_ERRORS when there is none), else 512 for a
 * blank image; an image holding only an MBR needs --sector-size and saying so is the error.
 * Returns 0 or an exit code. */
int hostdev_set_topology(struct hostdev *h, const struct topo_flags *f);

/* True when the image holds a valid GPT (a header and its entry array) at 512 and at 4096-byte
 * sectors with the same disk GUID: one disk with a dual GPT (tools/disk/dual.h), whole or in part. */
bool hostdev_dual_gpt(int fd, uint64_t size_bytes);

/* Sets an explicit logical sector size (PSS = LSS, no offset) for an image file. */
void hostdev_set_sector_size(struct hostdev *h, uint32_t lss, enum topo_origin origin,
			     const char *why);

/* The same disk seen at another logical sector size (a dual GPT has one table per size): reads
 * and writes go to h's file or device by byte offset (the kernel's page cache takes any
 * alignment), sectors = whole lss-sized blocks of it. Writable when h is. AS_ERANGE when fewer
 * than 2 such sectors. Free with hostdev_view_free. */
int hostdev_view(struct hostdev *h, uint32_t lss, struct blockdev *out);
void hostdev_view_free(struct blockdev *view);

/* The sector sizes at which the image holds a CRC-valid GPT header, as a bit set of
 * (1 << log2(size)); for tests and detection. */
unsigned hostdev_detect_gpt(int fd, uint64_t size_bytes);

/* False only when [off, off + len) of a regular file is certainly a hole (reads as zeros without
 * being stored); lets copies and comparisons of sparse images skip what is not there. */
bool fd_has_data(int fd, uint64_t off, uint64_t len);

/* fsync of a writable target. Returns 0 or an exit code. */
int hostdev_sync(struct hostdev *h);
void hostdev_close(struct hostdev *h);

/* Reads / writes bytes at an absolute offset (no sector rounding; for files and journals).
 * Returns 0 or AS_EIO (errno says why). */
int pread_full(int fd, void *buf, size_t len, uint64_t off);
int pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

#endif
