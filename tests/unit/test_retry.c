/* SPDX-License-Identifier: BSD-2-Clause */
/* The block layer's read retries (common/blockdev.c) over a memory disk that fails on chosen
 * sectors: a transient error is read on a later try (with a reset before it, and the driver told
 * which try worked), a bad sector is found by halving and named exactly, the good sectors around
 * it are read, errors other than I/O are not retried, and a window of the disk resets and reports
 * on the whole disk in the disk's numbering. Writes (stage2's state block) follow the same rule
 * and are told to write_note: a transient failure is written on a later try, a sector that
 * never takes a write is named. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

#define NOTES_MAX 16
static struct {
	unsigned n;
	struct {
		uint64_t lba;
		uint32_t count;
		unsigned tries;
		bool ok;
	} at[NOTES_MAX];
} notes;

static void note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok)
{
	(void)dev;
	if (notes.n < NOTES_MAX)
		notes.at[notes.n++] = (typeof(notes.at[0])){ lba, count, tries, ok };
}

static unsigned write_notes;

static void write_note(struct blockdev *dev, uint64_t lba, uint32_t count, unsigned tries, bool ok)
{
	write_notes++;
	note(dev, lba, count, tries, ok);
}

static struct test_disk *disk(uint32_t ss, uint32_t sectors, uint32_t max_io)
{
	struct test_disk *d = test_disk_new((uint64_t)sectors * ss, ss, ss, 0, max_io);
	for (size_t i = 0; i < (size_t)sectors * ss; i++)
		d->md.data[i] = (uint8_t)(i * 7 + i / ss);
	d->dev.read_note = note;
	d->dev.write_note = write_note;
	memset(&notes, 0, sizeof notes);
	write_notes = 0;
	return d;
}

/* Fails once: the second try reads it, after one reset, and the driver hears "try 2". */
static void test_transient_error_retried(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned si = 0; si < 2; si++) {
		struct test_disk *d = disk(sizes[si], 64, 16);
		uint8_t *buf = malloc(64 * (size_t)sizes[si]);
		d->md.fail_reads = true;
		d->md.fail_lba = 20;
		d->md.fail_times = 1;
		assert_int_equal(bdev_read(&d->dev, 0, 64, buf), 0);
		assert_memory_equal(buf, d->md.data, 64 * (size_t)sizes[si]);
		assert_int_equal(d->md.resets, 1);
		assert_int_equal(d->md.read_failures, 1);
		assert_int_equal(notes.n, 1);
		assert_true(notes.at[0].ok);
		assert_int_equal(notes.at[0].tries, 2);
		/* the whole max_io piece holding LBA 20 was read again, not split */
		assert_int_equal(notes.at[0].lba, 16);
		assert_int_equal(notes.at[0].count, 16);
		free(buf);
		test_disk_free(d);
	}
}

/* A reset that clears the fault: the retry after it succeeds (the reset really comes first). */
static void test_reset_before_retry(void **state)
{
	(void)state;
	struct test_disk *d = disk(512, 8, 0);
	uint8_t buf[8 * 512];
	d->md.fail_reads = true;
	d->md.fail_lba = 3;
	d->md.reset_heals = true;
	assert_int_equal(bdev_read(&d->dev, 0, 8, buf), 0);
	assert_int_equal(d->md.resets, 1);
	assert_int_equal(d->md.read_failures, 1);
	/* without a reset callback the same fault stays: three tries, then halving */
	d->md.fail_reads = true;
	d->md.read_failures = 0;
	d->dev.reset = NULL;
	assert_int_equal(bdev_read(&d->dev, 0, 8, buf), AS_EIO);
	assert_int_equal(d->dev.err_lba, 3);
	test_disk_free(d);
}

/* A sector that never reads: halving finds exactly it; everything before it was read. */
static void test_bad_sector_found_by_halving(void **state)
{
	(void)state;
	for (uint32_t bad = 0; bad < 37; bad += 6) {
		struct test_disk *d = disk(4096, 40, 37);
		uint8_t *buf = calloc(40, 4096);
		d->md.fail_reads = true;
		d->md.fail_lba = bad;
		assert_int_equal(bdev_read(&d->dev, 0, 40, buf), AS_EIO);
		assert_int_equal(d->dev.err_lba, bad);
		assert_memory_equal(buf, d->md.data, (size_t)bad * 4096);
		/* the last note names the one sector, after BDEV_READ_TRIES tries */
		assert_true(notes.n >= 1);
		assert_false(notes.at[notes.n - 1].ok);
		assert_int_equal(notes.at[notes.n - 1].lba, bad);
		assert_int_equal(notes.at[notes.n - 1].count, 1);
		assert_int_equal(notes.at[notes.n - 1].tries, BDEV_READ_TRIES);
		/* a few calls per halving level (3 failing tries, 1 good half), not one per sector */
		assert_true(d->md.calls <= 4u * 7u + 3u);
		free(buf);
		test_disk_free(d);
	}
}

/* Two bad sectors: the first is the one named; the read stops there. */
static void test_first_of_two_bad_sectors(void **state)
{
	(void)state;
	struct test_disk *d = disk(512, 32, 0);
	uint8_t buf[32 * 512];
	d->md.fail_reads = true;
	d->md.fail_lba = 9;
	d->md.fail_span = 12;
	assert_int_equal(bdev_read(&d->dev, 0, 32, buf), AS_EIO);
	assert_int_equal(d->dev.err_lba, 9);
	assert_memory_equal(buf, d->md.data, 9 * 512);
	test_disk_free(d);
}

