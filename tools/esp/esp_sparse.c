/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_sparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/fat.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"

#define SPARSE_CHUNK (1u << 20)

static bool bit(const uint8_t *m, uint32_t c)
{
	return m[c / 8] >> (c % 8) & 1;
}

static bool cluster_in_use(const struct esp_sparse *sp, const uint8_t *fat, uint32_t c)
{
	return esp_fat_get(&sp->g, fat, c) != 0;
}

/* Copies [off, off + len) of the partition into fd, leaving zero pieces holes. Returns 0, the
 * read's AS_* code or a positive errno value (the write's). */
static int copy_range(struct esp_sparse *sp, int fd, uint64_t off, uint64_t len, uint8_t *buf)
{
	while (len) {
		size_t n = (size_t)(len < SPARSE_CHUNK ? len : SPARSE_CHUNK);
		int err = bdev_read_bytes(sp->disk, off, buf, n);
		if (err)
			return err < 0 ? err : AS_EIO;
		if (!all_zero(buf, n) && pwrite_full(fd, buf, n, off))
			return errno ? errno : EIO;
		sp->copied += n;
		off += n;
		len -= n;
	}
	return 0;
}

struct dir_queue {
	uint32_t *c;
	size_t n, cap;
};

static int queue_subdir(void *ctx, const struct fat_dirent *e)
{
	struct dir_queue *q = ctx;
	if (!e->file.is_dir || !e->file.first_cluster)
		return 0;
	if (q->n == q->cap)
		q->c = xrealloc(q->c, (q->cap = q->cap ? 2 * q->cap : 64) * sizeof *q->c);
	q->c[q->n++] = e->file.first_cluster;
	return 0;
}

/* Marks the chain of one directory starting at first; AS_ELOOP past the cluster count (the
 * walk's hard bound), AS_ECORRUPT for a link out of range. */
static int mark_chain(struct esp_sparse *sp, uint32_t first)
{
	uint32_t c = first, last = sp->g.clusters + 1;
	uint32_t end = sp->g.type == FAT_TYPE_12 ? 0xFF8u : sp->g.type == FAT_TYPE_16 ? 0xFFF8u
										     : 0x0FFFFFF8u;
	for (uint32_t steps = 0; steps <= sp->g.clusters; steps++) {
		if (c < 2 || c > last)
			return AS_ECORRUPT;
		if (bit(sp->dirs, c))
			return 0; /* met a chain marked already */
		sp->dirs[c / 8] |= (uint8_t)(1u << (c % 8));
		sp->need += sp->g.cluster;
		uint32_t next = esp_fat_get(&sp->g, sp->fat, c);
		if (next >= end)
			return 0;
		c = next;
	}
	return AS_ELOOP;
}

/* Every directory, breadth first from the root: its clusters marked, its subdirectories queued. */
static int mark_dirs(struct esp_sparse *sp, struct fat_fs *fs)
{
	struct dir_queue q = { 0 };
	int err = fs->type == FAT_TYPE_32 ? mark_chain(sp, fs->root_cluster) : 0;

	if (!err)
		err = fat_list(fs, NULL, queue_subdir, &q, NULL);
	for (size_t i = 0; !err && i < q.n; i++) {
		uint32_t c = q.c[i];
		if (c < 2 || c > sp->g.clusters + 1) {
			err = AS_ECORRUPT;
			break;
		}
		if (bit(sp->dirs, c))
			continue; /* a loop in the tree, or ".." */
		if ((err = mark_chain(sp, c)))
			break;
		struct fat_file d = { .first_cluster = c, .is_dir = true, .attr = 0x10 };
		err = fat_list(fs, &d, queue_subdir, &q, NULL);
	}
	free(q.c);
	return err;
}

