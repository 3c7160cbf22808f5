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
 * and breaks the other half otherwise; dual_inspect names what broke and `anysector repair`
 * rebuilds it. */
#ifndef ANYSECTOR_TOOLS_DUAL_H
#define ANYSECTOR_TOOLS_DUAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/gpt.h"
#include "common/mbr.h"
#include "tools/dev/hostdev.h"
#include "tools/plan/plan.h"
#include "tools/base/report.h"

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

/* What the disk holds of a dual GPT (tools/disk/inspect.c fills it in). */
struct dual_table {
	bool valid;              /* this header and its array are valid */
	struct gpt gpt;          /* its table (valid only) */
	char why[REPORT_MSG_MAX];/* why not, when not */
};

struct dual_state {
	struct dual_geometry geo;
	bool geo_ok;
	/* [half][0] primary, [half][1] backup */
	struct dual_table t[DUAL_HALVES][2];
	bool remnant[DUAL_HALVES];      /* no valid header, but entry arrays of this disk remain */
	uint64_t remnant_byte[DUAL_HALVES];
	bool clean;                     /* all four headers valid, agreeing, nothing overlapping */
	unsigned problems;              /* errors reported */
};

/* Looks for a dual GPT on h (whatever sector size h is viewed at). Returns NULL when the disk
 * holds none (not even the remains of one); otherwise a malloc'd state, with every problem
 * reported to r as an error (warnings for a protective MBR size that fits one size only):
 *   dual.header      a header (or its array) of one size is invalid, and why
 *   dual.half_gone   one size has no valid header left, only entry arrays of this disk
 *   dual.mismatch    two valid tables disagree: the disk GUID, or a partition's presence, type,
 *                    GUID, byte range, attributes or name (naming the partition and both values)
 *   dual.overlap     a header, entry array or usable range of one size overlaps a structure of
 *                    the other (what firmware restoring one size's GPT leaves)
 *   dual.unaligned   a partition that is not whole 4 KiB blocks
 *   dual.pmbr_size   the protective MBR's size fits one sector size only (warning)
 * lba0 is the disk's first 512 bytes. */
struct dual_state *dual_inspect(struct hostdev *h, const uint8_t *lba0, struct report *r);

/* The table a repair rebuilds both halves from, into *src (in *src_lss units; *which names the
 * header): from_lss 0 picks the one every valid header agrees on; 512 or 4096 picks that
 * size's primary (else its backup). Returns 0 or an exit code (reported): no valid header, or
 * headers that disagree without from_lss. */
int dual_repair_source(const struct dual_state *s, uint32_t from_lss, const struct gpt **src,
		       uint32_t *src_lss, const char **which);

/* The writes that rebuild both GPTs of s from src (in src_lss units) in the layout of s->geo,
 * as ops of p (p->lss = h's sector size): every sector of the two GPT regions ([0, first usable)
 * and [end usable, N)) that must change, keeping the first 512 bytes except the protective
 * entry's size and end CHS, zeroing stale bytes of the regions. Tail ops come before head ops.
 * Returns 0 or an exit code (reported). */
int dual_repair_plan(struct hostdev *h, const struct dual_state *s, const struct gpt *src,
		     uint32_t src_lss, struct plan *p);

#endif
