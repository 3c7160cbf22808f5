/* SPDX-License-Identifier: BSD-2-Clause */
/* The host's fast CRC-32 (tools/base/crc32_fast.c) gives common/crc32.c's results: the check
 * value, every length 0..80 at every start offset 0..7 (the eight-byte steps, the tail, unaligned
 * loads), and a CRC fed in pieces. */
#include "tests/unit/helpers.h"

#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_same_as_common),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
