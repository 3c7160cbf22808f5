/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_fence.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/esp/esp_read.h"

uint32_t esp_fence_bad(const struct esp_geom *g)
{
	return g->type == FAT_TYPE_12 ? 0xFF7u : g->type == FAT_TYPE_16 ? 0xFFF7u : 0x0FFFFFF7u;
}

/* Where entry i starts in a FAT (its byte; FAT12: the byte holding its low bits). From a
 * multiple of 16, 16 entries fill whole bytes (FAT12: 24), so a run of bytes that is the same
 * in two FATs holds the same 16 entries. */
static uint64_t block_start(const struct esp_geom *g, uint32_t i)
{
	return g->type == FAT_TYPE_12 ? (uint64_t)i * 3 / 2 :
	       g->type == FAT_TYPE_16 ? (uint64_t)i * 2 : (uint64_t)i * 4;
}

static void fence_add(struct esp_fence *f, uint32_t c)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->c = xrealloc(f->c, f->cap * sizeof *f->c);
	}
	f->c[f->n++] = c;
}

uint32_t esp_fence_find(const struct esp_geom *g, const uint8_t *fat0, const uint8_t *fats,
			struct esp_fence *f)
{
	const uint8_t *active = fats + (uint64_t)g->active * g->fat_bytes;
	uint32_t n = 0, end = g->clusters + 2;

	/* Nearly every entry is the same on both sides: those runs are compared, not walked (a
	 * 4 GiB FAT32 has a million entries, and this runs around every mtools command). */
	for (uint32_t b = 0; b < end; b += 16) {
		uint64_t lo = block_start(g, b), hi = block_start(g, b + 16);
		if (lo >= g->fat_bytes)
			break;
		if (hi > g->fat_bytes)
			hi = g->fat_bytes;
		if (!memcmp(fat0 + lo, active + lo, (size_t)(hi - lo)))
			continue;
		for (uint32_t i = b < 2 ? 2 : b; i < b + 16 && i < end; i++) {
			if (esp_fat_get(g, fat0, i) && !esp_fat_get(g, active, i)) {
				fence_add(f, i);
				n++;
			}
		}
	}
	return n;
}

uint32_t esp_fence_mark(const struct esp_geom *g, const uint8_t *fat0, uint8_t *fats,
			struct esp_fence *f)
{
	uint32_t from = f->n, n = esp_fence_find(g, fat0, fats, f), bad = esp_fence_bad(g);

	for (uint32_t j = from; j < f->n; j++)
		for (uint32_t k = 0; k < g->num_fats; k++)
			esp_fat_set(g, fats + (uint64_t)k * g->fat_bytes, f->c[j], bad);
	return n;
}

void esp_fence_clear(const struct esp_geom *g, uint8_t *fats, struct esp_fence *f)
{
	uint32_t bad = esp_fence_bad(g);

	for (uint32_t j = 0; j < f->n; j++)
		for (uint32_t k = 0; k < g->num_fats; k++) {
			uint8_t *fat = fats + (uint64_t)k * g->fat_bytes;
			if (esp_fat_get(g, fat, f->c[j]) == bad)
				esp_fat_set(g, fat, f->c[j], 0);
		}
	f->n = 0;
}

void esp_fence_free(struct esp_fence *f)
{
	free(f->c);
	f->c = NULL;
	f->n = f->cap = 0;
}

/* The copy's geometry, and its FATs (*fats, fats_end - fats bytes) through a read-only shared
 * mapping of the copy kept for the session: what mtools wrote is there without reading or
 * copying the FATs whole. Returns 0 or an AS_* code. */
