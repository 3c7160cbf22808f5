/* SPDX-License-Identifier: BSD-2-Clause */
/* The install journal: the old bytes of every planned write are saved before anything changes,
 * restore puts them back exactly, and a damaged, foreign or outdated journal is refused. A
 * record larger than the pieces it is saved in, over old bytes that are partly zeros (which
 * stay a hole of the backup file), with new bytes the plan only borrows, goes back whole. An
 * op whose bytes are read from a file writes, checks and records the file's bytes. */
#include "tests/unit/helpers.h"
#include "tests/unit/tools_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "tools/plan/journal.h"
#include "tools/base/util.h"
#include "tools/base/fileio.h"
#include "tools/dev/hostdev_open.h"
#include "tools/base/exit_codes.h"

static char dir[512], img[600], jpath[600];

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131 + seed * 7) >> 3);
}

static int setup(void **state)
{
	tools_setup(state);
	/* temporary files live under $BUILD (the Makefile exports it) */
	assert_int_equal(test_workdir(dir, sizeof dir, "tmp", "unit-journal"), 0);
	snprintf(img, sizeof img, "%s/disk.img", dir);
	snprintf(jpath, sizeof jpath, "%s/disk.journal", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(img);
	unlink(jpath);
	rmdir(dir);
	return tools_teardown(state);
}

/* A 1 MiB image with a pattern, opened at lss. */
static void make_disk(struct hostdev *h, uint32_t lss)
{
	FILE *f = fopen(img, "wb");
	uint8_t *buf = malloc(1 << 20);
	fill(buf, 1 << 20, lss);
	assert_int_equal(fwrite(buf, 1, 1 << 20, f), 1 << 20);
	fclose(f);
	free(buf);
	assert_int_equal(hostdev_open(h, img, true), 0);
	hostdev_set_sector_size(h, lss, TOPO_GIVEN, "test");
}

static uint8_t *snapshot(size_t *len)
{
	return read_file(img, len);
}

static void build_plan(struct plan *p, uint32_t lss)
{
	uint8_t *d = malloc(8 * lss);
	plan_init(p, lss);
	memset(d, 0xAB, 8 * lss);
	plan_add(p, 3, 5, d, "five sectors");
	memset(d, 0xCD, lss);
	plan_add(p, 0, 1, d, "LBA 0");
	plan_add(p, (1 << 20) / lss - 1, 1, d, "the last sector");
	free(d);
}

static void test_round_trip(void **state)
{
	(void)state;
	for (uint32_t lss = 512; lss <= 4096; lss *= 8) {
		struct hostdev h;
		struct plan p;
		size_t n0, n1;
		make_disk(&h, lss);
		uint8_t *before = snapshot(&n0);
		build_plan(&p, lss);
		unlink(jpath);
		assert_int_equal(journal_write(jpath, &h, &p), 0);
		/* the journal never overwrites an existing file */
		assert_int_equal(journal_write(jpath, &h, &p), EXIT_REFUSED);
		assert_int_equal(plan_execute(&h, &p), 0);
		uint8_t *mid = snapshot(&n1);
		assert_memory_not_equal(before, mid, n0);
		free(mid);
		hostdev_close(&h);

		assert_int_equal(hostdev_open(&h, img, true), 0);
		assert_int_equal(journal_restore(&h, jpath, false, false), 0);
		hostdev_close(&h);
		uint8_t *after = snapshot(&n1);
		assert_int_equal(n0, n1);
		assert_memory_equal(before, after, n0);
		/* restoring twice is harmless */
		assert_int_equal(hostdev_open(&h, img, true), 0);
		assert_int_equal(journal_restore(&h, jpath, false, false), 0);
		hostdev_close(&h);
		free(after);
		free(before);
		plan_free(&p);
	}
}

/* A plan that writes one range twice (as the ESP's FAT sectors are: new chains linked, then
 * old chains freed): after any prefix of it, as a crash leaves the disk, restore accepts
 * whichever content the range holds and puts the original back; other content is refused. */
static void test_twice_written_prefixes(void **state)
{
	(void)state;
	const uint32_t lss = 512;
	uint8_t d[512];
	struct plan full;

	plan_init(&full, lss);
	memset(d, 0x11, sizeof d);
	plan_add(&full, 7, 1, d, "FAT, new chains linked");
	memset(d, 0x22, sizeof d);
	plan_add(&full, 9, 1, d, "directory");
	memset(d, 0x33, sizeof d);
	plan_add(&full, 7, 1, d, "FAT, old chains freed");
	memset(d, 0x44, sizeof d);
	plan_add(&full, 0, 1, d, "LBA 0");
	for (unsigned k = 0; k <= full.n; k++) {
		struct hostdev h;
		struct plan prefix;
		size_t n0, n1;
		make_disk(&h, lss);
		uint8_t *before = snapshot(&n0);
		unlink(jpath);
		assert_int_equal(journal_write(jpath, &h, &full), 0);
		plan_init(&prefix, lss);
		for (unsigned i = 0; i < k; i++)
			plan_add(&prefix, full.ops[i].lba, full.ops[i].count, full.ops[i].data, "");
		assert_int_equal(plan_execute(&h, &prefix), 0);
		plan_free(&prefix);
		hostdev_close(&h);
		assert_int_equal(hostdev_open(&h, img, true), 0);
		assert_int_equal(journal_restore(&h, jpath, false, false), 0);
		hostdev_close(&h);
		uint8_t *after = snapshot(&n1);
		assert_int_equal(n0, n1);
		assert_memory_equal(before, after, n0);
		free(after);
		free(before);
	}
	/* the twice-written range holding something neither write gave it: refused */
	struct hostdev h;
	make_disk(&h, lss);
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &full), 0);
	assert_int_equal(plan_execute(&h, &full), 0);
	memset(d, 0x55, sizeof d);
	assert_int_equal(bdev_write(&h.dev, 7, 1, d), 0);
	hostdev_close(&h);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, false, false), EXIT_REFUSED);
	hostdev_close(&h);
	plan_free(&full);
}

