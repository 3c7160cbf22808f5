/* SPDX-License-Identifier: BSD-2-Clause */
/* The fuzz input as a disk: a zero-padded image of whole logical sectors on a memdisk. */
#ifndef ANYSECTOR_FUZZ_DISK_H
#define ANYSECTOR_FUZZ_DISK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/memdisk.h"

struct fuzz_disk {
	struct blockdev dev;
	struct memdisk md;
	uint8_t *scratch;
	uint64_t sectors;
};

/* Traps (a fuzzer finding) when memory runs out or the geometry is refused. */
static inline void fuzz_disk_open(struct fuzz_disk *fd, const uint8_t *data, size_t size,
				  uint32_t lss, uint32_t max_io)
{
	fd->sectors = DIV_ROUND_UP(size, lss);
	fd->md = (struct memdisk){ .data = calloc(fd->sectors ? fd->sectors : 1, lss),
				   .size = fd->sectors * lss };
	fd->scratch = malloc(lss);
	if (!fd->md.data || !fd->scratch)
		__builtin_trap();
	memcpy(fd->md.data, data, size);
	if (memdisk_init(&fd->dev, &fd->md, lss, lss, 0, max_io, fd->scratch))
		__builtin_trap();
}

static inline void fuzz_disk_close(struct fuzz_disk *fd)
{
	free(fd->md.data);
	free(fd->scratch);
}

#endif
