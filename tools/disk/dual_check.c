/* SPDX-License-Identifier: BSD-2-Clause */
/* Finding a dual GPT on a disk and everything wrong with it (tools/disk/dual.h). */
#include "tools/disk/dual_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/le.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"

#define MISMATCHES_PER_PAIR 4   /* differences named per pair of tables; more only repeat */

static const char *const which_name[2] = { "primary", "backup" };

/* One header and its array through gpt_read_at, quietly; why names the first problem. */
static void read_table(struct blockdev *dev, uint64_t lba, struct dual_table *t)
{
	struct report q;

	report_init(&q, false);
	t->valid = !gpt_read_at(dev, lba, &t->gpt, &q.diag);
	if (!t->valid) {
		const struct report_item *it = report_first(&q, DIAG_WARN);
		if (!it)
			it = report_first(&q, DIAG_INFO);
		snprintf(t->why, sizeof t->why, "%.900s", it ? it->msg : "it cannot be read");
	}
	report_free(&q);
}

static uint64_t header_byte(const struct dual_state *s, int k, int which)
{
	uint32_t lss = s->geo.half[k].lss;
	return which ? (s->geo.half[k].sectors - 1) * lss : lss;
}

/* A byte range of the disk one table's structure occupies. */
struct region {
	uint64_t start, end;   /* [start, end) */
	int k;                 /* the size it belongs to */
	char name[96];
};

static void region_set(struct region *g, int k, uint64_t start, uint64_t end, const char *fmt,
		       const char *a, const char *b)
{
	g->k = k;
	g->start = start;
	g->end = end;
	snprintf(g->name, sizeof g->name, fmt, a, b);
}

/* The structures of every valid table: both header places of each size (fixed, valid or not),
 * each valid table's entry array, and each valid table's usable range (kind 2). */
static unsigned regions(const struct dual_state *s, struct region *out, int *kind)
{
	static const char *const size_name[DUAL_HALVES] = { "512-byte", "4096-byte" };
	unsigned n = 0;

	for (int k = 0; k < DUAL_HALVES; k++) {
		for (int w = 0; w < 2; w++) {
			uint64_t at = header_byte(s, k, w);
			kind[n] = 0;
			region_set(&out[n++], k, at, at + GPT_HEADER_SIZE, "the %s GPT's %s header",
				   size_name[k], which_name[w]);
			const struct dual_table *t = &s->t[k][w];
			if (!t->valid)
				continue;
			uint32_t lss = s->geo.half[k].lss;
			const struct gpt_header *h = &t->gpt.hdr;
			uint64_t arr = gpt_array_sectors(lss, h->num_entries, h->entry_size) * lss;
			kind[n] = 1;
			region_set(&out[n++], k, h->entries_lba * lss, h->entries_lba * lss + arr,
				   "the %s GPT's %s entry array", size_name[k], which_name[w]);
			kind[n] = 2;
			region_set(&out[n++], k, h->first_usable * lss, (h->last_usable + 1) * lss,
				   "the %s GPT's %s usable range", size_name[k], which_name[w]);
		}
	}
	return n;
}

/* An error about the dual GPT, counted in s->problems. */
#define problem(s, r, code, ...) \
	((s)->problems++, report_printf((r), DIAG_ERROR, (code), __VA_ARGS__))

/* Structures of one size that overlap structures of the other: what a tool or firmware that
 * rewrote one size's GPT in its usual places leaves. Two usable ranges may overlap (they are
 * meant to coincide); nothing else may. */
static void check_overlaps(struct dual_state *s, struct report *r)
{
	struct region g[DUAL_HALVES * 2 * 3];
	int kind[DUAL_HALVES * 2 * 3];
	unsigned n = regions(s, g, kind);

	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = i + 1; j < n; j++) {
			if (g[i].k == g[j].k || (kind[i] == 2 && kind[j] == 2))
				continue;
			if (g[i].start >= g[j].end || g[j].start >= g[i].end)
				continue;
			/* A header place only counts where the other size's table is valid (a header
			 * that is gone is reported as such). */
			problem(s, r, "dual.overlap",
				"%s (bytes %llu..%llu) overlaps %s (bytes %llu..%llu): each sector size "
				"must find its GPT where the other's is not",
				g[i].name, (unsigned long long)g[i].start, (unsigned long long)(g[i].end - 1),
				g[j].name, (unsigned long long)g[j].start, (unsigned long long)(g[j].end - 1));
		}
	}
}

/* A GUID as text, for messages. */
static const char *guid_text(const struct guid *g, char *buf)
{
	guid_format(g, buf);
	return buf;
}

