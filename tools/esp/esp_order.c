/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "tools/base/util.h"

static const char *const role_what[SECTOR_NONE] = {
	"new contents in free clusters", "FAT with the new chains",
	"FAT linking new clusters to chains in use",
	"directory sector adding or changing entries",
	"directory sector switching the file that names the others",
	"directory sector deleting entries",
	"FAT with the replaced chains freed", "filesystem metadata",
};

void esp_geom_of(const struct fat_fs *fs, struct esp_geom *g)
{
	g->type = fs->type;
	g->fat_bytes = fs->fat_bytes;
	g->active = fs->active_fat;
	g->num_fats = fs->num_fats;
	g->clusters = fs->clusters;
	g->fats = fs->fat_offset - (uint64_t)fs->active_fat * fs->fat_bytes;
	g->fats_end = g->fats + (uint64_t)fs->num_fats * fs->fat_bytes;
	g->root = fs->root_offset;
	g->data = fs->data_offset;
	g->cluster = fs->cluster_size;
	g->data_end = g->data + (uint64_t)fs->clusters * g->cluster;
	g->root_cluster = fs->type == FAT_TYPE_32 ? fs->root_cluster : 0;
	g->has_last = false;
}

uint32_t esp_fat_get(const struct esp_geom *g, const uint8_t *fat, uint32_t i)
{
	uint64_t o;
	switch (g->type) {
	case FAT_TYPE_12:
		o = (uint64_t)i + i / 2;
		if (o + 2 > g->fat_bytes)
			return 0;
		return i & 1 ? le16_load(fat + o) >> 4 : le16_load(fat + o) & 0xFFFu;
	case FAT_TYPE_16:
		o = (uint64_t)i * 2;
		return o + 2 > g->fat_bytes ? 0 : le16_load(fat + o);
	default:
		o = (uint64_t)i * 4;
		return o + 4 > g->fat_bytes ? 0 : le32_load(fat + o) & 0x0FFFFFFFu;
	}
}

void esp_fat_take(const struct esp_geom *g, uint8_t *dst, const uint8_t *src, uint32_t i)
{
	uint64_t o;
	switch (g->type) {
	case FAT_TYPE_12:
		o = (uint64_t)i + i / 2;
		if (o + 2 > g->fat_bytes)
			return;
		if (i & 1) {
			dst[o] = (uint8_t)((dst[o] & 0x0F) | (src[o] & 0xF0));
			dst[o + 1] = src[o + 1];
		} else {
			dst[o] = src[o];
			dst[o + 1] = (uint8_t)((dst[o + 1] & 0xF0) | (src[o + 1] & 0x0F));
		}
		return;
	case FAT_TYPE_16:
		o = (uint64_t)i * 2;
		if (o + 2 <= g->fat_bytes)
			memcpy(dst + o, src + o, 2);
		return;
	default:
		o = (uint64_t)i * 4;
		if (o + 4 <= g->fat_bytes)
			memcpy(dst + o, src + o, 4);
		return;
	}
}

void esp_fat_set(const struct esp_geom *g, uint8_t *fat, uint32_t i, uint32_t v)
{
	uint64_t o;
	switch (g->type) {
	case FAT_TYPE_12:
		o = (uint64_t)i + i / 2;
		if (o + 2 > g->fat_bytes)
			return;
		if (i & 1)
			le16_store(fat + o, (uint16_t)((le16_load(fat + o) & 0x000Fu) | (v & 0xFFFu) << 4));
		else
			le16_store(fat + o, (uint16_t)((le16_load(fat + o) & 0xF000u) | (v & 0xFFFu)));
		return;
	case FAT_TYPE_16:
		o = (uint64_t)i * 2;
		if (o + 2 <= g->fat_bytes)
			le16_store(fat + o, (uint16_t)v);
		return;
	default:
		o = (uint64_t)i * 4;
		if (o + 4 <= g->fat_bytes)
			le32_store(fat + o, (le32_load(fat + o) & 0xF0000000u) | (v & 0x0FFFFFFFu));
		return;
	}
}

