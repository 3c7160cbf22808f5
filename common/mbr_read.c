/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading an MBR partition table from a device: the four primary entries, then the chain of
 * extended boot records (each EBR holds one logical partition, relative to itself, and a link
 * to the next EBR, relative to the start of the extended partition). The walk has a hard bound
 * and remembers where it has been, so a hostile chain ends in an error, never a hang. */
#include "common/mbr.h"

#include "common/errors.h"
#include "common/mem.h"

#define LBA32_MAX 0xFFFFFFFFull

static int read_record(struct blockdev *dev, uint64_t lba, uint8_t rec[MBR_RECORD_SIZE],
		       struct diag *d, const char *what)
{
	int rc = bdev_read_bytes(dev, lba * dev->sector_size, rec, MBR_RECORD_SIZE);
	if (rc)
		diag_error(d, "mbr.io", "%s at LBA %llu could not be read: %s", what,
			   (unsigned long long)lba, as_strerror(rc));
	return rc;
}

static void add_part(struct mbr_table *t, unsigned number, const struct mbr_entry *e,
		     uint64_t first, uint64_t table_lba)
{
	struct mbr_part *p = &t->parts[t->count++];
	p->number = number;
	p->type = e->type;
	p->active = e->status == 0x80;
	p->first_lba = first;
	p->sectors = e->sectors;
	p->table_lba = table_lba;
}

static uint64_t part_last(const struct mbr_part *p)
{
	return p->first_lba + p->sectors - 1;
}

/* Checks one primary entry; returns false when it is unusable (and says why). */
static bool primary_ok(const struct blockdev *dev, const struct mbr_entry *e, unsigned n,
		       struct diag *d)
{
	uint64_t first = e->lba_first;
	uint64_t last = first + e->sectors - 1;
	bool pmbr = e->type == MBR_TYPE_GPT_PROTECTIVE;
	bool ok = true;

	if (first == 0) {
		diag_error(d, "mbr.entry_range", "MBR entry %u: starts at LBA 0, over the MBR itself", n);
		ok = false;
	}
	if (last > LBA32_MAX) {
		diag_error(d, "mbr.lba32",
			   "MBR entry %u: ends at LBA %llu, past the 32-bit limit %llu (start %llu + %u "
			   "sectors)",
			   n, (unsigned long long)last, LBA32_MAX, (unsigned long long)first,
			   (unsigned)e->sectors);
		ok = false;
	}
	if (last >= dev->sectors) {
		/* A protective entry on a shrunken image is the GPT reader's business. */
		diag_report(d, pmbr ? DIAG_WARN : DIAG_ERROR, "mbr.entry_range",
			    "MBR entry %u: LBA %llu..%llu ends past the last LBA %llu of the disk", n,
			    (unsigned long long)first, (unsigned long long)last,
			    (unsigned long long)(dev->sectors - 1));
		ok = ok && pmbr;
	}
	return ok;
}

/* Follows the EBR chain of the extended partition at [ext_first, ext_last] (which lies below
 * 2^32, so EBR LBAs fit 32 bits). Logical partitions are numbered from 5 in chain order.
 * rec is the caller's record buffer, reused to keep the stack small. */