static const struct gpt_part *part_number(const struct gpt *t, unsigned number)
{
	for (unsigned i = 0; i < t->count; i++)
		if (t->parts[i].number == number)
			return &t->parts[i];
	return NULL;
}

/* Names the ways two valid tables differ, up to MISMATCHES_PER_PAIR of them, as errors in r;
 * returns how many it named. */
static unsigned compare_tables(const struct dual_state *s, struct report *r, int ka, int wa, int kb,
			       int wb)
{
	static const char *const size_name[DUAL_HALVES] = { "512-byte", "4096-byte" };
	const struct gpt *a = &s->t[ka][wa].gpt, *b = &s->t[kb][wb].gpt;
	uint32_t la = s->geo.half[ka].lss, lb = s->geo.half[kb].lss;
	char pair[160], x[GUID_STR_LEN + 1], y[GUID_STR_LEN + 1];
	unsigned found = 0;

	snprintf(pair, sizeof pair, "the %s GPT (%s) and the %s GPT (%s) disagree", size_name[ka],
		 which_name[wa], size_name[kb], which_name[wb]);
	if (!guid_eq(&a->hdr.disk_guid, &b->hdr.disk_guid)) {
		report_printf(r, DIAG_ERROR, "dual.mismatch", "%s: disk GUID %s in one, %s in the other", pair,
			guid_text(&a->hdr.disk_guid, x), guid_text(&b->hdr.disk_guid, y));
		found++;
	}
	uint32_t most = a->hdr.num_entries > b->hdr.num_entries ? a->hdr.num_entries
								   : b->hdr.num_entries;
	for (uint32_t num = 1; num <= most && found < MISMATCHES_PER_PAIR; num++) {
		const struct gpt_part *p = part_number(a, num), *q = part_number(b, num);
		if (!p && !q)
			continue;
		if (!p || !q) {
			const struct gpt_part *has = p ? p : q;
			char name[GPT_NAME_UNITS + 1];
			gpt_name_get(&has->e, name);
			report_printf(r, DIAG_ERROR, "dual.mismatch", "%s: partition %u ('%s') is in the %s GPT only",
				pair, (unsigned)num, name, size_name[p ? ka : kb]);
			found++;
			continue;
		}
		char what[200] = "";
		uint64_t fa = p->e.first_lba * la, fb = q->e.first_lba * lb;
		uint64_t ea = (p->e.last_lba + 1) * la, eb = (q->e.last_lba + 1) * lb;
		char na[GPT_NAME_UNITS + 1], nb[GPT_NAME_UNITS + 1];
		gpt_name_get(&p->e, na);
		gpt_name_get(&q->e, nb);
		if (fa != fb)
			snprintf(what, sizeof what, "starts at byte %llu in one and byte %llu in the other",
				 (unsigned long long)fa, (unsigned long long)fb);
		else if (ea != eb)
			snprintf(what, sizeof what, "ends at byte %llu in one and byte %llu in the other",
				 (unsigned long long)(ea - 1), (unsigned long long)(eb - 1));
		else if (!guid_eq(&p->e.type, &q->e.type))
			snprintf(what, sizeof what, "has type %s in one and %s in the other",
				 guid_text(&p->e.type, x), guid_text(&q->e.type, y));
		else if (!guid_eq(&p->e.unique, &q->e.unique))
			snprintf(what, sizeof what, "has GUID %s in one and %s in the other",
				 guid_text(&p->e.unique, x), guid_text(&q->e.unique, y));
		else if (p->e.attributes != q->e.attributes)
			snprintf(what, sizeof what, "has attributes 0x%llX in one and 0x%llX in the other",
				 (unsigned long long)p->e.attributes, (unsigned long long)q->e.attributes);
		else if (memcmp(p->e.name, q->e.name, sizeof p->e.name))
			snprintf(what, sizeof what, "is named '%s' in one and '%s' in the other", na, nb);
		if (what[0]) {
			report_printf(r, DIAG_ERROR, "dual.mismatch", "%s: partition %u %s", pair, (unsigned)num, what);
			found++;
		}
	}
	return found;
}

/* Whether [off, off + len) holds, outside the byte ranges in skip[0..nskip), a used GPT entry
 * whose unique GUID is one of t's partitions: what is left of a half whose headers are gone
 * (the valid half's own arrays, which a tool may have moved over the place, do not count). */
