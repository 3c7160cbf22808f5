/* SPDX-License-Identifier: BSD-2-Clause */
/* The installer's pure logic: partition layouts for every mocked drive (docs/FIRMWARE.md
 * "Alignment"), the MBR limit, ESP sizing, --dos-compat, the FAT type rule (edk2: FAT32 only with
 * >= 65,525 clusters) and size parsing. */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <string.h>

#include "common/bits.h"
#include "tools/esp/fatfmt.h"
#include "tools/disk/layout.h"
#include "tools/base/util.h"
#include "tools/base/exit_codes.h"
#include "tools/esp/fatsize.h"
#include "common/fat.h"

#define MIB (1024ull * 1024)


static struct topology topo(uint32_t lss, uint32_t pss, uint32_t aoff, uint32_t io_opt,
			    uint64_t bytes)
{
	return (struct topology){ .lss = lss, .pss = pss, .aoff = aoff, .io_opt = io_opt,
				  .sectors = bytes / lss };
}

static void plan_ok(const struct topology *t, enum label_kind label, struct layout *l)
{
	struct layout_opts o = { .label = label };
	report_free(&unit_report);
	report_init(&unit_report, false);
	assert_int_equal(layout_plan(t, &o, l, &unit_report), 0);
}

/* Every start satisfies LBA*LSS = AOFF (mod G), every partition ends before the next starts. */
static void assert_aligned(const struct topology *t, const struct layout *l, uint64_t grain)
{
	for (unsigned i = 0; i < l->n; i++) {
		assert_int_equal((l->p[i].first * t->lss - t->aoff) % grain, 0);
		assert_true(l->p[i].first <= l->p[i].last);
		if (i)
			assert_true(l->p[i - 1].last < l->p[i].first);
		assert_true(l->p[i].first >= l->first_usable && l->p[i].last <= l->last_usable);
	}
}

static void test_gpt_starts_per_drive(void **state)
{
	(void)state;
	static const struct {
		uint32_t lss, pss, aoff, io_opt;
		uint64_t grain;
		uint64_t starts[3];
	} cases[] = {
		{ 512, 512, 0, 0, MIB, { 2048, 4096, 536576 } },               /* 512n */
		{ 512, 4096, 0, 0, MIB, { 2048, 4096, 536576 } },              /* 512e */
		{ 4096, 4096, 0, 0, MIB, { 256, 512, 67072 } },                /* 4Kn */
		{ 512, 4096, 3584, 0, MIB, { 2055, 4103, 536583 } },           /* offset-by-one */
		{ 512, 512, 0, 196608, 3 * MIB, { 6144, 12288, 546816 } },     /* io_opt 192 KiB */
		{ 512, 512, 0, 33553920, MIB, { 2048, 4096, 536576 } },        /* bogus io_opt */
		{ 512, 4096, 0, 4095, MIB, { 2048, 4096, 536576 } },           /* io_opt not * PSS */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topology t = topo(cases[i].lss, cases[i].pss, cases[i].aoff, cases[i].io_opt,
					 300 * MIB);
		struct layout l;
		plan_ok(&t, LABEL_GPT, &l);
		assert_int_equal(l.grain, cases[i].grain);
		assert_int_equal(l.n, 3);
		for (unsigned k = 0; k < 3; k++)
			assert_int_equal(l.p[k].first, cases[i].starts[k]);
		assert_int_equal(l.p[0].role, ROLE_BIOS_BOOT);
		assert_int_equal((l.p[0].last - l.p[0].first + 1) * t.lss, MIB);
		assert_int_equal(l.p[1].role, ROLE_ESP);
		assert_int_equal((l.p[1].last - l.p[1].first + 1) * t.lss, 260 * MIB);
		assert_int_equal(l.esp, 1);
		assert_aligned(&t, &l, l.grain);
		/* the rest ends just before an aligned LBA, inside LastUsable */
		assert_int_equal(((l.p[2].last + 1) * t.lss - t.aoff) % l.grain, 0);
		assert_int_equal(l.first_usable, t.lss == 4096 ? 6 : 34);
	}
}

static void test_mbr_starts_and_limit(void **state)
{
	(void)state;
	struct layout l;
	struct topology t = topo(512, 512, 0, 0, 300 * MIB);
	plan_ok(&t, LABEL_MBR, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.p[0].first, 2048);
	assert_int_equal(l.p[1].first, 534528);
	assert_int_equal(l.p[1].last, t.sectors - 1);

	t = topo(512, 4096, 3584, 0, 300 * MIB);
	plan_ok(&t, LABEL_MBR, &l);
	assert_int_equal(l.p[0].first, 2055); /* not 7: stage2 needs its gap */

	/* exactly 2^32 sectors is addressable, one more is not */
	struct layout_opts o = { .label = LABEL_MBR, .no_rest = true };
	t = topo(512, 512, 0, 0, (1ull << 32) * 512);
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), 0);
	t.sectors++;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_ERRORS);
	assert_true(report_has(&unit_report, "partition.mbr_limit"));
	assert_non_null(strstr(report_first(&unit_report, DIAG_ERROR)->msg, "use --label gpt"));
	t = topo(4096, 4096, 0, 0, 3000000000000ull);
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), 0);
}