static int walk_ebrs(struct blockdev *dev, struct mbr_table *t, uint64_t ext_first,
		     uint64_t ext_last, uint8_t rec[MBR_RECORD_SIZE], struct diag *d, bool *bad)
{
	uint32_t visited[MBR_MAX_LOGICAL];
	unsigned nvisited = 0, next_number = 5;
	uint64_t ebr = ext_first;
	struct mbr m;

	for (;;) {
		for (unsigned i = 0; i < nvisited; i++) {
			if (visited[i] == ebr) {
				diag_error(d, "mbr.ebr_loop",
					   "EBR chain loops: the EBR at LBA %llu links back to the EBR "
					   "at LBA %llu",
					   (unsigned long long)visited[nvisited - 1],
					   (unsigned long long)ebr);
				return AS_ECORRUPT;
			}
		}
		if (nvisited == MBR_MAX_LOGICAL) {
			diag_error(d, "mbr.ebr_bound",
				   "EBR chain longer than %u: stopped before the EBR at LBA %llu",
				   MBR_MAX_LOGICAL, (unsigned long long)ebr);
			return AS_ECORRUPT;
		}
		visited[nvisited++] = (uint32_t)ebr;

		int rc = read_record(dev, ebr, rec, d, "EBR");
		if (rc)
			return rc;
		mbr_decode(rec, &m);
		if (!m.boot_signature) {
			diag_error(d, "mbr.ebr_signature", "EBR at LBA %llu: no 0x55AA signature",
				   (unsigned long long)ebr);
			return AS_ECORRUPT;
		}

		const struct mbr_entry *log = &m.part[0];
		if (log->type != MBR_TYPE_EMPTY && log->sectors) {
			uint64_t first = ebr + log->lba_first;
			uint64_t last = first + log->sectors - 1;
			if (mbr_type_is_extended(log->type)) {
				diag_error(d, "mbr.ebr_entry",
					   "EBR at LBA %llu: its first entry has extended type 0x%02X, "
					   "not a logical partition",
					   (unsigned long long)ebr, log->type);
				*bad = true;
			} else if (log->lba_first == 0 || first < ext_first || last > ext_last) {
				diag_error(d, "mbr.logical_range",
					   "logical partition %u (EBR at LBA %llu): LBA %llu..%llu is not "
					   "inside the extended partition %llu..%llu after its EBR",
					   next_number, (unsigned long long)ebr,
					   (unsigned long long)first, (unsigned long long)last,
					   (unsigned long long)ext_first, (unsigned long long)ext_last);
				*bad = true;
			} else {
				add_part(t, next_number, log, first, ebr);
			}
			next_number++;
		}
		for (unsigned i = 2; i < 4; i++) {
			if (m.part[i].type != MBR_TYPE_EMPTY && m.part[i].sectors)
				diag_warn(d, "mbr.ebr_extra",
					  "EBR at LBA %llu: entry %u (type 0x%02X) is ignored; an EBR "
					  "uses only its first two entries",
					  (unsigned long long)ebr, i + 1, m.part[i].type);
		}

		const struct mbr_entry *link = &m.part[1];
		if (link->type == MBR_TYPE_EMPTY || !link->sectors)
			return 0;
		if (!mbr_type_is_extended(link->type)) {
			diag_warn(d, "mbr.ebr_link",
				  "EBR at LBA %llu: second entry has type 0x%02X, not a link to the "
				  "next EBR; the chain ends here",
				  (unsigned long long)ebr, link->type);
			return 0;
		}
		uint64_t next = ext_first + link->lba_first;
		if (next > ext_last) {
			diag_error(d, "mbr.ebr_range",
				   "EBR at LBA %llu: next EBR at LBA %llu lies outside the extended "
				   "partition %llu..%llu",
				   (unsigned long long)ebr, (unsigned long long)next,
				   (unsigned long long)ext_first, (unsigned long long)ext_last);
			return AS_ECORRUPT;
		}
		ebr = next;
	}
}

static bool overlaps(const struct mbr_part *a, const struct mbr_part *b)
{
	return a->first_lba <= part_last(b) && b->first_lba <= part_last(a);
}

/* Pairs that may share sectors: 0xEE with anything (hybrid MBRs), an extended partition with
 * the logical partitions inside it. */
static bool may_overlap(const struct mbr_part *a, const struct mbr_part *b)
{
	if (a->type == MBR_TYPE_GPT_PROTECTIVE || b->type == MBR_TYPE_GPT_PROTECTIVE)
		return true;
	if (mbr_type_is_extended(a->type) && b->number >= 5)
		return true;
	if (mbr_type_is_extended(b->type) && a->number >= 5)
		return true;
	return false;
}