void esp_fat_states(const struct esp_geom *g, const uint8_t *old, const uint8_t *new,
		    uint8_t *mid0, uint8_t *mid)
{
	size_t len = (size_t)(g->fats_end - g->fats);

	memcpy(mid0, old, len);
	for (uint32_t k = 0; k < g->num_fats; k++) {
		uint64_t o = (uint64_t)k * g->fat_bytes;
		for (uint32_t i = 0; i < g->clusters + 2; i++)
			if (i < 2 || (esp_fat_get(g, new + o, i) && !esp_fat_get(g, old + o, i)))
				esp_fat_take(g, mid0 + o, new + o, i);
	}
	memcpy(mid, mid0, len);
	for (uint32_t k = 0; k < g->num_fats; k++) {
		uint64_t o = (uint64_t)k * g->fat_bytes;
		for (uint32_t i = 2; i < g->clusters + 2; i++)
			if (esp_fat_get(g, new + o, i))
				esp_fat_take(g, mid + o, new + o, i);
	}
}

void esp_fat_states_range(const struct esp_geom *g, const uint8_t *old, const uint8_t *new,
			  uint8_t *mid0, uint8_t *mid, uint64_t off, uint64_t len)
{
	uint32_t w = g->type == FAT_TYPE_16 ? 2 : 4;

	memcpy(mid0 + off, old + off, (size_t)len);
	for (unsigned pass = 0; pass < 2; pass++) {
		for (uint64_t at = off - off % w; at < off + len; at += w) {
			uint64_t o = at - at % g->fat_bytes;
			uint32_t i = (uint32_t)((at - o) / w);
			if (o / g->fat_bytes >= g->num_fats || i >= g->clusters + 2)
				continue;
			if (pass == 0 && (i < 2 || (esp_fat_get(g, new + o, i) &&
						    !esp_fat_get(g, old + o, i))))
				esp_fat_take(g, mid0 + o, new + o, i);
			else if (pass == 1 && i >= 2 && esp_fat_get(g, new + o, i))
				esp_fat_take(g, mid + o, new + o, i);
		}
		if (pass == 0)
			memcpy(mid + off, mid0 + off, (size_t)len);
	}
}

#define SLOT 32u

static bool slot_live(const uint8_t *e)
{
	return e[0] != 0 && e[0] != 0xE5;
}

static bool slot_lfn(const uint8_t *e)
{
	return (e[11] & 0x3F) == 0x0F;
}

/* Whether the directory sector at byte at is one of the root directory's (FAT32: a cluster of
 * its chain in the old FAT). */
static bool in_root(const struct esp_geom *g, const uint8_t *fat_active, uint64_t at)
{
	if (g->type != FAT_TYPE_32)
		return at >= g->root && at < g->data;
	uint32_t want = (uint32_t)(2 + (at - g->data) / g->cluster), c = g->root_cluster;
	for (uint32_t n = 0; n <= g->clusters && c >= 2 && c < g->clusters + 2; n++) {
		if (c == want)
			return true;
		c = esp_fat_get(g, fat_active, c);
	}
	return false;
}

/* Whether a sector, read as directory entries, adds or changes a live one. */
static bool adds_entry(const uint8_t *old, const uint8_t *new, uint32_t len)
{
	for (uint32_t i = 0; i + SLOT <= len; i += SLOT)
		if (new[i] != 0 && new[i] != 0xE5 && memcmp(old + i, new + i, SLOT))
			return true;
	return false;
}

/* Marks the short entry at slot i of sec and the long-name slots right before it. */
static void mark_entry(const uint8_t *sec, unsigned i, bool *mask)
{
	mask[i] = true;
	while (i-- > 0 && slot_live(sec + i * SLOT) && slot_lfn(sec + i * SLOT))
		mask[i] = true;
}

/* The slots of the entry written last (g->last_name): the new entry (its first cluster
 * g->last_cluster) in new, the old one (its short name, any other cluster) in old. */
static void last_slots(const struct esp_geom *g, const uint8_t *old, const uint8_t *new,
		       unsigned slots, bool *mask)
{
	for (unsigned i = 0; i < slots; i++) {
		const uint8_t *o = old + i * SLOT, *n = new + i * SLOT;
		uint32_t nc = le16_load(n + 26) |
			      (g->type == FAT_TYPE_32 ? (uint32_t)le16_load(n + 20) << 16 : 0);
		if (slot_live(n) && !slot_lfn(n) && !memcmp(n, g->last_name, 11) &&
		    nc == g->last_cluster)
			mark_entry(new, i, mask);
		if (slot_live(o) && !slot_lfn(o) && !memcmp(o, g->last_name, 11))
			mark_entry(old, i, mask);
	}
}

