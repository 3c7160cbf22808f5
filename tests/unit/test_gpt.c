/* SPDX-License-Identifier: BSD-2-Clause */
/* GPT: codecs, round trips (build, then parse) at every sector size, write order, backup
 * fallback, and one test per validation rule that breaks exactly that rule and checks its diag
 * code. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/crc32.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/le.h"


/* assert_reported wants a pointer it cannot prove non-NULL. */
static const char *text(const char *s)
{
	return s;
}

static const uint32_t sizes[] = { 512, 1024, 2048, 4096 };
#define DISK_SECTORS 4096u

static const struct guid disk_guid = { { 0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, 0x01,
					 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF } };

static uint8_t *sec(struct test_disk *d, uint64_t lba)
{
	return d->md.data + lba * d->dev.sector_size;
}

static uint64_t arr_sectors(uint32_t lss)
{
	return DIV_ROUND_UP(16384, lss);
}

/* Three partitions: BIOS boot, ESP, Linux, starting at the first usable LBA. */
static unsigned sample_entries(uint32_t lss, struct gpt_entry *e)
{
	uint64_t fu = 2 + arr_sectors(lss);
	memset(e, 0, 3 * sizeof *e);
	e[0].type = GUID_BIOS_BOOT;
	e[0].first_lba = fu;
	e[0].last_lba = fu + 9;
	gpt_name_set(&e[0], "BIOS boot");
	e[1].type = GUID_ESP;
	e[1].first_lba = fu + 10;
	e[1].last_lba = fu + 109;
	e[1].attributes = GPT_ATTR_REQUIRED;
	gpt_name_set(&e[1], "EFI System Partition with a long name!");
	e[2].type = GUID_LINUX_FS;
	e[2].first_lba = fu + 110;
	e[2].last_lba = DISK_SECTORS - 2 - arr_sectors(lss);
	e[2].attributes = GPT_ATTR_LEGACY_BIOS_BOOTABLE | (1ull << 60);
	gpt_name_set(&e[2], "root");
	for (unsigned i = 0; i < 3; i++)
		for (unsigned k = 0; k < 16; k++)
			e[i].unique.b[k] = (uint8_t)(0x40 + 16 * i + k);
	return 3;
}

static struct test_disk *gpt_disk(uint32_t lss)
{
	struct test_disk *d = test_disk_new((uint64_t)DISK_SECTORS * lss, lss, lss, 0, 0);
	struct gpt_entry e[3];
	struct capture c;

	unsigned n = sample_entries(lss, e);
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, &c.diag), 0);
	assert_int_equal(c.n, 0);
	return d;
}

/* Recomputes the array CRC (when the array is in the image) and the header CRC. */
static void reseal_header(struct test_disk *d, uint64_t lba)
{
	uint8_t *h = sec(d, lba);
	uint32_t hs = le32_load(h + 12);
	if (hs > d->dev.sector_size)
		hs = d->dev.sector_size;
	le32_store(h + 16, gpt_header_crc(h, hs));
}

static void reseal(struct test_disk *d, uint64_t lba)
{
	uint8_t *h = sec(d, lba);
	struct gpt_header hd;
	gpt_header_decode(h, &hd);
	uint64_t bytes = (uint64_t)hd.num_entries * hd.entry_size;
	if (hd.entries_lba < d->dev.sectors &&
	    bytes <= (d->dev.sectors - hd.entries_lba) * d->dev.sector_size)
		le32_store(h + 88, crc32(sec(d, hd.entries_lba), bytes));
	reseal_header(d, lba);
}

