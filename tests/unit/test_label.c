/* SPDX-License-Identifier: BSD-2-Clause */
/* The one rule for which table a disk has (common/label.h), as a table of LBA 0 contents and
 * GPT presence, then label_read over memory disks of 512 and 4096-byte sectors holding a GPT
 * behind a protective MBR, a hybrid MBR, a plain MBR with a stale GPT, a GPT without a
 * protective MBR (primary or backup only), and nothing. */
#include "tests/unit/helpers.h"

#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/label.h"

static struct mbr lba0_with(uint8_t t0, uint8_t t1, bool sig)
{
	struct mbr m;
	memset(&m, 0, sizeof m);
	m.boot_signature = sig;
	m.part[0].type = t0;
	m.part[1].type = t1;
	return m;
}

static void test_decide_table(void **state)
{
	(void)state;
	static const struct {
		uint8_t t0, t1;
		bool sig, gpt;
		enum label_kind kind;
		bool hybrid, pmbr_missing, stale;
	} rows[] = {
		/* protective MBR: GPT, whether or not a header was seen (gpt_read says the rest) */
		{ 0xEE, 0x00, true, true, LABEL_GPT, false, false, false },
		{ 0xEE, 0x00, true, false, LABEL_GPT, false, false, false },
		/* 0xEE anywhere, with another entry: hybrid, still GPT */
		{ 0x0C, 0xEE, true, true, LABEL_GPT, true, false, false },
		{ 0xEE, 0x83, true, true, LABEL_GPT, true, false, false },
		/* an MBR without 0xEE: MBR, a GPT behind it is stale */
		{ 0x0C, 0x83, true, false, LABEL_MBR, false, false, false },
		{ 0x0C, 0x00, true, true, LABEL_MBR, false, false, true },
		{ 0x00, 0x00, true, false, LABEL_MBR, false, false, false },
		/* no 0x55AA: GPT only when a header is there */
		{ 0xEE, 0x00, false, true, LABEL_GPT, false, true, false },
		{ 0x00, 0x00, false, true, LABEL_GPT, false, true, false },
		{ 0xEE, 0x00, false, false, LABEL_NONE, false, false, false },
		{ 0x0C, 0x00, false, false, LABEL_NONE, false, false, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct mbr m = lba0_with(rows[i].t0, rows[i].t1, rows[i].sig);
		struct label l = label_decide(&m, rows[i].gpt);
		if (l.kind != rows[i].kind || l.hybrid != rows[i].hybrid ||
		    l.pmbr_missing != rows[i].pmbr_missing || l.stale_gpt != rows[i].stale)
			fail_msg("row %zu: kind %d hybrid %d pmbr_missing %d stale %d", i, l.kind,
				 l.hybrid, l.pmbr_missing, l.stale_gpt);
	}
}

static void write_lba0(struct test_disk *d, const struct mbr *m)
{
	uint8_t rec[MBR_RECORD_SIZE];
	memset(rec, 0, sizeof rec);
	mbr_encode(m, rec);
	memcpy(d->md.data, rec, sizeof rec);
}

static struct test_disk *gpt_disk(uint32_t ss)
{
	static const struct guid disk_guid = { { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } };
	uint64_t sectors = (8u << 20) / ss;
	struct test_disk *d = test_disk_new(sectors * ss, ss, ss, 0, 0);
	struct gpt_entry e;
	memset(&e, 0, sizeof e);
	e.type = GUID_ESP;
	e.unique.b[0] = 0x42;
	e.first_lba = (1u << 20) / ss;
	e.last_lba = (4u << 20) / ss - 1;
	assert_int_equal(gpt_write(&d->dev, &disk_guid, &e, 1, 0, 0, 0, NULL), 0);
	return d;
}

static struct label read_label(struct test_disk *d)
{
	struct mbr m;
	struct label l;
	assert_int_equal(label_read(&d->dev, &m, &l), 0);
	return l;
}

static void test_read_disks(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned si = 0; si < 2; si++) {
		uint32_t ss = sizes[si];
		struct test_disk *d = gpt_disk(ss);
		struct mbr m;

		/* no LBA 0 record at all, a GPT behind it: GPT without its protective MBR */
		struct label l = read_label(d);
		assert_int_equal(l.kind, LABEL_GPT);
		assert_true(l.pmbr_missing);
		/* only the backup left: still recognised */
		memset(d->md.data + ss, 0, ss);
		assert_int_equal(read_label(d).kind, LABEL_GPT);

		mbr_build_protective(d->dev.sectors, &m);
		write_lba0(d, &m);
		l = read_label(d);
		assert_int_equal(l.kind, LABEL_GPT);
		assert_false(l.pmbr_missing || l.hybrid);

		assert_int_equal(mbr_entry_set(&m.part[1], MBR_TYPE_FAT32_LBA, false, (1u << 20) / ss,
					       (3u << 20) / ss), 0);
		write_lba0(d, &m);
		l = read_label(d);
		assert_int_equal(l.kind, LABEL_GPT);
		assert_true(l.hybrid);

		/* the 0xEE entry gone: an MBR, the GPT ignored */
		memset(&m.part[0], 0, sizeof m.part[0]);
		write_lba0(d, &m);
		assert_int_equal(read_label(d).kind, LABEL_MBR);

		/* nothing anywhere */
		memset(d->md.data, 0, d->md.size);
		assert_int_equal(read_label(d).kind, LABEL_NONE);
		test_disk_free(d);
	}
}

/* A GPT written for 512-byte sectors seen on a 4096-byte device: not a GPT here. */
static void test_other_sector_size_gpt(void **state)
{
	(void)state;
	struct test_disk *small = gpt_disk(512);
	struct test_disk *big = test_disk_new(small->md.size, 4096, 4096, 0, 0);
	memcpy(big->md.data, small->md.data, small->md.size);
	assert_int_equal(read_label(big).kind, LABEL_NONE);
	test_disk_free(small);
	test_disk_free(big);
}

static void test_read_error(void **state)
{
	(void)state;
	struct test_disk *d = gpt_disk(512);
	struct mbr m;
	struct label l;
	d->md.fail_reads = true;
	d->md.fail_lba = 0;
	assert_int_equal(label_read(&d->dev, &m, &l), AS_EIO);
	test_disk_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_table),
		cmocka_unit_test(test_read_disks),
		cmocka_unit_test(test_other_sector_size_gpt),
		cmocka_unit_test(test_read_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