static int map_fats(struct esp_session *s, struct esp_geom *g, const uint8_t **fats)
{
	int rc = esp_remount(s);

	*fats = NULL;
	if (rc)
		return rc;
	esp_geom_of(s->fs, g);
	if (g->fats_end - g->fats > (1ull << 30) || g->fat_bytes != s->fat0_len)
		return AS_ECORRUPT;
	if (!s->fats_map) {
		void *m = mmap(NULL, (size_t)g->fats_end, PROT_READ, MAP_SHARED, s->img.fd, 0);
		if (m == MAP_FAILED)
			return AS_EIO;
		s->fats_map = m;
		s->fats_map_len = g->fats_end;
	}
	if (g->fats_end > s->fats_map_len)
		return AS_ECORRUPT;
	*fats = s->fats_map + g->fats;
	return 0;
}

/* Sets entry i to v in every FAT copy of the copy's file (fd) (clear: to 0, in the copies where
 * it holds the mark), through pwrite of the entry's bytes: a write the filesystem can refuse,
 * where a store into the mapping would be a SIGBUS. fats: the FATs as they are now. Returns 0
 * or AS_EIO. */
static int set_entry(int fd, const struct esp_geom *g, const uint8_t *fats, uint32_t i,
		     bool clear)
{
	/* entry i as entry i % 2 of a window of the few bytes it shares (FAT12 packs two
	 * entries in three bytes) */
	struct esp_geom w = *g;
	uint32_t j = g->type == FAT_TYPE_12 ? i % 2 : 0;
	uint64_t at = block_start(g, i) - block_start(g, j);
	uint8_t b[4];

	w.fat_bytes = g->type == FAT_TYPE_12 ? 3 : g->type == FAT_TYPE_16 ? 2 : 4;
	if (block_start(g, i) + (g->type == FAT_TYPE_32 ? 4 : 2) > g->fat_bytes)
		return 0; /* esp_fat_set's rule: past the end, nothing */
	for (uint32_t k = 0; k < g->num_fats; k++) {
		const uint8_t *fat = fats + (uint64_t)k * g->fat_bytes;
		if (clear && esp_fat_get(g, fat, i) != esp_fence_bad(g))
			continue;
		uint32_t n = (uint32_t)(at + w.fat_bytes <= g->fat_bytes ? w.fat_bytes
									 : g->fat_bytes - at);
		memset(b, 0, sizeof b);
		memcpy(b, fat + at, n);
		esp_fat_set(&w, b, j, clear ? 0 : esp_fence_bad(g));
		if (pwrite_full(fd, b, n, (off_t)(g->fats + (uint64_t)k * g->fat_bytes + at)))
			return AS_EIO;
	}
	return 0;
}

/* The clusters of f marked in the copy, or (clear) freed where they still hold the mark. */
static int write_marks(struct esp_session *s, const struct esp_geom *g, const uint8_t *fats,
		       const struct esp_fence *f, bool clear)
{
	int fd = open(s->path, O_RDWR | O_CLOEXEC), rc = fd < 0 ? AS_EIO : 0;

	for (uint32_t j = 0; !rc && j < f->n; j++)
		rc = set_entry(fd, g, fats, f->c[j], clear);
	if (fd >= 0 && close(fd))
		rc = AS_EIO;
	return rc;
}

int esp_fence_up(struct esp_session *s, struct esp_fence *f)
{
	struct esp_geom g;
	const uint8_t *fats;
	int rc;

	if (s->mounted || s->view || !s->fat0)
		return 0;
	if ((rc = map_fats(s, &g, &fats)))
		return rc;
	if (!esp_fence_find(&g, s->fat0, fats, f))
		return 0;
	return write_marks(s, &g, fats, f, false);
}

int esp_fence_down(struct esp_session *s, struct esp_fence *f)
{
	struct esp_geom g;
	const uint8_t *fats;
	int rc;

	if (!f->n)
		return 0;
	if ((rc = map_fats(s, &g, &fats)))
		return rc;
	rc = write_marks(s, &g, fats, f, true);
	f->n = 0;
	return rc;
}

void esp_fence_unmap(struct esp_session *s)
{
	if (s->fats_map)
		munmap((void *)(uintptr_t)s->fats_map, (size_t)s->fats_map_len);
	s->fats_map = NULL;
	s->fats_map_len = 0;
}
