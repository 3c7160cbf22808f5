/* SPDX-License-Identifier: BSD-2-Clause */
/* MBR: CHS, records, Windows 7's tables W-1..W-3 (docs/DESIGN.md "Background") bit-exact, the
 * EBR walk and its failure modes, protective MBR build and check. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mbr.h"


/* assert_reported wants a pointer it cannot prove non-NULL. */
static const char *text(const char *s)
{
	return s;
}

/* A disk whose first `backed` bytes are memory and the rest reads as zeros: lets tables that
 * describe 160 GB or 2^33-sector disks be read without that much memory. */
struct sparse {
	struct blockdev dev;
	uint8_t *data;
	uint64_t backed;
	uint8_t scratch[4096];
};

static int sparse_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct sparse *s = dev->priv;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t off = (lba + i) * dev->sector_size;
		uint8_t *dst = (uint8_t *)buf + (size_t)i * dev->sector_size;
		if (off + dev->sector_size <= s->backed)
			memcpy(dst, s->data + off, dev->sector_size);
		else
			memset(dst, 0, dev->sector_size);
	}
	return 0;
}

static struct sparse *sparse_new(uint32_t lss, uint64_t sectors, uint64_t backed)
{
	struct sparse *s = calloc(1, sizeof *s);
	assert_non_null(s);
	s->data = calloc(1, backed);
	assert_non_null(s->data);
	s->backed = backed;
	s->dev = (struct blockdev){ .sector_size = lss, .phys_size = lss, .sectors = sectors,
				    .read = sparse_read, .priv = s, .scratch = s->scratch };
	return s;
}

static void sparse_free(struct sparse *s)
{
	free(s->data);
	free(s);
}

static void test_chs_vectors(void **state)
{
	(void)state;
	uint8_t c[3];

	chs_encode(63, c);
	assert_memory_equal(c, "\x01\x01\x00", 3);
	chs_encode(2055, c); /* 0/32/40 */
	assert_memory_equal(c, "\x20\x28\x00", 3);
	chs_encode(2048, c);
	assert_memory_equal(c, "\x20\x21\x00", 3);
	chs_encode(206847, c);
	assert_memory_equal(c, "\xDF\x13\x0C", 3);
	chs_encode(0, c);
	assert_memory_equal(c, "\x00\x01\x00", 3);
	chs_encode(CHS_MAX_LBA, c);
	assert_memory_equal(c, "\xFE\xFF\xFF", 3);
	chs_encode(CHS_MAX_LBA + 1, c);
	assert_memory_equal(c, "\xFE\xFF\xFF", 3);
	chs_encode(1ULL << 40, c);
	assert_memory_equal(c, "\xFE\xFF\xFF", 3);
	/* Cylinder high bits: cylinder 256 = LBA 256*16065. */
	chs_encode(256ULL * 16065, c);
	assert_memory_equal(c, "\x00\x41\x00", 3);

	assert_int_equal(chs_decode((const uint8_t *)"\xFE\xFF\xFF"), CHS_MAX_LBA);
	assert_int_equal(chs_decode((const uint8_t *)"\x20\x28\x00"), 2055);
	assert_int_equal(chs_decode((const uint8_t *)"\xDF\x14\x0C"), 206848);
	assert_true(chs_decode((const uint8_t *)"\x00\x00\x00") == UINT64_MAX);
	for (uint64_t lba = 0; lba <= CHS_MAX_LBA; lba += 9973) {
		chs_encode(lba, c);
		assert_int_equal(chs_decode(c), lba);
	}
}

