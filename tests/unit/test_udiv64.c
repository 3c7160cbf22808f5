/* SPDX-License-Identifier: BSD-2-Clause */
/* stage2/udiv64.c, stage2's own 64-bit division (GCC's helpers for uint64_t / and % on i386),
 * built here under other names: quotient and remainder against the host's division for the
 * edges (0, 1, powers of two, 2^32, numbers and divisors above 2^63)
 * and a million pseudo-random pairs of every magnitude. */
#include "tests/unit/helpers.h"

#include <stdint.h>

#define __udivmoddi4 s2_udivmoddi4
#define __udivdi3 s2_udivdi3
#define __umoddi3 s2_umoddi3
#include "stage2/udiv64.c"
#include "common/bits.h"
#undef __udivmoddi4
#undef __udivdi3
#undef __umoddi3

static const uint64_t edges[] = {
	0, 1, 2, 3, 7, 10, 512, 4096, 0xFFFFFFFFull, 0x100000000ull, 0x100000001ull,
	0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xFFFFFFFFFFFFFFFEull, 0xFFFFFFFFFFFFFFFFull, 12345678901234567ull,
};

static void check(uint64_t n, uint64_t d)
{
	uint64_t r = ~n;

	assert_int_equal(s2_udivmoddi4(n, d, &r), n / d);
	assert_int_equal(r, n % d);
	assert_int_equal(s2_udivdi3(n, d), n / d);
	assert_int_equal(s2_umoddi3(n, d), n % d);
}

static void test_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(edges); i++)
		for (size_t j = 0; j < ARRAY_SIZE(edges); j++)
			if (edges[j])
				check(edges[i], edges[j]);
}

static void test_random(void **state)
{
	(void)state;
	uint64_t x = 0x9E3779B97F4A7C15ull;

	for (int k = 0; k < 1000000; k++) {
		/* xorshift64; the divisor shifted down by 0..63 bits covers every magnitude */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t n = x;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t d = x >> (n % 64);
		if (d)
			check(n, d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
