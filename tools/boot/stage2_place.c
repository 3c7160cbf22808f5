/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/stage2_place.h"

#include <string.h>

#include "common/bits.h"
#include "common/bootinfo.h"
#include "common/bootstate.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/mbr.h"

_Static_assert(STAGE2_MAX_SIZE <= STAGE2_SLOTS_BYTES / 2,
	       "two slots of the largest stage2 must fit the room they share");

int stage2_slots(const struct topology *t, uint64_t pgrain, uint64_t first, uint64_t end,
		 uint32_t len, struct stage2_place *p)
{
	uint32_t lss = t->lss;

	memset(p, 0, sizeof *p);
	p->live = STAGE2_NO_LBA;
	p->need = DIV_ROUND_UP(len, lss);
	p->slot[0] = align_up(t, first, pgrain);
	p->slot[1] = STAGE2_NO_LBA;
	p->end = end;
	if (p->slot[0] == STAGE2_NO_LBA || p->slot[0] >= end || p->need > end - p->slot[0])
		return AS_ENOSPC;
	if (end - p->slot[0] > STAGE2_SLOTS_BYTES / lss)
		p->end = p->slot[0] + STAGE2_SLOTS_BYTES / lss;
	p->slot[1] = align_up(t, p->slot[0] + (p->end - p->slot[0]) / 2, pgrain);
	bool b_fits = p->slot[1] != STAGE2_NO_LBA && p->slot[1] > p->slot[0] &&
		      p->slot[1] < p->end && p->need <= p->slot[1] - p->slot[0] &&
		      p->need <= p->end - p->slot[1];
	p->nslots = b_fits ? 2 : 1;
	return 0;
}

void stage2_find_ours(struct stage2_place *p, const uint8_t *room, uint32_t lss)
{
	for (unsigned i = 0; i < 2; i++) {
		p->ours_len[i] = 0;
		if (p->slot[i] == STAGE2_NO_LBA || p->slot[i] >= p->end ||
		    (i && p->slot[1] <= p->slot[0]))
			continue;
		const uint8_t *at = room + (p->slot[i] - p->slot[0]) * lss;
		uint64_t left = (p->end - p->slot[i]) * lss;
		if (memcmp(at + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8))
			continue;
		uint32_t l = le32_load(at + STAGE2_LENGTH_OFF);
		if (l >= STAGE2_HDR_SIZE && l <= left)
			p->ours_len[i] = l;
	}
}

void stage1_live_stage2(struct stage2_place *p, const uint8_t *lba0, uint32_t lss)
{
	p->live = STAGE2_NO_LBA;
	p->live_end = 0;
	if (memcmp(lba0 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4))
		return;
	uint64_t off = le64_load(lba0 + STAGE1_S2_OFFSET_OFF);
	uint64_t l = le32_load(lba0 + STAGE1_S2_LENGTH_OFF);
	if (off % lss == 0 && l && off / lss < p->end && l <= (p->end - off / lss) * lss) {
		p->live = off / lss;
		p->live_end = p->live + DIV_ROUND_UP(l, lss);
	}
}

void stage2_choose_slot(struct stage2_place *p, uint32_t lss)
{
	p->use = 0;
	p->safe = false;
	for (unsigned i = 0; i < p->nslots && !p->safe; i++) {
		if (p->slot[i] + p->need <= p->live || p->slot[i] >= p->live_end) {
			p->use = i;
			p->safe = true;
		}
	}
	p->lba = p->slot[p->use];
	p->count = p->need;
	uint64_t older = DIV_ROUND_UP(p->ours_len[p->use], lss);
	if (older > p->count)
		p->count = older;
	if (p->safe && p->lba < p->live && p->count > p->live - p->lba)
		p->count = p->live - p->lba;
	if (p->count > p->end - p->lba)
		p->count = p->end - p->lba;
}

static bool inside_ours(const struct stage2_place *p, uint64_t at, uint32_t lss)
{
	for (unsigned k = 0; k < 2; k++) {
		if (!p->ours_len[k])
			continue;
		uint64_t start = (p->slot[k] - p->slot[0]) * lss;
		if (at >= start && at < start + p->ours_len[k])
			return true;
	}
	return false;
}

bool stage2_foreign_byte(const struct stage2_place *p, const uint8_t *room, uint32_t lss,
			 uint64_t *at)
{
	uint64_t from = (p->lba - p->slot[0]) * lss;

	for (uint64_t i = from; i < from + p->count * lss; i++) {
		if (room[i] && !inside_ours(p, i, lss)) {
			*at = i;
			return true;
		}
	}
	return false;
}

uint64_t stage2_state_place(const struct topology *t, uint64_t grain, const struct stage2_place *p,
			    const char **why)
{
	uint32_t lss = t->lss;
	uint64_t both = 2ull * BSTATE_COPY_BYTES / lss, at;

	if (BSTATE_COPY_BYTES % lss || BSTATE_COPY_BYTES % t->pss || BSTATE_COPY_BYTES % grain) {
		*why = "its copies of 4096 bytes are not whole sectors of this disk";
		return STAGE2_NO_LBA;
	}
	if (p->nslots < 2) {
		*why = "the region has room for one copy of stage2 only";
		return STAGE2_NO_LBA;
	}
	at = p->end >= both ? align_down(t, p->end - both, grain) : STAGE2_NO_LBA;
	if (at == STAGE2_NO_LBA || at < p->slot[1] + p->need) {
		*why = "the region has no room for it after the second slot of stage2";
		return STAGE2_NO_LBA;
	}
	*why = "";
	return at;
}

void stage1_merge(uint8_t *lba0, const uint8_t *stage1, uint64_t s2_byte, uint32_t s2_len)
{
	memcpy(lba0, stage1, MBR_TIMESTAMP_OFF);
	memcpy(lba0 + MBR_TIMESTAMP_OFF + MBR_TIMESTAMP_LEN,
	       stage1 + MBR_TIMESTAMP_OFF + MBR_TIMESTAMP_LEN,
	       MBR_BOOTCODE_SIZE - MBR_TIMESTAMP_OFF - MBR_TIMESTAMP_LEN);
	le64_store(lba0 + STAGE1_S2_OFFSET_OFF, s2_byte);
	le32_store(lba0 + STAGE1_S2_LENGTH_OFF, s2_len);
}