static void test_refusals(void **state)
{
	(void)state;
	struct hostdev h;
	struct plan p;
	size_t n;

	make_disk(&h, 512);
	build_plan(&p, 512);
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &p), 0);
	assert_int_equal(plan_execute(&h, &p), 0);
	/* a planned range changed afterwards: refused without --force */
	uint8_t x = 0x11;
	assert_int_equal(pwrite_full(h.fd, &x, 1, 3 * 512 + 7), 0);
	hostdev_close(&h);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, false, false), EXIT_REFUSED);
	assert_true(report_has(&unit_report, "refuse.journal_changed"));
	assert_int_equal(journal_restore(&h, jpath, true, false), 0);
	hostdev_close(&h);

	/* every single flipped byte makes the journal unusable */
	uint8_t *j = read_file(jpath, &n);
	for (size_t i = 0; i < n; i += 97) {
		j[i] ^= 0x40;
		FILE *f = fopen(jpath, "wb");
		assert_int_equal(fwrite(j, 1, n, f), n);
		fclose(f);
		assert_int_equal(hostdev_open(&h, img, true), 0);
		assert_int_equal(journal_restore(&h, jpath, true, false), EXIT_ERRORS);
		hostdev_close(&h);
		j[i] ^= 0x40;
	}
	/* truncated */
	FILE *f = fopen(jpath, "wb");
	assert_int_equal(fwrite(j, 1, n - 1, f), n - 1);
	fclose(f);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, true, false), EXIT_ERRORS);
	hostdev_close(&h);
	/* a disk of another size */
	f = fopen(jpath, "wb");
	assert_int_equal(fwrite(j, 1, n, f), n);
	fclose(f);
	assert_int_equal(truncate(img, 2 << 20), 0);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, true, false), EXIT_REFUSED);
	hostdev_close(&h);
	free(j);
	plan_free(&p);
}

/* The sectors beside the saved ranges are the disk's fingerprint: all of them changed means
 * another disk (refused, --force restores anyway); one changed is still this disk. */
static void test_neighbours(void **state)
{
	(void)state;
	struct hostdev h;
	struct plan p;
	uint8_t x = 0x5A;
	const uint64_t last = (1 << 20) / 512 - 1;
	/* build_plan saves 3..7, 0 and the last sector: beside them lie 1, 2, 8 and last - 1 */
	const uint64_t beside[] = { 1, 2, 8, last - 1 };

	make_disk(&h, 512);
	build_plan(&p, 512);
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &p), 0);
	assert_int_equal(plan_execute(&h, &p), 0);
	assert_int_equal(pwrite_full(h.fd, &x, 1, 8 * 512 + 9), 0);
	hostdev_close(&h);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, false, true), 0);   /* one changed: a dry run */
	assert_false(report_has(&unit_report, "refuse.journal_disk"));
	for (size_t i = 0; i < ARRAY_SIZE(beside); i++)
		assert_int_equal(pwrite_full(h.fd, &x, 1, beside[i] * 512 + 9), 0);
	assert_int_equal(journal_restore(&h, jpath, false, false), EXIT_REFUSED);
	assert_true(report_has(&unit_report, "refuse.journal_disk"));
	assert_int_equal(journal_restore(&h, jpath, true, false), 0);
	hostdev_close(&h);
	plan_free(&p);
}