static void test_codec_offsets(void **state)
{
	(void)state;
	struct gpt_header h = { .signature = GPT_SIGNATURE, .revision = GPT_REVISION,
				.header_size = GPT_HEADER_SIZE, .header_crc = 0xAABBCCDD,
				.my_lba = 1, .alternate_lba = 0x123456789ull, .first_usable = 34,
				.last_usable = 0x123456700ull, .disk_guid = disk_guid,
				.entries_lba = 2, .num_entries = 128, .entry_size = 128,
				.entries_crc = 0x11223344 };
	uint8_t raw[GPT_HEADER_SIZE];
	struct gpt_header back;

	gpt_header_encode(&h, raw);
	assert_memory_equal(raw, "EFI PART\x00\x00\x01\x00\x5C\x00\x00\x00\xDD\xCC\xBB\xAA", 20);
	assert_int_equal(le64_load(raw + 32), 0x123456789ull);
	assert_memory_equal(raw + 56, disk_guid.b, 16);
	assert_int_equal(le32_load(raw + 80), 128);
	assert_int_equal(le32_load(raw + 88), 0x11223344);
	gpt_header_decode(raw, &back);
	uint8_t raw2[GPT_HEADER_SIZE];
	gpt_header_encode(&back, raw2);
	assert_memory_equal(raw2, raw, sizeof raw);
	assert_int_equal(back.alternate_lba, h.alternate_lba);
	assert_int_equal(back.entries_crc, h.entries_crc);
	/* The CRC field counts as zero. */
	uint8_t copy[GPT_HEADER_SIZE];
	memcpy(copy, raw, sizeof copy);
	memset(copy + 16, 0, 4);
	assert_int_equal(gpt_header_crc(raw, GPT_HEADER_SIZE), crc32(copy, sizeof copy));

	struct gpt_entry e, e2;
	uint8_t er[GPT_ENTRY_SIZE];
	memset(&e, 0, sizeof e);
	e.type = GUID_ESP;
	e.first_lba = 2048;
	e.last_lba = 4095;
	e.attributes = GPT_ATTR_LEGACY_BIOS_BOOTABLE;
	gpt_name_set(&e, "EFI");
	gpt_entry_encode(&e, er);
	assert_memory_equal(er, GUID_ESP.b, 16);
	assert_int_equal(le64_load(er + 32), 2048);
	assert_int_equal(le64_load(er + 40), 4095);
	assert_int_equal(le64_load(er + 48), 4);
	assert_memory_equal(er + 56, "E\0F\0I\0\0\0", 8);
	gpt_entry_decode(er, &e2);
	assert_memory_equal(&e, &e2, sizeof e);
	assert_true(gpt_entry_used(&e2));
	memset(&e2.type, 0, sizeof e2.type);
	assert_false(gpt_entry_used(&e2));

	char name[GPT_NAME_UNITS + 1];
	e.name[1] = 0x00E9; /* é */
	gpt_name_get(&e, name);
	assert_string_equal(name, "E?I");
	gpt_name_set(&e, "0123456789012345678901234567890123456789");
	gpt_name_get(&e, name);
	assert_string_equal(name, "012345678901234567890123456789012345");
}

static void test_layout(void **state)
{
	(void)state;
	static const uint64_t first[] = { 34, 18, 10, 6 };
	for (unsigned z = 0; z < 4; z++) {
		uint64_t fu, lu;
		gpt_default_layout(sizes[z], 100000, 128, 128, &fu, &lu);
		assert_int_equal(fu, first[z]);
		assert_int_equal(lu, 100000 - 2 - (first[z] - 2));
		assert_int_equal(gpt_array_sectors(sizes[z], 128, 128), first[z] - 2);
	}
	/* Fewer entries still reserve 16 KiB; more take more. */
	assert_int_equal(gpt_array_sectors(512, 4, 128), 32);
	assert_int_equal(gpt_array_sectors(512, 256, 128), 64);
	assert_int_equal(gpt_array_sectors(4096, 129, 128), 5);
}