/* The partition tables of the seed (bytes 0x1BE..0x1FD), Windows 7 RC on blank disks. */
static const uint8_t W1[64] = {
	0x80, 0x20, 0x21, 0x00, 0x07, 0xdf, 0x13, 0x0c, 0x00, 0x08, 0x00, 0x00, 0x00, 0x20, 0x03, 0x00,
	0x00, 0xdf, 0x14, 0x0c, 0x07, 0xfe, 0xff, 0xff, 0x00, 0x28, 0x03, 0x00, 0x00, 0x68, 0x9e, 0x12,
};
static const uint8_t W2[64] = {
	0x80, 0x20, 0x21, 0x00, 0x07, 0xdf, 0x13, 0x0c, 0x00, 0x08, 0x00, 0x00, 0x00, 0x20, 0x03, 0x00,
	0x00, 0xdf, 0x14, 0x0c, 0x07, 0xfe, 0xff, 0xff, 0x00, 0x28, 0x03, 0x00, 0x00, 0xb8, 0x3f, 0x25,
};
static const uint8_t W3[64] = {
	0x80, 0x20, 0x28, 0x00, 0x07, 0xdf, 0x13, 0x0c, 0x07, 0x08, 0x00, 0x00, 0xf9, 0x1f, 0x03, 0x00,
	0x00, 0xdf, 0x1b, 0x0c, 0x07, 0xfe, 0xff, 0xff, 0x07, 0x28, 0x03, 0x00, 0xf9, 0x37, 0x6d, 0x74,
};

struct wcase {
	const uint8_t *table;
	uint32_t first[2], sectors[2];
	uint64_t chs_first[2], chs_last[2];
};

static const struct wcase wcases[] = {
	{ W1, { 2048, 206848 }, { 204800, 312371200 }, { 2048, 206848 }, { 206847, CHS_MAX_LBA } },
	{ W2, { 2048, 206848 }, { 204800, 624932864 }, { 2048, 206848 }, { 206847, CHS_MAX_LBA } },
	{ W3, { 2055, 206855 }, { 204793, 1953314809 }, { 2055, 206855 }, { 206847, CHS_MAX_LBA } },
};

static void make_record(uint8_t rec[MBR_RECORD_SIZE], const uint8_t table[64])
{
	for (unsigned i = 0; i < MBR_BOOTCODE_SIZE; i++)
		rec[i] = (uint8_t)(i * 7 + 3); /* boot code must survive untouched */
	memset(rec + MBR_BOOTCODE_SIZE, 0, MBR_RECORD_SIZE - MBR_BOOTCODE_SIZE);
	memcpy(rec + MBR_DISK_SIG_OFF, "\x12\x34\x56\x78", 4);
	memcpy(rec + MBR_TABLE_OFF, table, 64);
	rec[MBR_SIGNATURE_OFF] = 0x55;
	rec[MBR_SIGNATURE_OFF + 1] = 0xAA;
}

static void test_windows7_tables(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		const struct wcase *w = &wcases[k];
		uint8_t rec[MBR_RECORD_SIZE], out[MBR_RECORD_SIZE];
		struct mbr m;

		make_record(rec, w->table);
		mbr_decode(rec, &m);
		assert_true(m.boot_signature);
		assert_int_equal(m.disk_sig, 0x78563412);
		assert_int_equal(m.reserved, 0);
		for (unsigned i = 0; i < 2; i++) {
			assert_int_equal(m.part[i].status, i == 0 ? 0x80 : 0x00);
			assert_int_equal(m.part[i].type, MBR_TYPE_NTFS);
			assert_int_equal(m.part[i].lba_first, w->first[i]);
			assert_int_equal(m.part[i].sectors, w->sectors[i]);
			assert_int_equal(chs_decode(m.part[i].chs_first), w->chs_first[i]);
			assert_int_equal(chs_decode(m.part[i].chs_last), w->chs_last[i]);
		}
		for (unsigned i = 2; i < 4; i++)
			assert_int_equal(m.part[i].type, 0);

		/* Re-encode over a copy: bit-exact, boot code untouched. */
		memcpy(out, rec, sizeof out);
		memset(out + MBR_BOOTCODE_SIZE, 0xEE, MBR_RECORD_SIZE - MBR_BOOTCODE_SIZE);
		mbr_encode(&m, out);
		assert_memory_equal(out, rec, MBR_RECORD_SIZE);

		/* Rebuilt from LBAs alone: CHS bytes come out as Windows wrote them. */
		struct mbr b;
		memset(&b, 0, sizeof b);
		b.disk_sig = 0x78563412;
		for (unsigned i = 0; i < 2; i++)
			assert_int_equal(mbr_entry_set(&b.part[i], MBR_TYPE_NTFS, i == 0, w->first[i],
						       w->sectors[i]),
					 0);
		memcpy(out, rec, sizeof out);
		memset(out + MBR_TABLE_OFF, 0, 64);
		mbr_encode(&b, out);
		assert_memory_equal(out, rec, MBR_RECORD_SIZE);

		/* And mbr_read accepts it on a disk of the size Windows saw. */
		uint64_t end = (uint64_t)w->first[1] + w->sectors[1];
		struct sparse *s = sparse_new(MBR_RECORD_SIZE, end + 100, 1 << 20);
		memcpy(s->data, rec, sizeof rec);
		struct mbr_table t;
		struct capture c;
		capture_init(&c);
		assert_int_equal(mbr_read(&s->dev, &t, &c.diag), 0);
		assert_int_equal(c.diag.errors, 0);
		assert_int_equal(t.count, 2);
		assert_int_equal(t.parts[0].number, 1);
		assert_true(t.parts[0].active);
		assert_int_equal(t.parts[1].first_lba, w->first[1]);
		assert_int_equal(t.parts[1].sectors, w->sectors[1]);
		sparse_free(s);
	}
}

