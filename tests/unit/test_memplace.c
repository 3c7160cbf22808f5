/* SPDX-License-Identifier: BSD-2-Clause */
/* Where the initrds go (common/memplace.c), over memory maps of real machines (memmaps.h: QEMU's
 * pc and q35 at -m 512, 3072 and 8192, E820 from SeaBIOS and UEFI maps from OVMF): the address
 * each loader uses for 64 MiB .. 2 GiB under its limits (stage2: from the end of a kernel at
 * 1 MiB to initrd_addr_max 0x7FFFFFFF; BOOTX64.EFI: anywhere above 1 MiB, below 4 GiB first,
 * or below 2 GiB for a kernel without XLF_CAN_BE_LOADED_ABOVE_4G), the largest block that fits
 * when one does not, every answer checked against an independent search of the map, and
 * hand-made maps with an unusable range laid over RAM, ranges that touch, and ranges that end
 * at 2^64. */
#include "tests/unit/helpers.h"

#include "common/bits.h"
#include "common/memplace.h"
#include "tests/unit/memmaps.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define PAGE 4096ull
#define KERNEL_END (64 * MiB)        /* stage2's lo: a kernel at 1 MiB with its init_size */
#define LIMIT_2G 0x80000000ull        /* initrd_addr_max 0x7FFFFFFF + 1 (Debian's kernels) */
#define NO_LIMIT UINT64_MAX
#define LOW_4G (4 * GiB)              /* where BOOTX64.EFI looks first (efi/memory.c) */

struct map {
	const char *name;
	struct mem_range r[160];
	unsigned n;
};

/* A copy with its usable ranges merged, as both loaders merge them before placing. */
static void load(struct map *m, const char *name, const struct mem_range *r, unsigned n)
{
	assert_true(n <= ARRAY_SIZE(m->r));
	m->name = name;
	for (unsigned i = 0; i < n; i++)
		m->r[i] = r[i];
	m->n = mem_merge_usable(m->r, n);
}

#define LOAD(m, a) load(m, #a, a, ARRAY_SIZE(a))

/* The independent search: every place a block can end (the top of a usable range, or where an
 * unusable range starts inside one) gives one candidate, the highest aligned base below it;
 * the best candidate that mem_fits accepts. */
static uint64_t search(const struct map *m, uint64_t len, uint64_t lo, uint64_t hi)
{
	uint64_t best = 0;

	for (unsigned i = 0; i < m->n; i++) {
		if (!m->r[i].usable)
			continue;
		for (unsigned j = 0; j <= m->n; j++) {
			uint64_t end = m->r[i].base + m->r[i].len;
			uint64_t t = j < m->n ? m->r[j].base : end < m->r[i].base ? UINT64_MAX : end;
			if (j < m->n && m->r[j].usable)
				continue;
			if (t > hi)
				t = hi;
			if (t < len || t - len < lo)
				continue;
			uint64_t at = ALIGN_DOWN(t - len, PAGE);
			if (at >= lo && at > best && mem_fits(m->r, m->n, at, len))
				best = at;
		}
	}
	return best;
}

/* One answer, checked every way: aligned, inside [lo, hi), fits, none higher fits; when it
 * does not fit, largest fits and one byte more does not. */
static uint64_t place(const struct map *m, uint64_t len, uint64_t lo, uint64_t hi)
{
	uint64_t largest = 0, at = mem_place_high(m->r, m->n, len, lo, hi, PAGE, &largest);

	assert_int_equal(at, search(m, len, lo, hi));
	if (at) {
		assert_int_equal(at % PAGE, 0);
		assert_true(at >= lo && at + len <= hi);
		assert_true(mem_fits(m->r, m->n, at, len));
		assert_true(largest >= len);
	} else {
		assert_true(largest < len);
	}
	if (largest) {
		assert_true(mem_place_high(m->r, m->n, largest, lo, hi, PAGE, NULL) != 0);
		assert_int_equal(mem_place_high(m->r, m->n, largest + 1, lo, hi, PAGE, NULL), 0);
	}
	return at;
}