static void test_roundtrip_all_sizes(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		uint32_t lss = sizes[z];
		uint64_t arr = arr_sectors(lss), last = DISK_SECTORS - 1;
		struct test_disk *d = gpt_disk(lss);
		struct gpt_entry want[3];
		struct gpt *g = calloc(1, sizeof *g);
		struct capture c;

		sample_entries(lss, want);
		capture_init(&c);
		assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
		if (c.n)
			capture_dump(&c);
		assert_int_equal(c.n, 0);
		assert_true(g->primary_valid);
		assert_true(g->backup_valid);
		assert_false(g->used_backup);
		assert_int_equal(g->count, 3);
		for (unsigned i = 0; i < 3; i++) {
			assert_int_equal(g->parts[i].number, i + 1);
			assert_memory_equal(&g->parts[i].e, &want[i], sizeof want[i]);
		}
		assert_int_equal(g->hdr.first_usable, 2 + arr);
		assert_int_equal(g->hdr.last_usable, DISK_SECTORS - 2 - arr);
		assert_true(guid_eq(&g->hdr.disk_guid, &disk_guid));

		/* On disk: primary at 1 with array at 2, backup at N-1 with array below it. */
		struct gpt_header p, b;
		gpt_header_decode(sec(d, 1), &p);
		gpt_header_decode(sec(d, last), &b);
		assert_int_equal(p.my_lba, 1);
		assert_int_equal(p.alternate_lba, last);
		assert_int_equal(p.entries_lba, 2);
		assert_int_equal(b.my_lba, last);
		assert_int_equal(b.alternate_lba, 1);
		assert_int_equal(b.entries_lba, last - arr);
		assert_int_equal(p.entries_crc, crc32(sec(d, 2), 128 * 128));
		assert_int_equal(b.entries_crc, p.entries_crc);
		assert_memory_equal(sec(d, 2), sec(d, last - arr), arr * lss);
		for (uint32_t i = GPT_HEADER_SIZE; i < lss; i++)
			assert_int_equal(sec(d, 1)[i], 0);
		/* LBA 0 untouched. */
		for (uint32_t i = 0; i < lss; i++)
			assert_int_equal(sec(d, 0)[i], 0);

		/* Each header alone. */
		assert_int_equal(gpt_read_at(&d->dev, last, g, NULL), 0);
		assert_true(g->used_backup);
		assert_int_equal(g->count, 3);
		assert_int_equal(gpt_read_at(&d->dev, 1, NULL, NULL), 0);
		assert_int_equal(gpt_read_at(&d->dev, last, NULL, NULL), 0);
		free(g);
		test_disk_free(d);
	}
}

/* The write order: backup array, backup header, primary array, primary header. */
static uint64_t wlog[256];
static unsigned nwlog;
static int (*real_write)(struct blockdev *, uint64_t, uint32_t, const void *);

static int logging_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	for (uint32_t i = 0; i < count && nwlog < 256; i++)
		wlog[nwlog++] = lba + i;
	return real_write(dev, lba, count, buf);
}

static void test_write_order(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		uint32_t lss = sizes[z];
		uint64_t arr = arr_sectors(lss), last = DISK_SECTORS - 1;
		struct test_disk *d = test_disk_new((uint64_t)DISK_SECTORS * lss, lss, lss, 0, 0);
		struct gpt_entry e[3];
		unsigned n = sample_entries(lss, e), k = 0;

		real_write = d->dev.write;
		d->dev.write = logging_write;
		nwlog = 0;
		assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, NULL), 0);
		assert_int_equal(nwlog, 2 * arr + 2);
		for (uint64_t s = 0; s < arr; s++)
			assert_int_equal(wlog[k++], last - arr + s);
		assert_int_equal(wlog[k++], last);
		for (uint64_t s = 0; s < arr; s++)
			assert_int_equal(wlog[k++], 2 + s);
		assert_int_equal(wlog[k++], 1);
		test_disk_free(d);
	}
}

