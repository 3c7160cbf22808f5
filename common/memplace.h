/* SPDX-License-Identifier: BSD-2-Clause */
/* Where a block (the initrds) goes in a memory map: the one rule both loaders follow, stage2
 * over the BIOS's E820 map, BOOTX64.EFI over the firmware's UEFI map. A map is a list of ranges,
 * each usable RAM or not (reserved, ACPI, a firmware's own, in use); ranges need not be sorted.
 * A block must lie wholly inside one usable range and overlap no unusable one, so it goes around
 * the holes between ranges and any unusable range laid over RAM. */
#ifndef ANYSECTOR_MEMPLACE_H
#define ANYSECTOR_MEMPLACE_H

#include <stdbool.h>
#include <stdint.h>

struct mem_range {
	uint64_t base;
	uint64_t len;
	bool usable;
};

/* Merges usable ranges that touch or overlap (a firmware may list one stretch of RAM as
 * several), in place; returns the new count. */
unsigned mem_merge_usable(struct mem_range *r, unsigned n);

/* True when [base, base+len) lies wholly inside one usable range and overlaps no unusable one. */
bool mem_fits(const struct mem_range *r, unsigned n, uint64_t base, uint64_t len);

/* The highest base, a multiple of align (a power of two), for len bytes that fit (mem_fits)
 * inside [lo, hi); 0 when there is none (lo > 0: no block is placed at 0). *largest, when not
 * NULL, gets the largest len that would fit inside [lo, hi), so a refusal can name it. */
uint64_t mem_place_high(const struct mem_range *r, unsigned n, uint64_t len, uint64_t lo,
			uint64_t hi, uint64_t align, uint64_t *largest);

/* mem_place_high below `low` when the block fits there, else below hi: BOOTX64.EFI's rule
 * (docs/DESIGN.md "Where the initrds go"), low being the highest address the firmware's disk
 * controllers write to without a bounce buffer. Whenever the block goes below low although
 * mem_place_high would have put it higher, that higher place stays free for the EFI stub's own
 * copy of it. *largest, when not NULL, is for [lo, hi), as mem_place_high's. */
uint64_t mem_place_low_first(const struct mem_range *r, unsigned n, uint64_t len, uint64_t lo,
			     uint64_t low, uint64_t hi, uint64_t align, uint64_t *largest);

#endif
