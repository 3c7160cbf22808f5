/* SPDX-License-Identifier: BSD-2-Clause */
/* common/mem.c, the freestanding memcpy/memset of stage2 and BOOTX64.EFI, built here under other
 * names (the host's own come from libc): every length and misalignment around the machine word,
 * against a byte-at-a-time reference, with guard bytes that must stay untouched. */
#include "tests/unit/helpers.h"

#include <stdint.h>
#include <string.h>

#include "common/bits.h"

#define memcpy fs_memcpy
#define memmove fs_memmove
#define memset fs_memset
#define memcmp fs_memcmp
#include "common/mem.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp

#define AREA 96
#define GUARD 0xA5

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + 1);
}

static void test_memcpy_lengths_and_alignments(void **state)
{
	(void)state;
	uint8_t src[AREA], dst[AREA], want[AREA];

	for (size_t so = 0; so < 8; so++)
		for (size_t dof = 0; dof < 8; dof++)
			for (size_t n = 0; n + so < 48 && n + dof < 48; n++) {
				fill_pattern(src, sizeof src, (unsigned)(so + n));
				memset(dst, GUARD, sizeof dst);
				memset(want, GUARD, sizeof want);
				for (size_t i = 0; i < n; i++)
					want[dof + i] = src[so + i];
				void *r = fs_memcpy(dst + dof, src + so, n);
				assert_ptr_equal(r, dst + dof);
				assert_memory_equal(dst, want, sizeof dst);
			}
}

static void test_memset_lengths_and_alignments(void **state)
{
	(void)state;
	uint8_t dst[AREA], want[AREA];
	static const int values[] = { 0, 0x5A, 0xFF, 0x1234 /* only the low byte counts */ };

	for (size_t v = 0; v < ARRAY_SIZE(values); v++)
		for (size_t dof = 0; dof < 8; dof++)
			for (size_t n = 0; n + dof < 48; n++) {
				memset(dst, GUARD, sizeof dst);
				memset(want, GUARD, sizeof want);
				for (size_t i = 0; i < n; i++)
					want[dof + i] = (uint8_t)values[v];
				void *r = fs_memset(dst + dof, values[v], n);
				assert_ptr_equal(r, dst + dof);
				assert_memory_equal(dst, want, sizeof dst);
			}
}

/* A large copy, as stage2 makes out of its bounce buffer: every byte lands. */
static void test_memcpy_large(void **state)
{
	(void)state;
	enum { N = 65536 + 13 };
	static uint8_t src[N + 8], dst[N + 8];

	fill_pattern(src, sizeof src, 7);
	memset(dst, GUARD, sizeof dst);
	fs_memcpy(dst + 3, src + 1, N);
	assert_memory_equal(dst + 3, src + 1, N);
	assert_int_equal(dst[2], GUARD);
	assert_int_equal(dst[N + 3], GUARD);
}

static void test_memmove_and_memcmp(void **state)
{
	(void)state;
	uint8_t b[32];

	fill_pattern(b, sizeof b, 3);
	uint8_t want[32];
	memcpy(want, b, sizeof b);
	memmove(want + 4, want, 20);
	fs_memmove(b + 4, b, 20);
	assert_memory_equal(b, want, sizeof b);
	assert_int_equal(fs_memcmp("abc", "abc", 3), 0);
	assert_true(fs_memcmp("abc", "abd", 3) < 0);
	assert_true(fs_memcmp("\xff", "\x01", 1) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memcpy_lengths_and_alignments),
		cmocka_unit_test(test_memset_lengths_and_alignments),
		cmocka_unit_test(test_memcpy_large),
		cmocka_unit_test(test_memmove_and_memcmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
