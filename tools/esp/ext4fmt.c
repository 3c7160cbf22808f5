/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/ext4fmt.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/le.h"
#include "tools/base/exit_codes.h"
#include "tools/base/run.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"
#include "tools/esp/fsimage.h"

/* The superblock fields read back (the kernel's fs/ext4/ext4.h, struct ext4_super_block). */
#define SB_OFFSET 1024u
#define SB_BYTES 1024u
#define SB_BLOCKS_LO 0x04
#define SB_LOG_BLOCK_SIZE 0x18
#define SB_MAGIC 0x38
#define SB_FEATURE_INCOMPAT 0x60
#define SB_BLOCKS_HI 0x150
#define EXT4_MAGIC 0xEF53
#define EXT4_INCOMPAT_64BIT 0x80u
#define EXT4_LOG_BLOCK_BASE 10 /* block size = 1024 << s_log_block_size */

/* Reads the new superblock from the target and checks it describes what was asked for. */
static int verify(struct hostdev *h, uint64_t first_lba, uint64_t blocks)
{
	uint8_t sb[SB_BYTES];
	int err = bdev_read_bytes(&h->dev, first_lba * h->topo.lss + SB_OFFSET, sb, sizeof sb);
	if (err) {
		t_error("format.verify", "%s: the new ext4 superblock at LBA %llu cannot be read: %s",
			h->path, (unsigned long long)first_lba, as_strerror(err));
		return EXIT_ERRORS;
	}
	uint32_t log = le32_load(sb + SB_LOG_BLOCK_SIZE);
	uint64_t count = le32_load(sb + SB_BLOCKS_LO);
	if (le32_load(sb + SB_FEATURE_INCOMPAT) & EXT4_INCOMPAT_64BIT)
		count |= (uint64_t)le32_load(sb + SB_BLOCKS_HI) << 32;
	if (le16_load(sb + SB_MAGIC) != EXT4_MAGIC || log > 16 ||
	    (1024u << log) != EXT4_BLOCK_BYTES || !count || count > blocks) {
		t_error("format.verify",
			"mkfs.ext4 made a filesystem the Linux partition does not hold: magic 0x%04X, "
			"%u-byte blocks, %llu blocks (wanted 0x%04X, %u-byte blocks, at most %llu)",
			(unsigned)le16_load(sb + SB_MAGIC), log > 16 ? 0 : 1024u << log,
			(unsigned long long)count, EXT4_MAGIC, EXT4_BLOCK_BYTES,
			(unsigned long long)blocks);
		return EXIT_ERRORS;
	}
	char size[32];
	t_info("format.done", "Linux partition: ext4, %llu blocks of %u bytes (%s)",
	       (unsigned long long)count, EXT4_BLOCK_BYTES,
	       human_size(count * EXT4_BLOCK_BYTES, size, sizeof size));
	return 0;
}

int ext4_format_from_dir(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *dir)
{
	uint32_t lss = h->topo.lss;
	uint64_t blocks = sectors * lss / EXT4_BLOCK_BYTES;
	char tmp[4096], nblocks[32], bsize[16], out[4096];
	int fd, rc;

	if (!blocks) {
		t_error("format.size", "the Linux partition (%llu sectors of %u bytes) is smaller than "
			"one ext4 block", (unsigned long long)sectors, (unsigned)lss);
		return EXIT_ERRORS;
	}
	if ((rc = fs_temp_create("ext4", blocks * EXT4_BLOCK_BYTES, tmp, sizeof tmp, &fd)))
		return rc;
	snprintf(nblocks, sizeof nblocks, "%llu", (unsigned long long)blocks);
	snprintf(bsize, sizeof bsize, "%u", EXT4_BLOCK_BYTES);
	const char *argv[] = { "mkfs.ext4", "-q", "-F", "-b", bsize, "-d", dir, tmp, nblocks, NULL };
	rc = run_capture(argv, out, sizeof out);
	if (rc) {
		char why[sizeof out + 128];
		t_error("format.mkfs", "mkfs.ext4 -b %s -d %s failed: %s", bsize, dir,
			run_failure_text(rc, out, why, sizeof why));
		rc = EXIT_ERRORS;
	} else {
		rc = fs_copy_in(h, fd, first_lba, blocks * EXT4_BLOCK_BYTES / lss,
				"the Linux partition");
	}
	close(fd);
	temp_remove(tmp);
	if (rc || (rc = hostdev_sync(h)))
		return rc;
	return verify(h, first_lba, blocks);
}
