/* SPDX-License-Identifier: BSD-2-Clause */
/* The BIOS memory map (int 15h E820, E801 as the fallback) and placing things in it. */
#ifndef ANYSECTOR_STAGE2_MEMMAP_H
#define ANYSECTOR_STAGE2_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/memplace.h"

#define MEMMAP_MAX 128
#define E820_RAM 1

/* Placing things in it is common/memplace.h's rule. */
struct memmap {
	unsigned count;
	struct mem_range e[MEMMAP_MAX];
};

/* Reads the map; prints why and returns false when the BIOS gives none. */
bool memmap_read(struct memmap *m);

#endif
