/* SPDX-License-Identifier: BSD-2-Clause */
/* Alignment: grain and aligned LBAs for 512n, 512e, 4Kn, offset-by-one, odd io_opt values. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/align.h"

static struct topology topo(uint32_t lss, uint32_t pss, uint32_t aoff, uint32_t io_min,
			    uint32_t io_opt)
{
	return (struct topology){ .lss = lss, .pss = pss, .aoff = aoff, .io_min = io_min,
				  .io_opt = io_opt, .sectors = 1ull << 32 };
}

static void test_512n(void **state)
{
	(void)state;
	struct topology t = topo(512, 512, 0, 512, 0);
	uint64_t g = align_grain(&t, false), gm = align_grain(&t, true);

	assert_int_equal(g, 512);
	assert_int_equal(gm, ALIGN_MIB);
	assert_true(align_lba_ok(&t, 63, g));
	assert_false(align_lba_ok(&t, 63, gm));
	assert_int_equal(align_up(&t, 34, gm), 2048);
	assert_int_equal(align_up(&t, 2048, gm), 2048);
	assert_int_equal(align_up(&t, 2049, gm), 4096);
	assert_int_equal(align_down(&t, 4095, gm), 2048);
	assert_int_equal(align_down(&t, 0, gm), 0);
	assert_int_equal(align_up(&t, 35, g), 35);
	assert_true(align_topology_check(&t, NULL));
}

static void test_512e(void **state)
{
	(void)state;
	struct topology t = topo(512, 4096, 0, 4096, 0);
	uint64_t g = align_grain(&t, false), gm = align_grain(&t, true);

	assert_int_equal(g, 4096);
	assert_int_equal(gm, ALIGN_MIB);
	assert_false(align_lba_ok(&t, 63, g));
	assert_true(align_lba_ok(&t, 64, g));
	assert_int_equal(align_up(&t, 63, g), 64);
	assert_int_equal(align_up(&t, 1, g), 8);
	assert_int_equal(align_down(&t, 63, g), 56);
	assert_int_equal(align_up(&t, 34, gm), 2048);
	/* W-1/W-2's starts (docs/DESIGN.md "Background") are aligned, W-3's are not (this drive
	 * has no offset). */
	assert_true(align_lba_ok(&t, 2048, gm));
	assert_true(align_lba_ok(&t, 206848, gm));
	assert_false(align_lba_ok(&t, 2055, g));
}

static void test_4kn(void **state)
{
	(void)state;
	struct topology t = topo(4096, 4096, 0, 4096, 0);
	uint64_t g = align_grain(&t, false), gm = align_grain(&t, true);

	assert_int_equal(g, 4096);
	assert_int_equal(gm, ALIGN_MIB);
	assert_true(align_lba_ok(&t, 7, g));
	assert_int_equal(align_up(&t, 6, gm), 256);
	assert_int_equal(align_down(&t, 511, gm), 256);
	assert_false(align_lba_ok(&t, 2048 + 1, gm));
	assert_true(align_lba_ok(&t, 512, gm));
}

static void test_offset_by_one(void **state)
{
	(void)state;
	struct topology t = topo(512, 4096, 3584, 4096, 0);
	uint64_t g = align_grain(&t, false), gm = align_grain(&t, true);

	assert_int_equal(align_effective_offset(&t), 3584);
	assert_int_equal(g, 4096);
	/* Physically aligned starts: LBA ≡ 7 (mod 8). */
	for (uint64_t lba = 0; lba < 64; lba++)
		assert_int_equal(align_lba_ok(&t, lba, g), lba % 8 == 7);
	assert_int_equal(align_up(&t, 0, g), 7);
	assert_int_equal(align_up(&t, 8, g), 15);
	assert_int_equal(align_down(&t, 14, g), 7);
	assert_true(align_down(&t, 6, g) == UINT64_MAX);
	/* With 1 MiB: ≡ 7 (mod 2048), as Windows 7 laid out W-3. */
	assert_int_equal(align_up(&t, 34, gm), 2055);
	assert_int_equal(align_up(&t, 2056, gm), 4103);
	assert_true(align_lba_ok(&t, 2055, gm));
	assert_true(align_lba_ok(&t, 206855, gm));
	assert_false(align_lba_ok(&t, 2048, gm));
	assert_int_equal(align_down(&t, 4102, gm), 2055);
	assert_int_equal(align_down(&t, 2054, gm), 7);
	assert_true(align_down(&t, 6, gm) == UINT64_MAX);
	/* libfdisk's DOS layout on such a drive (util-linux align-512-4K-63): 7, 20487, ... */
	assert_true(align_lba_ok(&t, 20487, gm));
	assert_true(align_lba_ok(&t, 40967, gm));
	assert_true(align_lba_ok(&t, 61447, gm));
	assert_true(align_topology_check(&t, NULL));
}

