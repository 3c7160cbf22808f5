/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/fatfmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/fat.h"
#include "tools/base/exit_codes.h"
#include "tools/base/run.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"
#include "tools/esp/fatsize.h"
#include "tools/esp/fsimage.h"

int fatfmt_format(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *label,
		  uint32_t bps)
{
	struct fatsize c;
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
	if (fatsize_choose(bps, bytes / bps, &c)) {
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
		char why[sizeof out + 128];
		t_error("format.mkfs", "mkfs.fat -F %s -S %s -s %s failed: %s", bits, ss, spc,
			run_failure_text(rc, out, why, sizeof why));
		close(fd);
		temp_remove(tmp);
		return EXIT_ERRORS;
	}
	rc = fs_copy_in(h, fd, first_lba, sectors, "the ESP");
	close(fd);
	temp_remove(tmp);
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
