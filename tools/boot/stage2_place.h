/* SPDX-License-Identifier: BSD-2-Clause */
/* Where install puts stage2, decided from bytes already read (pure: no I/O, no messages).
 *
 * Two slots for stage2, each at a whole logical and physical sector: A at the start of the
 * region (the BIOS boot partition, or the gap after the MBR), B at its aligned middle. The new
 * stage2 goes to a slot the current stage1 does not load from, and stage1 in LBA 0 (one sector,
 * written last) switches to it: a crash at any point leaves stage1 pointing at a whole stage2,
 * the old one or the new one. Where the region has room for one copy only (the legacy 31 KiB
 * gap before LBA 63), stage2 is replaced in place and the install says it is not crash-safe. */
#ifndef ANYSECTOR_TOOLS_STAGE2_PLACE_H
#define ANYSECTOR_TOOLS_STAGE2_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/align.h"

/* The room the two slots share at the start of their region: a huge gap or BIOS boot partition
 * is neither read whole nor split far apart. */
#define STAGE2_SLOTS_BYTES (1u << 20)

#define STAGE2_NO_LBA UINT64_MAX

struct stage2_place {
	/* the slots (stage2_slots) */
	uint64_t need;           /* sectors the new stage2 takes */
	uint64_t slot[2];        /* LBAs of slot A and B (B: STAGE2_NO_LBA or unusable when one) */
	unsigned nslots;         /* 1 or 2 */
	uint64_t end;            /* the end of the room the slots share (LBA, exclusive) */
	/* what the room holds (stage2_find_ours, stage1_live_stage2) */
	uint64_t ours_len[2];    /* bytes of a stage2 of ours found at each slot, 0: none */
	uint64_t live, live_end; /* the stage2 stage1 loads now (sectors); live: STAGE2_NO_LBA */
	/* the choice (stage2_choose_slot) */
	unsigned use;            /* the slot written */
	bool safe;               /* it misses the live stage2, so a crash leaves one whole */
	uint64_t lba, count;     /* the sectors written: the new stage2, an older one's tail */
};

/* Places the slots of a stage2 of len bytes in the region [first, end) of a disk with topology
 * t, slot starts aligned to pgrain bytes. Returns 0, or AS_ENOSPC when not even slot A fits
 * (p->slot[0] is then its aligned start, STAGE2_NO_LBA when there is none). */
int stage2_slots(const struct topology *t, uint64_t pgrain, uint64_t first, uint64_t end,
		 uint32_t len, struct stage2_place *p);

/* Fills p->ours_len from room, the bytes of [p->slot[0], p->end): a slot holds ours when it
 * starts with stage2's magic and a length that fits what is left of the room. */
void stage2_find_ours(struct stage2_place *p, const uint8_t *room, uint32_t lss);

/* Fills p->live and p->live_end from LBA 0: the stage2 our stage1 there loads, when it lies
 * within the room's end (else live is STAGE2_NO_LBA). */
void stage1_live_stage2(struct stage2_place *p, const uint8_t *lba0, uint32_t lss);

/* Chooses the first slot whose sectors miss the live stage2 (safe), else slot A, and the
 * sectors to write there: the new stage2, grown to clear the tail of a longer stage2 of ours
 * in that slot, but never into the live one when safe, and never past the room's end. */
void stage2_choose_slot(struct stage2_place *p, uint32_t lss);

/* The first byte of the sectors to write that is not zero and not inside a stage2 of ours:
 * somebody else's data. Returns whether there is one; *at is its offset in room. */
bool stage2_foreign_byte(const struct stage2_place *p, const uint8_t *room, uint32_t lss,
			 uint64_t *at);

/* Where the boot state block goes (common/bootstate.h): its two copies side by side at the end of
 * the room the slots share, copy 0 at the last grain boundary (bytes; a physical sector, 4 KiB
 * on a dual GPT) that leaves room for both, after slot B's stage2 (p->need sectors). Each copy
 * must be whole logical and physical sectors. Returns the LBA of copy 0, or STAGE2_NO_LBA when
 * there is none (one slot only, as in the legacy gap; no room after slot B; sectors that do
 * not divide BSTATE_COPY_BYTES) with *why naming the reason. */
uint64_t stage2_state_place(const struct topology *t, uint64_t grain, const struct stage2_place *p,
			    const char **why);

/* LBA 0 with stage1's code put in: bytes 0..439 from stage1 except the disk's timestamp, the
 * patch block pointing at stage2 (s2_byte, s2_len); signature, table and 0x55AA kept. */
void stage1_merge(uint8_t *lba0, const uint8_t *stage1, uint64_t s2_byte, uint32_t s2_len);

#endif
