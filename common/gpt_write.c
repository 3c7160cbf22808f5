/* SPDX-License-Identifier: BSD-2-Clause */
/* Writing a new GPT: backup array, backup header, primary array, primary header, in that order,
 * so that a write torn at any point leaves one consistent copy (the old primary until the new
 * backup is complete). Sectors are assembled in the device's scratch buffer one at a time; no
 * array-sized buffer is needed. */
#include "common/gpt.h"

#include "common/crc32.h"
#include "common/errors.h"
#include "common/mem.h"

struct layout {
	uint32_t lss;
	uint32_t num_entries;
	uint64_t array_sectors;   /* reserved: at least GPT_MIN_ARRAY_BYTES */
	uint64_t first_usable, last_usable;
	uint64_t last;            /* last LBA: the backup header */
};

/* Fills one sector (number s of the array) with the entries that fall in it. */
static void fill_array_sector(const struct layout *l, const struct gpt_entry *entries, unsigned n,
			      uint64_t s, uint8_t *buf)
{
	uint64_t start = s * l->lss;
	uint64_t bytes = (uint64_t)l->num_entries * GPT_ENTRY_SIZE;

	memset(buf, 0, l->lss);
	for (uint64_t off = start; off < start + l->lss && off < bytes; off += GPT_ENTRY_SIZE) {
		uint64_t i = off / GPT_ENTRY_SIZE;
		if (i < n)
			gpt_entry_encode(&entries[i], buf + (off - start));
	}
}

static uint32_t array_crc(const struct gpt_entry *entries, unsigned n, uint32_t num_entries)
{
	uint8_t raw[GPT_ENTRY_SIZE];
	uint32_t crc = 0;

	for (uint32_t i = 0; i < num_entries; i++) {
		if (i < n)
			gpt_entry_encode(&entries[i], raw);
		else if (i == n)
			memset(raw, 0, sizeof raw);
		crc = crc32_update(crc, raw, sizeof raw);
	}
	return crc;
}

static int write_array(struct blockdev *dev, const struct layout *l,
		       const struct gpt_entry *entries, unsigned n, uint64_t lba, struct diag *d)
{
	for (uint64_t s = 0; s < l->array_sectors; s++) {
		fill_array_sector(l, entries, n, s, dev->scratch);
		int rc = bdev_write(dev, lba + s, 1, dev->scratch);
		if (rc) {
			diag_error(d, "gpt.io", "writing the GPT entry array at LBA %llu failed: %s",
				   (unsigned long long)(lba + s), as_strerror(rc));
			return rc;
		}
	}
	return 0;
}

static int write_header(struct blockdev *dev, struct gpt_header *h, struct diag *d)
{
	uint8_t *buf = dev->scratch;

	memset(buf, 0, dev->sector_size);
	h->header_crc = 0;
	gpt_header_encode(h, buf);
	h->header_crc = gpt_header_crc(buf, h->header_size);
	gpt_header_encode(h, buf);
	int rc = bdev_write(dev, h->my_lba, 1, buf);
	if (rc)
		diag_error(d, "gpt.io", "writing the GPT header at LBA %llu failed: %s",
			   (unsigned long long)h->my_lba, as_strerror(rc));
	return rc;
}

/* The rules gpt_read_at applies to entries, applied before anything is written. */
static bool entries_ok(const struct layout *l, const struct gpt_entry *e, unsigned n,
		       struct diag *d)
{
	bool ok = true;

	for (unsigned i = 0; i < n; i++) {
		if (!gpt_entry_used(&e[i]))
			continue;
		if (e[i].first_lba > e[i].last_lba) {
			diag_error(d, "gpt.entry_order", "GPT entry %u: first LBA %llu is above last LBA %llu",
				   i + 1, (unsigned long long)e[i].first_lba,
				   (unsigned long long)e[i].last_lba);
			ok = false;
			continue;
		}
		if (e[i].first_lba < l->first_usable || e[i].last_lba > l->last_usable) {
			diag_error(d, "gpt.entry_range",
				   "GPT entry %u: LBA %llu..%llu is outside the usable range %llu..%llu",
				   i + 1, (unsigned long long)e[i].first_lba,
				   (unsigned long long)e[i].last_lba, (unsigned long long)l->first_usable,
				   (unsigned long long)l->last_usable);
			ok = false;
			continue;
		}
		for (unsigned j = 0; j < i; j++) {
			if (!gpt_entry_used(&e[j]) || e[j].first_lba > e[j].last_lba)
				continue;
			if (e[j].first_lba <= e[i].last_lba && e[i].first_lba <= e[j].last_lba) {
				diag_error(d, "gpt.overlap",
					   "GPT entries %u (LBA %llu..%llu) and %u (LBA %llu..%llu) "
					   "overlap",
					   j + 1, (unsigned long long)e[j].first_lba,
					   (unsigned long long)e[j].last_lba, i + 1,
					   (unsigned long long)e[i].first_lba,
					   (unsigned long long)e[i].last_lba);
				ok = false;
			}
		}
	}
	return ok;
}

static bool ranges_meet(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len)
{
	return a < b + b_len && b < a + a_len;
}

/* The placement rules gpt_read_at applies, checked before anything is written: each array
 * inside the disk and off LBA 0 and both headers, the arrays apart, the usable range off every
 * header and array. */
