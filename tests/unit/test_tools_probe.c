/* SPDX-License-Identifier: BSD-2-Clause */
/* What libblkid finds (tools/dev/probe.c) and how the installer names and erases it
 * (tools/disk/foreign.c): hits with their place, every copy of a magic, the superfloppy rule, the erase plan (one write per
 * sector, only the magic zeroed, planned sectors left out) and the words of each sentence. The
 * real tables and filesystems made by their own tools are tests/hostile/foreign.py's. */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/le.h"
#include "common/mbr.h"
#include "tools/disk/foreign.h"
#include "tools/dev/probe.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"

#define DISK_BYTES (1u << 20)

static char dir[512], img[600];

static int setup(void **state)
{
	tools_setup(state);
	assert_int_equal(test_workdir(dir, sizeof dir, "tmp", "unit-probe"), 0);
	snprintf(img, sizeof img, "%s/disk.img", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(img);
	rmdir(dir);
	return tools_teardown(state);
}

/* A 1 MiB image holding buf's bytes at off (zeros elsewhere). */
static void make_image(const uint8_t *buf, size_t len, uint64_t off)
{
	FILE *f = fopen(img, "wb");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), DISK_BYTES), 0);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* An MBR with one Linux partition at LBA 2048. */
static void mbr_record(uint8_t rec[MBR_RECORD_SIZE])
{
	struct mbr m;
	memset(&m, 0, sizeof m);
	m.disk_sig = 0x12345678;
	assert_int_equal(mbr_entry_set(&m.part[0], MBR_TYPE_LINUX, false, 2048, 8192), 0);
	m.boot_signature = true;
	mbr_encode(&m, rec);
}

/* A swap area's first page as mkswap writes it: version 1, a last page, the magic at its end. */
static void swap_page(uint8_t *page, size_t page_size)
{
	memset(page, 0, page_size);
	le32_store(page + 1024, 1);                        /* version */
	le32_store(page + 1028, DISK_BYTES / page_size - 1); /* last page */
	memcpy(page + page_size - 10, "SWAPSPACE2", 10);
}

static int probe_img(uint64_t off, uint64_t len, uint32_t lss, struct probe_result *r)
{
	char why[200];
	FILE *f = fopen(img, "rb");
	assert_non_null(f);
	int rc = probe_range(fileno(f), off, len, lss, r, why, sizeof why);
	fclose(f);
	return rc;
}