static void test_esp_sizes(void **state)
{
	(void)state;
	struct layout l;
	struct layout_opts o = { .label = LABEL_GPT };
	struct topology t = topo(512, 512, 0, 0, 64 * MIB);

	/* no room for 260 MiB: the ESP takes what is left, no rest partition */
	plan_ok(&t, LABEL_GPT, &l);
	assert_int_equal(l.n, 2);
	assert_true(report_has(&unit_report, "partition.esp_shrunk"));
	assert_true(report_has(&unit_report, "partition.no_rest"));
	/* an explicit size that does not fit is an error */
	o.esp_bytes = 100 * MIB;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_ERRORS);
	assert_true(report_has(&unit_report, "partition.esp_too_big"));
	o.esp_bytes = 4096;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_USAGE);
	o.esp_bytes = 8 * MIB;
	o.no_rest = true;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal((l.p[1].last - l.p[1].first + 1) * 512, 8 * MIB);
	/* far too small */
	t = topo(512, 512, 0, 0, 1 * MIB);
	o.esp_bytes = 0;
	assert_int_not_equal(layout_plan(&t, &o, &l, &unit_report), 0);
}

static void test_dos_compat(void **state)
{
	(void)state;
	struct layout l;
	struct layout_opts o = { .label = LABEL_MBR, .dos_compat = true };
	struct topology t = topo(512, 4096, 0, 0, 300 * MIB);

	report_free(&unit_report);
	report_init(&unit_report, false);
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), 0);
	assert_int_equal(l.p[0].first, 63);
	assert_int_equal((l.p[0].last + 1) % LAYOUT_CYLINDER, 0);
	assert_int_equal(l.p[1].first % LAYOUT_CYLINDER, 0);
	const struct report_item *w = report_first(&unit_report, DIAG_WARN);
	assert_non_null(w);
	assert_non_null(strstr(w->msg, "3584 bytes into a 4096-byte physical sector"));
	o.label = LABEL_GPT;
	assert_int_equal(layout_plan(&t, &o, &l, &unit_report), EXIT_USAGE);
}

static void test_fat_rule(void **state)
{
	(void)state;
	struct fatsize c;

	/* Sweep ESP sizes: the choice always obeys the cluster-count rule, with margin. */
	for (uint32_t lss = 512; lss <= 4096; lss *= 8) {
		for (uint64_t mib = 1; mib <= 1024; mib += (mib < 64 ? 1 : 7)) {
			uint64_t sectors = mib * MIB / lss;
			assert_int_equal(fatsize_choose(lss, sectors, &c), 0);
			uint64_t n = fatsize_clusters(lss, sectors, c.bits, c.sectors_per_cluster);
			assert_int_equal(n, c.clusters);
			if (c.bits == 32)
				assert_true(n >= FAT32_MIN_CLUSTERS + 300);
			else if (c.bits == 16)
				assert_true(n > FAT12_MAX_CLUSTERS + 16 && n < FAT16_MAX_CLUSTERS - 16);
			else
				assert_true(n < FAT12_MAX_CLUSTERS - 16);
			assert_true((uint64_t)c.sectors_per_cluster * lss <= 32768);
		}
	}
	/* docs/FIRMWARE.md "FAT on 4 KiB sectors": at 4 KiB sectors a FAT32 ESP needs about 257 MiB */
	assert_int_equal(fatsize_choose(4096, 260 * MIB / 4096, &c), 0);
	assert_int_equal(c.bits, 32);
	assert_int_equal(fatsize_choose(4096, 250 * MIB / 4096, &c), 0);
	assert_int_equal(c.bits, 16);
	assert_int_equal(fatsize_choose(4096, 8 * MIB / 4096, &c), 0);
	assert_int_equal(c.bits, 12);
	assert_int_equal(fatsize_choose(512, 260 * MIB / 512, &c), 0);
	assert_int_equal(c.bits, 32);
	assert_int_equal(c.sectors_per_cluster, 8);
}

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v;
	assert_true(parse_size("4096", &v) && v == 4096);
	assert_true(parse_size("0x1000", &v) && v == 4096);
	assert_true(parse_size("64M", &v) && v == 64 * MIB);
	assert_true(parse_size("64MiB", &v) && v == 64 * MIB);
	assert_true(parse_size("3TB", &v) && v == 3000000000000ull);
	assert_true(parse_size("20tb", &v) && v == 20000000000000ull);
	assert_true(parse_size("2T", &v) && v == 2ull << 40);
	assert_false(parse_size("1.5G", &v));
	assert_false(parse_size("", &v));
	assert_false(parse_size("-1", &v));
	assert_false(parse_size("12Q", &v));
	assert_false(parse_size("99999999999999999999", &v));
	assert_false(parse_size("20000000E", &v));
	assert_false(parse_size("16777216T", &v)); /* overflows 64 bits */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gpt_starts_per_drive, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_mbr_starts_and_limit, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_esp_sizes, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_dos_compat, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_fat_rule, tools_setup, tools_teardown),
		cmocka_unit_test_setup_teardown(test_parse_size, tools_setup, tools_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
