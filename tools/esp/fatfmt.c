/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/fatfmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/fat.h"
#include "tools/base/exit_codes.h"
#include "tools/base/run.h"
#include "tools/base/util.h"
#include "tools/esp/fsimage.h"

#define MKFS_FAT32_RESERVED 32u  /* mkfs.fat's reserved sectors for FAT32 */
#define MKFS_ROOT_ENTRIES 512u   /* mkfs.fat's root directory for FAT12/16 on a hard disk */
#define MAX_CLUSTER_BYTES 32768u /* larger clusters are legal but poorly supported */

uint64_t fat_estimate_clusters(uint32_t lss, uint64_t sectors, unsigned bits, uint32_t spc)
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

int fat_choose(uint32_t lss, uint64_t sectors, struct fat_choice *c)
{
	/* FAT32 with the largest cluster up to 4 KiB that still leaves enough clusters. */
	for (uint32_t spc = lss >= 4096 ? 1 : 4096 / lss; spc >= 1; spc /= 2) {
		uint64_t n = fat_estimate_clusters(lss, sectors, 32, spc);
		if (n >= FAT32_MIN_CLUSTERS + margin(FAT32_MIN_CLUSTERS) && n < 0x0FFFFFF0u) {
			*c = (struct fat_choice){ 32, spc, n };
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
			uint64_t n = fat_estimate_clusters(lss, sectors, small[k].bits, spc);
			if (n + margin(small[k].hi) > small[k].hi)
				continue;
			if (n < small[k].lo + (small[k].lo > 1 ? margin(small[k].lo) : 0))
				break; /* larger clusters only make fewer */
			*c = (struct fat_choice){ small[k].bits, spc, n };
			return 0;
		}
	}
	return AS_ERANGE;
}

int fat_format(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *label,
	       uint32_t bps)
{
	struct fat_choice c;
	uint32_t lss = h->topo.lss;
	char out[4096];

	/* The filesystem's own sectors: its size and hidden sectors count in them. */
	if (!bps)
		bps = lss;
	uint64_t bytes = sectors * lss, fs_first = first_lba * lss / bps;
	if (bps < lss || bps % lss || first_lba * lss % bps || bytes % bps) {
		t_error("format.sector_size",
			"a FAT with %u-byte sectors cannot fill LBA %llu..%llu of %u-byte sectors",
			(unsigned)bps, (unsigned long long)first_lba,
			(unsigned long long)(first_lba + sectors - 1), (unsigned)lss);
		return EXIT_ERRORS;
	}
	if (fat_choose(bps, bytes / bps, &c)) {
		t_error("format.size", "no FAT type suits a partition of %llu sectors of %u bytes",
			(unsigned long long)(bytes / bps), (unsigned)bps);
		return EXIT_ERRORS;
	}
	if (fs_first > 0xFFFFFFFFull) {
		t_error("format.hidden",
			"the ESP starts at sector %llu, past what a FAT boot sector's hidden-sectors "
			"field can hold",
			(unsigned long long)fs_first);
		return EXIT_ERRORS;
	}
	/* mkfs.fat works on a temporary file (tools/esp/fsimage.h says why). */
	char tmp[4096];
	int fd, rc;
	if ((rc = fs_temp_create("fat", bytes, tmp, sizeof tmp, &fd)))
		return rc;
	char bits[8], ss[16], spc[16], hidden[32], blocks[32];
	snprintf(bits, sizeof bits, "%u", c.bits);
	snprintf(ss, sizeof ss, "%u", (unsigned)bps);
	snprintf(spc, sizeof spc, "%u", (unsigned)c.sectors_per_cluster);
	snprintf(hidden, sizeof hidden, "%llu", (unsigned long long)fs_first);
	snprintf(blocks, sizeof blocks, "%llu", (unsigned long long)(bytes / 1024));
	const char *argv[] = { "mkfs.fat", "-F", bits, "-S", ss, "-s", spc, "-h", hidden,
			       "-n", label, tmp, blocks, NULL };
	rc = run_capture(argv, out, sizeof out);
	if (rc) {
		t_error("format.mkfs", "mkfs.fat -F %s -S %s -s %s failed (exit %d): %s", bits, ss, spc,
			rc, out);
		close(fd);
		unlink(tmp);
		return EXIT_ERRORS;
	}
	rc = fs_copy_in(h, fd, first_lba, sectors, "the ESP");
	close(fd);
	unlink(tmp);
	if (rc || (rc = hostdev_sync(h)))
		return rc;

	/* Read back what was made: the rules edk2 and our readers depend on must hold. */
	struct blockdev part;
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	int err = bdev_slice(&h->dev, first_lba, sectors, &part);
	if (!err)
		err = fat_mount(&part, fs, &g_report->diag);
	int result = 0;
	if (err) {
		t_error("format.verify", "the new FAT filesystem at LBA %llu does not mount: %s",
			(unsigned long long)first_lba, as_strerror(err));
		result = EXIT_ERRORS;
	} else if ((unsigned)fs->type != c.bits || fs->bytes_per_sector != bps ||
		   fs->hidden_sectors != fs_first ||
		   (fs->type == FAT_TYPE_32 && fs->clusters < FAT32_MIN_CLUSTERS)) {
		t_error("format.verify",
			"mkfs.fat made FAT%u with %u clusters of %u-byte sectors and %u hidden sectors; "
			"wanted FAT%u, %u-byte sectors, %llu hidden sectors",
			(unsigned)fs->type, (unsigned)fs->clusters, (unsigned)fs->bytes_per_sector,
			(unsigned)fs->hidden_sectors, c.bits, (unsigned)bps,
			(unsigned long long)fs_first);
		result = EXIT_ERRORS;
	} else {
		t_info("format.done", "ESP formatted FAT%u: %u clusters of %u bytes, %u-byte sectors",
		       c.bits, (unsigned)fs->clusters, (unsigned)fs->cluster_size, (unsigned)bps);
	}
	free(fs);
	return result;
}
