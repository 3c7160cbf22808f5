/* SPDX-License-Identifier: BSD-2-Clause */
/* Formatting the ESP with mkfs.fat. The FAT type follows the cluster count, as edk2 demands
 * (docs/FIRMWARE.md "FAT on 4 KiB sectors"): FAT32 only with >= 65,525 clusters, FAT16 with
 * 4,085..65,524, else FAT12. The filesystem's sector size is the disk's logical sector size
 * (-S), its hidden sectors the partition's start in those units (-h). */
#ifndef ANYSECTOR_TOOLS_FATFMT_H
#define ANYSECTOR_TOOLS_FATFMT_H

#include <stdint.h>

#include "tools/dev/hostdev.h"

#define FAT12_MAX_CLUSTERS 4084u
#define FAT16_MAX_CLUSTERS 65524u
#define FAT32_MIN_CLUSTERS 65525u

struct fat_choice {
	unsigned bits;                /* 12, 16, 32 */
	uint32_t sectors_per_cluster;
	uint64_t clusters;            /* our estimate of what mkfs.fat will make */
};

/* Chooses type and cluster size for a filesystem of `sectors` sectors of `lss` bytes, keeping a
 * margin from every type boundary so mkfs.fat's own rounding cannot cross it. Returns 0, or
 * AS_ERANGE when no FAT fits (too small or too large). */
int fat_choose(uint32_t lss, uint64_t sectors, struct fat_choice *c);

/* The cluster count a FAT of this kind would get (the Microsoft formula, with mkfs.fat's
 * reserved-sector and root-directory defaults). */
uint64_t fat_estimate_clusters(uint32_t lss, uint64_t sectors, unsigned bits, uint32_t spc);

/* Formats [first_lba, first_lba + sectors) of the target: mkfs.fat makes the filesystem in a
 * temporary file, which is copied in; the result is read back with common/fat.c and its type,
 * cluster count, sector size and hidden sectors checked. bps is the filesystem's sector size:
 * 0 for the disk's; a larger one (a dual GPT's 4096, readable on every disk of that size or
 * smaller) needs the partition to be whole such sectors.
 * Returns 0 or an exit code. */
int fat_format(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *label,
	       uint32_t bps);

#endif