static void test_write_refuses(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new((uint64_t)DISK_SECTORS * 512, 512, 512, 0, 0);
	struct gpt_entry e[3];
	struct capture c;
	unsigned n = sample_entries(512, e);

	e[1].first_lba = e[0].last_lba;
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, &c.diag), AS_EINVAL);
	assert_reported(&c, "gpt.overlap", "entries 1 (LBA 34..43) and 2 (LBA 43..143)");
	assert_int_equal(d->md.sectors_written, 0);

	n = sample_entries(512, e);
	e[2].last_lba = DISK_SECTORS - 1;
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, &c.diag), AS_EINVAL);
	assert_reported(&c, "gpt.entry_range", "outside the usable range 34..4062");

	n = sample_entries(512, e);
	e[0].last_lba = e[0].first_lba - 1;
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, &c.diag), AS_EINVAL);
	assert_reported(&c, "gpt.entry_order", NULL);

	n = sample_entries(512, e);
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 10, 0, &c.diag), AS_EINVAL);
	assert_reported(&c, "gpt.usable_range", NULL);
	assert_int_equal(d->md.sectors_written, 0);
	test_disk_free(d);

	d = test_disk_new(60 * 512, 512, 512, 0, 0);
	capture_init(&c);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, NULL, 0, 0, 0, 0, &c.diag), AS_ENOSPC);
	assert_reported(&c, "gpt.disk_too_small", NULL);
	test_disk_free(d);
}

/* Custom usable range and entry count, as sfdisk lays it out (FirstUsable 2048). */
static void test_write_custom(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(8 << 20, 4096, 4096, 0, 0);
	struct gpt *g = calloc(1, sizeof *g);
	struct gpt_entry e;

	memset(&e, 0, sizeof e);
	e.type = GUID_ESP;
	e.first_lba = 256;
	e.last_lba = 1000;
	assert_int_equal(gpt_write(&d->dev, &disk_guid, &e, 1, 256, 256, 2000, NULL), 0);
	assert_int_equal(gpt_read(&d->dev, g, NULL), 0);
	assert_int_equal(g->hdr.first_usable, 256);
	assert_int_equal(g->hdr.last_usable, 2000);
	assert_int_equal(g->hdr.num_entries, 256);
	assert_int_equal(g->count, 1);
	assert_int_equal(g->parts[0].e.last_lba, 1000);
	free(g);
	test_disk_free(d);
}

struct rule_case {
	const char *name;
	uint64_t header;           /* 1 or 0 = last LBA */
	int rc;
	const char *code;
	const char *substr;
};

/* Breaks one rule in the header at `lba` of a fresh 512-byte-sector GPT disk (or another
 * size via lss), reseals what the rule is not about, and checks gpt_read_at's verdict. */
static void expect_rule(struct test_disk *d, uint64_t lba, int rc, const char *code,
			const char *substr)
{
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;

	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, lba, g, &c.diag), rc);
	assert_reported(&c, code, substr);
	/* Without a struct gpt the same verdict. */
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, lba, NULL, &c.diag), rc);
	assert_reported(&c, code, substr);
	free(g);
}

static void set32(struct test_disk *d, uint64_t lba, unsigned off, uint32_t v)
{
	le32_store(sec(d, lba) + off, v);
}

static void set64(struct test_disk *d, uint64_t lba, unsigned off, uint64_t v)
{
	le64_store(sec(d, lba) + off, v);
}

static void test_rule_signature(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	sec(d, 1)[0] = 'X';
	expect_rule(d, 1, AS_ENOENT, "gpt.signature", "LBA 1: no \"EFI PART\" signature");
	test_disk_free(d);
}

static void test_rule_header_size(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		struct test_disk *d = gpt_disk(sizes[z]);
		char want[64];
		set32(d, 1, 12, 91);
		reseal_header(d, 1);
		snprintf(want, sizeof want, "HeaderSize 91 is outside 92..%u", sizes[z]);
		expect_rule(d, 1, AS_ECORRUPT, "gpt.header_size", text(want));
		set32(d, 1, 12, sizes[z] + 1);
		snprintf(want, sizeof want, "HeaderSize %u is outside 92..%u", sizes[z] + 1, sizes[z]);
		expect_rule(d, 1, AS_ECORRUPT, "gpt.header_size", text(want));
		/* The largest legal size: CRC over the whole sector (zeros beyond 92). */
		set32(d, 1, 12, sizes[z]);
		reseal_header(d, 1);
		assert_int_equal(gpt_read_at(&d->dev, 1, NULL, NULL), 0);
		test_disk_free(d);
	}
}

static void test_rule_header_crc(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	sec(d, 1)[60] ^= 1;
	expect_rule(d, 1, AS_ECORRUPT, "gpt.header_crc", "header CRC32 is 0x");
	test_disk_free(d);
}