/* docs/FIRMWARE.md "MBR", the second vector. */
static void test_reference_vector(void **state)
{
	(void)state;
	static const uint8_t v[16] = { 0x00, 0xDF, 0x14, 0x0C, 0x07, 0xFE, 0xFF, 0xFF,
				       0x00, 0x28, 0x03, 0x00, 0x00, 0x30, 0x35, 0x3A };
	struct mbr_entry e;
	uint8_t raw[16];

	mbr_entry_decode(v, &e);
	assert_int_equal(e.lba_first, 206848);
	assert_int_equal(e.sectors, 0x3A353000);
	assert_int_equal(mbr_entry_set(&e, 0x07, false, 206848, 0x3A353000), 0);
	mbr_entry_encode(&e, raw);
	assert_memory_equal(raw, v, 16);
}

static void test_entry_set_limits(void **state)
{
	(void)state;
	struct mbr_entry e;

	assert_int_equal(mbr_entry_set(&e, 0x83, false, 0xFFFFFFFFull, 1), 0);
	assert_int_equal(mbr_entry_set(&e, 0x83, false, 1, 0xFFFFFFFFull), 0);
	assert_int_equal(mbr_entry_set(&e, 0x83, false, 0x100000000ull, 1), AS_ERANGE);
	assert_int_equal(mbr_entry_set(&e, 0x83, false, 2, 0xFFFFFFFFull), AS_ERANGE);
	assert_int_equal(mbr_entry_set(&e, 0x83, false, 2048, 0x100000000ull), AS_ERANGE);
	assert_int_equal(mbr_entry_set(&e, 0x83, false, 2048, 0), AS_EINVAL);
}

/* Table builder on a memory disk. */
static void put_entry(uint8_t *sector, unsigned slot, uint8_t status, uint8_t type, uint32_t first,
		      uint32_t n)
{
	struct mbr_entry e;
	memset(&e, 0, sizeof e);
	if (n && mbr_entry_set(&e, type, false, first, n) != 0)
		memset(&e, 0, sizeof e); /* deliberately out of range: no CHS */
	e.status = status;
	e.type = type;
	e.lba_first = first;
	e.sectors = n;
	mbr_entry_encode(&e, sector + MBR_TABLE_OFF + slot * MBR_ENTRY_SIZE);
	sector[MBR_SIGNATURE_OFF] = 0x55;
	sector[MBR_SIGNATURE_OFF + 1] = 0xAA;
}

static uint8_t *sec(struct test_disk *d, uint64_t lba)
{
	return d->md.data + lba * d->dev.sector_size;
}

/* 64 MiB at lss: primary 1, extended 2 with two logicals. LBAs scale with the sector size so
 * the same layout works at 512 and 4096. */
