/* SPDX-License-Identifier: BSD-2-Clause */
/* The dual GPT (tools/disk/dual.h): gpt_write_placed's placement rules, the layout's worked
 * numbers, writing both GPTs onto one buffer seen at 512 and 4096 bytes per sector and reading each back
 * with the loaders' own gpt_read, and the dual layout plans of tools/disk/layout.c. */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/le.h"
#include "tools/disk/dual.h"
#include "tools/disk/layout.h"
#include "tools/base/util.h"
#include "tools/base/exit_codes.h"

#define MIB (1024ull * 1024)

static const struct guid disk_guid = { { 0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0x01,
					 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF } };


/* 64 MiB: the numbers of the dual GPT's byte map (docs/DESIGN.md, docs/GUIDE.md). */
static void test_geometry_numbers(void **state)
{
	(void)state;
	struct dual_geometry g;
	uint64_t n = 64 * MIB;

	assert_true(dual_geometry(n, 0, &g));
	assert_int_equal(g.array_bytes, 16384);
	assert_int_equal(g.first_usable_byte, 40960);
	assert_int_equal(g.end_usable_byte, n - 36864);
	const struct gpt_place *s = &g.half[0].place, *l = &g.half[1].place;
	assert_int_equal(g.half[0].lss, 512);
	assert_int_equal(g.half[1].lss, 4096);
	assert_int_equal(s->primary_array, 48);           /* byte 24576 */
	assert_int_equal(s->backup_array, (n - 36864) / 512);
	assert_int_equal(s->first_usable, 80);
	assert_int_equal(s->last_usable, (n - 36864) / 512 - 1);
	assert_int_equal(l->primary_array, 2);            /* byte 8192 */
	assert_int_equal(l->backup_array, n / 4096 - 5);  /* just below the backup header */
	assert_int_equal(l->first_usable, 10);
	assert_int_equal(l->last_usable, (n - 36864) / 4096 - 1);

	/* 256 entries: 32 KiB arrays, everything moves out by one more array. */
	assert_true(dual_geometry(n, 256, &g));
	assert_int_equal(g.array_bytes, 32768);
	assert_int_equal(g.half[0].place.primary_array, (8192 + 32768) / 512);
	assert_int_equal(g.first_usable_byte, 8192 + 2 * 32768);

	assert_false(dual_geometry(n + 512, 0, &g));       /* not whole 4 KiB blocks */
	assert_false(dual_geometry(77824, 0, &g));         /* arrays meet: no usable byte */
	assert_true(dual_geometry(77824 + 4096, 0, &g));
	assert_int_equal(dual_half_index(512), 0);
	assert_int_equal(dual_half_index(4096), 1);
	assert_int_equal(dual_half_index(2048), -1);
}