int esp_sparse_build(struct esp_sparse *sp, struct blockdev *disk, uint32_t lss)
{
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	int err;

	sp->disk = disk;
	if ((err = fat_mount(disk, fs, NULL)))
		goto out;
	esp_geom_of(fs, &sp->g);
	if (sp->g.cluster % lss || sp->g.data % lss || sp->g.fat_bytes > (1ull << 30)) {
		err = AS_ERANGE;
		goto out;
	}
	sp->fat = xmalloc_huge((size_t)sp->g.fat_bytes);
	sp->dirs = xcalloc((size_t)(sp->g.clusters + 2) / 8 + 1, 1);
	sp->need = sp->g.data;
	if (!(err = bdev_read_bytes(disk, sp->g.fats + sp->g.active * sp->g.fat_bytes, sp->fat,
				    (size_t)sp->g.fat_bytes)))
		err = mark_dirs(sp, fs);
out:
	free(fs);
	if (err)
		esp_sparse_free(sp);
	return err;
}

int esp_sparse_copy(struct esp_sparse *sp, int fd)
{
	uint8_t *buf = xmalloc(SPARSE_CHUNK);
	int err = copy_range(sp, fd, 0, sp->g.data, buf);

	for (uint32_t c = 2; !err && c < sp->g.clusters + 2; c++) {
		if (!bit(sp->dirs, c))
			continue;
		uint32_t run = c + 1;
		while (run < sp->g.clusters + 2 && bit(sp->dirs, run))
			run++;
		err = copy_range(sp, fd, sp->g.data + (uint64_t)(c - 2) * sp->g.cluster,
				 (uint64_t)(run - c) * sp->g.cluster, buf);
		c = run;
	}
	free(buf);
	return err;
}

/* Content that stays on the disk only: see esp_sparse_run. */
static bool on_disk(const struct esp_sparse *sp, uint64_t at)
{
	if (at < sp->g.data)
		return false;
	if (at >= sp->g.data_end)
		return true;
	uint32_t c = (uint32_t)((at - sp->g.data) / sp->g.cluster) + 2;
	return cluster_in_use(sp, sp->fat, c) && !bit(sp->dirs, c);
}

/* What the diff does with the sector at byte `at` (esp_sparse_run). */
static enum esp_run_kind run_kind(const struct esp_sparse *sp, const uint8_t *new_fat,
				  uint64_t at)
{
	if (on_disk(sp, at))
		return ESP_RUN_SKIP;
	if (at < sp->g.data)
		return ESP_RUN_COMPARE;
	uint32_t c = (uint32_t)((at - sp->g.data) / sp->g.cluster) + 2;
	if (cluster_in_use(sp, sp->fat, c))
		return ESP_RUN_COMPARE; /* a directory */
	return cluster_in_use(sp, new_fat, c) ? ESP_RUN_NEW : ESP_RUN_SKIP;
}

uint64_t esp_sparse_run(const struct esp_sparse *sp, const uint8_t *new_fat, uint64_t at,
			uint64_t end, enum esp_run_kind *kind)
{
	*kind = run_kind(sp, new_fat, at);
	if (at < sp->g.data)
		return end < sp->g.data ? end : sp->g.data;
	if (at >= sp->g.data_end)
		return end;
	uint64_t next = sp->g.data + ((at - sp->g.data) / sp->g.cluster + 1) * sp->g.cluster;
	while (next < end && next < sp->g.data_end && run_kind(sp, new_fat, next) == *kind)
		next += sp->g.cluster;
	if (next >= sp->g.data_end && *kind == ESP_RUN_SKIP && next < end)
		next = end; /* the slack after the last cluster is skipped too */
	return next < end ? next : end;
}

int esp_sparse_read(const struct esp_sparse *sp, struct blockdev *dev, uint64_t lba,
		    uint32_t count, void *buf)
{
	uint32_t lss = dev->sector_size;
	uint8_t *p = buf;

	while (count) {
		bool from_disk = on_disk(sp, lba * lss);
		uint32_t n = 1;
		while (n < count && on_disk(sp, (lba + n) * lss) == from_disk)
			n++;
		int err = from_disk ? bdev_read(sp->disk, lba, n, p) : sp->read(dev, lba, n, p);
		if (err)
			return err;
		lba += n;
		count -= n;
		p += (size_t)n * lss;
	}
	return 0;
}

void esp_sparse_free(struct esp_sparse *sp)
{
	free(sp->fat);
	free(sp->dirs);
	sp->fat = sp->dirs = NULL;
}
