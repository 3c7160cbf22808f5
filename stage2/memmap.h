/* SPDX-License-Identifier: BSD-2-Clause */
/* The BIOS memory map (int 15h E820, E801 as the fallback) and placing things in it. */
#ifndef ANYSECTOR_STAGE2_MEMMAP_H
#define ANYSECTOR_STAGE2_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#define MEMMAP_MAX 128
#define E820_RAM 1

struct memmap_entry {
	uint64_t base;
	uint64_t len;
	uint32_t type;
};

struct memmap {
	unsigned count;
	struct memmap_entry e[MEMMAP_MAX];
};

/* Reads the map; prints why and returns false when the BIOS gives none. */
bool memmap_read(struct memmap *m);
/* True when [base, base+len) lies wholly inside usable RAM. */
bool memmap_usable(const struct memmap *m, uint64_t base, uint64_t len);
/* The highest base, aligned to `align`, for `len` bytes of usable RAM inside [lo, hi); 0 when
 * nothing fits. */
uint64_t memmap_place_high(const struct memmap *m, uint64_t len, uint64_t lo, uint64_t hi,
			   uint64_t align);

#endif
