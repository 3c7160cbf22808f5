/* SPDX-License-Identifier: BSD-2-Clause */
/* Rebuilding both GPTs of a dual disk from one valid table, as a write plan: the tables are
 * written by gpt_write_placed into an in-memory copy of the two GPT regions, and every sector of
 * the copy that differs from the disk becomes an op (journalled, printed by --dry-run, read
 * back by plan_execute). */
#include "tools/disk/dual_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"

/* The GPT regions of a disk held in memory: [0, head_len) and [tail_start, bytes). */
struct overlay {
	uint64_t bytes, head_len, tail_start;
	uint8_t *head, *tail;
};

/* The overlay's bytes [off, off + len), or NULL when the range leaves both regions. */
static uint8_t *overlay_at(struct overlay *o, uint64_t off, uint64_t len)
{
	if (off + len <= o->head_len)
		return o->head + off;
	if (off >= o->tail_start && off + len <= o->bytes)
		return o->tail + (off - o->tail_start);
	return NULL;
}

/* Sectors [lba, lba + count) of the overlay seen as dev: where they are, or NULL. */
static uint8_t *overlay_sectors(struct blockdev *dev, uint64_t lba, uint32_t count)
{
	return overlay_at(dev->priv, lba * dev->sector_size, (uint64_t)count * dev->sector_size);
}

static int overlay_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	uint8_t *at = overlay_sectors(dev, lba, count);

	if (at)
		memcpy(buf, at, (size_t)count * dev->sector_size);
	return at ? 0 : AS_ERANGE;
}

static int overlay_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	uint8_t *at = overlay_sectors(dev, lba, count);

	if (at)
		memcpy(at, buf, (size_t)count * dev->sector_size);
	return at ? 0 : AS_ERANGE;
}

static void overlay_view(struct overlay *o, uint32_t lss, struct blockdev *dev)
{
	*dev = (struct blockdev){
		.sector_size = lss,
		.phys_size = lss,
		.sectors = o->bytes / lss,
		.max_io = 1,
		.read = overlay_read,
		.write = overlay_write,
		.priv = o,
		.scratch = xmalloc(lss),
	};
}

/* What the layout puts in [start, end), for the plan's notes. */
static void describe(const struct dual_geometry *g, uint64_t start, uint64_t end, char *out,
		     size_t cap)
{
	const struct {
		const char *name;
		uint64_t at, len;
	} parts[] = {
		{ "protective MBR", 0, MBR_RECORD_SIZE },
		{ "512-byte primary header", DUAL_SMALL_LSS, GPT_HEADER_SIZE },
		{ "4096-byte primary header", DUAL_LARGE_LSS, GPT_HEADER_SIZE },
		{ "4096-byte primary array", g->half[1].place.primary_array * DUAL_LARGE_LSS,
		  g->array_bytes },
		{ "512-byte primary array", g->half[0].place.primary_array * DUAL_SMALL_LSS,
		  g->array_bytes },
		{ "512-byte backup array", g->half[0].place.backup_array * DUAL_SMALL_LSS,
		  g->array_bytes },
		{ "4096-byte backup array", g->half[1].place.backup_array * DUAL_LARGE_LSS,
		  g->array_bytes },
		{ "4096-byte backup header", g->bytes - DUAL_LARGE_LSS, GPT_HEADER_SIZE },
		{ "512-byte backup header", g->bytes - DUAL_SMALL_LSS, GPT_HEADER_SIZE },
	};
	size_t n = (size_t)snprintf(out, cap, "dual GPT:");

	for (size_t i = 0; i < ARRAY_SIZE(parts) && n < cap; i++)
		if (parts[i].at < end && start < parts[i].at + parts[i].len)
			n += (size_t)snprintf(out + n, cap - n, "%s %s", n > 9 ? "," : "",
					      parts[i].name);
	if (n == 9 && n < cap)
		snprintf(out + n, cap - n, " stale bytes cleared");
}

/* One op per run of sectors in [start, end) whose new bytes differ from the disk's. */
static int diff_region(struct hostdev *h, const struct dual_geometry *g, const uint8_t *want,
		       uint64_t start, uint64_t end, struct plan *p)
{
	uint32_t lss = p->lss;
	uint64_t len = end - start;
	uint8_t *cur = xmalloc((size_t)len);
	char what[300];

	if (pread_full(h->fd, cur, (size_t)len, start)) {
		t_error("io.read", "%s: bytes %llu..%llu could not be read", h->path,
			(unsigned long long)start, (unsigned long long)(end - 1));
		free(cur);
		return EXIT_ERRORS;
	}
	for (uint64_t i = 0; i < len;) {
		if (!memcmp(cur + i, want + i, lss)) {
			i += lss;
			continue;
		}
		uint64_t j = i + lss;
		while (j < len && memcmp(cur + j, want + j, lss))
			j += lss;
		describe(g, start + i, start + j, what, sizeof what);
		plan_add(p, (start + i) / lss, (j - i) / lss, want + i, what);
		i = j;
	}
	free(cur);
	return 0;
}