static bool placement_ok(const struct layout *l, uint64_t pa, uint64_t ba, struct diag *d)
{
	uint64_t arr = l->array_sectors;
	const struct {
		const char *name;
		uint64_t lba;
	} arrays[2] = { { "primary", pa }, { "backup", ba } };

	for (unsigned i = 0; i < 2; i++) {
		uint64_t a = arrays[i].lba;
		if (a < 2 || a >= l->last || arr > l->last - a) {
			diag_error(d, "gpt.array_location",
				   "the %s GPT entry array at LBA %llu (%llu sectors) is not inside LBA "
				   "2..%llu, between LBA 1 and the backup header",
				   arrays[i].name, (unsigned long long)a, (unsigned long long)arr,
				   (unsigned long long)(l->last - 1));
			return false;
		}
	}
	if (ranges_meet(pa, arr, ba, arr)) {
		diag_error(d, "gpt.array_location",
			   "the primary and backup GPT entry arrays overlap (LBA %llu and %llu, %llu "
			   "sectors each)",
			   (unsigned long long)pa, (unsigned long long)ba, (unsigned long long)arr);
		return false;
	}
	uint64_t fu = l->first_usable, lu = l->last_usable;
	if (fu < 2 || fu > lu || lu >= l->last || ranges_meet(fu, lu - fu + 1, pa, arr) ||
	    ranges_meet(fu, lu - fu + 1, ba, arr)) {
		diag_error(d, "gpt.usable_range",
			   "GPT usable range %llu..%llu is not inside 2..%llu with both entry arrays "
			   "(LBA %llu and %llu, %llu sectors each) outside it",
			   (unsigned long long)fu, (unsigned long long)lu,
			   (unsigned long long)(l->last - 1), (unsigned long long)pa,
			   (unsigned long long)ba, (unsigned long long)arr);
		return false;
	}
	return true;
}

int gpt_write(struct blockdev *dev, const struct guid *disk_guid, const struct gpt_entry *entries,
	      unsigned n, uint32_t num_entries, uint64_t first_usable, uint64_t last_usable,
	      struct diag *d)
{
	struct gpt_place p = {
		.num_entries = num_entries,
		.first_usable = first_usable,
		.last_usable = last_usable,
	};
	return gpt_write_placed(dev, disk_guid, entries, n, &p, d);
}

int gpt_write_placed(struct blockdev *dev, const struct guid *disk_guid,
		     const struct gpt_entry *entries, unsigned n, const struct gpt_place *place,
		     struct diag *d)
{
	struct layout l;
	uint64_t def_first, def_last;
	int rc;

	if (!dev->scratch || !dev->write || !disk_guid || (n && !entries) || !place) {
		diag_error(d, "gpt.args", "gpt_write: missing device scratch, write callback, disk "
			   "GUID, entries or placement");
		return AS_EINVAL;
	}
	l.lss = dev->sector_size;
	l.num_entries = place->num_entries ? place->num_entries : GPT_DEFAULT_ENTRIES;
	if (n > l.num_entries) {
		diag_error(d, "gpt.args", "gpt_write: %u entries do not fit an array of %u", n,
			   (unsigned)l.num_entries);
		return AS_EINVAL;
	}
	if ((uint64_t)l.num_entries * GPT_ENTRY_SIZE > GPT_MAX_ARRAY_BYTES) {
		diag_error(d, "gpt.array_size", "gpt_write: an array of %u entries is larger than the "
			   "%u bytes we support", (unsigned)l.num_entries, GPT_MAX_ARRAY_BYTES);
		return AS_EINVAL;
	}
	l.array_sectors = gpt_array_sectors(l.lss, l.num_entries, GPT_ENTRY_SIZE);
	gpt_default_layout(l.lss, dev->sectors, l.num_entries, GPT_ENTRY_SIZE, &def_first, &def_last);
	if (dev->sectors < 2 * l.array_sectors + 4 || def_first > def_last) {
		diag_error(d, "gpt.disk_too_small",
			   "a disk of %llu sectors of %u bytes cannot hold two GPTs with %llu-sector "
			   "arrays",
			   (unsigned long long)dev->sectors, (unsigned)l.lss,
			   (unsigned long long)l.array_sectors);
		return AS_ENOSPC;
	}
	l.last = dev->sectors - 1;
	l.first_usable = place->first_usable ? place->first_usable : def_first;
	l.last_usable = place->last_usable ? place->last_usable : def_last;
	uint64_t primary_array = place->primary_array ? place->primary_array : 2;
	uint64_t backup_array = place->backup_array ? place->backup_array : l.last - l.array_sectors;
	if (!placement_ok(&l, primary_array, backup_array, d))
		return AS_EINVAL;
	if (!entries_ok(&l, entries, n, d))
		return AS_EINVAL;

	struct gpt_header h = {
		.signature = GPT_SIGNATURE,
		.revision = GPT_REVISION,
		.header_size = GPT_HEADER_SIZE,
		.first_usable = l.first_usable,
		.last_usable = l.last_usable,
		.disk_guid = *disk_guid,
		.num_entries = l.num_entries,
		.entry_size = GPT_ENTRY_SIZE,
		.entries_crc = array_crc(entries, n, l.num_entries),
	};

	/* Backup first, then the primary. */
	if ((rc = write_array(dev, &l, entries, n, backup_array, d)))
		return rc;
	h.my_lba = l.last;
	h.alternate_lba = 1;
	h.entries_lba = backup_array;
	if ((rc = write_header(dev, &h, d)))
		return rc;

	if ((rc = write_array(dev, &l, entries, n, primary_array, d)))
		return rc;
	h.my_lba = 1;
	h.alternate_lba = l.last;
	h.entries_lba = primary_array;
	return write_header(dev, &h, d);
}