/* Byte reads through the scratch sector retry the same way. */
static void test_byte_reads_retry(void **state)
{
	(void)state;
	struct test_disk *d = disk(4096, 16, 4);
	uint8_t buf[3 * 4096];
	d->md.fail_reads = true;
	d->md.fail_lba = 5;
	d->md.fail_times = 2;
	assert_int_equal(bdev_read_bytes(&d->dev, 5 * 4096 + 100, buf, sizeof buf), 0);
	assert_memory_equal(buf, d->md.data + 5 * 4096 + 100, sizeof buf);
	assert_int_equal(notes.n, 1);
	assert_int_equal(notes.at[0].tries, 3);
	test_disk_free(d);
}

/* A driver error other than AS_EIO is not retried. */
static int refuse_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	(void)lba;
	(void)count;
	(void)buf;
	((struct memdisk *)dev->priv)->calls++;
	return AS_EUNSUPP;
}

static void test_other_errors_not_retried(void **state)
{
	(void)state;
	struct test_disk *d = disk(512, 8, 0);
	uint8_t buf[8 * 512];
	d->dev.read = refuse_read;
	assert_int_equal(bdev_read(&d->dev, 0, 8, buf), AS_EUNSUPP);
	assert_int_equal(d->md.calls, 1);
	assert_int_equal(d->md.resets, 0);
	assert_int_equal(notes.n, 0);
	test_disk_free(d);
}

/* Through a window: the disk is reset and the notes and err_lba use disk LBAs. */
static void test_slice_retries_on_disk(void **state)
{
	(void)state;
	struct test_disk *d = disk(512, 64, 8);
	struct blockdev part;
	uint8_t buf[16 * 512];
	assert_int_equal(bdev_slice(&d->dev, 40, 16, &part), 0);
	d->md.fail_reads = true;
	d->md.fail_lba = 44;
	d->md.fail_times = 1;
	assert_int_equal(bdev_read(&part, 0, 16, buf), 0);
	assert_memory_equal(buf, d->md.data + 40 * 512, sizeof buf);
	assert_int_equal(d->md.resets, 1);
	assert_int_equal(notes.n, 1);
	assert_int_equal(notes.at[0].lba, 40);
	d->md.fail_reads = true;
	d->md.fail_times = 0;
	d->md.read_failures = 0;
	assert_int_equal(bdev_read(&part, 0, 16, buf), AS_EIO);
	assert_int_equal(part.err_lba, 4);
	assert_int_equal(bdev_disk_err_lba(&part), 44);
	assert_int_equal(notes.at[notes.n - 1].lba, 44);
	test_disk_free(d);
}

/* A write that fails twice is written on the third try, with a reset before each retry, and
 * write_note (not read_note) hears it. */
static void test_transient_write_retried(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned si = 0; si < 2; si++) {
		uint32_t ss = sizes[si];
		struct test_disk *d = disk(ss, 32, 8);
		uint8_t *buf = malloc(8 * (size_t)ss);
		memset(buf, 0x5A, 8 * (size_t)ss);
		d->md.fail_writes = true;
		d->md.fail_lba = 19;
		d->md.fail_times = 2;
		assert_int_equal(bdev_write(&d->dev, 16, 8, buf), 0);
		assert_memory_equal(d->md.data + 16 * (size_t)ss, buf, 8 * (size_t)ss);
		assert_int_equal(d->md.resets, 2);
		assert_int_equal(d->md.write_failures, 2);
		assert_int_equal(write_notes, 1);
		assert_true(notes.at[0].ok);
		assert_int_equal(notes.at[0].tries, 3);
		assert_int_equal(notes.at[0].lba, 16);
		assert_int_equal(notes.at[0].count, 8);
		free(buf);
		test_disk_free(d);
	}
}

/* A sector that never takes a write: named after BDEV_READ_TRIES tries, the sectors before it
 * written, the ones after it not. */
static void test_bad_sector_write_named(void **state)
{
	(void)state;
	struct test_disk *d = disk(512, 16, 0);
	uint8_t buf[8 * 512], before[16 * 512];
	memset(buf, 0xC3, sizeof buf);
	memcpy(before, d->md.data, sizeof before);
	d->md.fail_writes = true;
	d->md.fail_lba = 5;
	assert_int_equal(bdev_write(&d->dev, 2, 8, buf), AS_EIO);
	assert_int_equal(d->dev.err_lba, 5);
	assert_memory_equal(d->md.data + 2 * 512, buf, 3 * 512);
	assert_memory_equal(d->md.data + 5 * 512, before + 5 * 512, 11 * 512);
	assert_true(write_notes >= 1);
	assert_false(notes.at[notes.n - 1].ok);
	assert_int_equal(notes.at[notes.n - 1].lba, 5);
	assert_int_equal(notes.at[notes.n - 1].tries, BDEV_READ_TRIES);
	test_disk_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transient_error_retried),
		cmocka_unit_test(test_reset_before_retry),
		cmocka_unit_test(test_bad_sector_found_by_halving),
		cmocka_unit_test(test_first_of_two_bad_sectors),
		cmocka_unit_test(test_byte_reads_retry),
		cmocka_unit_test(test_other_errors_not_retried),
		cmocka_unit_test(test_slice_retries_on_disk),
		cmocka_unit_test(test_transient_write_retried),
		cmocka_unit_test(test_bad_sector_write_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
