/* SPDX-License-Identifier: BSD-2-Clause */
/* The host's fast CRC-32 (tools/base/crc32_fast.c) gives common/crc32.c's results: the check
 * value, every length 0..80 at every start offset 0..7 (the eight-byte steps, the tail, unaligned
 * loads), a CRC fed in pieces, two CRCs combined into the CRC of both pieces, and the CRC of
 * zero bytes not read; the folding path (PCLMULQDQ) and the tables agree on every length
 * 0..400 at every offset 0..15 (one 64-byte block, more, the 16-byte folds, the table's tail). */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/bits.h"
#include "common/crc32.h"
#include "tools/base/crc32_fast.h"

static void test_vectors(void **state)
{
	(void)state;
	assert_int_equal(crc32_fast("123456789", 9), 0xCBF43926u);
	assert_int_equal(crc32_fast("", 0), 0);
	assert_int_equal(crc32_fast("a", 1), 0xE8B7BE43u);
}

static void test_same_as_common(void **state)
{
	(void)state;
	uint8_t buf[96];
	uint32_t x = 0x12345678;

	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; off + len <= 88; len++)
			assert_int_equal(crc32_fast(buf + off, len), crc32(buf + off, len));
	/* in pieces, each cut anywhere */
	for (size_t cut = 0; cut <= sizeof buf; cut++) {
		uint32_t c = crc32_fast_update(0, buf, cut);
		assert_int_equal(crc32_fast_update(c, buf + cut, sizeof buf - cut),
				 crc32(buf, sizeof buf));
	}
}

static void test_folding_same_as_tables(void **state)
{
	(void)state;
	static uint8_t buf[4096 + 16];
	uint32_t x = 0x5EED1234;

	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len <= 400; len++) {
			uint32_t want = crc32(buf + off, len);
			assert_int_equal(crc32_fast_portable_update(0, buf + off, len), want);
			assert_int_equal(crc32_fast(buf + off, len), want);
			/* carried in from an earlier piece */
			assert_int_equal(crc32_fast_update(0xDEADBEEFu, buf + off, len),
					 crc32_fast_portable_update(0xDEADBEEFu, buf + off, len));
		}
	assert_int_equal(crc32_fast(buf, 4096), crc32(buf, 4096));
}

static void test_combine(void **state)
{
	(void)state;
	static uint8_t buf[70000];
	uint32_t x = 0xCAFEF00D;

	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	uint32_t whole = crc32_fast(buf, sizeof buf);
	static const size_t cuts[] = { 0, 1, 7, 8, 32, 33, 4096, 65536, 69999, 70000 };
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
		size_t c = cuts[i];
		assert_int_equal(crc32_fast_combine(crc32_fast(buf, c), crc32_fast(buf + c, sizeof buf - c),
						    sizeof buf - c),
				 whole);
	}
	/* a long zero piece, as a backup of free clusters holds */
	static uint8_t zero[1u << 16];
	uint32_t c = crc32_fast(buf, 100);
	for (int k = 0; k < 64; k++)
		c = crc32_fast_update(c, zero, sizeof zero);
	assert_int_equal(crc32_fast_combine(crc32_fast(buf, 100), crc32_fast_update(0, zero, 0),
					    0), crc32_fast(buf, 100));
	uint32_t z = 0;
	for (int k = 0; k < 64; k++)
		z = crc32_fast_update(z, zero, sizeof zero);
	assert_int_equal(crc32_fast_combine(crc32_fast(buf, 100), z, 64u * sizeof zero), c);
	/* zeros without reading them */
	assert_int_equal(crc32_fast_zeros(crc32_fast(buf, 100), 64u * sizeof zero), c);
	assert_int_equal(crc32_fast_zeros(0, 64u * sizeof zero), z);
	for (size_t n = 0; n < 70; n++)
		assert_int_equal(crc32_fast_zeros(crc32_fast(buf, 5), n),
				 crc32_fast_update(crc32_fast(buf, 5), zero, n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_same_as_common),
		cmocka_unit_test(test_folding_same_as_tables),
		cmocka_unit_test(test_combine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