static struct test_disk *ebr_disk(uint32_t lss)
{
	uint32_t k = MBR_RECORD_SIZE * 8 / lss; /* 8 at 512, 1 at 4096 */
	uint64_t size = 64ull << 20;
	struct test_disk *d = test_disk_new(size, lss, lss, 0, 0);

	put_entry(sec(d, 0), 0, 0x80, MBR_TYPE_LINUX, 256 * k, 1024 * k);
	put_entry(sec(d, 0), 1, 0x00, MBR_TYPE_EXTENDED_LBA, 1280 * k, 4096 * k);
	/* EBR 1 at 1280k: logical at +256k; link to the EBR at ext+1536k. */
	put_entry(sec(d, 1280 * k), 0, 0, MBR_TYPE_LINUX, 256 * k, 512 * k);
	put_entry(sec(d, 1280 * k), 1, 0, MBR_TYPE_EXTENDED_CHS, 1536 * k, 1024 * k);
	/* EBR 2 at 2816k: logical at +128k, end of chain. */
	put_entry(sec(d, 2816 * k), 0, 0, MBR_TYPE_FAT32_LBA, 128 * k, 640 * k);
	return d;
}

static void test_ebr_walk(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned z = 0; z < 2; z++) {
		uint32_t lss = sizes[z], k = MBR_RECORD_SIZE * 8 / lss;
		struct test_disk *d = ebr_disk(lss);
		struct mbr_table t;
		struct capture c;
		capture_init(&c);
		assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
		if (c.n)
			capture_dump(&c);
		assert_int_equal(c.diag.errors + c.diag.warnings, 0);
		assert_int_equal(t.count, 4);
		assert_int_equal(t.parts[0].number, 1);
		assert_true(t.parts[0].active);
		assert_int_equal(t.parts[0].first_lba, 256 * k);
		assert_int_equal(t.parts[1].number, 2);
		assert_true(mbr_type_is_extended(t.parts[1].type));
		assert_int_equal(t.parts[2].number, 5);
		assert_int_equal(t.parts[2].first_lba, 1536 * k);
		assert_int_equal(t.parts[2].sectors, 512 * k);
		assert_int_equal(t.parts[2].table_lba, 1280 * k);
		assert_int_equal(t.parts[3].number, 6);
		assert_int_equal(t.parts[3].type, MBR_TYPE_FAT32_LBA);
		assert_int_equal(t.parts[3].first_lba, 2944 * k);
		assert_int_equal(t.parts[3].table_lba, 2816 * k);
		test_disk_free(d);
	}
}

static void test_ebr_loop(void **state)
{
	(void)state;
	struct test_disk *d = ebr_disk(MBR_RECORD_SIZE);
	struct mbr_table t;
	struct capture c;

	/* EBR 2 links back to the first EBR (relative 0). */
	put_entry(sec(d, 2816 * 8), 1, 0, MBR_TYPE_EXTENDED_CHS, 0, 1024);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.ebr_loop", "LBA 22528 links back to the EBR at LBA 10240");

	/* An EBR linking to itself. */
	put_entry(sec(d, 10240), 1, 0, MBR_TYPE_EXTENDED_CHS, 0, 1024);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.ebr_loop", "LBA 10240 links back to the EBR at LBA 10240");
	test_disk_free(d);
}

static void test_ebr_leaves_extended(void **state)
{
	(void)state;
	struct test_disk *d = ebr_disk(MBR_RECORD_SIZE);
	struct mbr_table t;
	struct capture c;

	put_entry(sec(d, 2816 * 8), 1, 0, MBR_TYPE_EXTENDED_CHS, 4096 * 8, 100);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.ebr_range", "EBR at LBA 22528: next EBR at LBA 43008");
	test_disk_free(d);
}

