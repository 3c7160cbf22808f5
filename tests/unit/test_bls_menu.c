/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu both loaders build: anysector.cfg's entries, then the Boot Loader
 * Specification's in its order, with loader.conf's default and timeout where anysector.cfg sets
 * none; and the same read from a FAT image made by mkfs.fat and mtools (as kernel-install's files
 * sit on an ESP). */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bls.h"
#include "common/errors.h"
#include "common/fat.h"

static struct cfg cfg;
static struct bls_scratch scratch;

static void cfg_text(const char *text)
{
	struct capture cap;
	capture_init(&cap);
	if (cfg_parse_text(text, strlen(text), &cfg, &cap.diag)) {
		capture_dump(&cap);
		fail_msg("anysector.cfg does not parse:\n%s", text);
	}
}

static void add(const char *file, const char *text, struct capture *cap)
{
	struct bls_entry e;
	assert_int_equal(bls_parse(text, strlen(text), file, &e, &cap->diag), 0);
	bls_menu_add(&scratch.m, &cfg, &e, &cap->diag);
}

static void loader(const char *text, struct bls_loader *l)
{
	bls_loader_parse(text, strlen(text), l, NULL);
}

static void expect_order(const char *const *names, unsigned n)
{
	assert_int_equal(cfg.nentries, n);
	for (unsigned i = 0; i < n; i++)
		if (strcmp(cfg.entries[i].name, names[i]))
			fail_msg("entry %u is '%s', wanted '%s'", i, cfg.entries[i].name, names[i]);
}

#define KERNEL(v) "linux /mid/" v "/linux\ninitrd /mid/" v "/initrd\n"

/* anysector.cfg's entries first; the BLS entries in the specification's order after them;
 * their titles carry the version; loader.conf does not override what anysector.cfg says. */
static void test_cfg_then_bls(void **state)
{
	(void)state;
	struct capture cap;
	struct bls_loader l;

	capture_init(&cap);
	cfg_text("timeout 7\ndefault rescue\nentry rescue\n kernel /r/vmlinuz\n cmdline single\n");
	bls_menu_begin(&scratch.m, &cfg);
	add("/loader/entries/mid-6.1.0-9-amd64.conf", "title Debian\nversion 6.1.0-9-amd64\n"
	    "sort-key debian\n" KERNEL("6.1.0-9-amd64") "options root=/dev/vda2\noptions ro\n", &cap);
	add("/loader/entries/mid-6.1.0-18-amd64.conf", "title Debian\nversion 6.1.0-18-amd64\n"
	    "sort-key debian\n" KERNEL("6.1.0-18-amd64"), &cap);
	add("/loader/entries/other.conf", "title Other\n" KERNEL("1"), &cap);
	add("/loader/entries/arch.conf", "title Arch\nsort-key arch\n" KERNEL("2"), &cap);
	loader("default other\ntimeout 1\n", &l);
	bls_menu_finish(&scratch.m, &cfg, &l);
	assert_int_equal(cap.n, 0);
	static const char *const want[] = { "rescue", "arch", "mid-6.1.0-18-amd64",
					    "mid-6.1.0-9-amd64", "other" };
	expect_order(want, 5);
	assert_int_equal(cfg.timeout, 7);
	assert_string_equal(cfg.default_name, "rescue");
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	const struct cfg_entry *e = &cfg.entries[3];
	assert_string_equal(e->title, "Debian (6.1.0-9-amd64)");
	assert_string_equal(e->kernel, "/mid/6.1.0-9-amd64/linux");
	assert_int_equal(e->ninitrd, 1);
	assert_string_equal(e->initrd[0], "/mid/6.1.0-9-amd64/initrd");
	assert_string_equal(e->cmdline, "root=/dev/vda2 ro");
	assert_string_equal(cfg.entries[4].title, "Other");
}

/* Without anysector.cfg: loader.conf's default glob picks the first matching entry in menu
 * order, its timeout applies; without loader.conf the newest kernel is the default. */