static void test_dos_table(void **state)
{
	(void)state;
	uint8_t rec[MBR_RECORD_SIZE];
	struct probe_result r;
	char text[200];

	mbr_record(rec);
	make_image(rec, sizeof rec, 0);
	assert_int_equal(probe_img(0, DISK_BYTES, 512, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.hit[0].type, "dos");
	assert_true(r.hit[0].table);
	assert_int_equal(r.hit[0].offset, MBR_SIGNATURE_OFF);
	assert_int_equal(r.hit[0].len, 2);
	assert_string_equal(probe_hit_text(&r.hit[0], text, sizeof text),
			    "a dos partition table (at byte 510)");
	assert_string_equal(foreign_erased_text(&r.hit[0], text, sizeof text),
			    "erased 2 bytes at byte 0x1fe (dos partition table)");
	/* a table is no superfloppy, and neither is a boot sector in front of a used table */
	struct mbr m;
	mbr_decode(rec, &m);
	assert_false(probe_boot_sector_is_filesystem(&r, &m));
}

/* A range is probed as a device of its own; offsets still count from the start of the file. */
static void test_range_offsets(void **state)
{
	(void)state;
	uint8_t page[4096];
	struct probe_result r;

	swap_page(page, sizeof page);
	make_image(page, sizeof page, 65536);
	assert_int_equal(probe_img(0, DISK_BYTES, 512, &r), 0);
	assert_int_equal(r.n, 0); /* not at the disk's start */
	assert_int_equal(probe_img(65536, DISK_BYTES - 65536, 512, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.hit[0].type, "swap");
	assert_false(r.hit[0].table);
	assert_string_equal(r.hit[0].usage, "other");
	assert_int_equal(r.hit[0].offset, 65536 + 4096 - 10);
	assert_int_equal(r.hit[0].len, 10);
	assert_true(probe_hit_in(&r.hit[0], 65536 + 4095, 1));
	assert_false(probe_hit_in(&r.hit[0], 65536 + 4096, 512));
	assert_false(probe_hit_in(&r.hit[0], 0, 65536 + 4086));
}

/* A BSD disklabel's two magics where libfdisk reads them (512-byte sector 1, d_magic at 0 and
 * d_magic2 at 132 of the label): blkid's low-level probe names none, libfdisk's label probe
 * does, over the whole disk and in a range, at either sector size. */
static void test_bsd_label(void **state)
{
	(void)state;
	uint8_t label[512];
	struct probe_result r;
	char text[200];

	memset(label, 0, sizeof label);
	le32_store(label, 0x82564557);
	le32_store(label + 132, 0x82564557);
	make_image(label, sizeof label, 512);
	for (uint32_t lss = 512; lss <= 4096; lss *= 8) {
		assert_int_equal(probe_img(0, DISK_BYTES, lss, &r), 0);
		assert_int_equal(r.n, 1);
		assert_string_equal(r.hit[0].type, "bsd");
		assert_true(r.hit[0].table);
		assert_int_equal(r.hit[0].offset, 512);
		assert_int_equal(r.hit[0].len, 4);
	}
	assert_string_equal(probe_hit_text(&r.hit[0], text, sizeof text),
			    "a bsd partition table (at byte 512)");
	assert_string_equal(foreign_erased_text(&r.hit[0], text, sizeof text),
			    "erased 4 bytes at byte 0x200 (bsd partition table)");
	/* a range from the start that is not the whole file: libfdisk reads a copy */
	assert_int_equal(probe_img(0, DISK_BYTES / 2, 512, &r), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.hit[0].offset, 512);

	make_image(label, sizeof label, 65536 + 512);
	assert_int_equal(probe_img(0, DISK_BYTES, 512, &r), 0);
	assert_int_equal(r.n, 0); /* not at the disk's start */
	assert_int_equal(probe_img(65536, DISK_BYTES - 65536, 512, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.hit[0].type, "bsd");
	assert_int_equal(r.hit[0].offset, 65536 + 512);

	le32_store(label + 132, 0); /* libfdisk wants both magics */
	make_image(label, sizeof label, 512);
	assert_int_equal(probe_img(0, DISK_BYTES, 512, &r), 0);
	assert_int_equal(r.n, 0);
}

/* blkid's names with their article; what the sentence calls a table, a filesystem, the rest. */
static void test_names(void **state)
{
	(void)state;
	static const struct {
		const char *type, *usage;
		bool table;
		const char *want;
	} cases[] = {
		{ "sgi", "", true, "a sgi partition table" },
		{ "xfs", "filesystem", false, "an xfs filesystem" },
		{ "ext4", "filesystem", false, "an ext4 filesystem" },
		{ "LVM2_member", "raid", false, "an LVM2_member signature" },
		{ "crypto_LUKS", "crypto", false, "a crypto_LUKS signature" },
		{ "iso9660", "filesystem", false, "an iso9660 filesystem" },
	};
	char buf[120];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct probe_hit h;
		memset(&h, 0, sizeof h);
		snprintf(h.type, sizeof h.type, "%s", cases[i].type);
		snprintf(h.usage, sizeof h.usage, "%s", cases[i].usage);
		h.table = cases[i].table;
		assert_string_equal(probe_hit_name(&h, buf, sizeof buf), cases[i].want);
	}
	struct probe_hit h = { .type = "xfs", .usage = "filesystem", .bad_csum = true, .len = 4 };
	assert_string_equal(probe_hit_text(&h, buf, sizeof buf),
			    "an xfs filesystem (at byte 0, with a bad checksum)");
}

static struct probe_hit hit(const char *type, uint64_t off, uint64_t len)
{
	struct probe_hit h;
	memset(&h, 0, sizeof h);
	snprintf(h.type, sizeof h.type, "%s", type);
	h.offset = off;
	h.len = len;
	return h;
}

/* The superfloppy rule: a filesystem in LBA 0, no dos table, no partition listed. */
static void test_superfloppy(void **state)
{
	(void)state;
	struct probe_result r = { .n = 0 };
	struct mbr empty, used;
	uint8_t rec[MBR_RECORD_SIZE];

	memset(&empty, 0, sizeof empty);
	empty.boot_signature = true;
	mbr_record(rec);
	mbr_decode(rec, &used);
	r.hit[r.n++] = hit("vfat", 54, 8);
	assert_true(probe_boot_sector_is_filesystem(&r, &empty));
	assert_false(probe_boot_sector_is_filesystem(&r, &used));
	r.hit[0].offset = MBR_RECORD_SIZE; /* past the boot sector: not its */
	assert_false(probe_boot_sector_is_filesystem(&r, &empty));
	r.hit[0].offset = 54;
	r.hit[r.n] = hit("dos", MBR_SIGNATURE_OFF, 2);
	r.hit[r.n++].table = true;
	assert_false(probe_boot_sector_is_filesystem(&r, &empty));
}

static void test_zero_in(void **state)
{
	(void)state;
	uint8_t buf[16];
	struct probe_hit h = hit("x", 100, 8);

	memset(buf, 0xAA, sizeof buf);
	assert_false(foreign_zero_in(&h, 108, buf, sizeof buf)); /* just after */
	assert_false(foreign_zero_in(&h, 84, buf, sizeof buf));  /* just before */
	assert_true(foreign_zero_in(&h, 96, buf, sizeof buf));   /* bytes 4..11 */
	for (unsigned i = 0; i < sizeof buf; i++)
		assert_int_equal(buf[i], i >= 4 && i < 12 ? 0 : 0xAA);
	memset(buf, 0xAA, sizeof buf);
	assert_true(foreign_zero_in(&h, 104, buf, sizeof buf));  /* the tail, bytes 0..3 */
	for (unsigned i = 0; i < sizeof buf; i++)
		assert_int_equal(buf[i], i < 4 ? 0 : 0xAA);
}

/* One write per sector holding magic: that sector as it is with only the magic zeroed; hits in
 * one sector share it; a magic across a sector boundary gets both; planned sectors are left out. */
static void test_erase_plan(void **state)
{
	(void)state;
	uint8_t *data = malloc(8192);
	struct hostdev h;
	struct plan p;
	struct probe_result r = { .n = 0 };

	for (unsigned i = 0; i < 8192; i++)
		data[i] = (uint8_t)(i * 7 + 1);
	make_image(data, 8192, 0);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	hostdev_set_sector_size(&h, 512, TOPO_GIVEN, "test");
	r.hit[r.n++] = hit("a", 510, 2);     /* sector 0 */
	r.hit[r.n++] = hit("b", 3, 8);       /* sector 0 too */
	r.hit[r.n++] = hit("c", 1020, 8);    /* sectors 1 and 2 */
	r.hit[r.n++] = hit("d", 4096, 4);    /* sector 8: planned already */
	plan_init(&p, 512);
	const struct lba_range skip = { 8, 1 };
	assert_int_equal(foreign_erase_plan(&h, &r, &p, &skip, 1), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.ops[0].lba, 0);
	assert_int_equal(p.ops[1].lba, 1);
	assert_int_equal(p.ops[2].lba, 2);
	for (unsigned k = 0; k < p.n; k++) {
		assert_int_equal(p.ops[k].count, 1);
		for (unsigned i = 0; i < 512; i++) {
			uint64_t at = p.ops[k].lba * 512 + i;
			bool magic = (at >= 510 && at < 512) || (at >= 3 && at < 11) ||
				     (at >= 1020 && at < 1028);
			assert_int_equal(p.ops[k].data[i], magic ? 0 : data[at]);
		}
	}
	assert_non_null(strstr(p.ops[0].what, "erase 2 bytes at byte 0x1fe"));
	assert_non_null(strstr(p.ops[0].what, "; 8 bytes at byte 0x3"));
	plan_free(&p);
	hostdev_close(&h);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dos_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_offsets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bsd_label, setup, teardown),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_superfloppy),
		cmocka_unit_test(test_zero_in),
		cmocka_unit_test_setup_teardown(test_erase_plan, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
