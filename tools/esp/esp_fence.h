/* SPDX-License-Identifier: BSD-2-Clause */
/* Clusters a change frees stay unused until the change is on the disk. mtools allocates from
 * the first free cluster (FAT12/16) or from FSInfo's hint (FAT32), so a file written on the copy
 * after another was deleted or replaced could take the freed clusters. Its contents would then
 * be written over the old file while the disk still names it (esp_order.h's step 1 assumes new
 * contents go to clusters free on the disk): a crash in between would leave neither file.
 * Before each mtools command on the copy, every cluster in use on the disk (S0) and free on the
 * copy is marked bad in each FAT copy, which mtools never allocates; after it they are free
 * again. So every cluster of the change's new contents was free on the disk, whatever the order
 * of the commands; a change that needs the space of what it frees finds the partition full. */
#ifndef ANYSECTOR_TOOLS_ESP_FENCE_H
#define ANYSECTOR_TOOLS_ESP_FENCE_H

#include <stdint.h>

#include "tools/esp/esp_order.h"
#include "tools/esp/esp_session.h"

struct esp_fence {
	uint32_t *c;               /* the clusters marked */
	uint32_t n, cap;
};

/* The FAT entry mtools takes for a bad cluster (FAT12 0xFF7, FAT16 0xFFF7, FAT32 0x0FFFFFF7). */
uint32_t esp_fence_bad(const struct esp_geom *g);
/* Appends to f each cluster that fat0 (S0's active FAT) has in use and the active copy of fats
 * has free. Returns how many. */
uint32_t esp_fence_find(const struct esp_geom *g, const uint8_t *fat0, const uint8_t *fats,
			struct esp_fence *f);
/* Marks in fats (every copy, fats_end - fats bytes) each cluster that fat0 (S0's active FAT)
 * has in use and the active copy of fats has free, and appends it to f. Returns how many. */
uint32_t esp_fence_mark(const struct esp_geom *g, const uint8_t *fat0, uint8_t *fats,
			struct esp_fence *f);
/* Frees in fats every cluster of f that still holds the mark; empties f. */
void esp_fence_clear(const struct esp_geom *g, uint8_t *fats, struct esp_fence *f);
void esp_fence_free(struct esp_fence *f);

/* Around one mtools command on the copy of s (not a mounted or read-only session): the copy's
 * FATs are read through a read-only mapping of the copy (kept until esp_fence_unmap) and only the
 * marked entries written; then freed again. s->fat0 is S0's active FAT (saved by esp_open). Each returns 0 or an AS_* code. */
int esp_fence_up(struct esp_session *s, struct esp_fence *f);
int esp_fence_down(struct esp_session *s, struct esp_fence *f);
/* Drops the mapping of esp_fence_up (esp_close). */
void esp_fence_unmap(struct esp_session *s);

#endif