static void test_ebr_bound(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(8 << 20, 512, 512, 0, 0);
	struct mbr_table t;
	struct capture c;

	put_entry(sec(d, 0), 0, 0, MBR_TYPE_EXTENDED_LBA, 2048, 8192);
	/* A chain of EBRs one sector apart, each with a 1-sector logical right after it... no
	 * room: use empty logicals and just chain. */
	for (unsigned i = 0; i <= MBR_MAX_LOGICAL + 5; i++)
		put_entry(sec(d, 2048 + i), 1, 0, MBR_TYPE_EXTENDED_CHS, i + 1, 1);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	char want[64];
	snprintf(want, sizeof want, "before the EBR at LBA %u", 2048 + MBR_MAX_LOGICAL);
	assert_reported(&c, "mbr.ebr_bound", text(want));

	/* Exactly MBR_MAX_LOGICAL EBRs with a logical each is fine. */
	memset(d->md.data, 0, 8 << 20);
	put_entry(sec(d, 0), 0, 0, MBR_TYPE_EXTENDED_LBA, 2048, 8192);
	for (unsigned i = 0; i < MBR_MAX_LOGICAL; i++) {
		put_entry(sec(d, 2048 + 2 * i), 0, 0, MBR_TYPE_LINUX, 1, 1);
		if (i + 1 < MBR_MAX_LOGICAL)
			put_entry(sec(d, 2048 + 2 * i), 1, 0, MBR_TYPE_EXTENDED_CHS, 2 * (i + 1), 2);
	}
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_int_equal(t.count, 1 + MBR_MAX_LOGICAL);
	assert_int_equal(t.parts[t.count - 1].number, 4 + MBR_MAX_LOGICAL);
	test_disk_free(d);
}

static void test_ebr_signature_and_logical_range(void **state)
{
	(void)state;
	struct test_disk *d = ebr_disk(MBR_RECORD_SIZE);
	struct mbr_table t;
	struct capture c;

	sec(d, 2816 * 8)[MBR_SIGNATURE_OFF] = 0;
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.ebr_signature", "EBR at LBA 22528");
	test_disk_free(d);

	d = ebr_disk(MBR_RECORD_SIZE);
	put_entry(sec(d, 2816 * 8), 0, 0, MBR_TYPE_LINUX, 128 * 8, 20000);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.logical_range", "logical partition 6 (EBR at LBA 22528)");
	test_disk_free(d);
}

/* Entries the walk ignores are warned about; an extended first entry is an error. */
static void test_ebr_odd_entries(void **state)
{
	(void)state;
	struct test_disk *d = ebr_disk(MBR_RECORD_SIZE);
	struct mbr_table t;
	struct capture c;

	put_entry(sec(d, 2816 * 8), 2, 0, MBR_TYPE_LINUX, 5000, 10);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_reported(&c, "mbr.ebr_extra", "EBR at LBA 22528: entry 3 (type 0x83) is ignored");
	assert_int_equal(t.count, 4);

	put_entry(sec(d, 2816 * 8), 1, 0, MBR_TYPE_LINUX, 5000, 10);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_reported(&c, "mbr.ebr_link", "EBR at LBA 22528: second entry has type 0x83");

	put_entry(sec(d, 2816 * 8), 0, 0, MBR_TYPE_EXTENDED_LBA, 1024, 10);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.ebr_entry", "EBR at LBA 22528: its first entry has extended type 0x0F");

	/* A typed entry with no sectors is unused. */
	put_entry(sec(d, 0), 3, 0, MBR_TYPE_LINUX, 100, 0);
	put_entry(sec(d, 2816 * 8), 0, 0, MBR_TYPE_LINUX, 1024, 10);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_reported(&c, "mbr.empty_entry", "MBR entry 4: type 0x83 with 0 sectors");

	/* An EBR inside a primary partition. */
	put_entry(sec(d, 0), 3, 0, MBR_TYPE_LINUX, 22000, 1000);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.overlap", "the EBR of partition 6 at LBA 22528 lies inside partition 4");
	test_disk_free(d);
}

