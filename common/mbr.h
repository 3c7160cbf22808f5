/* SPDX-License-Identifier: BSD-2-Clause */
/* The MBR: a 512-byte record at the start of LBA 0 whatever the sector size (on 4Kn the rest of
 * the sector is zero), CHS addressing with 255 heads x 63 sectors, extended partitions through a
 * bounded EBR walk, and the UEFI protective MBR. Field facts: docs/FIRMWARE.md "MBR". */
#ifndef ANYSECTOR_MBR_H
#define ANYSECTOR_MBR_H

#include <stdbool.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "common/diag.h"

#define MBR_RECORD_SIZE 512     /* the format's own record size, not a sector size */
#define MBR_BOOTCODE_SIZE 440
#define MBR_TIMESTAMP_OFF 0xDA  /* 6 bytes Windows keeps there: never overwrite */
#define MBR_TIMESTAMP_LEN 6
#define MBR_DISK_SIG_OFF 0x1B8
#define MBR_TABLE_OFF 0x1BE
#define MBR_ENTRY_SIZE 16
#define MBR_SIGNATURE_OFF 0x1FE /* 0x55 0xAA */

#define MBR_TYPE_EMPTY 0x00
#define MBR_TYPE_FAT12 0x01
#define MBR_TYPE_FAT16_SMALL 0x04
#define MBR_TYPE_EXTENDED_CHS 0x05
#define MBR_TYPE_FAT16 0x06
#define MBR_TYPE_NTFS 0x07
#define MBR_TYPE_FAT32_CHS 0x0B
#define MBR_TYPE_FAT32_LBA 0x0C
#define MBR_TYPE_FAT16_LBA 0x0E
#define MBR_TYPE_EXTENDED_LBA 0x0F
#define MBR_TYPE_LINUX 0x83
#define MBR_TYPE_EXTENDED_LINUX 0x85
#define MBR_TYPE_GPT_PROTECTIVE 0xEE
#define MBR_TYPE_ESP 0xEF

#define CHS_HEADS 255u
#define CHS_SECTORS 63u
#define CHS_MAX_LBA 16450559u   /* (1024*255*63)-1: beyond it CHS is written FE FF FF */

struct mbr_entry {
	uint8_t status;          /* 0x80 active, 0x00 inactive; anything else makes Linux ignore the MBR */
	uint8_t chs_first[3];
	uint8_t type;
	uint8_t chs_last[3];
	uint32_t lba_first;
	uint32_t sectors;
};

struct mbr {
	uint32_t disk_sig;
	uint16_t reserved;       /* bytes 0x1BC..0x1BD, normally zero */
	struct mbr_entry part[4];
	bool boot_signature;     /* 0x55 0xAA at 0x1FE */
};

/* CHS with 255x63 geometry: bytes [H] [S | (C>>2 & 0xC0)] [C & 0xFF]; LBAs past CHS_MAX_LBA
 * encode as FE FF FF. */
void chs_encode(uint64_t lba, uint8_t out[3]);
/* The LBA a CHS triple names; UINT64_MAX when sector is 0 (invalid). */
uint64_t chs_decode(const uint8_t in[3]);

void mbr_entry_decode(const uint8_t raw[MBR_ENTRY_SIZE], struct mbr_entry *e);
void mbr_entry_encode(const struct mbr_entry *e, uint8_t raw[MBR_ENTRY_SIZE]);
/* Pure decode of bytes 440..511; no validation. */
void mbr_decode(const uint8_t rec[MBR_RECORD_SIZE], struct mbr *m);
/* Writes disk signature, reserved, the four entries and 0x55AA; bytes 0..439 are left alone. */
void mbr_encode(const struct mbr *m, uint8_t rec[MBR_RECORD_SIZE]);

/* Fills e (CHS computed from the LBAs); AS_ERANGE when first or last LBA is past 2^32-1. */
int mbr_entry_set(struct mbr_entry *e, uint8_t type, bool active, uint64_t first_lba,
		  uint64_t sectors);

static inline bool mbr_type_is_extended(uint8_t t)
{
	return t == MBR_TYPE_EXTENDED_CHS || t == MBR_TYPE_EXTENDED_LBA || t == MBR_TYPE_EXTENDED_LINUX;
}

/* The types a FAT boot partition may have, for stage2 and the installer alike: FAT12, FAT16
 * (<32M, >=32M, LBA), FAT32 (CHS, LBA) and the EFI system partition. Hidden (0x1x) types are
 * not: a hidden partition is one someone asked boot code to leave alone. */
