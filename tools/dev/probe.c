/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/probe.h"

#include <blkid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "tools/dev/label_probe.h"

/* A value blkid set for the last hit, as a string ("" when unset). */
static void lookup(blkid_probe pr, const char *name, char *out, size_t cap)
{
	const char *v = NULL;
	size_t len = 0;

	out[0] = 0;
	if (!blkid_probe_lookup_value(pr, name, &v, &len) && v)
		snprintf(out, cap, "%s", v);
}

/* The magic's offset (decimal text, relative to the probed range) and its length in bytes. */
static bool lookup_magic(blkid_probe pr, bool table, uint64_t *off, uint64_t *len)
{
	const char *v = NULL;
	size_t n = 0;
	char *end;

	if (blkid_probe_lookup_value(pr, table ? "PTMAGIC_OFFSET" : "SBMAGIC_OFFSET", &v, NULL) || !v)
		return false;
	errno = 0;
	unsigned long long o = strtoull(v, &end, 10);
	if (errno || end == v || *end)
		return false;
	if (blkid_probe_lookup_value(pr, table ? "PTMAGIC" : "SBMAGIC", NULL, &n) || !n)
		return false;
	*off = o;
	*len = n;
	return true;
}

bool probe_has(const struct probe_result *r, const struct probe_hit *h)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->hit[i].offset == h->offset && r->hit[i].len == h->len &&
		    !strcmp(r->hit[i].type, h->type))
			return true;
	return false;
}

/* One chain at a time (blkid keeps the values of the chain that ran before, so a superblock's
 * TYPE could be read as a table's): every hit, hidden after it is read so the prober that found
 * it looks again and finds the next copy or the next kind. */
static int probe_chain(int fd, uint64_t off, uint64_t len, uint32_t lss, bool table,
		       struct probe_result *out, char *why, size_t why_cap)
{
	blkid_probe pr = blkid_new_probe();
	int rc = 0;

	if (!pr) {
		snprintf(why, why_cap, "libblkid could not make a probe");
		return AS_ENOMEM;
	}
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)len) ||
	    blkid_probe_set_sectorsize(pr, lss)) {
		snprintf(why, why_cap, "libblkid cannot probe bytes %llu..%llu",
			 (unsigned long long)off, (unsigned long long)(off + len - 1));
		blkid_free_probe(pr);
		return AS_EIO;
	}
	blkid_probe_enable_superblocks(pr, !table);
	blkid_probe_enable_partitions(pr, table);
	if (table)
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	else
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
							      BLKID_SUBLKS_MAGIC |
							      BLKID_SUBLKS_BADCSUM);
	/* Each pass finds one more (or the same, when hiding failed): the bound ends both. */
	for (unsigned pass = 0; pass < PROBE_MAX_HITS && out->n < PROBE_MAX_HITS; pass++) {
		int r = blkid_do_probe(pr);
		if (r == 1)
			break;
		if (r < 0) {
			snprintf(why, why_cap, "libblkid failed probing bytes %llu..%llu",
				 (unsigned long long)off, (unsigned long long)(off + len - 1));
			rc = AS_EIO;
			break;
		}
		struct probe_hit h;
		uint64_t moff, mlen;
		char bad[8];
		memset(&h, 0, sizeof h);
		h.table = table;
		lookup(pr, table ? "PTTYPE" : "TYPE", h.type, sizeof h.type);
		if (!table)
			lookup(pr, "USAGE", h.usage, sizeof h.usage);
		lookup(pr, "SBBADCSUM", bad, sizeof bad);
		h.bad_csum = bad[0] == '1';
		if (!h.type[0] || !lookup_magic(pr, table, &moff, &mlen) || moff > len ||
		    mlen > len - moff)
			break; /* nothing to name or hide: blkid's answer is unusable */
		h.offset = off + moff;
		h.len = mlen;
		if (probe_has(out, &h))
			break;
		out->hit[out->n++] = h;
		if (blkid_probe_hide_range(pr, moff, mlen) || blkid_probe_step_back(pr))
			break;
	}
	blkid_free_probe(pr);
	return rc;
}

/* A hit of that type, or one over those bytes: libfdisk need not be asked. */
static bool named(const char *type, uint64_t off, uint64_t len, void *ctx)
{
	const struct probe_result *r = ctx;
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->hit[i].type, type) || probe_hit_in(&r->hit[i], off, len))
			return true;
	return false;
}

/* The labels libfdisk recognises that blkid did not name, each a table hit at its magic. */
static int add_labels(int fd, uint64_t off, uint64_t len, uint32_t lss,
		      struct probe_result *out, char *why, size_t why_cap)
{
	struct label_found f[LABEL_KINDS];
	unsigned n;
	int rc = label_probe(fd, off, len, lss, named, out, f, &n, why, why_cap);

	for (unsigned i = 0; i < n && out->n < PROBE_MAX_HITS; i++) {
		struct probe_hit *h = &out->hit[out->n++];
		memset(h, 0, sizeof *h);
		_Static_assert(sizeof h->type >= sizeof f[i].name, "a label's name fits a type");
		memcpy(h->type, f[i].name, sizeof f[i].name);
		h->table = true;
		h->offset = f[i].offset;
		h->len = f[i].len;
	}
	return rc;
}

int probe_range(int fd, uint64_t off, uint64_t len, uint32_t lss, struct probe_result *out,
		char *why, size_t why_cap)
{
	memset(out, 0, sizeof *out);
	if (!len)
		return 0;
	int rc = probe_chain(fd, off, len, lss, true, out, why, why_cap);
	if (!rc)
		rc = probe_chain(fd, off, len, lss, false, out, why, why_cap);
	return rc ? rc : add_labels(fd, off, len, lss, out, why, why_cap);
}

const char *probe_hit_name(const struct probe_hit *h, char *buf, size_t cap)
{
	const char *kind = h->table ? "partition table"
			   : !strcmp(h->usage, "filesystem") ? "filesystem"
							     : "signature";
	/* "an" before a vowel, and before names read letter by letter (xfs, LVM2_member) */
	bool an = strchr("aeiouAEIOU", h->type[0]) || h->type[0] == 'x' || !strncmp(h->type, "LVM", 3);
	snprintf(buf, cap, "%s %s %s", an ? "an" : "a", h->type, kind);
	return buf;
}

const char *probe_hit_text(const struct probe_hit *h, char *buf, size_t cap)
{
	char name[96];
	snprintf(buf, cap, "%s (at byte %llu%s)", probe_hit_name(h, name, sizeof name),
		 (unsigned long long)h->offset, h->bad_csum ? ", with a bad checksum" : "");
	return buf;
}

bool probe_hit_in(const struct probe_hit *h, uint64_t first, uint64_t len)
{
	return h->offset < first + len && first < h->offset + h->len;
}

bool probe_boot_sector_is_filesystem(const struct probe_result *r, const struct mbr *lba0)
{
	bool fs = false;
	for (unsigned i = 0; i < 4; i++)
		if (lba0->part[i].type != MBR_TYPE_EMPTY || lba0->part[i].sectors)
			return false;
	for (unsigned i = 0; i < r->n; i++) {
		const struct probe_hit *h = &r->hit[i];
		if (h->table && !strcmp(h->type, "dos"))
			return false;
		if (!h->table && h->offset < MBR_RECORD_SIZE)
			fs = true;
	}
	return fs;
}