static uint64_t largest_of(const struct map *m, uint64_t lo, uint64_t hi)
{
	uint64_t largest = 0;
	mem_place_high(m->r, m->n, 0, lo, hi, PAGE, &largest);
	return largest;
}

/* BOOTX64.EFI's answer, checked against the search: the highest place below 4 GiB when there is
 * one, else the highest below hi; largest always over [1 MiB, hi); and where it is not the
 * highest place, the highest stays clear of it, free for the EFI stub's own copy. */
static uint64_t place_low_first(const struct map *m, uint64_t len, uint64_t hi)
{
	uint64_t largest = 0;
	uint64_t at = mem_place_low_first(m->r, m->n, len, MiB, LOW_4G, hi, PAGE, &largest);
	uint64_t low = hi < LOW_4G ? hi : LOW_4G;
	uint64_t below = search(m, len, MiB, low), highest = search(m, len, MiB, hi);

	assert_int_equal(at, below ? below : highest);
	assert_int_equal(largest, largest_of(m, MiB, hi));
	if (at != highest)
		assert_true(highest >= at + len || highest + len <= at);
	return at;
}

/* stage2 over SeaBIOS's E820 maps: below 2 GiB, above the kernel; the 3 GiB hole of pc, the
 * reserved top of low RAM and the 2 GiB split of q35 (its RAM above 4 GiB out of reach). */
static void test_e820(void **state)
{
	(void)state;
	struct map m;

	LOAD(&m, e820_pc_512);
	assert_int_equal(place(&m, 64 * MiB, KERNEL_END, LIMIT_2G), 0x1bfe0000);
	assert_int_equal(place(&m, 512 * MiB, KERNEL_END, LIMIT_2G), 0);
	assert_int_equal(largest_of(&m, KERNEL_END, LIMIT_2G), 0x1ffe0000 - KERNEL_END);
	LOAD(&m, e820_pc_3072);
	assert_int_equal(place(&m, 64 * MiB, KERNEL_END, LIMIT_2G), 0x7c000000);
	assert_int_equal(place(&m, GiB, KERNEL_END, LIMIT_2G), 0x40000000);
	assert_int_equal(place(&m, 2 * GiB, KERNEL_END, LIMIT_2G), 0);
	assert_int_equal(largest_of(&m, KERNEL_END, LIMIT_2G), LIMIT_2G - KERNEL_END);
	LOAD(&m, e820_pc_8192);
	assert_int_equal(place(&m, GiB, KERNEL_END, LIMIT_2G), 0x40000000);
	/* with no limit but 4 GiB, the pc's RAM below its 3 GiB hole */
	assert_int_equal(place(&m, GiB, KERNEL_END, 4 * GiB), 0xbffe0000 - GiB);
	LOAD(&m, e820_q35_512);
	assert_int_equal(place(&m, 64 * MiB, KERNEL_END, LIMIT_2G), 0x1bfdf000);
	assert_int_equal(largest_of(&m, KERNEL_END, LIMIT_2G), 0x1ffdf000 - KERNEL_END);
	LOAD(&m, e820_q35_3072);
	assert_int_equal(place(&m, 512 * MiB, KERNEL_END, LIMIT_2G), 0x5ffdf000);
	assert_int_equal(place(&m, GiB, KERNEL_END, LIMIT_2G), 0x3ffdf000);
	LOAD(&m, e820_q35_8192);
	assert_int_equal(place(&m, GiB, KERNEL_END, LIMIT_2G), 0x3ffdf000);
	assert_int_equal(place(&m, 2 * GiB, KERNEL_END, LIMIT_2G), 0);
	assert_int_equal(place(&m, 2 * GiB, KERNEL_END, 4 * GiB), 0);   /* q35 has 2 GiB below */
}

/* The highest place over OVMF's maps, BOOTX64.EFI's when nothing fits below 4 GiB: above
 * 4 GiB wherever the machine has RAM there. */
