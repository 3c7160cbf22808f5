/* SPDX-License-Identifier: BSD-2-Clause */
/* A file on a FAT partition of the disk, found through the partition table (an efi entry's
 * "partition N", check's look at the boot partition). Each returns 0 or an AS_* code. */
#ifndef ANYSECTOR_TOOLS_PART_FILE_H
#define ANYSECTOR_TOOLS_PART_FILE_H

#include <stddef.h>

#include "common/blockdev.h"
#include "common/fat.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/inspect.h"

/* Opens a partition as a block device window. Returns 0 or an AS_* code. */
int part_slice(struct hostdev *h, const struct part_info *p, struct blockdev *out);

/* Whether partition number of the disk is a FAT holding a file (not a directory) at path: 0,
 * or AS_ENOENT / AS_ECORRUPT with why set to a sentence ("partition 3 of disk.img has no file
 * /EFI/x.efi", "... holds no FAT filesystem anysector can read (...)"). For efi entries with
 * "partition N". */
int part_file_check(struct hostdev *h, const struct disk_info *di, unsigned number,
		    const char *path, char *why, size_t cap);
/* part_file_check's work, leaving the FAT mounted over *part (which fs points into) and the file
 * open in *f for a caller that reads it. */
int part_file_open(struct hostdev *h, const struct disk_info *di, unsigned number,
		   const char *path, char *why, size_t cap, struct blockdev *part,
		   struct fat_fs *fs, struct fat_file *f);

#endif