static void test_rule_revision(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set32(d, 1, 8, 0x00020000);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_EUNSUPP, "gpt.revision", "revision 0x00020000 is not 0x00010000");
	/* A newer 1.x is read with a warning. */
	set32(d, 1, 8, 0x00010003);
	reseal_header(d, 1);
	struct capture c;
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, 1, NULL, &c.diag), 0);
	assert_reported(&c, "gpt.revision", "0x00010003");
	test_disk_free(d);
}

static void test_rule_reserved(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	struct capture c;
	set32(d, 1, 20, 5);
	reseal_header(d, 1);
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, 1, NULL, &c.diag), 0);
	assert_reported(&c, "gpt.reserved", "reserved field is 0x00000005");
	assert_int_equal(c.diag.errors, 0);
	test_disk_free(d);
}

static void test_rule_my_lba(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set64(d, 1, 24, 7);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.my_lba", "LBA 1: MyLBA is 7");
	test_disk_free(d);
	d = gpt_disk(4096);
	set64(d, DISK_SECTORS - 1, 24, 1);
	reseal_header(d, DISK_SECTORS - 1);
	expect_rule(d, DISK_SECTORS - 1, AS_ECORRUPT, "gpt.my_lba", "LBA 4095: MyLBA is 1");
	test_disk_free(d);
}

static void test_rule_alternate_lba(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set64(d, 1, 32, DISK_SECTORS);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.alternate_lba", "AlternateLBA 4096 is outside 2..4095");
	set64(d, 1, 32, 1);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.alternate_lba", "AlternateLBA 1 is outside");
	/* The backup must point at LBA 1. */
	set64(d, DISK_SECTORS - 1, 32, 2);
	reseal_header(d, DISK_SECTORS - 1);
	expect_rule(d, DISK_SECTORS - 1, AS_ECORRUPT, "gpt.alternate_lba",
		    "AlternateLBA 2, a backup header must point at LBA 1");
	test_disk_free(d);
}

static void test_rule_usable_range(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	/* The entries stay inside the new range so only this rule breaks. */
	set64(d, 1, 40, 4061);
	set64(d, 1, 48, 4060);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.usable_range",
		    "FirstUsableLBA 4061 is above LastUsableLBA 4060");
	set64(d, 1, 40, 34);
	set64(d, 1, 48, DISK_SECTORS);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.usable_range", "LastUsableLBA 4096 is past the last LBA 4095");
	set64(d, 1, 48, DISK_SECTORS - 1);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.usable_range", "covers LBA 0 or a GPT header");
	test_disk_free(d);
}

static void test_rule_entry_size(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set32(d, 1, 84, 100);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_size", "entry size 100 is not 128 times a power of two");
	set32(d, 1, 84, 384);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_size", "entry size 384");
	set32(d, 1, 84, 0);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_size", "entry size 0");
	set32(d, 1, 80, 1);
	set32(d, 1, 84, 8192);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_EUNSUPP, "gpt.entry_size", "entry size 8192 is larger than the 4096");
	test_disk_free(d);
}

static void test_rule_array_size(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set32(d, 1, 80, 0x02000000);
	set32(d, 1, 84, 256);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.array_size", "33554432 entries of 256 bytes overflow 32 bits");
	set32(d, 1, 80, 65536);
	set32(d, 1, 84, 128);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_EUNSUPP, "gpt.array_size", "8388608 bytes is larger than");
	test_disk_free(d);
}

static void test_rule_array_location(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set64(d, 1, 72, DISK_SECTORS - 10);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.array_location",
		    "entry array at LBA 4086 (32 sectors) is not inside 1..4095");
	set64(d, 1, 72, 0);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.array_location", "entry array at LBA 0");
	set64(d, 1, 72, 1);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.array_location", "LBA 1..32 covers a GPT header");
	set64(d, 1, 72, 40);
	reseal_header(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.array_location",
		    "LBA 40..71 overlaps the usable range 34..4062");
	test_disk_free(d);
}