static void test_ebr_read_error(void **state)
{
	(void)state;
	struct test_disk *d = ebr_disk(MBR_RECORD_SIZE);
	struct mbr_table t;
	struct capture c;

	d->md.fail_reads = true;
	d->md.fail_lba = 22528;
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_EIO);
	assert_reported(&c, "mbr.io", "EBR at LBA 22528 could not be read");
	d->md.fail_lba = 0;
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_EIO);
	assert_reported(&c, "mbr.io", "MBR at LBA 0");
	test_disk_free(d);
}

static void test_mbr_rules(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(1 << 20, 512, 512, 0, 0); /* 2048 sectors */
	struct mbr_table t;
	struct capture c;

	/* No signature. */
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ENOENT);
	assert_reported(&c, "mbr.signature", NULL);

	/* Status byte. */
	put_entry(sec(d, 0), 0, 0x01, MBR_TYPE_LINUX, 64, 100);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.status", "MBR entry 1: status byte 0x01");

	/* Past the disk. */
	put_entry(sec(d, 0), 0, 0x00, MBR_TYPE_LINUX, 64, 2000);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.entry_range", "LBA 64..2063 ends past the last LBA 2047");

	/* Starting at 0. */
	put_entry(sec(d, 0), 0, 0x00, MBR_TYPE_LINUX, 0, 20);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.entry_range", "starts at LBA 0");

	/* Overlap. */
	put_entry(sec(d, 0), 0, 0x00, MBR_TYPE_LINUX, 64, 100);
	put_entry(sec(d, 0), 1, 0x00, MBR_TYPE_LINUX, 163, 100);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.overlap", "partitions 1 (LBA 64..163) and 2 (LBA 163..262)");
	put_entry(sec(d, 0), 1, 0x00, MBR_TYPE_LINUX, 164, 100);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_int_equal(t.count, 2);

	/* Two extended partitions. */
	put_entry(sec(d, 0), 2, 0x00, MBR_TYPE_EXTENDED_LBA, 300, 100);
	put_entry(sec(d, 0), 3, 0x00, MBR_TYPE_EXTENDED_CHS, 500, 100);
	sec(d, 300)[MBR_SIGNATURE_OFF] = 0x55;
	sec(d, 300)[MBR_SIGNATURE_OFF + 1] = 0xAA;
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.extended_count", "entries 3 and 4");
	test_disk_free(d);
}

