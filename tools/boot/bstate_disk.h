/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot state block (common/bootstate.h) of a disk, as the installer reads and changes it:
 * found the way the loaders find it, through stage1's patch block in LBA 0 and the header of the
 * stage2 it points at (bstate_locate), never by looking for it. Pure reading here (AS_* codes);
 * a change is one copy of it, which the caller puts in a write plan. */
#ifndef ANYSECTOR_TOOLS_BSTATE_DISK_H
#define ANYSECTOR_TOOLS_BSTATE_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "common/bootstate.h"

struct bstate_disk {
	uint64_t offset;                   /* byte offset of copy 0 (stage2's header); 0: none */
	struct bstate_io io;               /* both copies, the live one */
	bool stage2_gap;                   /* the stage2 LBA 0 points at is whole and its
					    * legacy-gap build (common/features.h), which has
					    * no state block, among what it leaves out */
};

/* Reads LBA 0, the stage2 it points at (which must be whole: magic, length, CRC) and, when its
 * header records one, both copies of the state block (and d->stage2_gap). Returns 0 (d->offset 0: stage2 records
 * none), AS_ENOENT when LBA 0 has no stage1 of ours or stage2 is not whole (*why says which),
 * AS_ERANGE when the recorded place is not whole sectors inside the disk, or a read's code. */
int bstate_disk_read(struct blockdev *dev, struct bstate_disk *d, const char **why);

#endif