static void test_io_opt(void **state)
{
	(void)state;
	/* 192 KiB RAID stripe: lcm with 1 MiB is 3 MiB. */
	struct topology t = topo(512, 4096, 0, 4096, 196608);
	assert_int_equal(align_sane_io_opt(&t), 196608);
	assert_int_equal(align_grain(&t, false), 196608);
	assert_int_equal(align_grain(&t, true), 3 * ALIGN_MIB);
	assert_int_equal(align_up(&t, 34, align_grain(&t, true)), 6144);
	assert_int_equal(align_up(&t, 34, align_grain(&t, false)), 384);

	/* The known-bogus value and values not a multiple of PSS are ignored. */
	struct capture c;
	t = topo(512, 4096, 0, 4096, ALIGN_BOGUS_IO_OPT);
	assert_int_equal(align_sane_io_opt(&t), 0);
	assert_int_equal(align_grain(&t, false), 4096);
	assert_int_equal(align_grain(&t, true), ALIGN_MIB);
	capture_init(&c);
	assert_true(align_topology_check(&t, &c.diag));
	assert_reported(&c, "align.io_opt", "33553920");
	t = topo(4096, 4096, 0, 0, 6144);
	assert_int_equal(align_sane_io_opt(&t), 0);
	assert_int_equal(align_grain(&t, true), ALIGN_MIB);
	t = topo(512, 512, 0, 0, 65536);
	assert_int_equal(align_grain(&t, false), 65536);

	/* io_min joins the lcm. */
	t = topo(512, 4096, 0, 65536, 0);
	assert_int_equal(align_grain(&t, false), 65536);
}

static void test_bad_topology(void **state)
{
	(void)state;
	struct capture c;
	struct topology t = topo(512, 4096, 1000, 0, 0);

	capture_init(&c);
	align_topology_check(&t, &c.diag);
	assert_reported(&c, "align.aoff", "1000");
	assert_int_equal(align_effective_offset(&t), 0);
	assert_int_equal(align_up(&t, 1, align_grain(&t, false)), 8);

	t = topo(4096, 512, 0, 0, 0);
	capture_init(&c);
	assert_true(align_topology_check(&t, &c.diag));
	assert_reported(&c, "align.pss", NULL);
	assert_int_equal(align_grain(&t, false), 4096);

	t = topo(1000, 4096, 0, 0, 0);
	capture_init(&c);
	assert_false(align_topology_check(&t, &c.diag));
	assert_reported(&c, "align.lss", NULL);

	t = topo(512, 4096, 4096, 0, 0);
	capture_init(&c);
	align_topology_check(&t, &c.diag);
	assert_reported(&c, "align.aoff", "not below the physical sector size");
}

static void test_extremes(void **state)
{
	(void)state;
	struct topology t = topo(4096, 4096, 0, 0, 0);
	uint64_t gm = align_grain(&t, true);

	assert_true(align_up(&t, UINT64_MAX - 3, gm) == UINT64_MAX);
	assert_int_equal(align_down(&t, UINT64_MAX, gm), UINT64_MAX - 255);
	assert_true(align_lba_ok(&t, UINT64_MAX - 255, gm));
	/* A grain that is not whole sectors is rounded up to one that is. */
	assert_int_equal(align_up(&t, 1, 1000), 125);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_512n),          cmocka_unit_test(test_512e),
		cmocka_unit_test(test_4kn),           cmocka_unit_test(test_offset_by_one),
		cmocka_unit_test(test_io_opt),        cmocka_unit_test(test_bad_topology),
		cmocka_unit_test(test_extremes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
