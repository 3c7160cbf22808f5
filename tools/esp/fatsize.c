/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/fatsize.h"

#include "common/bits.h"
#include "common/errors.h"
#include "common/fat.h"

#define MKFS_FAT32_RESERVED 32u  /* mkfs.fat's reserved sectors for FAT32 */
#define MKFS_ROOT_ENTRIES 512u   /* mkfs.fat's root directory for FAT12/16 on a hard disk */
#define MAX_CLUSTER_BYTES 32768u /* larger clusters are legal but poorly supported */

uint64_t fatsize_clusters(uint32_t lss, uint64_t sectors, unsigned bits, uint32_t spc)
{
	uint64_t reserved = bits == 32 ? MKFS_FAT32_RESERVED : 1;
	uint64_t root = bits == 32 ? 0 : DIV_ROUND_UP(MKFS_ROOT_ENTRIES * 32, lss);
	if (sectors <= reserved + root)
		return 0;
	uint64_t avail = sectors - reserved - root;
	/* Two FATs of F sectors each must map the clusters that remain: solve by iteration. */
	uint64_t clusters = avail / spc, fat = 0;
	for (int i = 0; i < 8; i++) {
		fat = DIV_ROUND_UP((clusters + 2) * bits / 8, lss);
		if (2 * fat >= avail)
			return 0;
		clusters = (avail - 2 * fat) / spc;
	}
	/* mkfs.fat aligns the data area to the cluster size: allow for that loss. */
	return clusters > 1 ? clusters - 1 : 0;
}

static uint64_t margin(uint64_t v)
{
	return 16 + v / 200;
}

int fatsize_choose(uint32_t lss, uint64_t sectors, struct fatsize *c)
{
	/* FAT32 with the largest cluster up to 4 KiB that still leaves enough clusters. */
	for (uint32_t spc = lss >= 4096 ? 1 : 4096 / lss; spc >= 1; spc /= 2) {
		uint64_t n = fatsize_clusters(lss, sectors, 32, spc);
		if (n >= FAT32_MIN_CLUSTERS + margin(FAT32_MIN_CLUSTERS) && n < 0x0FFFFFF0u) {
			*c = (struct fatsize){ 32, spc, n };
			return 0;
		}
	}
	/* FAT16, then FAT12: the smallest cluster that keeps the count under the type's ceiling. */
	static const struct {
		unsigned bits;
		uint64_t lo, hi;
	} small[] = {
		{ 16, FAT12_MAX_CLUSTERS + 1, FAT16_MAX_CLUSTERS },
		{ 12, 1, FAT12_MAX_CLUSTERS },
	};
	for (unsigned k = 0; k < 2; k++) {
		for (uint32_t spc = 1; (uint64_t)spc * lss <= MAX_CLUSTER_BYTES && spc <= 128; spc *= 2) {
			uint64_t n = fatsize_clusters(lss, sectors, small[k].bits, spc);
			if (n + margin(small[k].hi) > small[k].hi)
				continue;
			if (n < small[k].lo + (small[k].lo > 1 ? margin(small[k].lo) : 0))
				break; /* larger clusters only make fewer */
			*c = (struct fatsize){ small[k].bits, spc, n };
			return 0;
		}
	}
	return AS_ERANGE;
}
