/* SPDX-License-Identifier: BSD-2-Clause */
/* Unsigned 64-bit division for stage2, in place of libgcc's: GCC calls these for uint64_t / and %
 * on i386 (the block layer's byte offsets, fmt's numbers). One quotient bit per step: a tenth of
 * libgcc's code, and fast enough for the few divisions stage2 makes per disk request. Built with
 * stage2's flags, so they follow its calling convention. */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	/* After k steps r is at most n's top k bits, so before the last step r < 2^63: no overflow. */
	for (int i = 63; i >= 0; i--) {
		r = r << 1 | (n >> i & 1);
		if (r >= d) {
			r -= d;
			q |= 1ull << i;
		}
	}
	if (rem)
		*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
	return __udivmoddi4(n, d, 0);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	__udivmoddi4(n, d, &r);
	return r;
}