/* Whether old's short entry at slot i goes on being named until the deleting sectors: a file
 * (or directory) that is gone in new, not one replaced by an entry of its short name here. */
static bool deferred(const uint8_t *old, const uint8_t *new, unsigned slots, unsigned i)
{
	while (i < slots && slot_live(old + i * SLOT) && slot_lfn(old + i * SLOT))
		i++;   /* a long-name slot goes with the short entry it belongs to */
	if (i == slots || !slot_live(old + i * SLOT))
		return true;  /* that entry is in the next sector: keeping the slot harms nothing */
	for (unsigned m = 0; m < slots; m++)
		if (slot_live(new + m * SLOT) && !slot_lfn(new + m * SLOT) &&
		    !memcmp(new + m * SLOT, old + i * SLOT, 11))
			return false;
	return true;
}

/* A directory sector's writes: first the middle state (what it adds and changes, entries it
 * deletes still there, the last entry as it was), then, where that is not yet the new state,
 * the new state: a switch of the last entry, or deletions. */
static void dir_writes(const struct esp_geom *g, const uint8_t *fat_active, uint64_t at,
		       uint32_t lss, const uint8_t *old, const uint8_t *new,
		       struct sector_writes *w)
{
	unsigned slots = lss / SLOT, k = 0;
	bool mask[ESP_DIR_SECTOR_MAX / SLOT] = { false }, last = false;

	if (!g->has_last || lss > ESP_DIR_SECTOR_MAX) {
		/* nothing waits for anysector.cfg (or no room for the middle state): one write */
		w->role[0] = adds_entry(old, new, lss) ? SECTOR_DIR_ADD : SECTOR_DIR_DEL;
		return;
	}
	if (in_root(g, fat_active, at))
		last_slots(g, old, new, slots, mask);
	for (unsigned i = 0; i < slots; i++) {
		const uint8_t *o = old + i * SLOT, *n = new + i * SLOT;
		bool keep = mask[i] || (slot_live(o) && !slot_live(n) && deferred(old, new, slots, i));
		memcpy(w->dir_mid + i * SLOT, keep ? o : n, SLOT);
		last |= mask[i] && memcmp(o, n, SLOT);
	}
	bool to_mid = memcmp(old, w->dir_mid, lss), from_mid = memcmp(w->dir_mid, new, lss);
	if (to_mid) {
		w->role[k] = SECTOR_DIR_ADD;
		w->data[k++] = from_mid ? w->dir_mid : new;
	}
	if (from_mid) {
		w->role[k] = last ? SECTOR_DIR_SWITCH : SECTOR_DIR_DEL;
		w->data[k] = new;
	}
}

/* A data-area sector: new contents when none of its clusters was in use, a directory sector
 * when all were (only directories change in place), else unordered. */
static enum sector_role data_sector_role(const struct esp_geom *g, const uint8_t *fat_active,
					 uint64_t at, uint32_t lss)
{
	uint32_t c0 = (uint32_t)(2 + (at - g->data) / g->cluster);
	uint32_t c1 = (uint32_t)(2 + (at + lss - 1 - g->data) / g->cluster);
	unsigned used = 0;

	for (uint32_t c = c0; c <= c1; c++)
		used += esp_fat_get(g, fat_active, c) != 0;
	if (!used)
		return SECTOR_NEW_DATA;
	return used == c1 - c0 + 1 ? SECTOR_DIR_ADD : SECTOR_OTHER;
}

