/* SPDX-License-Identifier: BSD-2-Clause */
/* The order of the ESP's writes (tools/esp/esp_order.c): FAT entries of every width, the FAT's
 * intermediate states SI0 and SI, the role of each changed sector, a directory sector's middle
 * state (deletions kept, anysector.cfg's entry switched last), and the plan the roles become
 * (roles in order, deletions backwards, directory sectors alone, FAT sectors merged only with
 * sectors of the same steps). */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/bits.h"
#include "common/le.h"
#include "tools/esp/esp_order.h"

#define LSS 512u

/* A FAT16 filesystem laid out by hand: boot sector, two one-sector FATs, a one-sector root
 * directory, 16 clusters of one sector. */
static const struct esp_geom fat16 = {
	.type = FAT_TYPE_16,
	.fats = 512, .fats_end = 1536,
	.root = 1536, .data = 2048, .data_end = 2048 + 16 * 512,
	.cluster = 512,
	.active = 0, .num_fats = 2, .clusters = 16,
	.fat_bytes = 512,
};

#define EOC16 0xFFFFu

static void set16(uint8_t *fats, uint32_t i, uint16_t v)
{
	le16_store(fats + i * 2, v);           /* copy 0 */
	le16_store(fats + 512 + i * 2, v);     /* copy 1 */
}

static uint32_t get16(const uint8_t *fats, unsigned copy, uint32_t i)
{
	return esp_fat_get(&fat16, fats + copy * fat16.fat_bytes, i);
}

/* S0: a directory in cluster 2, file A in clusters 3-4. S2: A replaced by B in 5-6, the
 * directory grown into cluster 7, the dirty bit in entry 1 cleared. */
static void states(uint8_t *old, uint8_t *new)
{
	memset(old, 0, 1024);
	memset(new, 0, 1024);
	set16(old, 0, 0xFFF8);
	set16(old, 1, 0xFFFF);
	set16(old, 2, EOC16);
	set16(old, 3, 4);
	set16(old, 4, EOC16);
	set16(new, 0, 0xFFF8);
	set16(new, 1, 0x7FFF);
	set16(new, 2, 7);
	set16(new, 5, 6);
	set16(new, 6, EOC16);
	set16(new, 7, EOC16);
}

static void test_fat_entries(void **state)
{
	(void)state;
	struct esp_geom g12 = { .type = FAT_TYPE_12, .fat_bytes = 12 };
	uint8_t src[12] = { 0 }, dst[12];

	/* entries 2 and 3 share bytes 3..5: 0xABC and 0xDEF */
	src[3] = 0xBC;
	src[4] = 0xFA;
	src[5] = 0xDE;
	assert_int_equal(esp_fat_get(&g12, src, 2), 0xABC);
	assert_int_equal(esp_fat_get(&g12, src, 3), 0xDEF);
	memset(dst, 0, sizeof dst);
	esp_fat_take(&g12, dst, src, 3);
	assert_int_equal(esp_fat_get(&g12, dst, 3), 0xDEF);
	assert_int_equal(esp_fat_get(&g12, dst, 2), 0);
	esp_fat_take(&g12, dst, src, 2);
	assert_memory_equal(dst, src, sizeof dst);
	/* past the end: 0, and nothing taken */
	assert_int_equal(esp_fat_get(&g12, src, 7), 0);
	memset(dst, 0, sizeof dst);
	esp_fat_take(&g12, dst, src, 7);
	assert_int_equal(esp_fat_get(&g12, dst, 7), 0);

	struct esp_geom g32 = { .type = FAT_TYPE_32, .fat_bytes = 16 };
	uint8_t f32[16] = { 0 };
	le32_store(f32 + 8, 0xF0000005u);
	assert_int_equal(esp_fat_get(&g32, f32, 2), 5); /* the top four bits are not the entry */
	assert_int_equal(esp_fat_get(&g32, f32, 4), 0);
}

