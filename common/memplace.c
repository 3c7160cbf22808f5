/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/memplace.h"

#include <stddef.h>

#include "common/bits.h"

static __attribute__((noinline)) uint64_t end_of(const struct mem_range *e)
{
	return e->base + e->len < e->base ? UINT64_MAX : e->base + e->len;
}

unsigned mem_merge_usable(struct mem_range *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct mem_range *a = &r[i];
		if (!a->usable)
			continue;
		for (unsigned j = i + 1; j < n; j++) {
			struct mem_range *b = &r[j];
			if (!b->usable || b->base > end_of(a) || a->base > end_of(b))
				continue;
			uint64_t end = end_of(a) > end_of(b) ? end_of(a) : end_of(b);
			a->base = a->base < b->base ? a->base : b->base;
			a->len = end - a->base;
			*b = r[--n];
			j = i;          /* a grew: look at every other range again */
		}
	}
	return n;
}

bool mem_fits(const struct mem_range *r, unsigned n, uint64_t base, uint64_t len)
{
	bool inside = false;

	if (!len || base + len < base)
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (r[i].usable)
			inside |= base >= r[i].base && base + len <= end_of(&r[i]);
		else if (base < end_of(&r[i]) && r[i].base < base + len)
			return false;
	}
	return inside;
}

/* The highest stretch [*a, b) of [s, e) that no unusable range overlaps; false when there is
 * none. Each unusable range can lower b once, so the walk is bounded by n passes. */
static bool free_top(const struct mem_range *r, unsigned n, uint64_t s, uint64_t e, uint64_t *a,
		     uint64_t *b)
{
	uint64_t top = e;

	for (unsigned pass = 0; pass <= n; pass++) {
		bool moved = false;
		for (unsigned i = 0; i < n; i++) {
			if (!r[i].usable && r[i].len && r[i].base < top && end_of(&r[i]) >= top) {
				top = r[i].base;   /* it covers the top: go below it */
				moved = true;
			}
		}
		if (!moved)
			break;
	}
	if (top <= s)
		return false;
	uint64_t bottom = s;
	for (unsigned i = 0; i < n; i++)
		if (!r[i].usable && r[i].len && end_of(&r[i]) < top && end_of(&r[i]) > bottom)
			bottom = end_of(&r[i]);
	*a = bottom;
	*b = top;
	return true;
}

uint64_t mem_place_high(const struct mem_range *r, unsigned n, uint64_t len, uint64_t lo,
			uint64_t hi, uint64_t align, uint64_t *largest)
{
	uint64_t best = 0, most = 0;

	if (!lo)
		lo = align;
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = r[i].base > lo ? r[i].base : lo;
		uint64_t e = end_of(&r[i]) < hi ? end_of(&r[i]) : hi;
		uint64_t a, b;
		/* every stretch of this range between unusable ranges, from the top down */
		for (unsigned k = 0; r[i].usable && k <= n && e > s && free_top(r, n, s, e, &a, &b);
		     k++, e = a) {
			uint64_t first = ALIGN_UP(a, align);
			if (first < a || first >= b)
				continue;
			if (b - first > most)
				most = b - first;
			if (len && b - first >= len && ALIGN_DOWN(b - len, align) > best)
				best = ALIGN_DOWN(b - len, align);
		}
	}
	if (largest)
		*largest = most;
	return best;
}

uint64_t mem_place_low_first(const struct mem_range *r, unsigned n, uint64_t len, uint64_t lo,
			     uint64_t low, uint64_t hi, uint64_t align, uint64_t *largest)
{
	uint64_t wide = mem_place_high(r, n, len, lo, hi, align, largest);
	uint64_t at = wide && low < hi ? mem_place_high(r, n, len, lo, low, align, NULL) : 0;

	/* the EFI stub puts its own copy wherever the firmware finds room, above 4 GiB too: when
	 * `wide` lies above low, that copy fits there, clear of ours, since no x86 machine has RAM
	 * just below 4 GiB (docs/DESIGN.md "Where the initrds go") */
	return at ? at : wide;
}