static void test_write_placed_rules(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(4 * MIB, 512, 512, 0, 0);
	struct gpt *g = calloc(1, sizeof *g);
	struct gpt_entry e;
	struct capture c;

	memset(&e, 0, sizeof e);
	e.type = GUID_ESP;
	e.unique.b[0] = 1;
	e.first_lba = 2048;
	e.last_lba = 4095;
	/* A good placement reads back with the arrays where it put them. */
	struct gpt_place p = { .primary_array = 48, .backup_array = 8000, .first_usable = 80,
			       .last_usable = 7999 };
	capture_init(&c);
	assert_int_equal(gpt_write_placed(&d->dev, &disk_guid, &e, 1, &p, &c.diag), 0);
	assert_int_equal(gpt_read(&d->dev, g, NULL), 0);
	assert_true(g->primary_valid && g->backup_valid);
	assert_int_equal(g->hdr.entries_lba, 48);
	assert_int_equal(g->hdr.first_usable, 80);
	assert_int_equal(g->hdr.last_usable, 7999);
	assert_int_equal(gpt_read_at(&d->dev, 8191, g, NULL), 0);
	assert_int_equal(g->hdr.entries_lba, 8000);
	uint64_t written = d->md.sectors_written;

	const struct {
		struct gpt_place p;
		const char *code, *text;
	} bad[] = {
		{ { .primary_array = 1, .backup_array = 8000, .first_usable = 80, .last_usable = 7999 },
		  "gpt.array_location", "primary GPT entry array at LBA 1" },
		{ { .primary_array = 48, .backup_array = 8170, .first_usable = 80, .last_usable = 7999 },
		  "gpt.array_location", "backup GPT entry array at LBA 8170" },
		{ { .primary_array = 48, .backup_array = 60, .first_usable = 100, .last_usable = 7999 },
		  "gpt.array_location", "overlap" },
		{ { .primary_array = 48, .backup_array = 8000, .first_usable = 79, .last_usable = 7999 },
		  "gpt.usable_range", "79..7999" },
		{ { .primary_array = 48, .backup_array = 8000, .first_usable = 80, .last_usable = 8000 },
		  "gpt.usable_range", "80..8000" },
		{ { .primary_array = 48, .backup_array = 8000, .first_usable = 80, .last_usable = 8191 },
		  "gpt.usable_range", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		capture_init(&c);
		assert_int_equal(gpt_write_placed(&d->dev, &disk_guid, &e, 1, &bad[i].p, &c.diag),
				 AS_EINVAL);
		assert_reported(&c, bad[i].code, bad[i].text);
		assert_int_equal(d->md.sectors_written, written);
	}
	free(g);
	test_disk_free(d);
}

/* One buffer, two devices: the same bytes at 512 and at 4096 bytes per sector. */
struct pair {
	struct test_disk *small;
	struct blockdev large;
	struct memdisk large_md;
	uint8_t large_scratch[4096];
	struct blockdev *views[DUAL_HALVES];
};

static void pair_new(struct pair *p, uint64_t bytes)
{
	p->small = test_disk_new(bytes, 512, 512, 0, 0);
	p->large_md = (struct memdisk){ .data = p->small->md.data, .size = bytes };
	assert_int_equal(memdisk_init(&p->large, &p->large_md, 4096, 4096, 0, 0, p->large_scratch),
			 0);
	p->views[0] = &p->small->dev;
	p->views[1] = &p->large;
}

/* BIOS boot at 1 MiB, the ESP, a Linux partition to the end of the usable bytes; in 512-byte
 * units. */
static unsigned sample(const struct dual_geometry *g, struct gpt_entry *e)
{
	memset(e, 0, 3 * sizeof *e);
	e[0].type = GUID_BIOS_BOOT;
	e[0].first_lba = 2048;
	e[0].last_lba = 4095;
	gpt_name_set(&e[0], "BIOS boot");
	e[1].type = GUID_ESP;
	e[1].first_lba = 4096;
	e[1].last_lba = 8 * 2048 - 1;
	gpt_name_set(&e[1], "EFI system");
	e[2].type = GUID_LINUX_FS;
	e[2].first_lba = 8 * 2048;
	e[2].last_lba = g->end_usable_byte / 512 - 1;
	e[2].attributes = GPT_ATTR_LEGACY_BIOS_BOOTABLE;
	gpt_name_set(&e[2], "root");
	for (unsigned i = 0; i < 3; i++)
		e[i].unique.b[0] = (uint8_t)(0xA0 + i);
	return 3;
}

static void test_write_both_sizes(void **state)
{
	(void)state;
	uint64_t n = 16 * MIB;
	struct dual_geometry geo;
	struct pair p;
	struct gpt_entry e[3];
	struct gpt *g[DUAL_HALVES] = { calloc(1, sizeof(struct gpt)), calloc(1, sizeof(struct gpt)) };
	struct capture c;

	assert_true(dual_geometry(n, 0, &geo));
	pair_new(&p, n);
	unsigned k = sample(&geo, e);
	capture_init(&c);
	assert_int_equal(dual_write_gpts(p.views, &geo, &disk_guid, e, k, 512, &c.diag), 0);
	for (int h = 0; h < DUAL_HALVES; h++) {
		uint32_t lss = geo.half[h].lss;
		capture_init(&c);
		assert_int_equal(gpt_read(p.views[h], g[h], &c.diag), 0);
		assert_true(g[h]->primary_valid && g[h]->backup_valid && !g[h]->used_backup);
		assert_int_equal(c.n, 0);   /* not even a warning */
		assert_int_equal(g[h]->count, 3);
		for (unsigned i = 0; i < 3; i++) {
			assert_int_equal(g[h]->parts[i].e.first_lba * lss, e[i].first_lba * 512);
			assert_int_equal((g[h]->parts[i].e.last_lba + 1) * lss, (e[i].last_lba + 1) * 512);
			assert_memory_equal(&g[h]->parts[i].e.unique, &e[i].unique, sizeof e[i].unique);
			assert_int_equal(g[h]->parts[i].e.attributes, e[i].attributes);
		}
		assert_int_equal(g[h]->hdr.entries_lba, geo.half[h].place.primary_array);
	}
	const uint8_t *b = p.small->md.data;
	assert_memory_equal(b + 512, "EFI PART", 8);
	assert_memory_equal(b + 4096, "EFI PART", 8);
	assert_memory_equal(b + n - 4096, "EFI PART", 8);
	assert_memory_equal(b + n - 512, "EFI PART", 8);
	/* The large backup header's block: its 92 bytes, zeros, then the small backup header (the
	 * large GPT was written first, or its block write would have cleared it). */
	assert_true(all_zero(b + n - 4096 + GPT_HEADER_SIZE, 4096 - 512 - GPT_HEADER_SIZE));
	assert_true(all_zero(b + 512 + GPT_HEADER_SIZE, 4096 - 512 - GPT_HEADER_SIZE));

	/* An entry that is not whole 4 KiB blocks cannot be written at both sizes. */
	e[1].last_lba += 1;
	e[2].first_lba += 1;
	capture_init(&c);
	assert_int_equal(dual_write_gpts(p.views, &geo, &disk_guid, e, k, 512, &c.diag), AS_EINVAL);
	assert_reported(&c, "dual.unaligned", "partition 2 (bytes 2097152..8389119)");
	free(g[0]);
	free(g[1]);
	test_disk_free(p.small);
}

static void test_layout_dual(void **state)
{
	(void)state;
	for (uint32_t lss = 512; lss <= 4096; lss *= 8) {
		struct topology t = { .lss = lss, .pss = 4096, .sectors = 64 * MIB / lss };
		struct layout_opts o = { .label = LABEL_GPT, .dual = true, .esp_bytes = 10 * MIB + 1 };
		struct layout l;
		assert_int_equal(layout_plan(&t, &o, &l, &unit_report), 0);
		assert_true(l.dual);
		assert_int_equal(l.first_usable * lss, 40960);
		assert_int_equal((l.last_usable + 1) * lss, 64 * MIB - 36864);
		assert_int_equal(l.n, 3);
		for (unsigned i = 0; i < l.n; i++) {
			assert_int_equal(l.p[i].first * lss % MIB, 0);
			assert_int_equal((l.p[i].last + 1) * lss % 4096, 0);
		}
		/* the ESP's odd size rounded up to whole 4 KiB blocks */
		assert_int_equal((l.p[1].last - l.p[1].first + 1) * lss, 10 * MIB + 4096);
	}
	struct topology t = { .lss = 2048, .pss = 2048, .sectors = 64 * MIB / 2048 };
	struct layout_opts o = { .label = LABEL_GPT, .dual = true };
	struct layout l;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_USAGE);
	t = (struct topology){ .lss = 512, .pss = 4096, .aoff = 3584, .sectors = 64 * MIB / 512 };
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_USAGE);
	o.label = LABEL_MBR;
	t.aoff = 0;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_USAGE);
	o.label = LABEL_GPT;
	t.sectors = 64 * MIB / 512 + 1;   /* not whole 4 KiB blocks */
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_ERRORS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_geometry_numbers, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_write_placed_rules, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_write_both_sizes, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_layout_dual, tools_setup, tools_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
