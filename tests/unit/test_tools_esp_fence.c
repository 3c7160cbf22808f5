/* SPDX-License-Identifier: BSD-2-Clause */
/* The fence around mtools commands on the ESP copy (tools/esp/esp_fence.c): FAT entries set at
 * every width without touching their neighbours, the clusters in use on the disk and freed on
 * the copy marked bad in every FAT copy (and nothing else), and freed again afterwards. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/le.h"
#include "tools/esp/esp_fence.h"

/* Two one-sector FAT16 copies, 16 clusters. */
static const struct esp_geom fat16 = {
	.type = FAT_TYPE_16,
	.fats = 512, .fats_end = 1536,
	.root = 1536, .data = 2048, .data_end = 2048 + 16 * 512,
	.cluster = 512,
	.active = 0, .num_fats = 2, .clusters = 16,
	.fat_bytes = 512,
};

static void set16(uint8_t *fats, uint32_t i, uint16_t v)
{
	le16_store(fats + i * 2, v);
	le16_store(fats + 512 + i * 2, v);
}

static void test_fat_set(void **state)
{
	(void)state;
	struct esp_geom g12 = { .type = FAT_TYPE_12, .fat_bytes = 12 };
	uint8_t f[12];

	/* every entry of a FAT12 set alone: its neighbours keep their values */
	for (uint32_t i = 2; i < 8; i++) {
		memset(f, 0xFF, sizeof f);
		esp_fat_set(&g12, f, i, 0x123);
		for (uint32_t k = 0; k < 8; k++)
			assert_int_equal(esp_fat_get(&g12, f, k), k == i ? 0x123 : 0xFFF);
		esp_fat_set(&g12, f, i, 0);
		assert_int_equal(esp_fat_get(&g12, f, i), 0);
		assert_int_equal(esp_fat_get(&g12, f, i ^ 1), 0xFFF);
	}
	esp_fat_set(&g12, f, 9, 0x456);  /* past the end: nothing */
	assert_int_equal(esp_fat_get(&g12, f, 9), 0);

	struct esp_geom g32 = { .type = FAT_TYPE_32, .fat_bytes = 16 };
	uint8_t f32[16] = { 0 };
	le32_store(f32 + 8, 0xA0000000u);
	esp_fat_set(&g32, f32, 2, esp_fence_bad(&g32));
	assert_int_equal(le32_load(f32 + 8), 0xAFFFFFF7u); /* the top four bits kept */
	esp_fat_set(&g32, f32, 2, 0);
	assert_int_equal(le32_load(f32 + 8), 0xA0000000u);

	struct esp_geom g16 = { .type = FAT_TYPE_16, .fat_bytes = 8 };
	uint8_t f16[8] = { 0 };
	esp_fat_set(&g16, f16, 3, esp_fence_bad(&g16));
	assert_int_equal(le16_load(f16 + 6), 0xFFF7);
	assert_int_equal(esp_fence_bad(&g12), 0xFF7);
}

/* S0: a directory in cluster 2, file A in 3-4, file B in 8. The copy: A deleted, B's
 * replacement written to 5-6 and B deleted, cluster 10 lost in both (in use, no file). */
static void test_mark_clear(void **state)
{
	(void)state;
	uint8_t fat0[1024], fats[1024], want[1024];
	struct esp_fence f = { 0 };

	memset(fat0, 0, sizeof fat0);
	set16(fat0, 0, 0xFFF8);
	set16(fat0, 1, 0xFFFF);
	set16(fat0, 2, 0xFFFF);
	set16(fat0, 3, 4);
	set16(fat0, 4, 0xFFFF);
	set16(fat0, 8, 0xFFFF);
	set16(fat0, 10, 0xFFFF);
	memcpy(fats, fat0, sizeof fats);
	set16(fats, 3, 0);
	set16(fats, 4, 0);
	set16(fats, 8, 0);
	set16(fats, 5, 6);
	set16(fats, 6, 0xFFFF);
	memcpy(want, fats, sizeof want);

	assert_int_equal(esp_fence_mark(&fat16, fat0, fats, &f), 3);
	assert_int_equal(f.n, 3);
	for (unsigned copy = 0; copy < 2; copy++)
		for (uint32_t i = 0; i < 18; i++) {
			uint32_t v = esp_fat_get(&fat16, fats + copy * 512, i);
			bool fenced = i == 3 || i == 4 || i == 8;
			assert_int_equal(v, fenced ? 0xFFF7 : esp_fat_get(&fat16, want + copy * 512, i));
		}
	/* a second command: the marks are not free, so nothing more to mark */
	struct esp_fence g = { 0 };
	assert_int_equal(esp_fence_mark(&fat16, fat0, fats, &g), 0);
	esp_fence_free(&g);

	esp_fence_clear(&fat16, fats, &f);
	assert_int_equal(f.n, 0);
	assert_memory_equal(fats, want, sizeof want);
	esp_fence_free(&f);

	/* only what is in use on the disk: an empty S0 marks nothing */
	memset(fat0, 0, sizeof fat0);
	assert_int_equal(esp_fence_mark(&fat16, fat0, fats, &f), 0);
	assert_memory_equal(fats, want, sizeof want);
	esp_fence_free(&f);
}

