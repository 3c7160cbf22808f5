/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading and validating a GPT. Firmware has no heap and a small stack, so the header is
 * examined in the device's scratch sector and the entry array is streamed through it one
 * sector at a time: the array CRC is computed on the way and used entries are kept in the
 * caller's struct gpt. Every rule has its own diag code (listed in gpt.h). */
#include "common/bits.h"
#include "common/gpt.h"

#include "common/crc32.h"
#include "common/errors.h"
#include "common/mem.h"

#define U32_MAX 0xFFFFFFFFull

/* What made a header unusable, told in the sentences about the other header (reasons[]). Each
 * is also the diag code "gpt." followed by its name. */
enum gpt_why {
	WHY_none,
	WHY_io,
	WHY_signature,
	WHY_header_size,
	WHY_header_crc,
	WHY_revision,
	WHY_my_lba,
	WHY_alternate_lba,
	WHY_usable_range,
	WHY_entry_size,
	WHY_array_size,
	WHY_array_location,
	WHY_array_crc,
	WHY_too_many,
	WHY_entry_order,
	WHY_entry_range,
	WHY_overlap,
};

/* One header check in progress. */
struct check {
	struct blockdev *dev;
	struct diag *d;
	uint64_t lba;            /* where the header is */
	uint64_t last;           /* last LBA of the disk */
	struct gpt_header h;
	bool header_trusted;     /* signature, size and CRC good: AlternateLBA means something */
	enum gpt_why why;        /* the first fatal problem */
	int rc;
	/* Levels of the fatal problems and of a missing signature: errors, except under gpt_read,
	 * where a header it can do without has warnings and no signature (no GPT at all) is only
	 * information. */
	enum diag_level fatal, no_sig_level;
};

static void note(struct check *c, int rc, enum gpt_why why)
{
	if (!c->why)
		c->why = why;
	if (!c->rc || rc == AS_ECORRUPT)
		c->rc = rc;
}