bool esp_classify_sector(const struct esp_geom *g, const uint8_t *fat_active, uint64_t at,
			 uint32_t lss, const uint8_t *old, const uint8_t *new, const uint8_t *mid0,
			 const uint8_t *mid, struct sector_writes *w)
{
	bool in_fat = at >= g->fats && at + lss <= g->fats_end;

	if (!memcmp(old, new, lss) &&
	    (!in_fat || (!memcmp(old, mid0, lss) && !memcmp(old, mid, lss))))
		return false;
	/* field by field: dir_mid is left as it is (most sectors are new contents) */
	for (unsigned k = 0; k < 3; k++) {
		w->role[k] = SECTOR_NONE;
		w->data[k] = k ? NULL : new;
	}
	w->steps = 0;
	w->kept = false;
	if (in_fat) {
		static const enum sector_role step[3] = { SECTOR_FAT_NEW, SECTOR_FAT_RELINK,
							  SECTOR_FAT_FREE };
		const uint8_t *from[3] = { old, mid0, mid }, *to[3] = { mid0, mid, new };
		for (unsigned k = 0; k < 3; k++) {
			if (memcmp(from[k], to[k], lss)) {
				w->role[k] = step[k];
				w->data[k] = to[k];
				w->steps |= 1u << k;
			}
		}
	} else if (g->type != FAT_TYPE_32 && at >= g->root && at + lss <= g->data) {
		dir_writes(g, fat_active, at, lss, old, new, w);
	} else if (at >= g->data && at + lss <= g->data_end) {
		w->role[0] = data_sector_role(g, fat_active, at, lss);
		if (w->role[0] == SECTOR_DIR_ADD)
			dir_writes(g, fat_active, at, lss, old, new, w);
	} else {
		w->role[0] = SECTOR_OTHER;
	}
	return true;
}

struct esp_write {
	uint64_t lba;       /* device LBA */
	uint8_t *data;      /* one sector, owned */
	enum sector_role role;
	unsigned steps;
};

/* Neighbouring sectors of new contents, in one buffer (count of cap sectors used). */
/* Neighbouring sectors of new contents: in one buffer (count of cap sectors used), or where
 * they are kept, ref (count sectors). */
struct esp_run {
	uint64_t lba, count, cap;
	uint8_t *data;
	const uint8_t *ref;
};

void esp_writes_init(struct esp_writes *ws, uint32_t lss)
{
	memset(ws, 0, sizeof *ws);
	ws->lss = lss;
}

/* The sector goes at the end of the last run when it follows it (for kept bytes, in memory
 * too), else starts a run. Runs of copies grow by doubling: a large buffer is moved by
 * remapping, not copying. */
static void run_add(struct esp_writes *ws, uint64_t lba, const uint8_t *data, bool kept)
{
	struct esp_run *r = ws->nruns ? &ws->runs[ws->nruns - 1] : NULL;
	bool joins = r && r->lba + r->count == lba && !r->ref == !kept &&
		     (!kept || r->ref + r->count * ws->lss == data);

	if (!joins) {
		if (ws->nruns == ws->runs_cap) {
			ws->runs_cap = ws->runs_cap ? ws->runs_cap * 2 : 16;
			ws->runs = xrealloc(ws->runs, ws->runs_cap * sizeof *ws->runs);
		}
		r = &ws->runs[ws->nruns++];
		*r = (struct esp_run){ .lba = lba, .ref = kept ? data : NULL };
	}
	if (kept) {
		r->count++;
		return;
	}
	if (r->count == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->data = xrealloc(r->data, (size_t)(r->cap * ws->lss));
	}
	memcpy(r->data + r->count * ws->lss, data, ws->lss);
	r->count++;
}

void esp_writes_add(struct esp_writes *ws, uint64_t lba, const struct sector_writes *sw)
{
	for (unsigned k = 0; k < 3; k++) {
		if (sw->role[k] == SECTOR_NONE)
			continue;
		if (sw->role[k] == SECTOR_NEW_DATA && !sw->steps) {
			run_add(ws, lba, sw->data[k], sw->kept && !k);
			continue;
		}
		if (ws->n == ws->cap) {
			ws->cap = ws->cap ? ws->cap * 2 : 64;
			ws->w = xrealloc(ws->w, ws->cap * sizeof *ws->w);
		}
		struct esp_write *w = &ws->w[ws->n++];
		w->lba = lba;
		w->role = sw->role[k];
		w->steps = sw->steps;
		w->data = xmalloc(ws->lss);
		memcpy(w->data, sw->data[k], ws->lss);
	}
}

void esp_writes_add_new(struct esp_writes *ws, uint64_t lba, const uint8_t *data, uint64_t count,
			bool kept)
{
	for (uint64_t i = 0; i < count; i++)
		run_add(ws, lba + i, data + i * ws->lss, kept);
}