static bool check_overlaps(const struct mbr_table *t, struct diag *d)
{
	bool ok = true;

	for (unsigned i = 0; i < t->count; i++) {
		const struct mbr_part *a = &t->parts[i];
		for (unsigned j = i + 1; j < t->count; j++) {
			const struct mbr_part *b = &t->parts[j];
			if (may_overlap(a, b) || !overlaps(a, b))
				continue;
			diag_error(d, "mbr.overlap",
				   "partitions %u (LBA %llu..%llu) and %u (LBA %llu..%llu) overlap",
				   a->number, (unsigned long long)a->first_lba,
				   (unsigned long long)part_last(a), b->number,
				   (unsigned long long)b->first_lba, (unsigned long long)part_last(b));
			ok = false;
		}
		/* An EBR must not lie inside a partition other than its extended one. */
		if (a->number < 5)
			continue;
		for (unsigned j = 0; j < t->count; j++) {
			const struct mbr_part *b = &t->parts[j];
			if (mbr_type_is_extended(b->type) || b->type == MBR_TYPE_GPT_PROTECTIVE)
				continue;
			if (a->table_lba >= b->first_lba && a->table_lba <= part_last(b)) {
				diag_error(d, "mbr.overlap",
					   "the EBR of partition %u at LBA %llu lies inside partition %u "
					   "(LBA %llu..%llu)",
					   a->number, (unsigned long long)a->table_lba, b->number,
					   (unsigned long long)b->first_lba,
					   (unsigned long long)part_last(b));
				ok = false;
			}
		}
	}
	return ok;
}

int mbr_read(struct blockdev *dev, struct mbr_table *out, struct diag *d)
{
	uint8_t rec[MBR_RECORD_SIZE];
	bool bad = false;
	int ext = -1;
	int rc;

	memset(out, 0, sizeof *out);
	if (dev->sectors == 0 || (uint64_t)dev->sector_size * dev->sectors < MBR_RECORD_SIZE) {
		diag_error(d, "mbr.io", "the device is too small to hold an MBR");
		return AS_ERANGE;
	}
	if ((rc = read_record(dev, 0, rec, d, "MBR")))
		return rc;
	mbr_decode(rec, &out->mbr);
	if (!out->mbr.boot_signature) {
		diag_error(d, "mbr.signature", "MBR at LBA 0: no 0x55AA signature (bytes %02X %02X)",
			   rec[MBR_SIGNATURE_OFF], rec[MBR_SIGNATURE_OFF + 1]);
		return AS_ENOENT;
	}

	for (unsigned i = 0; i < 4; i++) {
		const struct mbr_entry *e = &out->mbr.part[i];
		unsigned n = i + 1;
		if (e->status != 0x00 && e->status != 0x80) {
			diag_error(d, "mbr.status",
				   "MBR entry %u: status byte 0x%02X is neither 0x00 nor 0x80 (Linux then "
				   "ignores the whole table)",
				   n, e->status);
			bad = true;
		}
		if (e->type == MBR_TYPE_EMPTY)
			continue;
		if (!e->sectors) {
			diag_warn(d, "mbr.empty_entry",
				  "MBR entry %u: type 0x%02X with 0 sectors is treated as unused", n,
				  e->type);
			continue;
		}
		if (!primary_ok(dev, e, n, d)) {
			bad = true;
			continue;
		}
		if (mbr_type_is_extended(e->type)) {
			if (ext >= 0) {
				diag_error(d, "mbr.extended_count",
					   "MBR entries %d and %u are both extended partitions; only one "
					   "is allowed",
					   ext + 1, n);
				bad = true;
				continue;
			}
			ext = (int)i;
		}
		add_part(out, n, e, e->lba_first, 0);
	}

	if (ext >= 0) {
		const struct mbr_entry *e = &out->mbr.part[ext];
		rc = walk_ebrs(dev, out, e->lba_first, (uint64_t)e->lba_first + e->sectors - 1, rec, d,
			       &bad);
		if (rc)
			return rc;
	}
	if (!check_overlaps(out, d))
		bad = true;
	return bad ? AS_ECORRUPT : 0;
}
