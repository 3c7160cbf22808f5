/* SPDX-License-Identifier: BSD-2-Clause */
/* Where install puts stage2 (tools/boot/stage2_place.c): the two slots on every drive kind, the
 * legacy gap with room for one, the slot that misses the stage2 stage1 loads now, clearing an older and
 * longer stage2, foreign bytes, and stage1 merged into an LBA 0 it must not disturb. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/mbr.h"
#include "tools/boot/stage2_place.h"

#define MIB (1024u * 1024u)

static struct topology topo(uint32_t lss, uint32_t pss, uint32_t aoff)
{
	return (struct topology){ .lss = lss, .pss = pss, .aoff = aoff,
				  .sectors = (64ull << 20) / lss };
}

/* A room of n sectors with a stage2 of ours (magic and length) at sector at. */
static void put_ours(uint8_t *room, uint64_t at, uint32_t lss, uint32_t len)
{
	memcpy(room + at * lss + STAGE2_MAGIC_OFF, STAGE2_MAGIC, 8);
	le32_store(room + at * lss + STAGE2_LENGTH_OFF, len);
}

/* An LBA 0 whose stage1 loads len bytes from sector lba. */
static void point_stage1(uint8_t *lba0, uint64_t lba, uint32_t lss, uint32_t len)
{
	memcpy(lba0 + STAGE1_MAGIC_OFF, STAGE1_MAGIC, 4);
	le64_store(lba0 + STAGE1_S2_OFFSET_OFF, lba * lss);
	le32_store(lba0 + STAGE1_S2_LENGTH_OFF, len);
}

static void test_slots_per_drive(void **state)
{
	(void)state;
	struct stage2_place p;

	/* 512e: a 1 MiB BIOS boot partition at LBA 2048; B at its middle */
	struct topology t = topo(512, 4096, 0);
	assert_int_equal(stage2_slots(&t, 4096, 2048, 4096, 30000, &p), 0);
	assert_int_equal(p.need, 59);
	assert_int_equal(p.slot[0], 2048);
	assert_int_equal(p.slot[1], 3072);
	assert_int_equal(p.nslots, 2);
	assert_int_equal(p.end, 4096);
	assert_int_equal(p.live, STAGE2_NO_LBA);

	/* 4Kn: the same partition in 4 KiB sectors */
	t = topo(4096, 4096, 0);
	assert_int_equal(stage2_slots(&t, 4096, 256, 512, 30000, &p), 0);
	assert_int_equal(p.need, 8);
	assert_int_equal(p.slot[0], 256);
	assert_int_equal(p.slot[1], 384);
	assert_int_equal(p.nslots, 2);

	/* offset-by-one (alignment offset 3584): physically aligned LBAs are 7 (mod 8) */
	t = topo(512, 4096, 3584);
	assert_int_equal(stage2_slots(&t, 4096, 2048, 4096, 30000, &p), 0);
	assert_int_equal(p.slot[0], 2055);
	assert_int_equal(p.slot[1] % 8, 7);
	uint64_t middle = 2055 + (4096 - 2055) / 2;
	assert_true(p.slot[1] >= middle && p.slot[1] < middle + 8);
	assert_int_equal(p.nslots, 2);
}

static void test_slots_share_one_mib(void **state)
{
	(void)state;
	struct stage2_place p;
	struct topology t = topo(512, 512, 0);

	/* a 100 MiB region: the slots share its first MiB only */
	assert_int_equal(stage2_slots(&t, 512, 2048, 2048 + 100 * MIB / 512, 30000, &p), 0);
	assert_int_equal(p.end, 2048 + STAGE2_SLOTS_BYTES / 512);
	assert_int_equal(p.slot[1], 2048 + STAGE2_SLOTS_BYTES / 512 / 2);
	assert_int_equal(p.nslots, 2);
}