static void test_lba32_limit(void **state)
{
	(void)state;
	struct sparse *s = sparse_new(512, 1ull << 33, 4096);
	struct mbr_table t;
	struct capture c;

	put_entry(s->data, 0, 0, MBR_TYPE_LINUX, 0xFFFFF000u, 0x2000);
	capture_init(&c);
	assert_int_equal(mbr_read(&s->dev, &t, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "mbr.lba32", "past the 32-bit limit 4294967295");
	sparse_free(s);
}

static void test_protective_build(void **state)
{
	(void)state;
	struct mbr m;
	uint8_t rec[MBR_RECORD_SIZE] = { 0 };
	struct capture c;

	mbr_build_protective(1 << 20, &m);
	mbr_encode(&m, rec);
	/* End CHS: last LBA 1048575 = C 65, H 69, S 4 -> 45 04 41. */
	static const uint8_t want_small[16] = { 0x00, 0x00, 0x02, 0x00, 0xEE, 0x45, 0x04, 0x41,
						0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x0F, 0x00 };
	uint8_t chs[3];
	chs_encode((1 << 20) - 1, chs);
	assert_memory_equal(want_small + 5, chs, 3);
	assert_memory_equal(rec + MBR_TABLE_OFF, want_small, 16);
	for (unsigned i = 16; i < 64; i++)
		assert_int_equal(rec[MBR_TABLE_OFF + i], 0);
	assert_int_equal(rec[MBR_SIGNATURE_OFF], 0x55);
	assert_int_equal(rec[MBR_SIGNATURE_OFF + 1], 0xAA);
	assert_true(mbr_is_protective(&m));
	capture_init(&c);
	assert_int_equal(mbr_check_protective(&m, 1 << 20, &c.diag), 0);

	/* Beyond CHS and beyond 32 bits. */
	mbr_build_protective(1ull << 33, &m);
	assert_memory_equal(m.part[0].chs_last, "\xFF\xFF\xFF", 3);
	assert_int_equal(m.part[0].sectors, 0xFFFFFFFFu);
	capture_init(&c);
	assert_int_equal(mbr_check_protective(&m, 1ull << 33, &c.diag), 0);
	mbr_build_protective(1ull << 30, &m);
	assert_memory_equal(m.part[0].chs_last, "\xFF\xFF\xFF", 3);
	assert_int_equal(m.part[0].sectors, (1u << 30) - 1);
}

static void test_protective_rules(void **state)
{
	(void)state;
	const uint64_t n = 1 << 20;
	struct mbr m, good;
	struct capture c;

	mbr_build_protective(n, &good);

#define BREAK(stmt, code, substr)                                               \
	do {                                                                    \
		m = good;                                                       \
		stmt;                                                           \
		capture_init(&c);                                               \
		assert_int_equal(mbr_check_protective(&m, n, &c.diag), 1);      \
		assert_reported(&c, code, substr);                              \
	} while (0)

	BREAK(m.boot_signature = false, "pmbr.signature", NULL);
	BREAK(m.part[0].status = 0x80, "pmbr.status", "status 0x80");
	BREAK(m.part[0].chs_first[1] = 0x01, "pmbr.start_chs", "00 01 00");
	BREAK(m.part[0].chs_last[0] = 0x12, "pmbr.end_chs", NULL);
	BREAK(m.part[0].lba_first = 2, "pmbr.start_lba", "start LBA 2");
	BREAK(m.part[0].sectors = 1000, "pmbr.size", "size 1000 sectors, the spec wants 1048575");
	BREAK(m.part[0].sectors = 0xFFFFFFFF, "pmbr.size", "0xFFFFFFFF");
	BREAK(mbr_entry_set(&m.part[1], 0x83, false, 2048, 100), "pmbr.other_entries",
	      "entry 2: type 0x83");
	BREAK(m.part[3] = m.part[0], "pmbr.multiple_ee", "entries 1 and 4");
#undef BREAK
	/* FF FF FF end CHS is accepted (libfdisk writes it whatever the size). */
	m = good;
	memset(m.part[0].chs_last, 0xFF, 3);
	assert_int_equal(mbr_check_protective(&m, n, NULL), 0);

	m = good;
	m.part[0].type = MBR_TYPE_LINUX;
	capture_init(&c);
	assert_false(mbr_is_protective(&m));
	assert_int_equal(mbr_check_protective(&m, n, &c.diag), 1);
	assert_reported(&c, "pmbr.no_ee", NULL);
}

static void test_protective_reads_4kn(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(16 << 20, 4096, 4096, 0, 0);
	struct mbr m;
	struct mbr_table t;
	struct capture c;

	mbr_build_protective(d->dev.sectors, &m);
	mbr_encode(&m, d->md.data);
	capture_init(&c);
	assert_int_equal(mbr_read(&d->dev, &t, &c.diag), 0);
	assert_int_equal(t.count, 1);
	assert_int_equal(t.parts[0].type, MBR_TYPE_GPT_PROTECTIVE);
	assert_int_equal(t.parts[0].first_lba, 1);
	assert_int_equal(t.parts[0].sectors, 4095);
	assert_int_equal(mbr_check_protective(&t.mbr, d->dev.sectors, NULL), 0);
	/* The 0x55AA sits at byte 510 of the 4 KiB sector, not at its end. */
	assert_int_equal(d->md.data[MBR_SIGNATURE_OFF], 0x55);
	assert_int_equal(d->md.data[4095], 0);
	test_disk_free(d);
}

/* The one list of FAT types stage2 and the installer share (common/mbr.h):
 * all 256 values, so a type added or dropped on one side is a failure here. */
static void test_fat_types(void **state)
{
	(void)state;
	static const uint8_t fat[] = { 0x01, 0x04, 0x06, 0x0B, 0x0C, 0x0E, 0xEF };
	for (unsigned t = 0; t < 256; t++) {
		bool want = memchr(fat, (int)t, sizeof fat) != NULL;
		if (mbr_type_is_fat((uint8_t)t) != want)
			fail_msg("type 0x%02X: mbr_type_is_fat says %d, the rule says %d", t,
				 !want, want);
	}
}

/* Which partition boots when none is recorded (common/mbr.h mbr_boot_part): stage2 and the
 * installer both ask this one function. */
static void test_boot_part(void **state)
{
	(void)state;
	struct mbr m;

	memset(&m, 0, sizeof m);
	assert_int_equal(mbr_boot_part(&m), 0);
	m.part[0] = (struct mbr_entry){ .status = 0x80, .type = MBR_TYPE_LINUX, .lba_first = 2048,
					.sectors = 2048 };
	m.part[1] = (struct mbr_entry){ .type = MBR_TYPE_FAT16, .lba_first = 4096, .sectors = 2048 };
	m.part[2] = (struct mbr_entry){ .type = MBR_TYPE_ESP, .lba_first = 6144, .sectors = 2048 };
	/* No FAT entry is active: the first FAT entry, whatever else is active. */
	assert_int_equal(mbr_boot_part(&m), 2);
	/* An active FAT entry wins over an earlier inactive one. */
	m.part[2].status = 0x80;
	assert_int_equal(mbr_boot_part(&m), 3);
	/* Of two active FAT entries, the first. */
	m.part[1].status = 0x80;
	assert_int_equal(mbr_boot_part(&m), 2);
	/* An entry with no sectors, or at LBA 0, is no partition. */
	m.part[1].sectors = 0;
	assert_int_equal(mbr_boot_part(&m), 3);
	m.part[2].lba_first = 0;
	assert_int_equal(mbr_boot_part(&m), 0);
}

/* Only primaries boot: on ebr_disk the only FAT partition is logical partition 6, and it is
 * never the boot partition, active or not, at either sector size. */
static void test_boot_part_ignores_logical(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned z = 0; z < 2; z++) {
		uint32_t lss = sizes[z], k = MBR_RECORD_SIZE * 8 / lss;
		struct test_disk *d = ebr_disk(lss);
		struct mbr_table t;
		assert_int_equal(mbr_read(&d->dev, &t, NULL), 0);
		assert_int_equal(t.parts[3].number, 6);
		assert_true(mbr_type_is_fat(t.parts[3].type));
		assert_int_equal(mbr_boot_part(&t.mbr), 0);
		sec(d, 2816 * k)[MBR_TABLE_OFF] = 0x80;
		assert_int_equal(mbr_read(&d->dev, &t, NULL), 0);
		assert_true(t.parts[3].active);
		assert_int_equal(mbr_boot_part(&t.mbr), 0);
		/* A FAT primary beside it is the one, inactive as it is. */
		put_entry(sec(d, 0), 2, 0, MBR_TYPE_FAT32_LBA, 5376 * k, 1024 * k);
		assert_int_equal(mbr_read(&d->dev, &t, NULL), 0);
		assert_int_equal(mbr_boot_part(&t.mbr), 3);
		test_disk_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chs_vectors),
		cmocka_unit_test(test_windows7_tables),
		cmocka_unit_test(test_reference_vector),
		cmocka_unit_test(test_entry_set_limits),
		cmocka_unit_test(test_ebr_walk),
		cmocka_unit_test(test_ebr_loop),
		cmocka_unit_test(test_ebr_leaves_extended),
		cmocka_unit_test(test_ebr_bound),
		cmocka_unit_test(test_ebr_signature_and_logical_range),
		cmocka_unit_test(test_ebr_odd_entries),
		cmocka_unit_test(test_ebr_read_error),
		cmocka_unit_test(test_mbr_rules),
		cmocka_unit_test(test_lba32_limit),
		cmocka_unit_test(test_protective_build),
		cmocka_unit_test(test_protective_rules),
		cmocka_unit_test(test_protective_reads_4kn),
		cmocka_unit_test(test_fat_types),
		cmocka_unit_test(test_boot_part),
		cmocka_unit_test(test_boot_part_ignores_logical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