static void test_rule_array_crc(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		struct test_disk *d = gpt_disk(sizes[z]);
		/* A byte of an unused entry: only the CRC can notice. */
		sec(d, 2)[100 * 128 + 5] ^= 0x80;
		expect_rule(d, 1, AS_ECORRUPT, "gpt.array_crc", "entry array CRC32 is 0x");
		test_disk_free(d);
	}
}

static void test_rule_entry_range(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	/* Entry 1 starts one below FirstUsable. */
	set64(d, 2, 32, 33);
	reseal(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_range",
		    "entry 1: start LBA 33 is below first usable 34");
	set64(d, 2, 32, 34);
	/* Entry 3 ends one past LastUsable. */
	set64(d, 2, 2 * 128 + 40, 4063);
	reseal(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_range", "entry 3: end LBA 4063 beyond last usable 4062");
	test_disk_free(d);
}

static void test_rule_entry_order(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	set64(d, 2, 128 + 40, 43); /* entry 2: 44..43 */
	reseal(d, 1);
	expect_rule(d, 1, AS_ECORRUPT, "gpt.entry_order", "entry 2: first LBA 44 is above last LBA 43");
	test_disk_free(d);
}

static void test_rule_overlap(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		struct test_disk *d = gpt_disk(sizes[z]);
		uint64_t fu = 2 + arr_sectors(sizes[z]);
		char want[96];
		/* Entry 3 starts on entry 2's last LBA. */
		set64(d, 2, 2 * 128 + 32, fu + 109);
		reseal(d, 1);
		snprintf(want, sizeof want, "entries 2 (LBA %llu..%llu) and 3 (LBA %llu..",
			 (unsigned long long)fu + 10, (unsigned long long)fu + 109,
			 (unsigned long long)fu + 109);
		expect_rule(d, 1, AS_ECORRUPT, "gpt.overlap", text(want));
		test_disk_free(d);
	}
}

static void test_rule_too_many(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new((uint64_t)DISK_SECTORS * 512, 512, 512, 0, 0);
	struct gpt_entry *e = calloc(GPT_MAX_PARTS + 1, sizeof *e);
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;

	for (unsigned i = 0; i <= GPT_MAX_PARTS; i++) {
		e[i].type = GUID_LINUX_FS;
		e[i].first_lba = 100 + 10 * i;
		e[i].last_lba = 100 + 10 * i + 9;
	}
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, GPT_MAX_PARTS, 256, 0, 0, NULL), 0);
	assert_int_equal(gpt_read_at(&d->dev, 1, g, NULL), 0);
	assert_int_equal(g->count, GPT_MAX_PARTS);
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, GPT_MAX_PARTS + 1, 256, 0, 0, NULL), 0);
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, 1, g, &c.diag), AS_EUNSUPP);
	assert_reported(&c, "gpt.too_many", "more than 128 used entries");
	assert_int_equal(gpt_read(&d->dev, g, NULL), AS_EUNSUPP);
	/* Without a struct to fill the limit is the same (it bounds the overlap check). */
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, 1, NULL, &c.diag), AS_EUNSUPP);
	assert_reported(&c, "gpt.too_many", NULL);
	free(e);
	free(g);
	test_disk_free(d);
}

static void test_fallback_to_backup(void **state)
{
	(void)state;
	for (unsigned z = 0; z < 4; z++) {
		uint32_t lss = sizes[z];
		struct test_disk *d = gpt_disk(lss);
		struct gpt *g = calloc(1, sizeof *g);
		struct capture c;
		char want[192];

		sec(d, 1)[70] ^= 0x55; /* primary header CRC now wrong */
		capture_init(&c);
		assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
		assert_true(g->used_backup);
		assert_false(g->primary_valid);
		assert_true(g->backup_valid);
		assert_int_equal(g->count, 3);
		assert_int_equal(g->hdr.my_lba, DISK_SECTORS - 1);
		snprintf(want, sizeof want,
			 "primary GPT header at LBA 1 is invalid (header CRC mismatch); using the "
			 "backup GPT header at LBA %u",
			 DISK_SECTORS - 1);
		assert_reported(&c, "gpt.using_backup", text(want));
		assert_reported(&c, "gpt.header_crc", NULL);
		assert_int_equal(c.diag.errors, 0);

		/* Both bad: a clear error naming both. */
		sec(d, DISK_SECTORS - 1)[0] = 0;
		capture_init(&c);
		assert_int_equal(gpt_read(&d->dev, g, &c.diag), AS_ECORRUPT);
		snprintf(want, sizeof want,
			 "no valid GPT: the primary header at LBA 1 (header CRC mismatch) and the "
			 "backup at LBA %u (no \"EFI PART\" signature) are both invalid",
			 DISK_SECTORS - 1);
		assert_reported(&c, "gpt.invalid", text(want));
		assert_int_equal(c.diag.errors, 1);
		assert_int_equal(g->count, 0);
		free(g);
		test_disk_free(d);
	}
}

