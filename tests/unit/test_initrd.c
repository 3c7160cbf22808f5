/* SPDX-License-Identifier: BSD-2-Clause */
/* Joining initrds (common/initrd.c) from a FAT image made by mkfs.fat and mtools: each file at a
 * multiple of 4 with zeros between (whatever the buffer held before), empty files, the order of
 * the config, and one sentence naming the entry and the file for a missing file or a directory;
 * a read failure of the loader's callback stops the join with its code. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/initrd.h"
#include "common/str.h"

static char workdir[512];
static struct test_disk *disk;
static const char *skip_reason = "";

static const struct {
	const char *name;
	size_t size;
} files[] = { { "a.img", 5 }, { "empty.img", 0 }, { "b.img", 4097 }, { "c.img", 3 } };

static uint8_t pattern(size_t file, size_t i)
{
	return (uint8_t)(0x11 * (file + 1) + i * 13);
}

static int setup(void **state)
{
	(void)state;
	char img[600], cmd[4096];

	if (!have_program("mkfs.fat") || !have_program("mcopy")) {
		skip_reason = "mkfs.fat or mtools not installed";
		return 0;
	}
	if (test_workdir(workdir, sizeof workdir, "test-data", "initrd"))
		return -1;
	snprintf(img, sizeof img, "%s/esp.img", workdir);
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	if (run_cmd("truncate -s 4M '%s' && mkfs.fat -F 12 -S 4096 -s 1 '%s' >/dev/null && "
		    "mmd -i '%s' ::/d ::/d/dir", img, img, img))
		return -1;
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		char src[600];
		snprintf(src, sizeof src, "%s/%s", workdir, files[f].name);
		FILE *fp = fopen(src, "wb");
		if (!fp)
			return -1;
		for (size_t i = 0; i < files[f].size; i++)
			fputc(pattern(f, i), fp);
		fclose(fp);
		snprintf(cmd, sizeof cmd, "mcopy -i '%s' '%s' ::/d/", img, src);
		if (run_cmd("%s", cmd))
			return -1;
	}
	size_t len;
	uint8_t *data = read_file(img, &len);
	if (!data)
		return -1;
	disk = test_disk_new(len, 4096, 4096, 0, 0);
	memcpy(disk->md.data, data, len);
	free(data);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (disk)
		test_disk_free(disk);
	if (workdir[0])
		run_cmd("rm -rf '%s'", workdir);
	return 0;
}

static void mount(struct fat_fs *fs)
{
	if (!disk) {
		printf("SKIP: %s\n", skip_reason);
		skip();
	}
	assert_int_equal(fat_mount(&disk->dev, fs, NULL), 0);
}

static struct cfg_entry entry_of(const char *const *paths, unsigned n)
{
	struct cfg_entry e;
	cfg_entry_clear(&e);
	e.name = "deb";
	for (unsigned i = 0; i < n; i++)
		e.initrd[i] = paths[i];
	e.ninitrd = (uint8_t)n;
	return e;
}

struct reader {
	struct fat_fs *fs;
	unsigned calls;
	unsigned fail_at;    /* 1-based call that fails, 0 none */
};

static int read_whole(void *ctx, const char *path, const struct fat_file *f, void *dst)
{
	struct reader *r = ctx;
	(void)path;
	if (++r->calls == r->fail_at)
		return AS_EIO;
	return fat_read(r->fs, f, 0, dst, f->size, NULL);
}

static void test_join_layout(void **state)
{
	(void)state;
	struct fat_fs fs;
	mount(&fs);
	/* the config's order, not the directory's: c, a, empty, b */
	static const char *const paths[] = { "/d/c.img", "/d/A.IMG", "\\d\\empty.img", "/d/b.img" };
	static const size_t which[] = { 3, 0, 1, 2 };
	struct cfg_entry e = entry_of(paths, 4);
	struct initrd_join j;
	struct capture c;
	capture_init(&c);
	assert_int_equal(initrd_join_open(&fs, &e, &j, &c.diag), 0);
	assert_int_equal(c.n, 0);
	/* 3 -> pad to 4; 5 -> 9, pad to 12; empty at 12; 4097 -> 4109 */
	assert_int_equal(j.off[0], 0);
	assert_int_equal(j.off[1], 4);
	assert_int_equal(j.off[2], 12);
	assert_int_equal(j.off[3], 12);
	assert_int_equal(j.total, 12 + 4097);

	uint8_t *buf = malloc(j.total + 16);
	memset(buf, 0xEE, j.total + 16);
	struct reader r = { &fs, 0, 0 };
	assert_int_equal(initrd_join_read(&j, &e, buf, read_whole, &r), 0);
	assert_int_equal(r.calls, 4);
	for (unsigned k = 0; k < 4; k++) {
		size_t f = which[k];
		for (size_t i = 0; i < files[f].size; i++)
			assert_int_equal(buf[j.off[k] + i], pattern(f, i));
	}
	assert_int_equal(buf[3], 0);          /* padding after c.img */
	assert_int_equal(buf[9], 0);          /* after a.img */
	assert_int_equal(buf[10], 0);
	assert_int_equal(buf[11], 0);
	assert_int_equal(buf[j.total], 0xEE); /* nothing written past the block */
	free(buf);

	/* no initrd at all */
	struct cfg_entry none = entry_of(paths, 0);
	assert_int_equal(initrd_join_open(&fs, &none, &j, NULL), 0);
	assert_int_equal(j.total, 0);
}

static void test_missing_and_directory(void **state)
{
	(void)state;
	struct fat_fs fs;
	struct initrd_join j;
	struct capture c;
	mount(&fs);

	static const char *const missing[] = { "/d/a.img", "/d/nope.img" };
	struct cfg_entry e = entry_of(missing, 2);
	capture_init(&c);
	assert_int_equal(initrd_join_open(&fs, &e, &j, &c.diag), AS_ENOENT);
	assert_reported(&c, "initrd.open", "entry deb: cannot open initrd /d/nope.img (");

	static const char *const dir[] = { "/d/dir" };
	e = entry_of(dir, 1);
	capture_init(&c);
	assert_int_equal(initrd_join_open(&fs, &e, &j, &c.diag), AS_EISDIR);
	assert_reported(&c, "initrd.open", "entry deb: cannot open initrd /d/dir");
}

static void test_read_failure_stops(void **state)
{
	(void)state;
	struct fat_fs fs;
	struct initrd_join j;
	mount(&fs);
	static const char *const paths[] = { "/d/a.img", "/d/b.img", "/d/c.img" };
	struct cfg_entry e = entry_of(paths, 3);
	assert_int_equal(initrd_join_open(&fs, &e, &j, NULL), 0);
	uint8_t *buf = calloc(1, j.total);
	struct reader r = { &fs, 0, 2 };
	assert_int_equal(initrd_join_read(&j, &e, buf, read_whole, &r), AS_EIO);
	assert_int_equal(r.calls, 2);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_layout),
		cmocka_unit_test(test_missing_and_directory),
		cmocka_unit_test(test_read_failure_stops),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
