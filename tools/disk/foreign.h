/* SPDX-License-Identifier: BSD-2-Clause */
/* Content that is not anysector's, where a command would write: what libblkid finds
 * (tools/dev/probe.h) plus what anysector's own table readers see that blkid does not, the
 * sentences that refuse to write over it, and the plan that erases it under --force (as wipefs
 * does: the magic bytes are zeroed, nothing else). */
#ifndef ANYSECTOR_TOOLS_FOREIGN_H
#define ANYSECTOR_TOOLS_FOREIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/dev/hostdev.h"
#include "tools/dev/probe.h"
#include "tools/plan/plan.h"

/* Sectors [first, first + count). */
struct lba_range {
	uint64_t first, count;
};

/* Every signature on the whole disk: blkid's, at the disk's sector size, then a GPT header valid
 * at another sector size and a 0x55AA boot sector signature that blkid does not name. Returns 0,
 * or EXIT_ERRORS (reported) when the disk cannot be probed. */
int foreign_scan_disk(struct hostdev *h, struct probe_result *r);

/* What install would write over: the signatures whose magic lies in LBA 0's boot code bytes or
 * in the stage2 region [first, end) (LBAs: the BIOS boot partition or the MBR gap), from disk
 * (blkid on the whole disk) and from blkid on the disk from the region's start on, as if that
 * were a device (a filesystem or RAID member that starts there). Magic inside one of our own
 * stage2 images (ours) is ours, not foreign. Returns 0 or EXIT_ERRORS (reported). */
int foreign_install_scan(struct hostdev *h, const struct probe_result *disk, uint64_t first,
			 uint64_t end, const struct lba_range *ours, unsigned nours,
			 struct probe_result *out);

/* "erased 2 bytes at byte 0x1fe (dos partition table)", wipefs's words. */
const char *foreign_erased_text(const struct probe_hit *h, char *buf, size_t cap);

/* Zeroes the bytes of h's magic that fall inside a buffer holding bytes [buf_off, buf_off + len)
 * of the disk (a write already planned over them). True when any did. */
bool foreign_zero_in(const struct probe_hit *h, uint64_t buf_off, uint8_t *buf, size_t len);

/* Adds to p one write per sector that holds magic of a hit: the sector as it is now with the
 * magic bytes zeroed (several hits in one sector share its write). Sectors inside a skip range
 * are left out: a write already planned there replaces them (see foreign_zero_in). Returns 0 or
 * EXIT_ERRORS (reported) when a sector cannot be read. */
int foreign_erase_plan(struct hostdev *h, const struct probe_result *r, struct plan *p,
		       const struct lba_range *skip, unsigned nskip);

#endif
