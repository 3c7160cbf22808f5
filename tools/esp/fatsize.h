/* SPDX-License-Identifier: BSD-2-Clause */
/* The FAT type and cluster size of a new ESP, as arithmetic (no I/O). The type follows the
 * cluster count, as edk2 demands (docs/FIRMWARE.md "FAT on 4 KiB sectors"): FAT32 only with
 * >= 65,525 clusters, FAT16 with 4,085..65,524, else FAT12 (common/fat.h's bounds). */
#ifndef ANYSECTOR_TOOLS_FATSIZE_H
#define ANYSECTOR_TOOLS_FATSIZE_H

#include <stdint.h>

struct fatsize {
	unsigned bits;                /* 12, 16, 32 */
	uint32_t sectors_per_cluster;
	uint64_t clusters;            /* our estimate of what mkfs.fat will make */
};

/* Chooses type and cluster size for a filesystem of `sectors` sectors of `lss` bytes, keeping a
 * margin from every type boundary so mkfs.fat's own rounding cannot cross it. Returns 0, or
 * AS_ERANGE when no FAT fits (too small or too large). */
int fatsize_choose(uint32_t lss, uint64_t sectors, struct fatsize *c);

/* The cluster count a FAT of this kind would get (the Microsoft formula, with mkfs.fat's
 * reserved-sector and root-directory defaults). */
uint64_t fatsize_clusters(uint32_t lss, uint64_t sectors, unsigned bits, uint32_t spc);

#endif
