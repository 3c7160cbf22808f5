/* SPDX-License-Identifier: BSD-2-Clause */
/* What else a disk holds, as libblkid sees it: every partition table and every filesystem, RAID,
 * crypto or LVM signature it knows, each with the place of its magic bytes. The installer asks
 * this before it writes anywhere it does not own, and info/check use it to name a table they
 * cannot read. The answer is libblkid's low-level probing (the one wipefs uses), at the disk's
 * logical sector size, and then libfdisk's label probe for a table fdisk opens that libblkid
 * did not name (tools/dev/label_probe.h: a whole-disk BSD disklabel). */
#ifndef ANYSECTOR_TOOLS_PROBE_H
#define ANYSECTOR_TOOLS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/mbr.h"

/* One signature: blkid's type name and where its magic is. */
struct probe_hit {
	char type[32];       /* blkid's TYPE or PTTYPE: "dos", "gpt", "PMBR", "sun", "ext4", ... */
	char usage[16];      /* blkid's USAGE ("filesystem", "raid", "crypto", "other"); "" for a
				table */
	bool table;          /* a partition table (blkid's partitions chain) */
	bool bad_csum;       /* found although its checksum is wrong */
	uint64_t offset;     /* byte of the magic, from the start of the disk */
	uint64_t len;        /* bytes of magic */
};

/* A hard bound on what one probe reports (each hit costs blkid a pass over its probers). */
#define PROBE_MAX_HITS 32

struct probe_result {
	struct probe_hit hit[PROBE_MAX_HITS];
	unsigned n;
};

/* Probes [off, off + len) of fd as if it were a device of that size with lss-byte logical
 * sectors: every signature blkid finds there, each hidden in turn so the next one shows (as
 * wipefs does), then every label libfdisk finds there that blkid did not name. Offsets in the result count from the start of fd, not from off. Returns 0, or
 * an AS_* code when blkid cannot probe (the reason goes to why). */
int probe_range(int fd, uint64_t off, uint64_t len, uint32_t lss, struct probe_result *out,
		char *why, size_t why_cap);

/* True when r holds a hit of the same type at the same place. */
bool probe_has(const struct probe_result *r, const struct probe_hit *h);

/* "a sun partition table", "an ext4 filesystem", "a crypto_LUKS signature": blkid's own name,
 * so that blkid and wipefs output can be matched with ours. */
const char *probe_hit_name(const struct probe_hit *h, char *buf, size_t cap);

/* "a sun partition table (at byte 508)"; " with a bad checksum" when blkid says so. */
const char *probe_hit_text(const struct probe_hit *h, char *buf, size_t cap);

/* True when LBA 0's 0x55AA belongs to a filesystem's boot sector (FAT, NTFS, exFAT: a
 * "superfloppy") and not to an MBR: blkid found such a filesystem with its magic in the first
 * 512-byte record and no dos partition table (its rule), and lba0 lists no partition (the
 * kernel's: boot code that merely looks like a BPB in front of a used table is an MBR's). */
bool probe_boot_sector_is_filesystem(const struct probe_result *r, const struct mbr *lba0);

/* True when the hit's magic overlaps bytes [first, first + len). */
bool probe_hit_in(const struct probe_hit *h, uint64_t first, uint64_t len);

#endif