static void test_slots_legacy_gap(void **state)
{
	(void)state;
	struct stage2_place p;
	struct topology t = topo(512, 512, 0);

	/* LBAs 1..62 hold one 29 KiB stage2, not two */
	assert_int_equal(stage2_slots(&t, 512, 1, 63, 29261, &p), 0);
	assert_int_equal(p.need, 58);
	assert_int_equal(p.slot[0], 1);
	assert_int_equal(p.nslots, 1);

	/* LBAs 1..39 hold none */
	assert_int_equal(stage2_slots(&t, 512, 1, 40, 29261, &p), AS_ENOSPC);
	assert_int_equal(p.slot[0], 1);

	/* on a 512e drive the gap's first aligned sector is LBA 8 */
	t = topo(512, 4096, 0);
	assert_int_equal(stage2_slots(&t, 4096, 1, 63, 20000, &p), 0);
	assert_int_equal(p.slot[0], 8);
	assert_int_equal(p.nslots, 1);
}

/* A 512e BIOS boot partition at LBA 2048 with a 30000-byte stage2 to place. */
static void place_bios_boot(struct stage2_place *p, uint8_t **room, uint8_t *lba0)
{
	struct topology t = topo(512, 4096, 0);
	assert_int_equal(stage2_slots(&t, 4096, 2048, 4096, 30000, p), 0);
	*room = calloc(1, (size_t)(p->end - p->slot[0]) * 512);
	assert_non_null(*room);
	memset(lba0, 0, 512);
}