static bool array_of(struct hostdev *h, uint64_t off, uint64_t len, const struct gpt *t,
		     const uint64_t (*skip)[2], unsigned nskip)
{
	uint8_t *buf;
	bool found = false;

	if (off > h->size_bytes || len > h->size_bytes - off)
		return false;
	buf = xmalloc((size_t)len);
	if (!pread_full(h->fd, buf, (size_t)len, off)) {
		for (uint64_t i = 0; i + GPT_ENTRY_SIZE <= len && !found; i += GPT_ENTRY_SIZE) {
			struct gpt_entry e;
			bool own = false;
			for (unsigned k = 0; k < nskip; k++)
				own = own || (off + i < skip[k][1] && skip[k][0] < off + i + GPT_ENTRY_SIZE);
			if (own)
				continue;
			gpt_entry_decode(buf + i, &e);
			for (unsigned p = 0; p < t->count && gpt_entry_used(&e) && !found; p++)
				found = guid_eq(&e.unique, &t->parts[p].e.unique);
		}
	}
	free(buf);
	return found;
}

/* The other half's entry arrays at their dual places (k's valid tables' own arrays aside). */
static bool find_remnant(struct hostdev *h, struct dual_state *s, int k, int o)
{
	const struct dual_half *dh = &s->geo.half[o];
	uint64_t len = s->geo.array_bytes, skip[2][2];
	uint64_t at[2] = { dh->place.primary_array * dh->lss, dh->place.backup_array * dh->lss };
	uint32_t lss = s->geo.half[k].lss;
	unsigned nskip = 0;

	for (int w = 0; w < 2; w++) {
		const struct gpt_header *g = &s->t[k][w].gpt.hdr;
		if (!s->t[k][w].valid)
			continue;
		skip[nskip][0] = g->entries_lba * lss;
		skip[nskip][1] = skip[nskip][0] +
				 gpt_array_sectors(lss, g->num_entries, g->entry_size) * lss;
		nskip++;
	}
	const struct gpt *t = s->t[k][0].valid ? &s->t[k][0].gpt : &s->t[k][1].gpt;
	for (int w = 0; w < 2; w++) {
		if (array_of(h, at[w], len, t, (const uint64_t (*)[2])skip, nskip)) {
			s->remnant[o] = true;
			s->remnant_byte[o] = at[w];
			return true;
		}
	}
	return false;
}

static void check_alignment(struct dual_state *s, struct report *r, int k, int w)
{
	const struct gpt *t = &s->t[k][w].gpt;
	uint32_t lss = s->geo.half[k].lss;

	for (unsigned i = 0; i < t->count; i++) {
		uint64_t first = t->parts[i].e.first_lba * lss, end = (t->parts[i].e.last_lba + 1) * lss;
		if (first % DUAL_BLOCK == 0 && end % DUAL_BLOCK == 0)
			continue;
		problem(s, r, "dual.unaligned",
			"partition %u (bytes %llu..%llu) is not whole %u-byte blocks: at 4096-byte "
			"sectors it cannot have the same byte range",
			t->parts[i].number, (unsigned long long)first, (unsigned long long)(end - 1),
			DUAL_BLOCK);
	}
}

static void check_pmbr(struct hostdev *h, const uint8_t *lba0, struct report *r)
{
	struct mbr m;

	mbr_decode(lba0, &m);
	for (unsigned i = 0; i < 4; i++) {
		const struct mbr_entry *e = &m.part[i];
		if (e->type != MBR_TYPE_GPT_PROTECTIVE || e->sectors == UINT32_MAX)
			continue;
		for (int k = 0; k < DUAL_HALVES; k++) {
			uint32_t lss = k ? DUAL_LARGE_LSS : DUAL_SMALL_LSS;
			if ((uint64_t)e->sectors + 1 == h->size_bytes / lss)
				report_printf(r, DIAG_WARN, "dual.pmbr_size",
					      "protective MBR entry %u: size %u fits %u-byte sectors only; "
					      "a dual GPT's protective MBR says 0xFFFFFFFF, right at both "
					      "sizes ('anysector repair' writes it)",
					      i + 1, (unsigned)e->sectors, (unsigned)lss);
		}
	}
}

struct dual_state *dual_inspect(struct hostdev *h, const uint8_t *lba0, struct report *r)
{
	static const char *const size_name[DUAL_HALVES] = { "512-byte", "4096-byte" };
	struct dual_state *s = xcalloc(1, sizeof *s);
	bool any[DUAL_HALVES] = { false, false };

