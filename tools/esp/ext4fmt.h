/* SPDX-License-Identifier: BSD-2-Clause */
/* The Linux partition of a one-step image (mkimage --root-dir): an ext4 filesystem with 4096-byte
 * blocks made by `mkfs.ext4 -d DIR` from a directory tree, sized to the partition. */
#ifndef ANYSECTOR_TOOLS_EXT4FMT_H
#define ANYSECTOR_TOOLS_EXT4FMT_H

#include <stdint.h>

#include "tools/dev/hostdev.h"

#define EXT4_BLOCK_BYTES 4096u /* any sector size up to 4 KiB divides it; the kernel's page size */

/* Fills [first_lba, first_lba + sectors) of the target with ext4 made from the tree at dir:
 * mkfs.ext4 works on a temporary file (tools/esp/fsimage.h), which is copied in and read back; the
 * superblock on the target is then checked (magic, block size, block count inside the
 * partition). Returns 0 or an exit code. */
int ext4_format_from_dir(struct hostdev *h, uint64_t first_lba, uint64_t sectors, const char *dir);

#endif
