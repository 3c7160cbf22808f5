/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_fence.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/esp/esp_read.h"

uint32_t esp_fence_bad(const struct esp_geom *g)
{
	return g->type == FAT_TYPE_12 ? 0xFF7u : g->type == FAT_TYPE_16 ? 0xFFF7u : 0x0FFFFFF7u;
}

uint32_t esp_fence_mark(const struct esp_geom *g, const uint8_t *fat0, uint8_t *fats,
			struct esp_fence *f)
{
	const uint8_t *active = fats + (uint64_t)g->active * g->fat_bytes;
	uint32_t bad = esp_fence_bad(g), n = 0;

	for (uint32_t i = 2; i < g->clusters + 2; i++) {
		if (!esp_fat_get(g, fat0, i) || esp_fat_get(g, active, i))
			continue;
		for (uint32_t k = 0; k < g->num_fats; k++)
			esp_fat_set(g, fats + (uint64_t)k * g->fat_bytes, i, bad);
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 64;
			f->c = xrealloc(f->c, f->cap * sizeof *f->c);
		}
		f->c[f->n++] = i;
		n++;
	}
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

/* The copy's geometry and every FAT copy of it (malloc'd into *fats), and the copy opened for
 * writing (*fd; the session reads it through a read-only descriptor). Returns 0 or an AS_*
 * code. */
static int read_fats(struct esp_session *s, struct esp_geom *g, uint8_t **fats, int *fd)
{
	int rc = esp_remount(s);

	*fats = NULL;
	*fd = -1;
	if (rc)
		return rc;
	esp_geom_of(s->fs, g);
	if (g->fats_end - g->fats > (1ull << 30) || g->fat_bytes != s->fat0_len)
		return AS_ECORRUPT;
	*fats = xmalloc((size_t)(g->fats_end - g->fats));
	*fd = open(s->path, O_RDWR | O_CLOEXEC);
	if (*fd < 0 || pread_full(*fd, *fats, (size_t)(g->fats_end - g->fats), g->fats)) {
		free(*fats);
		*fats = NULL;
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return AS_EIO;
	}
	return 0;
}

/* Writes the FATs back and closes fd. Returns 0 or AS_EIO. */
static int write_fats(const struct esp_geom *g, const uint8_t *fats, int fd)
{
	int rc = pwrite_full(fd, fats, (size_t)(g->fats_end - g->fats), g->fats) ? AS_EIO : 0;
	if (close(fd))
		rc = AS_EIO;
	return rc;
}

int esp_fence_up(struct esp_session *s, struct esp_fence *f)
{
	struct esp_geom g;
	uint8_t *fats;
	int rc, fd;

	if (s->mounted || s->view || !s->fat0)
		return 0;
	if ((rc = read_fats(s, &g, &fats, &fd)))
		return rc;
	if (esp_fence_mark(&g, s->fat0, fats, f))
		rc = write_fats(&g, fats, fd);
	else
		close(fd);
	free(fats);
	return rc;
}

int esp_fence_down(struct esp_session *s, struct esp_fence *f)
{
	struct esp_geom g;
	uint8_t *fats;
	int rc, fd;

	if (!f->n)
		return 0;
	if ((rc = read_fats(s, &g, &fats, &fd)))
		return rc;
	esp_fence_clear(&g, fats, f);
	rc = write_fats(&g, fats, fd);
	free(fats);
	return rc;
}