	s->geo_ok = dual_geometry(h->size_bytes, 0, &s->geo);
	if (!s->geo_ok) {
		free(s);
		return NULL;
	}
	for (int k = 0; k < DUAL_HALVES; k++) {
		struct blockdev view, *dev = &view;
		if (h->topo.lss == s->geo.half[k].lss)
			dev = &h->dev;
		else if (hostdev_view(h, s->geo.half[k].lss, &view))
			continue;
		read_table(dev, 1, &s->t[k][0]);
		read_table(dev, s->geo.half[k].sectors - 1, &s->t[k][1]);
		if (dev == &view)
			hostdev_view_free(&view);
		any[k] = s->t[k][0].valid || s->t[k][1].valid;
	}
	if (any[0] && any[1]) {
		/* Two GPTs of different disks are not one dual GPT: that is an ambiguous disk. */
		const struct gpt *a = s->t[0][0].valid ? &s->t[0][0].gpt : &s->t[0][1].gpt;
		const struct gpt *b = s->t[1][0].valid ? &s->t[1][0].gpt : &s->t[1][1].gpt;
		if (!guid_eq(&a->hdr.disk_guid, &b->hdr.disk_guid)) {
			free(s);
			return NULL;
		}
	} else if (!(any[0] && find_remnant(h, s, 0, 1)) && !(any[1] && find_remnant(h, s, 1, 0))) {
		free(s);
		return NULL;
	}

	for (int k = 0; k < DUAL_HALVES; k++) {
		if (!any[k]) {
			problem(s, r, "dual.half_gone",
				"the %s GPT of this dual-GPT disk is gone: no valid header at byte %llu "
				"(%s) or byte %llu; only its entry array at byte %llu remains (a tool that "
				"wrote the disk at %u-byte sectors dropped it)",
				size_name[k], (unsigned long long)header_byte(s, k, 0), s->t[k][0].why,
				(unsigned long long)header_byte(s, k, 1),
				(unsigned long long)s->remnant_byte[k], (unsigned)s->geo.half[!k].lss);
			continue;
		}
		for (int w = 0; w < 2; w++)
			if (!s->t[k][w].valid)
				problem(s, r, "dual.header", "the %s GPT's %s header at byte %llu is invalid: %s",
					size_name[k], which_name[w], (unsigned long long)header_byte(s, k, w),
					s->t[k][w].why);
	}
	/* Every valid table against the first one. */
	int rk = -1, rw = -1;
	for (int k = 0; k < DUAL_HALVES; k++) {
		for (int w = 0; w < 2; w++) {
			if (!s->t[k][w].valid)
				continue;
			if (rk < 0) {
				rk = k;
				rw = w;
				check_alignment(s, r, k, w);
			} else {
				s->problems += compare_tables(s, r, rk, rw, k, w);
			}
		}
	}
	check_overlaps(s, r);
	check_pmbr(h, lba0, r);
	s->clean = !s->problems;
	for (int k = 0; k < DUAL_HALVES; k++)
		s->clean = s->clean && s->t[k][0].valid && s->t[k][1].valid;
	return s;
}

int dual_repair_source(const struct dual_state *s, uint32_t from_lss, const struct gpt **src,
		       uint32_t *src_lss, const char **which)
{
	static const int order[DUAL_HALVES] = { 1, 0 };   /* the large half first */
	int sk = -1, sw = -1;

	if (from_lss) {
		int k = dual_half_index(from_lss);
		for (int w = 0; k >= 0 && w < 2 && sk < 0; w++)
			if (s->t[k][w].valid)
				sk = k, sw = w;
		if (sk < 0) {
			t_error("repair.from", "--from %u: the disk has no valid %u-byte GPT to rebuild "
				"from", (unsigned)from_lss, (unsigned)from_lss);
			return EXIT_ERRORS;
		}
	} else {
		struct report q;
		report_init(&q, false);
		for (int i = 0; i < DUAL_HALVES; i++) {
			for (int w = 0; w < 2; w++) {
				int k = order[i];
				if (!s->t[k][w].valid)
					continue;
				if (sk < 0)
					sk = k, sw = w;
				else
					compare_tables(s, &q, sk, sw, k, w);
			}
		}
		if (sk < 0) {
			t_error("repair.no_source", "no GPT header of this disk is valid at either sector "
				"size: there is nothing to rebuild from");
			report_free(&q);
			return EXIT_ERRORS;
		}
		if (q.n) {
			t_error("repair.disagree", "the valid GPTs on this disk disagree (%.600s); choose "
				"the one to keep with --from %u or --from %u",
				q.items[0].msg, DUAL_SMALL_LSS, DUAL_LARGE_LSS);
			report_free(&q);
			return EXIT_ERRORS;
		}
		report_free(&q);
	}
	*src = &s->t[sk][sw].gpt;
	*src_lss = s->geo.half[sk].lss;
	*which = which_name[sw];
	return 0;
}
