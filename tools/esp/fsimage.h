/* SPDX-License-Identifier: BSD-2-Clause */
/* Filesystems made by an outside program (mkfs.fat, mkfs.ext4) in a sparse temporary file and
 * then copied into a partition of the target through the block layer, as every other write: the
 * program never opens the target (it cannot open a device we hold exclusively) and every sector
 * it wrote is read back from the target. */
#ifndef ANYSECTOR_TOOLS_FSIMAGE_H
#define ANYSECTOR_TOOLS_FSIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/dev/hostdev.h"

/* Creates an empty sparse file of `bytes` bytes under $TMPDIR (else /tmp) named after `tag`;
 * its path goes to path[cap] and its descriptor to *fd. Returns 0 or an exit code (reported). */
int fs_temp_create(const char *tag, uint64_t bytes, char *path, size_t cap, int *fd);

/* Copies the first `sectors` sectors of the file fd into the target from first_lba: every chunk
 * the program wrote (zeros included: stale bytes in metadata areas must go), only where the
 * target differs, each write read back and compared. Chunks the program never wrote are free
 * space and are left alone, so a sparse image stays sparse. `what` names the filesystem in an
 * error. Returns 0 or an exit code (reported). */
int fs_copy_in(struct hostdev *h, int fd, uint64_t first_lba, uint64_t sectors, const char *what);

#endif
