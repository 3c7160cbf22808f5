/* SPDX-License-Identifier: BSD-2-Clause */
/* Which partition table a disk has: the one rule the installer, stage2 and BOOTX64.EFI apply
 * (Linux's and EDK2's rule, which look at LBA 0 first):
 *   - LBA 0 has 0x55AA and an entry of type 0xEE: GPT (a protective MBR; "hybrid" when other
 *     entries are used too: the GPT still rules, the MBR entries are a legacy view of it);
 *   - LBA 0 has 0x55AA and no 0xEE entry: MBR, whatever GPT header may lie behind it (a stale
 *     one, which Linux and firmware ignore too);
 *   - LBA 0 has no 0x55AA: GPT when a valid GPT header is at LBA 1 or the last LBA (a GPT whose
 *     protective MBR is gone: damaged, the installer refuses to write to it), else none. */
#ifndef ANYSECTOR_LABEL_H
#define ANYSECTOR_LABEL_H

#include <stdbool.h>

#include "common/blockdev.h"
#include "common/mbr.h"

enum label_kind {
	LABEL_NONE = 0,
	LABEL_MBR = 1,
	LABEL_GPT = 2,
};

struct label {
	enum label_kind kind;
	bool hybrid;          /* GPT: LBA 0 lists partitions besides the 0xEE entry */
	bool pmbr_missing;    /* GPT: LBA 0 has no 0x55AA at all */
	bool stale_gpt;       /* MBR: a GPT header lies behind an MBR without an 0xEE entry */
};

/* The rule above. lba0: LBA 0's record decoded; gpt_header: whether a valid GPT header was
 * found at LBA 1 or the last LBA (at this disk's sector size). */
struct label label_decide(const struct mbr *lba0, bool gpt_header);

/* Reads LBA 0 into *lba0 and decides (looking for a GPT header only when LBA 0 has no 0x55AA,
 * so stale_gpt is never set here). Returns 0 or the read's AS_* code. */
int label_read(struct blockdev *dev, struct mbr *lba0, struct label *out);

/* "GPT", "MBR", "no partition table". */
const char *label_kind_name(enum label_kind kind);

#endif