static void test_uefi(void **state)
{
	(void)state;
	struct map m;

	LOAD(&m, uefi_pc_512);
	assert_int_equal(place(&m, 64 * MiB, MiB, NO_LIMIT), 0x17b75000);
	assert_int_equal(place(&m, 512 * MiB, MiB, NO_LIMIT), 0);
	assert_int_equal(largest_of(&m, MiB, NO_LIMIT), 0x15775000);
	LOAD(&m, uefi_pc_3072);
	assert_int_equal(place(&m, GiB, MiB, NO_LIMIT), 0x40000000);
	assert_int_equal(place(&m, 2 * GiB, MiB, NO_LIMIT), 0);
	LOAD(&m, uefi_pc_8192);
	assert_int_equal(place(&m, GiB, MiB, NO_LIMIT), 0x1ed800000);
	assert_int_equal(place(&m, 2 * GiB, MiB, NO_LIMIT), 0x1ad800000);
	LOAD(&m, uefi_q35_512);
	assert_int_equal(place(&m, 64 * MiB, MiB, NO_LIMIT), 0x17b75000);
	assert_int_equal(largest_of(&m, MiB, NO_LIMIT), 0xdf00000);
	LOAD(&m, uefi_q35_3072);
	/* q35 with 3 GiB keeps 2 GiB below 4 GiB: 1 GiB of initrd fills the RAM above exactly */
	assert_int_equal(place(&m, GiB, MiB, NO_LIMIT), 0x100000000);
	assert_int_equal(place(&m, 512 * MiB, MiB, NO_LIMIT), 0x120000000);
	assert_int_equal(place(&m, 2 * GiB, MiB, NO_LIMIT), 0);
	LOAD(&m, uefi_q35_8192);
	assert_int_equal(place(&m, GiB, MiB, NO_LIMIT), 0x240000000);
	assert_int_equal(place(&m, 2 * GiB, MiB, NO_LIMIT), 0x200000000);
}

/* BOOTX64.EFI over OVMF's maps: below 4 GiB whenever the block fits there (OVMF's disk drivers
 * read above 4 GiB through a bounce buffer), else the highest place, above 4 GiB when the
 * machine has RAM there (docs/DESIGN.md). */
static void test_uefi_low_first(void **state)
{
	(void)state;
	struct map m;

	LOAD(&m, uefi_q35_3072);
	assert_int_equal(place_low_first(&m, 512 * MiB, NO_LIMIT), 0x57c00000);
	/* 1 GiB fits below 4 GiB once; the EFI stub's copy takes the GiB above (docs/DESIGN.md) */
	assert_int_equal(place_low_first(&m, GiB, NO_LIMIT), 0x37c00000);
	assert_int_equal(place_low_first(&m, 2 * GiB, NO_LIMIT), 0);
	LOAD(&m, uefi_q35_8192);
	assert_int_equal(place_low_first(&m, 512 * MiB, NO_LIMIT), 0x5bb75000);
	assert_int_equal(place_low_first(&m, GiB, NO_LIMIT), 0x3bb75000);
	assert_int_equal(place_low_first(&m, 2 * GiB, NO_LIMIT), 0x200000000);
	assert_int_equal(place_low_first(&m, 2 * GiB, LIMIT_2G), 0);
	LOAD(&m, uefi_pc_8192);
	assert_int_equal(place_low_first(&m, GiB, NO_LIMIT), 0x7bb75000);
	assert_int_equal(place_low_first(&m, 2 * GiB, NO_LIMIT), 0x3bb75000);
	LOAD(&m, uefi_pc_3072);
	assert_int_equal(place_low_first(&m, 2 * GiB, NO_LIMIT), 0);
	assert_int_equal(largest_of(&m, MiB, NO_LIMIT), 0x7eb00000);
}

