/* SPDX-License-Identifier: BSD-2-Clause */
/* A dual GPT (`--sector-size any`): one disk whose partitions read the same at 512- and
 * 4096-byte logical sectors, so one image boots as 512n/512e and as 4Kn. A GPT's LBAs mean
 * nothing without the sector size, so the disk carries two GPTs describing the same partitions
 * (same GUIDs, same byte ranges, all on 4 KiB boundaries), laid out so that nothing one size
 * reads overlaps what the other size reads. Byte map (N = disk size, a multiple of 4096;
 * A = one entry array, 16 KiB for 128 entries):
 *
 *   0              protective MBR: one 0xEE entry from LBA 1, size 0xFFFFFFFF (no single
 *                  size is right at both sector sizes; Linux, OVMF, libblkid, sgdisk accept it)
 *   512            512-byte GPT primary header (LBA 1 at 512)
 *   4096           4096-byte GPT primary header (LBA 1 at 4096)
 *   8192           4096-byte primary entry array (LBA 2 at 4096: where firmware restores it)
 *   8192 + A       512-byte primary entry array (LBA 48 at 512), moved past the 4096-byte one
 *   8192 + 2A      first usable byte at both sizes
 *   ...            partitions, 1 MiB-aligned, identical byte ranges at both sizes
 *   N-4096-2A      512-byte backup entry array; the last usable byte is just below it
 *   N-4096-A       4096-byte backup entry array (just below its header, as the spec has it)
 *   N-4096         4096-byte GPT backup header (the last 4 KiB block)
 *   N-512          512-byte GPT backup header (the last 512 bytes: inside the 4096-byte backup
 *                  header's block, beyond its HeaderSize, in bytes the UEFI spec calls reserved)
 *
 * The 512-byte primary header likewise sits in the reserved rest of the 4 KiB block holding the
 * protective MBR. Firmware that restores a damaged GPT (edk2: primary array at LBA 2, backup
 * array at LastUsable + 1) keeps this layout at 4096 for the primary and at 512 for the backup,
 * and breaks the other half otherwise; dual_inspect (tools/disk/dual_check.h) names what broke
 * and `anysector repair` rebuilds it (tools/disk/dual_repair.h). */
#ifndef ANYSECTOR_TOOLS_DUAL_H
#define ANYSECTOR_TOOLS_DUAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/gpt.h"
#include "common/mbr.h"
#include "common/diag.h"

/* The two logical sector sizes a dual GPT serves: the sizes disks have (512n/512e and 4Kn),
 * which the format itself fixes. Index 0 is the small one. */
#define DUAL_SMALL_LSS 512u
#define DUAL_LARGE_LSS 4096u
#define DUAL_HALVES 2
#define DUAL_BLOCK DUAL_LARGE_LSS   /* every structure and partition is whole 4 KiB blocks */

/* One size's GPT of the layout, in that size's LBAs. */
struct dual_half {
	uint32_t lss;
	uint64_t sectors;
	struct gpt_place place;
};

struct dual_geometry {
	uint64_t bytes;              /* disk size */
	uint64_t array_bytes;        /* one entry array, whole 4 KiB blocks */
	uint64_t first_usable_byte;  /* partitions may use [first_usable_byte, end_usable_byte) */
	uint64_t end_usable_byte;
	struct dual_half half[DUAL_HALVES];
};

/* The layout above for a disk of `bytes` with arrays of num_entries 128-byte entries (0: 128).
 * Returns false when bytes is not a whole number of 4 KiB blocks or the disk cannot hold the
 * four arrays and headers with room between them. */
bool dual_geometry(uint64_t bytes, uint32_t num_entries, struct dual_geometry *g);

/* The index of a sector size in half[], or -1. */
int dual_half_index(uint32_t lss);

/* A protective MBR for a dual disk: size 0xFFFFFFFF and end CHS FF FF FF. */
void dual_protective_mbr(struct mbr *m);

/* Writes both GPTs of g onto view[0] (512-byte sectors) and view[1] (4096-byte sectors) of one
 * disk: the 4096-byte GPT first, since its backup header's block holds the 512-byte backup
 * header. entries[i].first_lba/last_lba are in units of `unit` bytes (the caller's sector
 * size) and must be whole 4 KiB blocks. Returns 0 or an AS_* code (reported to d). */
int dual_write_gpts(struct blockdev *view[DUAL_HALVES], const struct dual_geometry *g,
		    const struct guid *disk_guid, const struct gpt_entry *entries, unsigned n,
		    uint32_t unit, struct diag *d);

#endif