/* A primary whose header is intact but whose array is bad leads to the backup its
 * AlternateLBA names, even when that is not the last LBA (the disk grew). */
static void test_fallback_follows_alternate(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new((uint64_t)DISK_SECTORS * 512, 512, 512, 0, 0);
	struct gpt_entry e[3];
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;
	unsigned n = sample_entries(512, e);

	d->dev.sectors = DISK_SECTORS - 100;
	e[2].last_lba -= 100;
	assert_int_equal(gpt_write(&d->dev, &disk_guid, e, n, 0, 0, 0, NULL), 0);
	d->dev.sectors = DISK_SECTORS;

	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
	assert_false(g->used_backup);
	assert_reported(&c, "gpt.alternate_lba", "AlternateLBA 3995 is not the last LBA 4095");

	sec(d, 2)[3] ^= 1;
	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
	assert_true(g->used_backup);
	assert_int_equal(g->hdr.my_lba, 3995);
	assert_reported(&c, "gpt.using_backup",
			"(entry array CRC mismatch); using the backup GPT header at LBA 3995");

	/* With the header itself broken its AlternateLBA is not trusted: the last LBA is tried. */
	sec(d, 2)[3] ^= 1;
	sec(d, 1)[30] ^= 1;
	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), AS_ECORRUPT);
	assert_reported(&c, "gpt.invalid", "backup at LBA 4095");
	free(g);
	test_disk_free(d);
}

static void test_backup_bad_primary_fine(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(4096);
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;

	sec(d, DISK_SECTORS - 2)[0] ^= 1; /* backup array */
	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
	assert_false(g->used_backup);
	assert_true(g->primary_valid);
	assert_false(g->backup_valid);
	assert_int_equal(g->count, 3);
	assert_reported(&c, "gpt.backup_bad",
			"backup GPT header at LBA 4095 is invalid (entry array CRC mismatch)");
	assert_int_equal(c.diag.errors, 0);

	/* A valid backup that disagrees with the primary. */
	test_disk_free(d);
	d = gpt_disk(4096);
	set64(d, DISK_SECTORS - 1, 40, 7);
	reseal_header(d, DISK_SECTORS - 1);
	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
	assert_true(g->backup_valid);
	assert_reported(&c, "gpt.backup_mismatch", "usable range");
	free(g);
	test_disk_free(d);
}

static void test_no_gpt(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(1 << 20, 512, 512, 0, 0);
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;

	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), AS_ENOENT);
	assert_reported(&c, "gpt.none", NULL);
	assert_int_equal(c.diag.errors + c.diag.warnings, 0);
	test_disk_free(d);

	/* A GPT made for 512-byte sectors is not one on a 4096-byte view of the same bytes. */
	d = gpt_disk(512);
	struct test_disk *v = test_disk_new((uint64_t)DISK_SECTORS * 512, 4096, 4096, 0, 0);
	memcpy(v->md.data, d->md.data, (size_t)DISK_SECTORS * 512);
	assert_int_equal(gpt_read(&v->dev, g, NULL), AS_ENOENT);
	free(g);
	test_disk_free(v);
	test_disk_free(d);
}