static void test_choose_misses_live(void **state)
{
	(void)state;
	struct stage2_place p;
	uint8_t *room, lba0[512];

	/* nothing of ours: slot A, the new stage2 only */
	place_bios_boot(&p, &room, lba0);
	stage2_find_ours(&p, room, 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_int_equal(p.ours_len[0], 0);
	assert_int_equal(p.ours_len[1], 0);
	assert_int_equal(p.live, STAGE2_NO_LBA);
	assert_int_equal(p.use, 0);
	assert_true(p.safe);
	assert_int_equal(p.lba, 2048);
	assert_int_equal(p.count, 59);

	/* stage1 loads the stage2 in A: write B */
	put_ours(room, 0, 512, 30000);
	point_stage1(lba0, 2048, 512, 30000);
	stage2_find_ours(&p, room, 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_int_equal(p.ours_len[0], 30000);
	assert_int_equal(p.live, 2048);
	assert_int_equal(p.live_end, 2048 + 59);
	assert_int_equal(p.use, 1);
	assert_true(p.safe);
	assert_int_equal(p.lba, 3072);

	/* and back: stage1 loads B, an older and longer stage2 sits in A: A is written, with
	 * its tail */
	put_ours(room, 0, 512, 40000);
	put_ours(room, 3072 - 2048, 512, 30000);
	point_stage1(lba0, 3072, 512, 30000);
	stage2_find_ours(&p, room, 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_int_equal(p.use, 0);
	assert_true(p.safe);
	assert_int_equal(p.lba, 2048);
	assert_int_equal(p.count, 79); /* 40000 bytes, not the new 59 sectors */
	free(room);
}

static void test_choose_boundaries(void **state)
{
	(void)state;
	struct stage2_place p;
	uint8_t *room, lba0[512];

	/* a live stage2 (not ours by its header) that ends exactly where B starts: B misses it */
	place_bios_boot(&p, &room, lba0);
	point_stage1(lba0, 2048, 512, (3072 - 2048) * 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_int_equal(p.live_end, 3072);
	assert_true(p.safe);
	assert_int_equal(p.use, 1);

	/* one that starts right after the new stage2 would end in A: A misses it */
	point_stage1(lba0, 2048 + 59, 512, 30000);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_true(p.safe);
	assert_int_equal(p.use, 0);
	assert_int_equal(p.count, 59);

	/* one sector earlier it overlaps A, so B is taken */
	point_stage1(lba0, 2048 + 58, 512, 30000);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_true(p.safe);
	assert_int_equal(p.use, 1);
	free(room);
}

static void test_choose_never_into_live(void **state)
{
	(void)state;
	struct stage2_place p;
	uint8_t *room, lba0[512];

	/* a stage2 of ours in A, long enough to run into B where the live one starts: the
	 * clearing stops short of the live stage2 */
	place_bios_boot(&p, &room, lba0);
	put_ours(room, 0, 512, 2 * MIB);
	put_ours(room, 3072 - 2048, 512, 30000);
	point_stage1(lba0, 3072, 512, 30000);
	stage2_find_ours(&p, room, 512);
	assert_int_equal(p.ours_len[0], 0); /* longer than the room: not a stage2 of ours */
	assert_int_equal(p.ours_len[1], 30000);
	put_ours(room, 0, 512, 1100 * 512);
	stage2_find_ours(&p, room, 512);
	assert_int_equal(p.ours_len[0], 1100 * 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_int_equal(p.use, 0);
	assert_true(p.safe);
	assert_int_equal(p.count, 3072 - 2048);
	free(room);
}

static void test_choose_unsafe(void **state)
{
	(void)state;
	struct stage2_place p;
	struct topology t = topo(512, 512, 0);
	uint8_t *room, lba0[512] = { 0 };

	/* the legacy gap: one slot, and stage1 loads from it */
	assert_int_equal(stage2_slots(&t, 512, 1, 63, 29261, &p), 0);
	room = calloc(1, 62 * 512);
	assert_non_null(room);
	put_ours(room, 0, 512, 29261);
	point_stage1(lba0, 1, 512, 29261);
	stage2_find_ours(&p, room, 512);
	stage1_live_stage2(&p, lba0, 512);
	stage2_choose_slot(&p, 512);
	assert_false(p.safe);
	assert_int_equal(p.use, 0);
	assert_int_equal(p.lba, 1);
	assert_int_equal(p.count, 58);

	/* a stage1 pointer past the room, or not at a sector, is no live stage2 */
	point_stage1(lba0, 63, 512, 29261);
	stage1_live_stage2(&p, lba0, 512);
	assert_int_equal(p.live, STAGE2_NO_LBA);
	le64_store(lba0 + STAGE1_S2_OFFSET_OFF, 512 + 1);
	stage1_live_stage2(&p, lba0, 512);
	assert_int_equal(p.live, STAGE2_NO_LBA);
	free(room);
}

static void test_foreign_bytes(void **state)
{
	(void)state;
	struct stage2_place p;
	uint8_t *room, lba0[512];
	uint64_t at = 12345;

	place_bios_boot(&p, &room, lba0);
	stage2_find_ours(&p, room, 512);
	stage2_choose_slot(&p, 512);
	assert_false(stage2_foreign_byte(&p, room, 512, &at));
	assert_int_equal(at, 12345);

	/* a byte just past the sectors written is not in the way */
	room[59 * 512] = 0x42;
	assert_false(stage2_foreign_byte(&p, room, 512, &at));
	/* the last byte written is */
	room[59 * 512 - 1] = 0xEB;
	assert_true(stage2_foreign_byte(&p, room, 512, &at));
	assert_int_equal(at, 59 * 512 - 1);

	/* the same bytes inside a stage2 of ours are ours */
	room[59 * 512 - 1] = 0;
	room[100] = 0x90;
	assert_true(stage2_foreign_byte(&p, room, 512, &at));
	assert_int_equal(at, 100);
	put_ours(room, 0, 512, 30000);
	stage2_find_ours(&p, room, 512);
	assert_false(stage2_foreign_byte(&p, room, 512, &at));
	free(room);
}

static void test_stage1_merge(void **state)
{
	(void)state;
	uint8_t lba0[512], stage1[512], want[512];

	for (unsigned i = 0; i < sizeof lba0; i++)
		lba0[i] = (uint8_t)(i * 7 + 1);
	memset(stage1, 0xCC, sizeof stage1);
	memset(stage1 + MBR_TIMESTAMP_OFF, 0, MBR_TIMESTAMP_LEN);
	memcpy(want, lba0, sizeof want);
	stage1_merge(lba0, stage1, 3072ull * 512, 30000);

	/* the code, but not the timestamp; nothing from 440 on */
	for (unsigned i = 0; i < MBR_BOOTCODE_SIZE; i++) {
		bool ts = i >= MBR_TIMESTAMP_OFF && i < MBR_TIMESTAMP_OFF + MBR_TIMESTAMP_LEN;
		bool patch = i >= STAGE1_S2_OFFSET_OFF && i < STAGE1_S2_LENGTH_OFF + 4;
		if (ts)
			assert_int_equal(lba0[i], want[i]);
		else if (!patch)
			assert_int_equal(lba0[i], 0xCC);
	}
	assert_memory_equal(lba0 + MBR_BOOTCODE_SIZE, want + MBR_BOOTCODE_SIZE,
			    sizeof lba0 - MBR_BOOTCODE_SIZE);
	assert_int_equal(le64_load(lba0 + STAGE1_S2_OFFSET_OFF), 3072ull * 512);
	assert_int_equal(le32_load(lba0 + STAGE1_S2_LENGTH_OFF), 30000);
}

/* The state block: the last two 4 KiB at the room's end, on physical boundaries, after slot B;
 * none in the legacy gap or where slot B's stage2 would reach it. */
static void test_state_place(void **state)
{
	(void)state;
	struct stage2_place p;
	const char *why;

	struct topology t = topo(512, 4096, 0);       /* 512e, BIOS boot partition at 1 MiB */
	assert_int_equal(stage2_slots(&t, 4096, 2048, 4096, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 4096, &p, &why), 4096 - 16);
	t = topo(4096, 4096, 0);                      /* 4Kn */
	assert_int_equal(stage2_slots(&t, 4096, 256, 512, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 4096, &p, &why), 510);
	t = topo(512, 512, 0);                        /* 512n MBR gap LBA 1..2047 */
	assert_int_equal(stage2_slots(&t, 512, 1, 2048, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 512, &p, &why), 2032);
	t = topo(512, 4096, 3584);                    /* offset-by-one MBR gap LBA 1..2054 */
	assert_int_equal(stage2_slots(&t, 4096, 1, 2055, 30000, &p), 0);
	uint64_t at = stage2_state_place(&t, 4096, &p, &why);
	assert_int_equal(at, 2039);
	assert_int_equal((at * 512) % 4096, 3584);    /* a physical boundary of this drive */
	assert_true(at + 16 <= p.end);
	/* a 1 MiB BIOS boot partition far beyond the first MiB: the room is its first MiB */
	t = topo(512, 4096, 0);
	assert_int_equal(stage2_slots(&t, 4096, 100000, 104096, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 4096, &p, &why), 100000 + 2048 - 16);
	/* the legacy gap: one slot, no state block */
	assert_int_equal(stage2_slots(&t, 512, 1, 63, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 512, &p, &why), STAGE2_NO_LBA);
	assert_non_null(strstr(why, "one copy"));
	/* a stage2 in slot B that reaches the state block's place: none */
	t = topo(512, 512, 0);
	assert_int_equal(stage2_slots(&t, 512, 1, 2048, 520000, &p), 0);
	assert_int_equal(p.nslots, 2);
	assert_int_equal(stage2_state_place(&t, 512, &p, &why), STAGE2_NO_LBA);
	assert_non_null(strstr(why, "after the second slot"));
	/* physical sectors larger than a copy */
	t = topo(512, 8192, 0);
	assert_int_equal(stage2_slots(&t, 8192, 2048, 4096, 30000, &p), 0);
	assert_int_equal(stage2_state_place(&t, 8192, &p, &why), STAGE2_NO_LBA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots_per_drive),
		cmocka_unit_test(test_slots_share_one_mib),
		cmocka_unit_test(test_slots_legacy_gap),
		cmocka_unit_test(test_choose_misses_live),
		cmocka_unit_test(test_choose_boundaries),
		cmocka_unit_test(test_choose_never_into_live),
		cmocka_unit_test(test_choose_unsafe),
		cmocka_unit_test(test_foreign_bytes),
		cmocka_unit_test(test_stage1_merge),
		cmocka_unit_test(test_state_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