static inline bool mbr_type_is_fat(uint8_t t)
{
	return t == MBR_TYPE_FAT12 || t == MBR_TYPE_FAT16_SMALL || t == MBR_TYPE_FAT16 ||
	       t == MBR_TYPE_FAT32_CHS || t == MBR_TYPE_FAT32_LBA || t == MBR_TYPE_FAT16_LBA ||
	       t == MBR_TYPE_ESP;
}

/* The partition that boots when none is recorded (a stage2 the installer never patched), and the
 * one the installer, info and check call the boot partition: the first active primary entry of a
 * FAT type, else the first primary entry of a FAT type; an entry with no sectors or starting at
 * LBA 0 holds nothing. Only primaries count: the active flag is the MBR's own choice of what
 * boots, an EBR's flag byte is nobody's, and the installer never records a logical partition.
 * Returns the partition number 1..4, or 0 when no entry qualifies. */
unsigned mbr_boot_part(const struct mbr *m);

/* Protective MBR per the UEFI spec: one 0xEE entry, status 0, start CHS 00 02 00, start LBA 1,
 * size min(N-1, 0xFFFFFFFF), end CHS of the last LBA (FF FF FF past CHS range), others zero. */
void mbr_build_protective(uint64_t disk_sectors, struct mbr *m);
/* True when any entry has type 0xEE. */
bool mbr_is_protective(const struct mbr *m);
/* Reports every way m breaks the spec's protective MBR rules; returns the number of problems.
 * Errors (Linux or firmware would not see the GPT): pmbr.signature, pmbr.no_ee, pmbr.start_lba,
 * pmbr.size (0xFFFFFFFF on a smaller disk is only a warning: Linux accepts it). Warnings:
 * pmbr.status, pmbr.start_chs, pmbr.end_chs (FF FF FF is accepted on any disk: libfdisk writes
 * it), pmbr.other_entries (a hybrid MBR), pmbr.multiple_ee. */
unsigned mbr_check_protective(const struct mbr *m, uint64_t disk_sectors, struct diag *d);

/* One partition found through the MBR and its EBR chain, in Linux numbering. Like sfdisk and
 * Linux, the extended partition itself is listed (as a primary with an extended type). */
struct mbr_part {
	unsigned number;         /* 1..4 primary, 5.. logical */
	uint8_t type;
	bool active;
	uint64_t first_lba;      /* absolute */
	uint64_t sectors;
	uint64_t table_lba;      /* sector holding its entry: 0, or the EBR */
};

#define MBR_MAX_LOGICAL 60       /* hard bound of the EBR walk */
#define MBR_MAX_PARTS (4 + MBR_MAX_LOGICAL)

struct mbr_table {
	struct mbr mbr;
	unsigned count;
	struct mbr_part parts[MBR_MAX_PARTS];
};

/* Reads LBA 0 (and the EBR chain) of dev. Reports, with the entry number or the EBR's LBA:
 *   mbr.signature      no 0x55AA at LBA 0                                   -> AS_ENOENT
 *   mbr.status         a status byte other than 0x00/0x80 (Linux ignores such a table)
 *   mbr.entry_range    an entry starting at LBA 0 or ending past the disk (a 0xEE entry past
 *                      the disk is only a warning)
 *   mbr.lba32          an entry ending past 2^32-1
 *   mbr.overlap        two partitions overlapping, or an EBR inside a partition
 *   mbr.extended_count more than one extended partition
 *   mbr.ebr_loop, mbr.ebr_range, mbr.ebr_bound, mbr.ebr_signature
 *                      EBR chains that loop, leave the extended partition, pass MBR_MAX_LOGICAL,
 *                      or reach a sector without 0x55AA
 *   mbr.logical_range  a logical partition not inside the extended partition after its EBR
 *   mbr.ebr_entry      an EBR's first entry of extended type
 *   mbr.empty_entry, mbr.ebr_extra, mbr.ebr_link (warnings) entries that are ignored
 *   mbr.io             a read failed (the driver's code is returned)
 * Returns 0 (the table is usable), AS_ENOENT (no MBR signature), AS_ECORRUPT (invalid) or an I/O
 * error. A protective MBR parses as one 0xEE partition; callers decide what it means. */
int mbr_read(struct blockdev *dev, struct mbr_table *out, struct diag *d);

#endif
