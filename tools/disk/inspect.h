/* SPDX-License-Identifier: BSD-2-Clause */
/* What is on a disk: its label, its partitions (with their alignment), the boot partitions the
 * installer uses, and our boot code. info, check, install and add all start here. */
#ifndef ANYSECTOR_TOOLS_INSPECT_H
#define ANYSECTOR_TOOLS_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/bootinfo.h"
#include "common/gpt.h"
#include "common/mbr.h"
#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/dev/probe.h"
#include "tools/disk/dual_check.h"
#include "tools/disk/layout.h"

struct part_info {
	unsigned number;
	uint64_t first, sectors;
	struct guid type_guid, unique;   /* GPT */
	uint8_t mbr_type;                /* MBR */
	bool active;                     /* MBR */
	bool container;                  /* an MBR extended partition (holds logical ones) */
	char name[GPT_NAME_UNITS + 1];
	bool phys_aligned;               /* LBA*LSS = AOFF (mod PSS) */
	bool mib_aligned;                /* ... (mod lcm(PSS, 1 MiB)) */
	bool grain_aligned;              /* ... (mod the full grain: with io_min and io_opt too) */
	uint64_t phys_up, grain_up;      /* the aligned starts it could have had */
};

struct disk_info {
	enum label_kind label;
	bool damaged;                    /* a problem that makes writing to the disk unsafe */
	char damage[REPORT_MSG_MAX];     /* the first such problem */
	uint8_t lba0[MBR_RECORD_SIZE];
	struct mbr mbr;                  /* LBA 0 decoded */
	struct gpt *gpt;                 /* GPT: the table in use */
	struct mbr_table *mbrt;          /* MBR: primaries and logicals */
	struct dual_state *dual;         /* a dual GPT (tools/disk/dual.h), whole or in part; else NULL */
	unsigned nparts;
	struct part_info *parts;
	int esp;                         /* the boot partition (GPT ESP / MBR FAT boot), -1 none */
	int bios_boot;                   /* GPT BIOS boot partition, -1 none */
	uint64_t first_part_lba;         /* lowest partition start (UINT64_MAX: none) */
	uint64_t grain, pgrain, mgrain;  /* bytes: full grain, physical sector, lcm(PSS, 1 MiB) */
	/* every signature libblkid finds on the whole disk (tools/dev/probe.h), the table we read too */
	struct probe_result sigs;
	uint64_t slot_grain;             /* bytes: where stage2 slots may start (pgrain; 4 KiB on a
					    dual GPT, which stage1 reads at either sector size) */
	/* our boot code in LBA 0 */
	bool has_stage1;
	uint16_t s1_version;
	uint64_t s2_offset;
	uint32_t s2_length;
};

/* Reads LBA 0 and the partition table. Strict (check): every GPT header problem of the primary
 * and the backup is an error in r, and so is whatever makes di->damaged true (check fails on
 * every disk whose tables the writers refuse). Otherwise the table problems go to r as the
 * readers report them and di->damaged tells whether writing is safe: besides an invalid table,
 * a protective MBR that breaks the UEFI rules, a hybrid MBR entry that is not exactly a GPT
 * partition, a GPT valid only at another sector size, or an MBR whose boot partition has its FAT
 * boot sector only at another sector size (di->damage then names that size first). Returns 0,
 * or EXIT_ERRORS when the disk could not be read at all. */
int disk_inspect(struct hostdev *h, struct disk_info *di, bool strict, struct report *r);

/* True for a signature of the table anysector reads itself (dos, gpt, PMBR): its problems are
 * the table readers' to report. */
bool sig_is_table_we_read(const struct probe_hit *h);

/* One sentence for a signature on a disk whose table anysector does not read (or that holds
 * no table): "DISK holds a sgi partition table (at byte 0), which anysector does not read",
 * "DISK holds an ext4 filesystem (at byte 1080) and no partition table"; on a disk with a
 * table: "besides its gpt partition table, DISK holds a btrfs filesystem (at byte 65600)". */
const char *sig_sentence(const struct hostdev *h, const struct disk_info *di,
			 const struct probe_hit *sig, char *buf, size_t cap);

/* Warnings for partitions that are not physically aligned, notes for those that miss the grain. */
void disk_check_alignment(const struct hostdev *h, const struct disk_info *di, struct report *r);


void disk_info_free(struct disk_info *di);

/* "EFI system", "BIOS boot", "Linux filesystem", "FAT32 (LBA)", ...; NULL when unknown. */
const char *part_type_name(const struct disk_info *di, const struct part_info *p);


#endif
