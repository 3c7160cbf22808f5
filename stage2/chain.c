/* SPDX-License-Identifier: BSD-2-Clause */
/* Chainloading a boot record, the way a BIOS starts one: its first logical sector (512 or 4096
 * bytes) at 0000:7C00, real mode, DL = its BIOS drive, DS:SI at a 16-byte MBR-style entry for
 * the partition (the MBR's own, or for a GPT partition one made up with its start LBA, as GRUB
 * does) where a relocated MBR would keep it, at 0000:07BE. */
#include "stage2/chain.h"

#include "common/errors.h"
#include "common/le.h"
#include "common/mbr.h"
#include "common/mem.h"
#include "stage2/bootvol.h"
#include "stage2/console.h"
#include "stage2/disk.h"
#include "stage2/layout.h"

#define CHAIN_ENTRY_ADDR 0x7BEu    /* 0x600 + 0x1BE: where a relocated MBR's table starts */
#define LBA32_MAX 0xFFFFFFFFull

static uint8_t record[BDEV_MAX_SECTOR_SIZE];
static struct blockdev other;

int chain_boot(struct blockdev *boot_disk, uint8_t boot_drive, const struct cfg_entry *e,
	       struct measure *m)
{
	struct blockdev *dev = boot_disk;
	uint8_t drive = boot_drive, type = 0;
	uint64_t lba = 0, sectors;
	int rc;

	if (e->partition) {
		if ((rc = bootvol_partition(e->partition, &lba, &sectors, &type)))
			return rc;
		if (lba > LBA32_MAX) {
			con_printf("partition %u starts at LBA %llu, past what an MBR-style entry holds\n",
				   e->partition, (unsigned long long)lba);
			return AS_ERANGE;
		}
	} else {
		drive = (uint8_t)(0x80 + e->bios_disk);
		if (drive != boot_drive && (rc = int13_open_other(&other, drive)))
			return rc;
		if (drive != boot_drive)
			dev = &other;
		sectors = dev->sectors;
	}
	if ((rc = bdev_read(dev, lba, 1, record))) {
		con_printf("the boot record at LBA %llu of disk 0x%02x cannot be read\n",
			   (unsigned long long)lba, drive);
		return rc;
	}
	if (record[MBR_SIGNATURE_OFF] != 0x55 || record[MBR_SIGNATURE_OFF + 1] != 0xAA) {
		con_printf("LBA %llu of disk 0x%02x is no boot record: bytes 510-511 are %02x %02x, not "
			   "55 aa\n", (unsigned long long)lba, drive, record[MBR_SIGNATURE_OFF],
			   record[MBR_SIGNATURE_OFF + 1]);
		return AS_ECORRUPT;
	}

	uint8_t *pe = (uint8_t *)(uintptr_t)CHAIN_ENTRY_ADDR;
	struct mbr_entry me = {
		.status = 0x80,
		.chs_first = { 0xFE, 0xFF, 0xFF },
		.type = type,
		.chs_last = { 0xFE, 0xFF, 0xFF },
		.lba_first = (uint32_t)lba,
		.sectors = (uint32_t)(sectors > LBA32_MAX ? LBA32_MAX : sectors),
	};
	mbr_entry_encode(&me, pe);
	memcpy(__bounce, record, dev->sector_size);
	measure_file(m, MEASURE_PCR_FILES, "boot record of entry", e->name, record, dev->sector_size,
		     0, 0);
	con_printf("starting the boot record at LBA %llu of disk 0x%02x (%u bytes)\n",
		   (unsigned long long)lba, drive, dev->sector_size);
	con_sync_bios_cursor();
	chain_enter(drive, dev->sector_size, CHAIN_ENTRY_ADDR, (uint32_t)(uintptr_t)__bounce >> 4);
}