static void test_loader_conf_applies(void **state)
{
	(void)state;
	struct capture cap;
	struct bls_loader l;

	for (int round = 0; round < 3; round++) {
		capture_init(&cap);
		cfg_text("");
		bls_menu_begin(&scratch.m, &cfg);
		add("/loader/entries/mid-6.1.0-9-amd64.conf", "version 6.1.0-9-amd64\n"
		    KERNEL("9"), &cap);
		add("/loader/entries/mid-6.1.0-18-amd64.conf", "version 6.1.0-18-amd64\n"
		    KERNEL("18"), &cap);
		add("/loader/entries/old-5.10.conf", KERNEL("5"), &cap);
		if (round == 0)
			loader("timeout menu-force\ndefault MID-6.1.0-*.conf\n", &l);
		else if (round == 1)
			loader("default old-*\n", &l);
		bls_menu_finish(&scratch.m, &cfg, round < 2 ? &l : NULL);
		assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
		static const char *const want[] = { "old-5.10", "mid-6.1.0-18-amd64",
						    "mid-6.1.0-9-amd64" };
		expect_order(want, 3);
		int def = cfg_default_index(&cfg);
		assert_string_equal(cfg.entries[def].name,
				    round == 0 ? "mid-6.1.0-18-amd64" : "old-5.10");
		assert_int_equal(cfg.timeout, round == 0 ? CFG_TIMEOUT_MAX : CFG_DEFAULT_TIMEOUT);
		/* no title: the id, with the version */
		assert_string_equal(cfg.entries[1].title, "mid-6.1.0-18-amd64 (6.1.0-18-amd64)");
	}
}

/* A cfg default may name a BLS entry; one naming nothing is reported with its line. */
static void test_default_names(void **state)
{
	(void)state;
	struct capture cap;

	capture_init(&cap);
	cfg_text("timeout 2\ndefault debian-6.1\n");
	bls_menu_begin(&scratch.m, &cfg);
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	bls_menu_finish(&scratch.m, &cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	assert_int_equal(cfg_default_index(&cfg), 0);

	cfg_text("timeout 2\ndefault debian-6.2\n");
	bls_menu_begin(&scratch.m, &cfg);
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	bls_menu_finish(&scratch.m, &cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "cfg.default", "anysector.cfg line 2: default 'debian-6.2' names no "
			"entry of anysector.cfg or /loader/entries");

	capture_init(&cap);
	cfg_text("timeout 2\n");
	bls_menu_begin(&scratch.m, &cfg);
	bls_menu_finish(&scratch.m, &cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), AS_ENOENT);
	assert_reported(&cap, "cfg.no_entry", "neither /anysector.cfg nor /loader/entries");
}

/* A full menu takes no more entries; a BLS id equal to a cfg name is left out. */
static void test_full_menu(void **state)
{
	(void)state;
	struct capture cap;
	char text[4096], file[128];

	capture_init(&cap);
	size_t n = 0;
	for (int i = 0; i < CFG_MAX_ENTRIES - 3; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "entry c%d\nkernel /k\n", i);
	cfg_text(text);
	bls_menu_begin(&scratch.m, &cfg);
	add("/loader/entries/c0.conf", KERNEL("0"), &cap);
	assert_reported(&cap, "bls.left_out", "loader entry c0.conf has the name of an entry");
	/* versions 1..6 arrive in a shuffled order; the first 3 fit, sorted: 6, 2, 1 */
	static const int order[] = { 2, 6, 1, 4, 3, 5 };
	for (int i = 0; i < 6; i++) {
		snprintf(file, sizeof file, "/loader/entries/k-%d.conf", order[i]);
		add(file, KERNEL("x"), &cap);
	}
	bls_menu_finish(&scratch.m, &cfg, NULL);
	assert_int_equal(cfg.nentries, CFG_MAX_ENTRIES);
	assert_string_equal(cfg.entries[CFG_MAX_ENTRIES - 3].name, "k-6");
	assert_string_equal(cfg.entries[CFG_MAX_ENTRIES - 2].name, "k-2");
	assert_string_equal(cfg.entries[CFG_MAX_ENTRIES - 1].name, "k-1");
	for (int v = 3; v <= 5; v++) {
		const char *msg = file;
		snprintf(file, sizeof file, "loader entry k-%d.conf does not fit: the menu holds 16 "
			 "entries; left out", v);
		assert_reported(&cap, "bls.left_out", msg);
	}
}

/* --- from a FAT image --- */

static char workdir[512];