static void test_fat_states(void **state)
{
	(void)state;
	uint8_t old[1024], new[1024], mid0[1024], mid[1024];

	states(old, new);
	esp_fat_states(&fat16, old, new, mid0, mid);
	for (unsigned copy = 0; copy < 2; copy++) {
		/* SI0: the new chains whole (5-6, 7) and the reserved entries; the rest as in S0 */
		assert_int_equal(get16(mid0, copy, 1), 0x7FFF);
		assert_int_equal(get16(mid0, copy, 2), EOC16);
		assert_int_equal(get16(mid0, copy, 3), 4);
		assert_int_equal(get16(mid0, copy, 4), EOC16);
		assert_int_equal(get16(mid0, copy, 5), 6);
		assert_int_equal(get16(mid0, copy, 6), EOC16);
		assert_int_equal(get16(mid0, copy, 7), EOC16);
		/* SI: the grown directory linked to its new cluster; the old file still whole */
		assert_int_equal(get16(mid, copy, 2), 7);
		assert_int_equal(get16(mid, copy, 3), 4);
		assert_int_equal(get16(mid, copy, 4), EOC16);
		assert_int_equal(get16(mid, copy, 5), 6);
	}
	/* nothing else differs between SI and S2 than the freed chain */
	memcpy(mid0, mid, sizeof mid);
	set16(mid0, 3, 0);
	set16(mid0, 4, 0);
	assert_memory_equal(mid0, new, sizeof new);
}