#define FAIL(c, rc, why, ...)                                                   \
	do {                                                                    \
		diag_report((c)->d, (c)->fatal, "gpt." #why, __VA_ARGS__);     \
		note((c), (rc), WHY_##why);                                     \
	} while (0)

/* Inclusive ranges [a0, a1] and [b0, b1] share a sector. */
static bool ranges_meet(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	return a0 <= b1 && b0 <= a1;
}

static uint64_t array_bytes(const struct gpt_header *h)
{
	return (uint64_t)h->num_entries * h->entry_size;
}

static uint64_t array_sectors(const struct check *c)
{
	uint32_t lss = c->dev->sector_size;
	return (array_bytes(&c->h) + lss - 1) >> __builtin_ctz(lss); /* no 64-bit division */
}

/* Signature, HeaderSize and CRC: until these hold nothing else in the header means anything. */
static int check_header_integrity(struct check *c)
{
	struct blockdev *dev = c->dev;
	const uint8_t *raw = dev->scratch;
	int rc;

	if (c->lba > c->last) {
		diag_report(c->d, c->no_sig_level, "gpt.signature",
			    "no GPT header at LBA %llu: the disk has only %llu sectors",
			    (unsigned long long)c->lba, (unsigned long long)dev->sectors);
		note(c, AS_ENOENT, WHY_signature);
		return c->rc;
	}
	if ((rc = bdev_read(dev, c->lba, 1, dev->scratch))) {
		FAIL(c, rc, io, "GPT header at LBA %llu could not be read: %s",
		     (unsigned long long)c->lba, as_strerror(rc));
		return rc;
	}
	gpt_header_decode(raw, &c->h);
	if (c->h.signature != GPT_SIGNATURE) {
		diag_report(c->d, c->no_sig_level, "gpt.signature",
			    "GPT header at LBA %llu: no \"EFI PART\" signature", (unsigned long long)c->lba);
		note(c, AS_ENOENT, WHY_signature);
		return c->rc;
	}
	if (c->h.header_size < GPT_HEADER_SIZE || c->h.header_size > dev->sector_size) {
		FAIL(c, AS_ECORRUPT, header_size,
		     "GPT header at LBA %llu: HeaderSize %u is outside %u..%u (the sector size)",
		     (unsigned long long)c->lba, (unsigned)c->h.header_size, GPT_HEADER_SIZE,
		     (unsigned)dev->sector_size);
		return c->rc;
	}
	uint32_t crc = gpt_header_crc(raw, c->h.header_size);
	if (crc != c->h.header_crc) {
		FAIL(c, AS_ECORRUPT, header_crc,
		     "GPT header at LBA %llu: header CRC32 is 0x%08X but the %u header bytes give "
		     "0x%08X",
		     (unsigned long long)c->lba, (unsigned)c->h.header_crc,
		     (unsigned)c->h.header_size, (unsigned)crc);
		return c->rc;
	}
	c->header_trusted = true;
	return 0;
}

static void check_entry_array(struct check *c, const struct gpt_header *h, unsigned long long at);

/* The header's fields, each rule on its own so all of a deliberately wrong header is told. */
static void check_header_fields(struct check *c)
{
	const struct gpt_header *h = &c->h;
	unsigned long long at = c->lba;
	bool primary = c->lba == 1;

	if (h->revision != GPT_REVISION) {
		if (h->revision >> 16 == GPT_REVISION >> 16)
			diag_warn(c->d, "gpt.revision",
				  "GPT header at LBA %llu: revision 0x%08X is a newer 1.x revision than "
				  "0x%08X; reading it as 1.0",
				  at, (unsigned)h->revision, GPT_REVISION);
		else
			FAIL(c, AS_EUNSUPP, revision,
			     "GPT header at LBA %llu: revision 0x%08X is not 0x%08X", at,
			     (unsigned)h->revision, GPT_REVISION);
	}
	if (h->reserved)
		diag_warn(c->d, "gpt.reserved", "GPT header at LBA %llu: reserved field is 0x%08X, not 0",
			  at, (unsigned)h->reserved);
	if (h->my_lba != c->lba)
		FAIL(c, AS_ECORRUPT, my_lba, "GPT header at LBA %llu: MyLBA is %llu", at,
		     (unsigned long long)h->my_lba);

	/* The other header lives at the other end of the disk. */
	if (primary) {
		if (h->alternate_lba <= 1 || h->alternate_lba > c->last)
			FAIL(c, AS_ECORRUPT, alternate_lba,
			     "GPT header at LBA %llu: AlternateLBA %llu is outside 2..%llu", at,
			     (unsigned long long)h->alternate_lba, (unsigned long long)c->last);
		else if (h->alternate_lba != c->last)
			diag_warn(c->d, "gpt.alternate_lba",
				  "GPT header at LBA %llu: AlternateLBA %llu is not the last LBA %llu "
				  "(the disk may have grown)",
				  at, (unsigned long long)h->alternate_lba, (unsigned long long)c->last);
	} else if (h->alternate_lba != 1) {
		FAIL(c, AS_ECORRUPT, alternate_lba,
		     "GPT header at LBA %llu: AlternateLBA %llu, a backup header must point at LBA 1",
		     at, (unsigned long long)h->alternate_lba);
	}

	/* The usable range: inside the disk, clear of LBA 0 and both headers. */
	if (h->first_usable > h->last_usable)
		FAIL(c, AS_ECORRUPT, usable_range,
		     "GPT header at LBA %llu: FirstUsableLBA %llu is above LastUsableLBA %llu", at,
		     (unsigned long long)h->first_usable, (unsigned long long)h->last_usable);
	else if (h->last_usable > c->last)
		FAIL(c, AS_ECORRUPT, usable_range,
		     "GPT header at LBA %llu: LastUsableLBA %llu is past the last LBA %llu", at,
		     (unsigned long long)h->last_usable, (unsigned long long)c->last);
	else if (h->first_usable == 0 ||
		 ranges_meet(h->first_usable, h->last_usable, c->lba, c->lba) ||
		 ranges_meet(h->first_usable, h->last_usable, h->alternate_lba, h->alternate_lba))
		FAIL(c, AS_ECORRUPT, usable_range,
		     "GPT header at LBA %llu: usable range %llu..%llu covers LBA 0 or a GPT header "
		     "(LBA %llu, %llu)",
		     at, (unsigned long long)h->first_usable, (unsigned long long)h->last_usable, at,
		     (unsigned long long)h->alternate_lba);

	check_entry_array(c, h, at);
}

/* The entry array's fields: entry size 128 * 2^n, huge sizes and counts refused before any array
 * I/O; the array inside the disk, off LBA 0, both headers and the usable range. */
static void check_entry_array(struct check *c, const struct gpt_header *h, unsigned long long at)
{
	bool size_ok = false;

	if (h->entry_size < GPT_ENTRY_SIZE || h->entry_size % GPT_ENTRY_SIZE ||
	    !is_pow2(h->entry_size / GPT_ENTRY_SIZE))
		FAIL(c, AS_ECORRUPT, entry_size,
		     "GPT header at LBA %llu: entry size %u is not 128 times a power of two", at,
		     (unsigned)h->entry_size);
	else if (h->entry_size > GPT_MAX_ENTRY_SIZE)
		FAIL(c, AS_EUNSUPP, entry_size,
		     "GPT header at LBA %llu: entry size %u is larger than the %u we support", at,
		     (unsigned)h->entry_size, GPT_MAX_ENTRY_SIZE);
	else
		size_ok = true;
	if (!size_ok)
		return;

	uint64_t bytes = array_bytes(h);
	if (bytes > U32_MAX) {
		FAIL(c, AS_ECORRUPT, array_size,
		     "GPT header at LBA %llu: %u entries of %u bytes overflow 32 bits (%llu bytes)", at,
		     (unsigned)h->num_entries, (unsigned)h->entry_size, (unsigned long long)bytes);
		return;
	}
	if (bytes > GPT_MAX_ARRAY_BYTES) {
		FAIL(c, AS_EUNSUPP, array_size,
		     "GPT header at LBA %llu: entry array of %llu bytes is larger than the %u we "
		     "support",
		     at, (unsigned long long)bytes, GPT_MAX_ARRAY_BYTES);
		return;
	}

	/* The array: inside the disk, off LBA 0, both headers and the usable range. */
	uint64_t n = array_sectors(c);
	if (!n)
		return;
	uint64_t a0 = h->entries_lba;
	if (a0 == 0 || a0 > c->last || n > c->last - a0 + 1) {
		FAIL(c, AS_ECORRUPT, array_location,
		     "GPT header at LBA %llu: entry array at LBA %llu (%llu sectors) is not inside "
		     "1..%llu",
		     at, (unsigned long long)a0, (unsigned long long)n, (unsigned long long)c->last);
		return;
	}
	uint64_t a1 = a0 + n - 1;
	if (ranges_meet(a0, a1, c->lba, c->lba) ||
	    ranges_meet(a0, a1, h->alternate_lba, h->alternate_lba))
		FAIL(c, AS_ECORRUPT, array_location,
		     "GPT header at LBA %llu: entry array LBA %llu..%llu covers a GPT header (LBA "
		     "%llu, %llu)",
		     at, (unsigned long long)a0, (unsigned long long)a1, at,
		     (unsigned long long)h->alternate_lba);
	else if (h->first_usable <= h->last_usable &&
		 ranges_meet(a0, a1, h->first_usable, h->last_usable))
		FAIL(c, AS_ECORRUPT, array_location,
		     "GPT header at LBA %llu: entry array LBA %llu..%llu overlaps the usable range "
		     "%llu..%llu",
		     at, (unsigned long long)a0, (unsigned long long)a1,
		     (unsigned long long)h->first_usable, (unsigned long long)h->last_usable);
}

/* Streams the array once: CRC over every byte, used entries into out (when given). */
static int stream_array(struct check *c, struct gpt *out)
{
	struct blockdev *dev = c->dev;
	const struct gpt_header *h = &c->h;
	uint32_t lss = dev->sector_size;
	uint64_t bytes = array_bytes(h), n = array_sectors(c);
	uint64_t next_entry = 0; /* byte offset in the array of the next entry to decode */
	uint32_t crc = 0;
	bool too_many = false;
	struct gpt_entry e;
	int rc;

	for (uint64_t s = 0; s < n; s++) {
		uint64_t lba = h->entries_lba + s;
		if ((rc = bdev_read(dev, lba, 1, dev->scratch))) {
			FAIL(c, rc, io, "GPT entry array sector at LBA %llu could not be read: %s",
			     (unsigned long long)lba, as_strerror(rc));
			return rc;
		}
		uint64_t start = s * lss;
		uint32_t len = bytes - start < lss ? (uint32_t)(bytes - start) : lss;
		crc = crc32_update(crc, dev->scratch, len);
		/* An entry never straddles sectors: both sizes are 128 times powers of two. */
		for (; next_entry < start + len; next_entry += h->entry_size) {
			if (!out)
				continue;
			gpt_entry_decode((const uint8_t *)dev->scratch + (next_entry - start), &e);
			if (!gpt_entry_used(&e))
				continue;
			if (out->count == GPT_MAX_PARTS) {
				too_many = true;
				continue;
			}
			out->parts[out->count].number =
				(unsigned)(next_entry >> __builtin_ctz(h->entry_size)) + 1;
			out->parts[out->count].e = e;
			out->count++;
		}
	}
	if (crc != h->entries_crc) {
		FAIL(c, AS_ECORRUPT, array_crc,
		     "GPT header at LBA %llu: entry array CRC32 is 0x%08X but its %llu bytes at LBA "
		     "%llu give 0x%08X",
		     (unsigned long long)c->lba, (unsigned)h->entries_crc, (unsigned long long)bytes,
		     (unsigned long long)h->entries_lba, (unsigned)crc);
		return c->rc;
	}
	if (too_many) {
		FAIL(c, AS_EUNSUPP, too_many,
		     "GPT header at LBA %llu: more than %u used entries", (unsigned long long)c->lba,
		     GPT_MAX_PARTS);
		return c->rc;
	}
	return 0;
}

static void check_one_entry(struct check *c, unsigned num, const struct gpt_entry *e)
{
	unsigned long long at = c->lba;

	if (e->first_lba > e->last_lba)
		FAIL(c, AS_ECORRUPT, entry_order,
		     "GPT at LBA %llu, entry %u: first LBA %llu is above last LBA %llu", at, num,
		     (unsigned long long)e->first_lba, (unsigned long long)e->last_lba);
	else if (e->first_lba < c->h.first_usable)
		FAIL(c, AS_ECORRUPT, entry_range,
		     "GPT at LBA %llu, entry %u: start LBA %llu is below first usable %llu", at, num,
		     (unsigned long long)e->first_lba, (unsigned long long)c->h.first_usable);
	else if (e->last_lba > c->h.last_usable)
		FAIL(c, AS_ECORRUPT, entry_range,
		     "GPT at LBA %llu, entry %u: end LBA %llu beyond last usable %llu", at, num,
		     (unsigned long long)e->last_lba, (unsigned long long)c->h.last_usable);
}

static void check_pair(struct check *c, unsigned na, const struct gpt_entry *a, unsigned nb,
		       const struct gpt_entry *b)
{
	if (a->first_lba > a->last_lba || b->first_lba > b->last_lba)
		return; /* already told */
	if (!ranges_meet(a->first_lba, a->last_lba, b->first_lba, b->last_lba))
		return;
	FAIL(c, AS_ECORRUPT, overlap,
	     "GPT at LBA %llu: entries %u (LBA %llu..%llu) and %u (LBA %llu..%llu) overlap",
	     (unsigned long long)c->lba, na, (unsigned long long)a->first_lba,
	     (unsigned long long)a->last_lba, nb, (unsigned long long)b->first_lba,
	     (unsigned long long)b->last_lba);
}

static void check_stored_entries(struct check *c, const struct gpt *g)
{
	for (unsigned i = 0; i < g->count; i++) {
		check_one_entry(c, g->parts[i].number, &g->parts[i].e);
		for (unsigned j = 0; j < i; j++)
			check_pair(c, g->parts[j].number, &g->parts[j].e, g->parts[i].number,
				   &g->parts[i].e);
	}
}

static int read_entry(struct check *c, uint32_t index, struct gpt_entry *e)
{
	uint8_t raw[GPT_ENTRY_SIZE];
	uint64_t off = c->h.entries_lba * c->dev->sector_size + (uint64_t)index * c->h.entry_size;
	int rc = bdev_read_bytes(c->dev, off, raw, sizeof raw);

	if (rc) {
		FAIL(c, rc, io, "GPT entry %u at byte %llu could not be read: %s", index + 1,
		     (unsigned long long)off, as_strerror(rc));
		return rc;
	}
	gpt_entry_decode(raw, e);
	return 0;
}

/* Without a struct gpt to keep entries in, the checks re-read them (a host-only path: gpt_read
 * always keeps the entries it checks). The used entries are found first, at most GPT_MAX_PARTS
 * of them as with a struct gpt, so the pairwise overlap check stays bounded. */
static void check_entries_by_reading(struct check *c)
{
	uint16_t used[GPT_MAX_PARTS]; /* array bytes <= 4 MiB: at most 32768 entries */
	unsigned nused = 0;
	struct gpt_entry a, b;

	for (uint32_t i = 0; i < c->h.num_entries; i++) {
		if (read_entry(c, i, &a))
			return;
		if (!gpt_entry_used(&a))
			continue;
		if (nused == GPT_MAX_PARTS) {
			FAIL(c, AS_EUNSUPP, too_many, "GPT header at LBA %llu: more than %u used entries",
			     (unsigned long long)c->lba, GPT_MAX_PARTS);
			return;
		}
		used[nused++] = (uint16_t)i;
		check_one_entry(c, i + 1, &a);
	}
	for (unsigned i = 0; i < nused; i++) {
		if (read_entry(c, used[i], &a))
			return;
		for (unsigned j = 0; j < i; j++) {
			if (read_entry(c, used[j], &b))
				return;
			check_pair(c, used[j] + 1u, &b, used[i] + 1u, &a);
		}
	}
}

/* The whole check of the header at lba. check_entries false skips the per-entry rules (the
 * caller knows the array equals one already checked, or checks them itself without a struct
 * gpt: gpt_read_at). one_of_two: gpt_read's levels (struct check). */
static int check_at(struct check *c, struct blockdev *dev, uint64_t lba, struct gpt *out,
		    bool check_entries, struct diag *d, bool one_of_two)
{
	int rc;

	memset(c, 0, sizeof *c);
	c->dev = dev;
	c->d = d;
	c->lba = lba;
	c->fatal = one_of_two ? DIAG_WARN : DIAG_ERROR;
	c->no_sig_level = one_of_two ? DIAG_INFO : DIAG_ERROR;
	if (out) {
		out->count = 0;
		out->primary_valid = out->backup_valid = out->used_backup = false;
	}
	if (!dev->scratch || !dev->sectors) {
		FAIL(c, AS_EINVAL, io, "GPT: the device has no scratch sector or no sectors");
		return c->rc;
	}
	c->last = dev->sectors - 1;
	if ((rc = check_header_integrity(c)))
		return rc;
	check_header_fields(c);
	if (c->rc)
		return c->rc;
	if ((rc = stream_array(c, out))) {
		if (out)
			out->count = 0;
		return rc;
	}
	if (check_entries && out)
		check_stored_entries(c, out);
	if (c->rc) {
		if (out)
			out->count = 0;
		return c->rc;
	}
	if (out)
		out->hdr = c->h;
	return 0;
}

/* Only gpt_read_at reads the entries again (check_entries_by_reading), so a loader that calls
 * gpt_read alone links none of that. */
int gpt_read_at(struct blockdev *dev, uint64_t lba, struct gpt *out, struct diag *d)
{
	struct check c;
	int rc = check_at(&c, dev, lba, out, true, d, false);

	if (!rc && !out) {
		check_entries_by_reading(&c);
		rc = c.rc;
	}
	if (!rc && out) {
		out->primary_valid = lba == 1;
		out->backup_valid = lba != 1;
		out->used_backup = lba != 1;
	}
	return rc;
}

static const char *const reasons[] = {
	[WHY_none] = "invalid",
	[WHY_io] = "unreadable",
	[WHY_signature] = "no \"EFI PART\" signature",
	[WHY_header_size] = "bad HeaderSize",
	[WHY_header_crc] = "header CRC mismatch",
	[WHY_revision] = "unsupported revision",
	[WHY_my_lba] = "MyLBA does not match its location",
	[WHY_alternate_lba] = "bad AlternateLBA",
	[WHY_usable_range] = "bad usable range",
	[WHY_entry_size] = "bad entry size",
	[WHY_array_size] = "bad entry array size",
	[WHY_array_location] = "bad entry array location",
	[WHY_array_crc] = "entry array CRC mismatch",
	[WHY_too_many] = "too many used entries",
	[WHY_entry_order] = "an entry ends before it starts",
	[WHY_entry_range] = "an entry outside the usable range",
	[WHY_overlap] = "overlapping entries",
};

static const char *reason_of(enum gpt_why why)
{
	return reasons[why];
}

/* Says how a valid backup differs from the valid primary it mirrors. */
static void compare_backup(const struct gpt_header *p, const struct gpt_header *b, struct diag *d)
{
	const char *field = NULL;

	if (b->my_lba != p->alternate_lba)
		field = "location";
	else if (p->first_usable != b->first_usable || p->last_usable != b->last_usable)
		field = "usable range";
	else if (!guid_eq(&p->disk_guid, &b->disk_guid))
		field = "disk GUID";
	else if (p->num_entries != b->num_entries || p->entry_size != b->entry_size)
		field = "entry count or size";
	else if (p->entries_crc != b->entries_crc)
		field = "entry array";
	if (field)
		diag_warn(d, "gpt.backup_mismatch",
			  "backup GPT header at LBA %llu differs from the primary in its %s",
			  (unsigned long long)b->my_lba, field);
}

int gpt_read(struct blockdev *dev, struct gpt *out, struct diag *d)
{
	struct check c;
	int rc1, rc2;

	memset(out, 0, sizeof *out);
	rc1 = check_at(&c, dev, 1, out, true, d, true);
	uint64_t last = c.last;

	if (!rc1) {
		struct gpt_header primary = c.h;
		out->primary_valid = true;
		/* The arrays agree when their CRCs do, so the entries were checked already. */
		rc2 = check_at(&c, dev, primary.alternate_lba, NULL, false, d, true);
		if (!rc2) {
			out->backup_valid = true;
			compare_backup(&primary, &c.h, d);
		} else {
			diag_warn(d, "gpt.backup_bad",
				  "backup GPT header at LBA %llu is invalid (%s); the primary is fine",
				  (unsigned long long)primary.alternate_lba, reason_of(c.why));
		}
		return 0;
	}
	if (rc1 == AS_EINVAL || dev->sectors < 3)
		return rc1;

	enum gpt_why why1 = c.why;
	uint64_t alt = c.h.alternate_lba;
	uint64_t backup = c.header_trusted && alt > 1 && alt <= last ? alt : last;
	rc2 = check_at(&c, dev, backup, out, true, d, true);
	if (!rc2) {
		out->backup_valid = true;
		out->used_backup = true;
		diag_warn(d, "gpt.using_backup",
			  "primary GPT header at LBA 1 is invalid (%s); using the backup GPT header at "
			  "LBA %llu",
			  reason_of(why1), (unsigned long long)backup);
		return 0;
	}
	if (rc1 == AS_ENOENT && rc2 == AS_ENOENT) {
		diag_info(d, "gpt.none", "no GPT: no \"EFI PART\" signature at LBA 1 or at LBA %llu",
			  (unsigned long long)backup);
		return AS_ENOENT;
	}
	diag_error(d, "gpt.invalid",
		   "no valid GPT: the primary header at LBA 1 (%s) and the backup at LBA %llu (%s) "
		   "are both invalid",
		   reason_of(why1), (unsigned long long)backup, reason_of(c.why));
	return rc1 == AS_EUNSUPP && rc2 == AS_EUNSUPP ? AS_EUNSUPP : AS_ECORRUPT;
}