static int put(const char *img, const char *path, const char *text)
{
	char src[700];
	snprintf(src, sizeof src, "%s/src", workdir);
	FILE *f = fopen(src, "wb");
	if (!f)
		return -1;
	fwrite(text, 1, strlen(text), f);
	fclose(f);
	return run_cmd("mcopy -o -i '%s' '%s' '::%s'", img, src, path);
}

static void test_load_from_fat(void **state)
{
	(void)state;
	if (!have_program("mkfs.fat") || !have_program("mcopy")) {
		printf("SKIP: mkfs.fat or mtools not installed\n");
		skip();
	}
	assert_int_equal(test_workdir(workdir, sizeof workdir, "test-data", "bls"), 0);
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	char img[600];
	snprintf(img, sizeof img, "%s/esp.img", workdir);
	assert_int_equal(run_cmd("truncate -s 24M '%s' && mkfs.fat -F 16 -S 4096 -s 1 '%s' >/dev/null && "
				 "mmd -i '%s' ::/loader ::/loader/entries ::/loader/entries/sub.conf",
				 img, img, img), 0);
	assert_int_equal(put(img, "/anysector.cfg", "entry mine\nkernel /vmlinuz\n"), 0);
	assert_int_equal(put(img, "/loader/loader.conf", "timeout 4\ndefault *-6.1.0-9-*\n"), 0);
	assert_int_equal(put(img, "/loader/entries/mid-6.1.0-18-amd64.conf",
			     "title Debian\nversion 6.1.0-18-amd64\n" KERNEL("18")), 0);
	assert_int_equal(put(img, "/loader/entries/mid-6.1.0-9-amd64.conf",
			     "title Debian\nversion 6.1.0-9-amd64\n" KERNEL("9")), 0);
	assert_int_equal(put(img, "/loader/entries/broken.conf", "title no kernel\n"), 0);
	assert_int_equal(put(img, "/loader/entries/README", "not an entry\n"), 0);
	char big[BLS_FILE_MAX + 2];
	memset(big, '#', sizeof big - 1);
	big[sizeof big - 1] = 0;
	assert_int_equal(put(img, "/loader/entries/huge.conf", big), 0);

	size_t len;
	uint8_t *data = read_file(img, &len);
	assert_non_null(data);
	struct test_disk *d = test_disk_new(len, 4096, 4096, 0, 0);
	memcpy(d->md.data, data, len);
	free(data);
	static struct fat_fs fs;
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	static char buf[32768];
	struct capture cap;
	capture_init(&cap);
	struct fat_file f;
	assert_int_equal(fat_open(&fs, "/anysector.cfg", &f, NULL), 0);
	assert_int_equal(fat_read(&fs, &f, 0, buf, f.size, NULL), 0);
	assert_int_equal(cfg_parse_text(buf, f.size, &cfg, &cap.diag), 0);
	assert_int_equal(bls_load_fat(&fs, &cfg, buf, sizeof buf, &scratch, NULL, &cap.diag), 2);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	static const char *const want[] = { "mine", "mid-6.1.0-18-amd64", "mid-6.1.0-9-amd64" };
	expect_order(want, 3);
	assert_string_equal(cfg.default_name, "mid-6.1.0-9-amd64");
	assert_int_equal(cfg.timeout, 4);
	assert_reported(&cap, "bls.no_linux", "/loader/entries/broken.conf: no linux line");
	assert_reported(&cap, "bls.too_big", "/loader/entries/huge.conf is 16385 bytes");
	assert_int_equal(cap.diag.errors, 2);
	assert_int_equal(cap.diag.warnings, 0);

	/* the same through a buffer smaller than a file: that file alone is left out */
	capture_init(&cap);
	cfg_parse_text("", 0, &cfg, NULL);
	assert_int_equal(bls_load_fat(&fs, &cfg, buf, 60, &scratch, NULL, &cap.diag), 0);
	assert_reported(&cap, "bls.too_big", "mid-6.1.0-18-amd64.conf is");
	test_disk_free(d);
	run_cmd("rm -rf '%s'", workdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_then_bls),
		cmocka_unit_test(test_loader_conf_applies),
		cmocka_unit_test(test_default_names),
		cmocka_unit_test(test_full_menu),
		cmocka_unit_test(test_load_from_fat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
