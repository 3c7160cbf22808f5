/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_chains.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/util.h"
#include "tools/esp/esp_order.h"

/* --- the chains mtools will build on ---
 *
 * mtools trusts the FAT it is handed: where a file's chain runs into a free cluster, or into
 * another file's, it hands those clusters out again and cross-links the new files with the
 * old. So before anything is planned, every chain reachable from the root must end properly,
 * use only clusters no other chain uses, and be long enough for its file's size. Clusters in
 * use that no file reaches (lost clusters, as an interrupted install leaves them) and a stale
 * FSInfo count are harmless and not reported. */

#define ESP_CHECK_MAX_DEPTH 32

struct chain_check {
	struct fat_fs *fs;
	struct esp_geom g;
	const uint8_t *fat;      /* the active FAT */
	uint8_t *used;           /* a bit per cluster reached so far */
	char path[FAT_PATH_MAX * 2];
	unsigned depth;
	char problem[1200];
};

/* Walks one chain: whether it is whole (else c->problem says why). */
static bool chain_whole(struct chain_check *c, uint32_t first, uint64_t size, bool is_dir)
{
	uint32_t bad = c->g.type == FAT_TYPE_12 ? 0xFF7 : c->g.type == FAT_TYPE_16 ? 0xFFF7
										      : 0x0FFFFFF7;
	uint64_t n = 0;
	uint32_t cl = first;

	for (;;) {
		if (cl < 2 || cl - 2 >= c->fs->clusters) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: its chain reaches cluster %u, outside 2..%u", c->path, cl,
				 c->fs->clusters + 1);
			return false;
		}
		if (c->used[cl / 8] & (1u << (cl % 8))) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: cluster %u of its chain belongs to another file or directory "
				 "(cross-linked)", c->path, cl);
			return false;
		}
		c->used[cl / 8] |= (uint8_t)(1u << (cl % 8));
		n++;
		uint32_t v = esp_fat_get(&c->g, c->fat, cl);
		if (v > bad)
			break;
		if (v == 0 || v == bad) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: cluster %u of its chain points to %s", c->path, cl,
				 v ? "a bad-cluster mark" : "a free cluster");
			return false;
		}
		cl = v;
	}
	if (!is_dir && n * c->g.cluster < size) {
		snprintf(c->problem, sizeof c->problem,
			 "%s: %llu bytes long, but its chain of %llu clusters holds %llu",
			 c->path, (unsigned long long)size, (unsigned long long)n,
			 (unsigned long long)(n * c->g.cluster));
		return false;
	}
	return true;
}

static int check_entry(void *ctx, const struct fat_dirent *e)
{
	struct chain_check *c = ctx;
	size_t len = strlen(c->path);
	int rc = 0;

	snprintf(c->path + len, sizeof c->path - len, "%s%s", len > 1 ? "/" : "", e->name);
	if (e->file.first_cluster &&
	    !chain_whole(c, e->file.first_cluster, e->file.size, e->file.is_dir))
		rc = AS_ECORRUPT;
	else if (e->file.is_dir && e->file.first_cluster) {
		if (++c->depth > ESP_CHECK_MAX_DEPTH) {
			snprintf(c->problem, sizeof c->problem, "%s: directories nest deeper than %u",
				 c->path, ESP_CHECK_MAX_DEPTH);
			rc = AS_ECORRUPT;
		} else {
			int err = fat_list(c->fs, &e->file, check_entry, c, NULL);
			if (err && !c->problem[0])
				snprintf(c->problem, sizeof c->problem,
					 "%s: the directory cannot be read (%s)", c->path,
					 as_strerror(err));
			rc = err ? AS_ECORRUPT : 0;
		}
		c->depth--;
	}
	c->path[len] = 0;
	return rc;
}

int esp_chain_problem(struct fat_fs *fs, struct blockdev *dev, const uint8_t *fat,
		      char *problem, size_t cap)
{
	struct chain_check c;
	uint8_t *own = NULL;
	int rc = 0;

	memset(&c, 0, sizeof c);
	c.fs = fs;
	esp_geom_of(fs, &c.g);
	c.fat = fat ? fat : (own = xmalloc_huge((size_t)c.g.fat_bytes));
	c.used = xcalloc(1, DIV_ROUND_UP((size_t)fs->clusters + 2, 8));
	snprintf(c.path, sizeof c.path, "/");
	if (own && bdev_read_bytes(dev, fs->fat_offset, own, (size_t)c.g.fat_bytes)) {
		rc = AS_EIO;
		goto out;
	}
	struct fat_file root;
	if (fat_open(fs, "/", &root, NULL)) {
		snprintf(c.problem, sizeof c.problem, "the root directory cannot be opened");
	} else if (fs->type == FAT_TYPE_32 && !chain_whole(&c, fs->root_cluster, 0, true)) {
		/* problem set */
	} else {
		struct report q;
		report_init(&q, false);
		int err = fat_list(fs, &root, check_entry, &c, &q.diag);
		if (err && !c.problem[0]) {
			const struct report_item *it = report_first(&q, DIAG_ERROR);
			snprintf(c.problem, sizeof c.problem, "%.500s",
				 it ? it->msg : "a directory cannot be read");
		}
		report_free(&q);
	}
	if (c.problem[0]) {
		snprintf(problem, cap, "%s", c.problem);
		rc = AS_ECORRUPT;
	}
out:
	free(own);
	free(c.used);
	return rc;
}