static int write_order(const void *a, const void *b)
{
	const struct esp_write *x = a, *y = b;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	/* deletions from the end backwards, everything else forwards */
	bool rev = x->role == SECTOR_DIR_DEL;
	if (x->lba == y->lba)
		return 0;
	return (x->lba < y->lba) != rev ? -1 : 1;
}

/* Whether two sectors may share one op: neighbours of one role, but directory sectors each
 * alone, and FAT sectors only with those written by the same FAT steps, so that every step
 * covers such a range with the same op (the journal checks a range as a whole). */
static bool same_op(const struct esp_write *a, const struct esp_write *b)
{
	return a->role == b->role && a->lba + 1 == b->lba && a->steps == b->steps &&
	       a->role != SECTOR_DIR_ADD && a->role != SECTOR_DIR_SWITCH &&
	       a->role != SECTOR_DIR_DEL;
}

static int run_order(const void *a, const void *b)
{
	const struct esp_run *x = a, *y = b;
	return x->lba == y->lba ? 0 : x->lba < y->lba ? -1 : 1;
}

/* Run q's bytes appended to run r, which becomes a copy (runs added out of order). */
static void run_join(struct esp_run *r, struct esp_run *q, uint32_t lss)
{
	if (r->ref) {
		r->data = xmalloc((size_t)(r->count * lss));
		memcpy(r->data, r->ref, (size_t)(r->count * lss));
		r->ref = NULL;
	}
	r->data = xrealloc(r->data, (size_t)((r->count + q->count) * lss));
	memcpy(r->data + r->count * lss, q->ref ? q->ref : q->data, (size_t)(q->count * lss));
	r->count += q->count;
	r->cap = r->count;
	free(q->data);
	q->data = NULL;
}

/* The runs of new contents, the first role written: in LBA order, neighbours joined into one op
 * (only runs added out of order are copied for it). */
static void runs_plan(struct esp_writes *ws, const char *what, struct plan *p)
{
	uint32_t lss = ws->lss;
	char note[400];

	snprintf(note, sizeof note, "%s: %s", what, role_what[SECTOR_NEW_DATA]);
	if (ws->nruns)
		qsort(ws->runs, ws->nruns, sizeof *ws->runs, run_order);
	for (size_t i = 0; i < ws->nruns;) {
		struct esp_run *r = &ws->runs[i++];
		for (; i < ws->nruns && ws->runs[i].lba == r->lba + r->count; i++) {
			struct esp_run *q = &ws->runs[i];
			if (r->ref && q->ref == r->ref + r->count * lss)
				r->count += q->count;
			else
				run_join(r, q, lss);
		}
		if (r->ref)
			plan_add_ref(p, r->lba, r->count, r->ref, note);
		else
			plan_add_take(p, r->lba, r->count,
				      xrealloc(r->data, (size_t)(r->count * lss)), note);
		r->data = NULL;
	}
}

void esp_writes_plan(struct esp_writes *ws, const char *what, struct plan *p)
{
	uint32_t lss = ws->lss;

	runs_plan(ws, what, p);
	if (ws->n) /* w is NULL when the ESP is open but unchanged (set-default --once) */
		qsort(ws->w, ws->n, sizeof *ws->w, write_order);
	for (size_t i = 0; i < ws->n;) {
		size_t j = i + 1;
		while (j < ws->n && same_op(&ws->w[j - 1], &ws->w[j]))
			j++;
		uint8_t *run = xmalloc((j - i) * lss);
		for (size_t k = i; k < j; k++) {
			memcpy(run + (k - i) * lss, ws->w[k].data, lss);
			free(ws->w[k].data); /* the plan's copy is the one kept */
			ws->w[k].data = NULL;
		}
		char note[400];
		snprintf(note, sizeof note, "%s: %s", what, role_what[ws->w[i].role]);
		plan_add_take(p, ws->w[i].lba, j - i, run, note);
		i = j;
	}
}

void esp_writes_free(struct esp_writes *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].data);
	free(ws->w);
	ws->w = NULL;
	ws->n = ws->cap = 0;
	for (size_t i = 0; i < ws->nruns; i++)
		free(ws->runs[i].data);
	free(ws->runs);
	ws->runs = NULL;
	ws->nruns = ws->runs_cap = 0;
}