/* 4 MiB: the pattern, but zeros in [1.5 MiB, 2.5 MiB). */
static void make_zero_disk(struct hostdev *h)
{
	FILE *f = fopen(img, "wb");
	uint8_t *buf = malloc(4 << 20);
	fill(buf, 4 << 20, 3);
	memset(buf + (3 << 19), 0, 1 << 20);
	assert_int_equal(fwrite(buf, 1, 4 << 20, f), 4 << 20);
	fclose(f);
	free(buf);
	assert_int_equal(hostdev_open(h, img, true), 0);
	hostdev_set_sector_size(h, 512, TOPO_GIVEN, "test");
}

static void test_large_zero_borrowed(void **state)
{
	(void)state;
	static uint8_t kept[3 << 20];
	struct hostdev h;
	struct plan p;
	struct stat st;
	size_t n0, n1;

	make_zero_disk(&h);
	uint8_t *before = snapshot(&n0);
	/* bytes [0.5 MiB, 3.5 MiB): three 1 MiB pieces, the middle one all zeros on the disk */
	fill(kept, sizeof kept, 9);
	plan_init(&p, 512);
	plan_add_ref(&p, (1 << 19) / 512, sizeof kept / 512, kept, "borrowed");
	plan_add(&p, 0, 1, kept, "LBA 0");
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &p), 0);
	assert_int_equal(stat(jpath, &st), 0);
	assert_true(st.st_size > (3 << 20));
	/* the zero piece was not written: at most 2 MiB and some blocks are allocated */
	if ((uint64_t)st.st_blocks * 512 > (2u << 20) + 65536)
		fail_msg("backup file of %lld bytes has %lld allocated: its zeros were written",
			 (long long)st.st_size, (long long)st.st_blocks * 512);
	assert_int_equal(plan_execute(&h, &p), 0);
	uint8_t *mid = snapshot(&n1);
	assert_memory_equal(mid + (1 << 19), kept, sizeof kept);
	free(mid);
	hostdev_close(&h);
	plan_free(&p);           /* ASan: the borrowed bytes are never freed */
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, false, false), 0);
	hostdev_close(&h);
	uint8_t *after = snapshot(&n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(after);
	free(before);
}

/* An op whose bytes come from a file (plan_op_from_file; its data pointer another pattern):
 * the file's bytes, read in pieces, are what the journal records as written (restore finds
 * them and accepts), what plan_execute writes and reads back; a file too short fails both. */
static void test_from_file(void **state)
{
	(void)state;
	static uint8_t mem[3 << 20], want[3 << 20];
	char src[700];
	struct hostdev h;
	struct plan p;
	size_t n0, n1;
	int fd;

	snprintf(src, sizeof src, "%s/new.bin", dir);
	fill(want, sizeof want, 11);
	memset(mem, 0x5A, sizeof mem);
	/* the bytes at 4096 in the file: an op's place in its file is kept */
	fd = open(src, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite_full(fd, want, sizeof want, 4096), 0);
	make_zero_disk(&h);
	uint8_t *before = snapshot(&n0);
	plan_init(&p, 512);
	plan_add_ref(&p, (1 << 19) / 512, sizeof mem / 512, mem, "from the file");
	plan_op_from_file(&p, 0, fd, 4096);
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &p), 0);
	assert_int_equal(plan_execute(&h, &p), 0);
	uint8_t *mid = snapshot(&n1);
	assert_memory_equal(mid + (1 << 19), want, sizeof want);
	free(mid);
	hostdev_close(&h);
	assert_int_equal(hostdev_open(&h, img, true), 0);
	assert_int_equal(journal_restore(&h, jpath, false, false), 0);
	uint8_t *after = snapshot(&n1);
	assert_memory_equal(before, after, n0);
	/* the file ends before the op's last piece: nothing recorded, the write stops */
	assert_int_equal(ftruncate(fd, 4096 + (2 << 20)), 0);
	unlink(jpath);
	assert_int_equal(journal_write(jpath, &h, &p), EXIT_ERRORS);
	assert_int_not_equal(access(jpath, F_OK), 0);
	assert_int_equal(plan_execute(&h, &p), EXIT_ERRORS);
	hostdev_close(&h);
	plan_free(&p);
	close(fd);
	unlink(src);
	free(after);
	free(before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_twice_written_prefixes),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_large_zero_borrowed),
		cmocka_unit_test(test_from_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