static void test_io_error(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	struct gpt *g = calloc(1, sizeof *g);
	struct capture c;

	d->md.fail_reads = true;
	d->md.fail_lba = 1;
	capture_init(&c);
	assert_int_equal(gpt_read(&d->dev, g, &c.diag), 0);
	assert_true(g->used_backup);
	assert_reported(&c, "gpt.using_backup", "(unreadable)");
	assert_reported(&c, "gpt.io", "LBA 1 could not be read");

	d->md.fail_lba = 5; /* inside the primary array */
	capture_init(&c);
	assert_int_equal(gpt_read_at(&d->dev, 1, g, &c.diag), AS_EIO);
	assert_reported(&c, "gpt.io", "LBA 5");
	free(g);
	test_disk_free(d);
}

/* Entry sizes above 128 and above the sector size stream correctly. */
static void test_big_entries(void **state)
{
	(void)state;
	static const uint32_t esz[] = { 256, 1024, 4096 };
	for (unsigned z = 0; z < 3; z++) {
		struct test_disk *d = test_disk_new(1 << 20, 512, 512, 0, 0);
		struct gpt *g = calloc(1, sizeof *g);
		uint32_t es = esz[z], num = 16;
		uint64_t arr = (uint64_t)num * es / 512;
		struct gpt_entry e;
		struct gpt_header h = { .signature = GPT_SIGNATURE, .revision = GPT_REVISION,
					.header_size = GPT_HEADER_SIZE, .my_lba = 1,
					.alternate_lba = 2047, .first_usable = 2 + arr,
					.last_usable = 2046 - arr, .entries_lba = 2,
					.num_entries = num, .entry_size = es };
		memset(&e, 0, sizeof e);
		for (unsigned i = 0; i < num; i += 3) {
			e.type = GUID_LINUX_FS;
			e.first_lba = 200 + i * 10;
			e.last_lba = 205 + i * 10;
			gpt_entry_encode(&e, sec(d, 2) + (size_t)i * es);
			/* Junk in the entry's tail beyond 128 bytes is covered by the CRC only. */
			sec(d, 2)[(size_t)i * es + es - 1] = 0x5A;
		}
		h.entries_crc = crc32(sec(d, 2), (size_t)num * es);
		gpt_header_encode(&h, sec(d, 1));
		reseal_header(d, 1);
		struct capture c;
		capture_init(&c);
		assert_int_equal(gpt_read_at(&d->dev, 1, g, &c.diag), 0);
		assert_int_equal(g->count, 6);
		assert_int_equal(g->parts[5].number, 16);
		assert_int_equal(g->parts[5].e.first_lba, 350);
		assert_int_equal(gpt_read_at(&d->dev, 1, NULL, NULL), 0);
		free(g);
		test_disk_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_offsets),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_roundtrip_all_sizes),
		cmocka_unit_test(test_write_order),
		cmocka_unit_test(test_write_refuses),
		cmocka_unit_test(test_write_custom),
		cmocka_unit_test(test_rule_signature),
		cmocka_unit_test(test_rule_header_size),
		cmocka_unit_test(test_rule_header_crc),
		cmocka_unit_test(test_rule_revision),
		cmocka_unit_test(test_rule_reserved),
		cmocka_unit_test(test_rule_my_lba),
		cmocka_unit_test(test_rule_alternate_lba),
		cmocka_unit_test(test_rule_usable_range),
		cmocka_unit_test(test_rule_entry_size),
		cmocka_unit_test(test_rule_array_size),
		cmocka_unit_test(test_rule_array_location),
		cmocka_unit_test(test_rule_array_crc),
		cmocka_unit_test(test_rule_entry_range),
		cmocka_unit_test(test_rule_entry_order),
		cmocka_unit_test(test_rule_overlap),
		cmocka_unit_test(test_rule_too_many),
		cmocka_unit_test(test_fallback_to_backup),
		cmocka_unit_test(test_fallback_follows_alternate),
		cmocka_unit_test(test_backup_bad_primary_fine),
		cmocka_unit_test(test_no_gpt),
		cmocka_unit_test(test_io_error),
		cmocka_unit_test(test_big_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