/* A FAT copy other than the active one is read for "free", every copy is marked. */
static void test_active_copy(void **state)
{
	(void)state;
	struct esp_geom g = fat16;
	uint8_t fat0[512], fats[1024];
	struct esp_fence f = { 0 };

	g.active = 1;
	memset(fat0, 0, sizeof fat0);
	le16_store(fat0 + 2 * 5, 0xFFFF);
	memset(fats, 0, sizeof fats);
	le16_store(fats + 2 * 5, 0xFFFF);       /* copy 0 (not read) still has it */
	assert_int_equal(esp_fence_mark(&g, fat0, fats, &f), 1);
	assert_int_equal(le16_load(fats + 2 * 5), 0xFFF7);
	assert_int_equal(le16_load(fats + 512 + 2 * 5), 0xFFF7);
	esp_fence_free(&f);
}

/* The runs compared whole find exactly the clusters an entry-by-entry walk finds, at every FAT
 * width, wherever a difference falls (the first and last entries of a run of 16, the last
 * cluster, an entry FAT12 splits across bytes). */
static void test_find_every_width(void **state)
{
	(void)state;
	static const enum fat_type types[] = { FAT_TYPE_12, FAT_TYPE_16, FAT_TYPE_32 };
	uint8_t fat0[600], fats[1200];
	uint32_t seed = 12345;

	for (unsigned t = 0; t < 3; t++) {
		struct esp_geom g = { .type = types[t], .num_fats = 2, .clusters = 141 };
		g.fat_bytes = types[t] == FAT_TYPE_12 ? 215 : types[t] == FAT_TYPE_16 ? 286 : 572;
		for (unsigned round = 0; round < 200; round++) {
			struct esp_fence f = { 0 };
			uint32_t want[160], nwant = 0;
			memset(fat0, 0, sizeof fat0);
			for (uint32_t i = 0; i < g.clusters + 2; i++) {
				seed = seed * 1103515245u + 12345u;
				esp_fat_set(&g, fat0, i, (seed >> 16) % 3 ? 0xFFFFFFFu : 0);
			}
			memcpy(fats, fat0, g.fat_bytes);
			memcpy(fats + g.fat_bytes, fat0, g.fat_bytes);
			g.active = round % 2;
			uint8_t *active = fats + g.active * g.fat_bytes;
			for (unsigned k = 0; k < 1 + round % 4; k++) {
				seed = seed * 1103515245u + 12345u;
				uint32_t c = round % 5 == 0 ? g.clusters + 1 - k : (seed >> 8) % (g.clusters + 2);
				esp_fat_set(&g, active, c, (seed >> 20) % 2 ? 0 : 7);
			}
			for (uint32_t i = 2; i < g.clusters + 2; i++)
				if (esp_fat_get(&g, fat0, i) && !esp_fat_get(&g, active, i))
					want[nwant++] = i;
			assert_int_equal(esp_fence_find(&g, fat0, fats, &f), nwant);
			assert_int_equal(f.n, nwant);
			assert_memory_equal(f.c, want, nwant * sizeof *want);
			esp_fence_free(&f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat_set),
		cmocka_unit_test(test_mark_clear),
		cmocka_unit_test(test_active_copy),
		cmocka_unit_test(test_find_every_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