/* A kernel without XLF_CAN_BE_LOADED_ABOVE_4G keeps BOOTX64.EFI's block below its limit. */
static void test_uefi_below_limit(void **state)
{
	(void)state;
	struct map m;

	LOAD(&m, uefi_q35_3072);
	assert_int_equal(place(&m, GiB, MiB, LIMIT_2G), 0x37c00000);
	LOAD(&m, uefi_q35_8192);
	assert_int_equal(place(&m, GiB, MiB, LIMIT_2G), 0x3bb75000);
	assert_int_equal(place(&m, 2 * GiB, MiB, LIMIT_2G), 0);
	LOAD(&m, uefi_pc_8192);
	assert_int_equal(place(&m, 512 * MiB, MiB, LIMIT_2G), 0x60000000);
}

/* Every map, every size from 1 MiB to 8 GiB in steps, both limits: the checks of place() and
 * place_low_first(). */
static void test_all_sizes(void **state)
{
	(void)state;
	static const struct {
		const struct mem_range *r;
		unsigned n;
	} maps[] = {
#define M(a) { a, ARRAY_SIZE(a) }
		M(e820_pc_512), M(e820_pc_3072), M(e820_pc_8192), M(e820_q35_512),
		M(e820_q35_3072), M(e820_q35_8192), M(uefi_pc_512), M(uefi_pc_3072),
		M(uefi_pc_8192), M(uefi_q35_512), M(uefi_q35_3072), M(uefi_q35_8192),
#undef M
	};
	struct map m;

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++) {
		load(&m, "", maps[i].r, maps[i].n);
		for (uint64_t len = MiB; len <= 8 * GiB; len = len * 3 / 2 + PAGE + 1) {
			place(&m, len, KERNEL_END, LIMIT_2G);
			place(&m, len, MiB, NO_LIMIT);
			place_low_first(&m, len, NO_LIMIT);
			place_low_first(&m, len, LIMIT_2G);
		}
	}
}

/* Hand-made: a reserved range laid over RAM splits it; the block goes above it when it fits
 * there, else below; one that spans the reserved range is refused. Ranges that touch merge
 * (E801's split at 16 MiB); a range that ends at 2^64 does not wrap. */
static void test_holes(void **state)
{
	(void)state;
	static const struct mem_range over[] = {
		{ 0x100000, 4 * GiB - 0x100000, true }, { 3 * GiB, MiB, false },
	};
	static const struct mem_range touching[] = {
		{ 0x100000, 15 * MiB, true }, { 16 * MiB, 48 * MiB, true },
	};
	static const struct mem_range top[] = {
		{ UINT64_MAX - GiB + 1, GiB, true }, { 0x100000, 16 * MiB, true },
	};
	struct map m;

	LOAD(&m, over);
	assert_int_equal(place(&m, 512 * MiB, MiB, NO_LIMIT), 3 * GiB + 512 * MiB);
	assert_int_equal(place(&m, GiB, MiB, NO_LIMIT), 2 * GiB);
	assert_false(mem_fits(m.r, m.n, 3 * GiB - MiB, 2 * MiB));
	assert_int_equal(largest_of(&m, MiB, NO_LIMIT), 3 * GiB - MiB);
	LOAD(&m, touching);
	assert_int_equal(m.n, 1);
	assert_int_equal(place(&m, 60 * MiB, MiB, NO_LIMIT), 4 * MiB);
	LOAD(&m, top);
	assert_int_equal(place(&m, GiB - PAGE, MiB, NO_LIMIT), UINT64_MAX - GiB + 1);
	assert_int_equal(place(&m, 8 * MiB, MiB, 4 * GiB), 9 * MiB);
	assert_false(mem_fits(m.r, m.n, UINT64_MAX - PAGE, 2 * PAGE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_e820),
		cmocka_unit_test(test_uefi),
		cmocka_unit_test(test_uefi_low_first),
		cmocka_unit_test(test_uefi_below_limit),
		cmocka_unit_test(test_all_sizes),
		cmocka_unit_test(test_holes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
