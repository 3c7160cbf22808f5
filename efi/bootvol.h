/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot volume: the partition this image was loaded from, found on its parent disk through
 * common/ (GPT or MBR on the disk's own block size), with its FAT mounted. The same code serves
 * the shell commands that look at "our" partition (ls, cat, boot). */
#ifndef ANYSECTOR_EFI_BOOTVOL_H
#define ANYSECTOR_EFI_BOOTVOL_H

#include "efi/app.h"
#include "efi/blockio.h"
#include "efi/devpath.h"

#include "common/config.h"
#include "common/fat.h"
#include "common/gpt.h"
#include "common/measure.h"

struct boot_volume {
	struct efi_blockdev disk;     /* the parent disk (or the device itself: no partition) */
	EFI_DEVICE_PATH *dev_path;    /* the device path of the volume the image came from */
	bool partitioned;             /* loaded from a hard-drive partition (HD node found) */
	struct dp_hd hd;
	const char *table;            /* "GPT", "MBR" or "none" */
	unsigned part_number;
	uint64_t part_first, part_sectors;
	struct blockdev part;         /* the window of the disk holding the FAT */
	struct fat_fs *fs;
	char name[24];                /* "the boot partition" or "partition N", for sentences */
	char firmware_says[40];       /* "this program was loaded from" or "is partition N" */
};

/* Finds the partition and disk the running image was loaded from and mounts its FAT. Problems
 * are reported as sentences through d; returns 0 or an AS_* code. */
int bootvol_open(struct boot_volume *v, struct diag *d);
void bootvol_close(struct boot_volume *v);

/* Opens partition number of the disk boot lies on the same way (an efi entry's "partition N"):
 * the firmware's device for it is the BlockIo whose device path is boot's with another HD()
 * node, so an image loaded from it gets a device path the firmware knows. */
int bootvol_open_partition(const struct boot_volume *boot, unsigned number,
			   struct boot_volume *v, struct diag *d);

/* Reads a whole file into page-aligned memory (efi_free_pages(*buf, *pages) to release).
 * Files larger than max_bytes are refused with a sentence. */
int bootvol_read_file(struct boot_volume *v, const char *path, uint64_t max_bytes, void **buf,
		      uint32_t *size, UINTN *pages, struct diag *d);

/* fat_read of a whole file into buf; a failure is one sentence naming the file and, for a disk
 * error, the disk LBA that could not be read and the firmware's status. */
int bootvol_read(struct boot_volume *v, const char *path, const struct fat_file *f, void *buf,
		 struct diag *d);

/* The menu of the volume: /anysector.cfg (when there is one; errors carry line numbers), then
 * the Boot Loader Specification's entries, read as stage2 reads them (common/cfg_fat.h); each
 * file measured into m (NULL: the shell's check, which boots nothing). When this loader is
 * locked (efi/cfglock.h) the file must be the one it is locked to, and no BLS entry is read. */
int bootvol_load_config(struct boot_volume *v, struct cfg *c, struct measure *m,
			struct diag *d);

#endif