/* The source's partitions as a dense array (entry k at index number - 1), checked to fit the
 * layout. */
static struct gpt_entry *source_entries(const struct dual_geometry *g, const struct gpt *src,
					uint32_t src_lss, unsigned *n)
{
	unsigned most = 0;

	for (unsigned i = 0; i < src->count; i++)
		if (src->parts[i].number > most)
			most = src->parts[i].number;
	struct gpt_entry *e = xcalloc(most ? most : 1, sizeof *e);
	for (unsigned i = 0; i < src->count; i++) {
		const struct gpt_entry *s = &src->parts[i].e;
		uint64_t first = s->first_lba * src_lss, end = (s->last_lba + 1) * src_lss;
		if (first % DUAL_BLOCK || end % DUAL_BLOCK || first < g->first_usable_byte ||
		    end > g->end_usable_byte) {
			t_error("repair.partition",
				"partition %u (bytes %llu..%llu) does not fit the dual layout (whole "
				"%u-byte blocks inside bytes %llu..%llu): repair cannot keep it at both "
				"sector sizes",
				src->parts[i].number, (unsigned long long)first,
				(unsigned long long)(end - 1), DUAL_BLOCK,
				(unsigned long long)g->first_usable_byte,
				(unsigned long long)(g->end_usable_byte - 1));
			free(e);
			return NULL;
		}
		e[src->parts[i].number - 1] = *s;
	}
	*n = most;
	return e;
}

int dual_repair_plan(struct hostdev *h, const struct dual_state *s, const struct gpt *src,
		     uint32_t src_lss, struct plan *p)
{
	struct dual_geometry g;
	struct overlay o = { 0 };
	struct blockdev view[DUAL_HALVES], *vp[DUAL_HALVES] = { &view[0], &view[1] };
	struct mbr m;
	unsigned n = 0;
	int rc = EXIT_ERRORS;

	if (!dual_geometry(s->geo.bytes, src->hdr.num_entries, &g)) {
		t_error("repair.geometry", "a dual GPT with %u entries does not fit %llu bytes",
			(unsigned)src->hdr.num_entries, (unsigned long long)s->geo.bytes);
		return EXIT_ERRORS;
	}
	struct gpt_entry *e = source_entries(&g, src, src_lss, &n);
	if (!e)
		return EXIT_ERRORS;
	o.bytes = g.bytes;
	o.head_len = g.first_usable_byte;
	o.tail_start = g.end_usable_byte;
	o.head = xcalloc(1, (size_t)o.head_len);
	o.tail = xcalloc(1, (size_t)(o.bytes - o.tail_start));
	/* LBA 0's record stays, but for the protective entry's size (right at both sizes). */
	if (pread_full(h->fd, o.head, MBR_RECORD_SIZE, 0)) {
		t_error("io.read", "%s: LBA 0 could not be read", h->path);
		goto out;
	}
	mbr_decode(o.head, &m);
	bool found = false;
	for (unsigned i = 0; i < 4; i++) {
		if (m.part[i].type != MBR_TYPE_GPT_PROTECTIVE)
			continue;
		m.part[i].sectors = UINT32_MAX;
		memset(m.part[i].chs_last, 0xFF, sizeof m.part[i].chs_last);
		found = true;
	}
	if (!m.boot_signature || !found) {
		t_error("repair.pmbr", "%s: LBA 0 holds no protective MBR; repair rebuilds the GPTs "
			"behind one, not the MBR itself", h->path);
		goto out;
	}
	mbr_encode(&m, o.head);
	overlay_view(&o, DUAL_SMALL_LSS, &view[0]);
	overlay_view(&o, DUAL_LARGE_LSS, &view[1]);
	int err = dual_write_gpts(vp, &g, &src->hdr.disk_guid, e, n, src_lss, &g_report->diag);
	free(view[0].scratch);
	free(view[1].scratch);
	if (err) {
		t_error("repair.write", "building the dual GPT failed: %s", as_strerror(err));
		goto out;
	}
	if (!(rc = diff_region(h, &g, o.tail, o.tail_start, o.bytes, p)))
		rc = diff_region(h, &g, o.head, 0, o.head_len, p);
out:
	free(o.head);
	free(o.tail);
	free(e);
	return rc;
}
