/* SPDX-License-Identifier: BSD-2-Clause */
/* EFI_BLOCK_IO as a common/ block device: whole blocks only, straight into buffers that meet the
 * device's IoAlign, else through a page-aligned bounce buffer (docs/FIRMWARE.md "OVMF": a
 * partial-block ReadBlocks fails on 4Kn, and drivers may demand aligned buffers). */
#ifndef ANYSECTOR_EFI_BLOCKIO_H
#define ANYSECTOR_EFI_BLOCKIO_H

#include "efi/app.h"

#include "common/blockdev.h"

struct efi_blockdev {
	struct blockdev dev;          /* first: the driver callbacks recover this struct from it */
	EFI_HANDLE handle;
	EFI_BLOCK_IO *bio;
	UINT32 media_id;
	uint32_t io_align;            /* buffer alignment the driver needs (>= 1) */
	EFI_STATUS last_status;       /* of the last failed ReadBlocks or WriteBlocks */
	uint8_t *bounce;              /* bounce_sectors sectors */
	uint32_t bounce_sectors;      /* most sectors one call moves through the bounce buffer */
	void *bounce_base, *scratch_base; /* the allocations, for freeing */
	UINTN bounce_pages, scratch_pages;
};

/* Opens the BlockIo on handle and fills the geometry: sector_size = BlockSize, phys_size from
 * LogicalBlocksPerPhysicalBlock (revision 2 and later, when nonzero), align_offset from
 * LowestAlignedLba. Returns 0, AS_ENOENT (no BlockIo or no media), AS_EUNSUPP (a block
 * size the block layer cannot take) or AS_ENOMEM; says which in *why when non-NULL. Writes (the
 * boot state block only) go through WriteBlocks and FlushBlocks, unless the media is read-only. */
int efi_blockdev_open(EFI_HANDLE handle, struct efi_blockdev *out, const char **why);
void efi_blockdev_close(struct efi_blockdev *d);

/* Records every ReadBlocks call from now on, which efi_blockdev_print_log prints as
 * "disk: N ReadBlocks calls, B bytes for the kernel and initrd" and runs of
 * "LBA+blocks x calls" six to a line (make bench's floor application repeats them). */
void efi_blockdev_log_start(void);
void efi_blockdev_print_log(void);

#endif