static void test_classify(void **state)
{
	(void)state;
	uint8_t old[1024], new[1024], mid0[1024], mid[1024], a[LSS], b[LSS];
	struct sector_writes w;

	states(old, new);
	esp_fat_states(&fat16, old, new, mid0, mid);

	/* a FAT sector that goes through all three steps */
	assert_true(esp_classify_sector(&fat16, old, 512, LSS, old, new, mid0, mid, &w));
	assert_int_equal(w.role[0], SECTOR_FAT_NEW);
	assert_int_equal(w.role[1], SECTOR_FAT_RELINK);
	assert_int_equal(w.role[2], SECTOR_FAT_FREE);
	assert_ptr_equal(w.data[0], mid0);
	assert_ptr_equal(w.data[1], mid);
	assert_ptr_equal(w.data[2], new);
	assert_int_equal(w.steps, 7);
	/* one where only the freeing step changes something */
	assert_true(esp_classify_sector(&fat16, old, 512, LSS, mid, new, mid, mid, &w));
	assert_int_equal(w.role[0], SECTOR_NONE);
	assert_int_equal(w.role[1], SECTOR_NONE);
	assert_int_equal(w.role[2], SECTOR_FAT_FREE);
	assert_int_equal(w.steps, 4);
	/* an unchanged one */
	assert_false(esp_classify_sector(&fat16, old, 512, LSS, old, old, old, old, &w));

	/* the root directory: an entry added, then one deleted */
	memset(a, 0, sizeof a);
	memcpy(b, a, sizeof b);
	memcpy(b + 32, "BOOTX64 EFI", 11);
	assert_true(esp_classify_sector(&fat16, old, 1536, LSS, a, b, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_ptr_equal(w.data[0], b);
	assert_int_equal(w.steps, 0);
	memcpy(a, b, sizeof a);
	b[32] = 0xE5;
	assert_true(esp_classify_sector(&fat16, old, 1536, LSS, a, b, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_DEL);

	/* the data area: cluster 5 was free (new contents), cluster 2 the directory */
	uint8_t *active = old;
	assert_true(esp_classify_sector(&fat16, active, 2048 + 3 * 512, LSS, a, b, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_NEW_DATA);
	assert_true(esp_classify_sector(&fat16, active, 2048, LSS, a, b, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_DEL);
	assert_true(esp_classify_sector(&fat16, active, 2048, LSS, b, a, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);

	/* the boot sector and FSInfo-like metadata: the rest */
	assert_true(esp_classify_sector(&fat16, active, 0, LSS, a, b, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_OTHER);

	/* a 1 KiB sector over clusters 4 (in use) and 5 (free): not ordered */
	uint8_t c[1024] = { 0 }, d[1024] = { 0 };
	d[600] = 1;
	assert_true(esp_classify_sector(&fat16, active, 2048 + 2 * 512, 1024, c, d, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_OTHER);
}

/* A short directory entry at slot i of sec: name (11 bytes), first cluster. */
static void dirent(uint8_t *sec, unsigned i, const char *name, uint16_t cluster)
{
	memset(sec + i * 32, 0, 32);
	memcpy(sec + i * 32, name, 11);
	sec[i * 32 + 11] = 0x20;
	le16_store(sec + i * 32 + 26, cluster);
}

/* A long-name slot (its first one, ord 0x41) before a short entry. */
static void lfn(uint8_t *sec, unsigned i)
{
	memset(sec + i * 32, 0, 32);
	sec[i * 32] = 0x41;
	sec[i * 32 + 1] = 'a';
	sec[i * 32 + 11] = 0x0F;
}

/* Directory sectors (step 3): deletions wait for the deleting sectors, a file replaced under its
 * short name in the same sector switches at once, and the root's anysector.cfg entry (the last
 * entry) switches after every sector that adds. */
static void test_dir_writes(void **state)
{
	(void)state;
	uint8_t old[LSS] = { 0 }, new[LSS], want[LSS], fats[1024], fnew[1024];
	struct sector_writes w;

	struct esp_geom g = fat16;
	states(fats, fnew);   /* cluster 2 is a directory in use */
	g.has_last = true;    /* the change replaces anysector.cfg */
	memcpy(g.last_name, "ANYSEC~1CFG", 11);
	g.last_cluster = 9;
	/* /new (cluster 2): K deleted, K2 added: first both there, then K gone */
	dirent(old, 0, ".          ", 2);
	dirent(old, 1, "..         ", 0);
	dirent(old, 2, "K          ", 3);
	memcpy(new, old, LSS);
	new[64] = 0xE5;
	dirent(new, 3, "K2         ", 5);
	assert_true(esp_classify_sector(&g, fats, 2048, LSS, old, new, NULL, NULL, &w));
	memcpy(want, old, LSS);
	dirent(want, 3, "K2         ", 5);
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_memory_equal(w.data[0], want, LSS);
	assert_int_equal(w.role[1], SECTOR_DIR_DEL);
	assert_ptr_equal(w.data[1], new);
	assert_int_equal(w.role[2], SECTOR_NONE);
	/* with anysector.cfg unchanged (bless renaming a file): one switch, as before */
	g.has_last = false;
	assert_true(esp_classify_sector(&g, fats, 2048, LSS, old, new, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_ptr_equal(w.data[0], new);
	assert_int_equal(w.role[1], SECTOR_NONE);
	g.has_last = true;

	/* K replaced by a new K (new copy, old deleted, renamed) in other slots: one write */
	memcpy(new, old, LSS);
	new[64] = 0xE5;
	dirent(new, 3, "K          ", 5);
	assert_true(esp_classify_sector(&g, fats, 2048, LSS, old, new, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_ptr_equal(w.data[0], new);
	assert_int_equal(w.role[1], SECTOR_NONE);

	/* the root: anysector.cfg (long name and short entry) switched in place, the list beside
	 * it and a new directory NEW added: the middle state has all but the switch */
	memset(old, 0, LSS);
	lfn(old, 0);
	dirent(old, 1, "ANYSEC~1CFG", 4);
	dirent(old, 2, "ANYSEC~1OWN", 6);
	memcpy(new, old, LSS);
	dirent(new, 1, "ANYSEC~1CFG", 9);
	dirent(new, 2, "ANYSEC~1OWN", 10);
	dirent(new, 3, "NEW        ", 11);
	assert_true(esp_classify_sector(&g, fats, 1536, LSS, old, new, NULL, NULL, &w));
	memcpy(want, new, LSS);
	memcpy(want + 32, old + 32, 32);
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_memory_equal(w.data[0], want, LSS);
	assert_int_equal(w.role[1], SECTOR_DIR_SWITCH);
	assert_ptr_equal(w.data[1], new);
	/* without the last entry's name: one write, as before */
	g.has_last = false;
	assert_true(esp_classify_sector(&g, fats, 1536, LSS, old, new, NULL, NULL, &w));
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_ptr_equal(w.data[0], new);
	assert_int_equal(w.role[1], SECTOR_NONE);
	/* a new anysector.cfg (deleted slots before) comes with the switch too */
	g.has_last = true;
	memset(old, 0, 64);
	old[0] = old[32] = 0xE5;
	assert_true(esp_classify_sector(&g, fats, 1536, LSS, old, new, NULL, NULL, &w));
	memcpy(want, new, LSS);
	memcpy(want, old, 64);
	assert_int_equal(w.role[0], SECTOR_DIR_ADD);
	assert_memory_equal(w.data[0], want, LSS);
	assert_int_equal(w.role[1], SECTOR_DIR_SWITCH);
}

static void add1(struct esp_writes *ws, uint64_t lba, enum sector_role role, uint8_t fill)
{
	uint8_t s[LSS];
	struct sector_writes w = { .role = { role, SECTOR_NONE, SECTOR_NONE }, .data = { s } };
	memset(s, fill, sizeof s);
	esp_writes_add(ws, lba, &w);
}

static void test_plan(void **state)
{
	(void)state;
	struct esp_writes ws;
	struct plan p;
	uint8_t f0[LSS], f1[LSS], f2[LSS];

	esp_writes_init(&ws, LSS);
	plan_init(&p, LSS);
	add1(&ws, 0, SECTOR_OTHER, 0x10);
	add1(&ws, 103, SECTOR_NEW_DATA, 0x13);
	add1(&ws, 101, SECTOR_NEW_DATA, 0x12);
	add1(&ws, 100, SECTOR_NEW_DATA, 0x11);
	add1(&ws, 70, SECTOR_DIR_DEL, 0x70);
	add1(&ws, 71, SECTOR_DIR_DEL, 0x71);
	add1(&ws, 61, SECTOR_DIR_ADD, 0x61);
	add1(&ws, 60, SECTOR_DIR_ADD, 0x60);
	add1(&ws, 59, SECTOR_DIR_SWITCH, 0x59);
	/* FAT sector 50 goes through every step, 51 only through the first */
	memset(f0, 0xA0, sizeof f0);
	memset(f1, 0xA1, sizeof f1);
	memset(f2, 0xA2, sizeof f2);
	struct sector_writes all = { .role = { SECTOR_FAT_NEW, SECTOR_FAT_RELINK, SECTOR_FAT_FREE },
				     .data = { f0, f1, f2 }, .steps = 7 };
	struct sector_writes first = { .role = { SECTOR_FAT_NEW, SECTOR_NONE, SECTOR_NONE },
				       .data = { f0 }, .steps = 1 };
	esp_writes_add(&ws, 50, &all);
	esp_writes_add(&ws, 51, &first);
	esp_writes_plan(&ws, "files", &p);

	static const struct {
		uint64_t lba, count;
		uint8_t fill;
		const char *what;
	} want[] = {
		{ 100, 2, 0x11, "files: new contents in free clusters" },
		{ 103, 1, 0x13, "files: new contents in free clusters" },
		{ 50, 1, 0xA0, "files: FAT with the new chains" },
		{ 51, 1, 0xA0, "files: FAT with the new chains" },
		{ 50, 1, 0xA1, "files: FAT linking new clusters to chains in use" },
		{ 60, 1, 0x60, "files: directory sector adding or changing entries" },
		{ 61, 1, 0x61, "files: directory sector adding or changing entries" },
		{ 59, 1, 0x59, "files: directory sector switching the file that names the others" },
		{ 71, 1, 0x71, "files: directory sector deleting entries" },
		{ 70, 1, 0x70, "files: directory sector deleting entries" },
		{ 50, 1, 0xA2, "files: FAT with the replaced chains freed" },
		{ 0, 1, 0x10, "files: filesystem metadata" },
	};
	assert_int_equal(p.n, ARRAY_SIZE(want));
	for (unsigned i = 0; i < p.n; i++) {
		assert_int_equal(p.ops[i].lba, want[i].lba);
		assert_int_equal(p.ops[i].count, want[i].count);
		assert_string_equal(p.ops[i].what, want[i].what);
		assert_int_equal(p.ops[i].data[0], want[i].fill);
	}
	/* the merged op holds both sectors, in order */
	assert_int_equal(p.ops[0].data[LSS - 1], 0x11);
	assert_int_equal(p.ops[0].data[LSS], 0x12);
	esp_writes_free(&ws);
	plan_free(&p);
}

/* esp_fat_states_range gives each sector the bytes esp_fat_states gives it, computed alone
 * (FAT16 and FAT32, every copy, the entries past the last cluster left as S0's), and a sector
 * where S0 and S2 are the same is the same in all four states (the diff reads old's there). */
static void test_fat_states_range(void **state)
{
	(void)state;
	static const enum fat_type types[] = { FAT_TYPE_16, FAT_TYPE_32 };
	enum { FAT = 2048, LEN = 2 * FAT };
	static uint8_t old[LEN], new[LEN], mid0[LEN], mid[LEN], r0[LEN], r1[LEN];
	uint32_t seed = 4242;

	for (unsigned t = 0; t < 2; t++) {
		struct esp_geom g = { .type = types[t], .num_fats = 2, .fat_bytes = FAT,
				       .fats = 512, .fats_end = 512 + LEN };
		uint32_t w = types[t] == FAT_TYPE_16 ? 2 : 4;
		g.clusters = FAT / w - 2 - 30; /* entries past the last cluster too */
		for (unsigned round = 0; round < 50; round++) {
			for (uint32_t i = 0; i < FAT / w; i++) {
				seed = seed * 1103515245u + 12345u;
				uint32_t v = (seed >> 16) % 4 ? 0 : (seed >> 8) & 0xFFFFFFF;
				for (unsigned k = 0; k < 2; k++)
					esp_fat_set(&g, old + k * FAT, i, v);
			}
			memcpy(new, old, LEN);
			for (unsigned n = 0; n < round % 40; n++) {
				seed = seed * 1103515245u + 12345u;
				uint32_t i = (seed >> 8) % (FAT / w);
				uint32_t v = (seed >> 20) % 3 ? (seed & 0xFFFF) + 1 : 0;
				for (unsigned k = 0; k < 2; k++)
					if (k == 0 || (seed >> 4) % 2)
						esp_fat_set(&g, new + k * FAT, i, v);
			}
			esp_fat_states(&g, old, new, mid0, mid);
			memset(r0, 0xA5, LEN);
			memset(r1, 0x5A, LEN);
			for (uint32_t x = 0; x < LEN; x += LSS) {
				if (!memcmp(old + x, new + x, LSS)) {
					assert_memory_equal(mid0 + x, old + x, LSS);
					assert_memory_equal(mid + x, old + x, LSS);
					continue;
				}
				esp_fat_states_range(&g, old, new, r0, r1, x, LSS);
				assert_memory_equal(r0 + x, mid0 + x, LSS);
				assert_memory_equal(r1 + x, mid + x, LSS);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_entries),
		cmocka_unit_test(test_fat_states),
		cmocka_unit_test(test_fat_states_range),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_dir_writes),
		cmocka_unit_test(test_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
