/* SPDX-License-Identifier: BSD-2-Clause */
/* What a disk holds of a dual GPT (the byte map in tools/disk/dual.h): both sizes' tables read,
 * compared and checked against the layout, and which table a repair may rebuild from. */
#ifndef ANYSECTOR_TOOLS_DUAL_CHECK_H
#define ANYSECTOR_TOOLS_DUAL_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/gpt.h"
#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/disk/dual.h"

/* What the disk holds of a dual GPT (dual_inspect fills it in). */
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

#endif
