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

int gpt_write(struct blockdev *dev, const struct guid *disk_guid, const struct gpt_entry *entries,
	      unsigned n, uint32_t num_entries, uint64_t first_usable, uint64_t last_usable,
	      struct diag *d)
{
	struct layout l;
	uint64_t def_first, def_last;
	int rc;

	if (!dev->scratch || !dev->write || !disk_guid || (n && !entries)) {
		diag_error(d, "gpt.args", "gpt_write: missing device scratch, write callback, disk "
			   "GUID or entries");
		return AS_EINVAL;
	}
	l.lss = dev->sector_size;
	l.num_entries = num_entries ? num_entries : GPT_DEFAULT_ENTRIES;
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
	l.first_usable = first_usable ? first_usable : def_first;
	l.last_usable = last_usable ? last_usable : def_last;
	if (l.first_usable < def_first || l.last_usable > def_last || l.first_usable > l.last_usable) {
		diag_error(d, "gpt.usable_range",
			   "GPT usable range %llu..%llu is not inside %llu..%llu, the space between the "
			   "arrays",
			   (unsigned long long)l.first_usable, (unsigned long long)l.last_usable,
			   (unsigned long long)def_first, (unsigned long long)def_last);
		return AS_EINVAL;
	}
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

	/* Backup first: array just below the backup header at the last LBA. */
	uint64_t backup_array = l.last - l.array_sectors;
	if ((rc = write_array(dev, &l, entries, n, backup_array, d)))
		return rc;
	h.my_lba = l.last;
	h.alternate_lba = 1;
	h.entries_lba = backup_array;
	if ((rc = write_header(dev, &h, d)))
		return rc;

	if ((rc = write_array(dev, &l, entries, n, 2, d)))
		return rc;
	h.my_lba = 1;
	h.alternate_lba = l.last;
	h.entries_lba = 2;
	return write_header(dev, &h, d);
}
