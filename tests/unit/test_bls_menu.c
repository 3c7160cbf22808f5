/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu both loaders build: anysector.cfg's entries, then the Boot Loader
 * Specification's in its order, sorted before any limit cuts (the oldest are left out, each
 * named), every boot-counted variant read, titles that tell duplicates apart, and the one
 * default rule; with loader.conf's default and timeout where anysector.cfg sets none; and the
 * same read from a FAT image made by mkfs.fat and mtools (as kernel-install's files sit on an
 * ESP). */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/bls.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/menu.h"

static struct cfg cfg;
static struct bls_scratch scratch;
static char screen[8192];
static size_t screen_at;

static void screen_put(const char *t)
{
	size_t n = strlen(t);
	if (screen_at + n < sizeof screen) {
		memcpy(screen + screen_at, t, n + 1);
		screen_at += n;
	}
}

static void cfg_text(const char *text)
{
	struct capture cap;
	capture_init(&cap);
	if (cfg_parse_text(text, strlen(text), &cfg, &cap.diag)) {
		capture_dump(&cap);
		fail_msg("anysector.cfg does not parse:\n%s", text);
	}
	bls_menu_begin(&cfg);
}

/* One file of /loader/entries as the loaders take it (read, judged, added): its code. */
static int add_file(const char *name, const char *text, struct capture *cap)
{
	scratch.seen = 0;
	if (bls_dir_entry(&scratch, name, false, (uint32_t)strlen(text), &cap->diag) != BLS_READ)
		return AS_EINVAL;
	return bls_menu_file(&cfg, &scratch, text, strlen(text), &cap->diag);
}

/* file is a path ("/loader/entries/x.conf") or a bare name. */
static void add(const char *file, const char *text, struct capture *cap)
{
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	assert_int_equal(add_file(name, text, cap), 0);
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

static const char *shown(unsigned i, size_t cols)
{
	static char t[1024];
	menu_title(&cfg.entries[i], t, cols);
	return t;
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
	add("/loader/entries/mid-6.1.0-9-amd64.conf", "title Debian\nversion 6.1.0-9-amd64\n"
	    "sort-key debian\n" KERNEL("6.1.0-9-amd64") "options root=/dev/vda2\noptions ro\n", &cap);
	add("/loader/entries/mid-6.1.0-18-amd64.conf", "title Debian\nversion 6.1.0-18-amd64\n"
	    "sort-key debian\n" KERNEL("6.1.0-18-amd64"), &cap);
	add("/loader/entries/other.conf", "title Other\n" KERNEL("1"), &cap);
	add("/loader/entries/arch.conf", "title Arch\nsort-key arch\n" KERNEL("2"), &cap);
	loader("default other\ntimeout 1\n", &l);
	bls_menu_finish(&cfg, &l);
	assert_int_equal(cap.n, 0);
	static const char *const want[] = { "rescue", "arch", "mid-6.1.0-18-amd64",
					    "mid-6.1.0-9-amd64", "other" };
	expect_order(want, 5);
	assert_int_equal(cfg.timeout, 7);
	assert_string_equal(cfg.default_name, "rescue");
	assert_int_equal(cfg_default_index(&cfg), 0);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	const struct cfg_entry *e = &cfg.entries[3];
	assert_string_equal(e->title, "Debian");
	assert_string_equal(shown(3, 60), "Debian (6.1.0-9-amd64)");
	assert_string_equal(e->kernel, "/mid/6.1.0-9-amd64/linux");
	assert_int_equal(e->ninitrd, 1);
	assert_string_equal(e->initrd[0], "/mid/6.1.0-9-amd64/initrd");
	assert_string_equal(e->cmdline, "root=/dev/vda2 ro");
	assert_string_equal(e->file, "mid-6.1.0-9-amd64.conf");
	assert_string_equal(shown(4, 60), "Other");
	assert_string_equal(shown(0, 60), "rescue");
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
		add("/loader/entries/mid-6.1.0-9-amd64.conf", "version 6.1.0-9-amd64\n"
		    KERNEL("9"), &cap);
		add("/loader/entries/mid-6.1.0-18-amd64.conf", "version 6.1.0-18-amd64\n"
		    KERNEL("18"), &cap);
		add("/loader/entries/old-5.10.conf", KERNEL("5"), &cap);
		if (round == 0)
			loader("timeout menu-force\ndefault MID-6.1.0-*.conf\n", &l);
		else if (round == 1)
			loader("default old-*\n", &l);
		bls_menu_finish(&cfg, round < 2 ? &l : NULL);
		assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
		static const char *const want[] = { "old-5.10", "mid-6.1.0-18-amd64",
						    "mid-6.1.0-9-amd64" };
		expect_order(want, 3);
		int def = cfg_default_index(&cfg);
		assert_string_equal(cfg.entries[def].name,
				    round == 0 ? "mid-6.1.0-18-amd64" : "old-5.10");
		assert_false(cfg_default_missing(&cfg));
		assert_int_equal(cfg.timeout, round == 0 ? CFG_TIMEOUT_MAX : CFG_DEFAULT_TIMEOUT);
		/* no title: "Linux", never the file name; the version tells them apart */
		assert_string_equal(shown(1, 60), "Linux (6.1.0-18-amd64)");
		assert_string_equal(shown(0, 60), "Linux");
	}
}

/* A cfg default may name a BLS entry. One naming nothing, from either file, is a warning
 * (not a refusal) that says which entry boots instead, and the menu shows a line for it. */
static void test_default_names(void **state)
{
	(void)state;
	struct capture cap;
	struct bls_loader l;

	capture_init(&cap);
	cfg_text("timeout 2\ndefault debian-6.1\nentry mine\nkernel /k\n");
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	assert_int_equal(cfg_default_index(&cfg), 1);
	assert_int_equal(cap.n, 0);

	cfg_text("timeout 2\ndefault debian-6.2\nentry mine\nkernel /k\n");
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	assert_true(cfg_default_missing(&cfg));
	assert_int_equal(cfg_default_index(&cfg), 1);
	assert_reported(&cap, "cfg.default", "anysector.cfg: default 'debian-6.2' names no entry; "
			"2) debian-6.1 boots by default");
	assert_int_equal(cap.diag.errors, 0);

	/* loader.conf's pattern matching nothing: the same */
	capture_init(&cap);
	cfg_text("entry mine\nkernel /k\n");
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	loader("default fedora-*\n", &l);
	bls_menu_finish(&cfg, &l);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	assert_reported(&cap, "cfg.default", "/loader/loader.conf: default 'fedora-*' names no "
			"entry; 2) debian-6.1 boots by default");

	/* @saved: refused with a sentence, and the rule decides */
	capture_init(&cap);
	cfg_text("");
	add("/loader/entries/debian-6.1.conf", KERNEL("1"), &cap);
	bls_loader_parse("default @saved\n", 15, &l, &cap.diag);
	assert_reported(&cap, "bls.saved", "default @saved is not supported");
	bls_menu_finish(&cfg, &l);
	assert_false(cfg_default_missing(&cfg));
	assert_int_equal(cfg_default_index(&cfg), 0);

	capture_init(&cap);
	cfg_text("timeout 2\n");
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), AS_ENOENT);
	assert_reported(&cap, "cfg.no_entry", "neither /anysector.cfg nor /loader/entries");
}

/* The one default rule without an owner's choice: the newest distribution kernel (the first
 * BLS entry not marked bad), even before anysector.cfg's entries; with every BLS entry bad,
 * anysector.cfg's first; with only bad ones, the first of them. */
static void test_default_rule(void **state)
{
	(void)state;
	struct capture cap;

	capture_init(&cap);
	cfg_text("entry mine\nkernel /k\nentry other\nkernel /k\n");
	add("a-6.1.0-17.conf", KERNEL("17"), &cap);
	add("a-6.1.0-18+0-3.conf", KERNEL("18"), &cap);
	add("a-6.1.0-16.conf", KERNEL("16"), &cap);
	bls_menu_finish(&cfg, NULL);
	static const char *const want[] = { "mine", "other", "a-6.1.0-17", "a-6.1.0-16",
					    "a-6.1.0-18" };
	expect_order(want, 5);
	assert_int_equal(cfg_default_index(&cfg), 2);

	cfg_text("entry mine\nkernel /k\n");
	add("a-6.1.0-18+0-3.conf", KERNEL("18"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cfg_default_index(&cfg), 0);

	cfg_text("");
	add("a-6.1.0-18+0-3.conf", KERNEL("18"), &cap);
	add("a-6.1.0-17+0-1.conf", KERNEL("17"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cfg_default_index(&cfg), 0);
	assert_string_equal(cfg.entries[0].file, "a-6.1.0-18+0-3.conf");
	assert_int_equal(cap.n, 0);
}

/* Every file of a boot-counted entry is read: with "foo BAD" (no tries left) written before
 * "foo GOOD", the good one is first and the default, the bad one still listed, last. */
static void test_boot_counted_pair(void **state)
{
	(void)state;
	struct capture cap;

	for (int round = 0; round < 2; round++) {
		capture_init(&cap);
		cfg_text("");
		if (round == 0)
			add("foo+0-2.conf", "title foo BAD\n" KERNEL("bad"), &cap);
		add("foo.conf", "title foo GOOD\n" KERNEL("good"), &cap);
		add("bar.conf", "title bar\n" KERNEL("bar"), &cap);
		if (round == 1)
			add("foo+0-2.conf", "title foo BAD\n" KERNEL("bad"), &cap);
		bls_menu_finish(&cfg, NULL);
		assert_int_equal(cap.n, 0);
		static const char *const want[] = { "foo", "bar", "foo" };
		expect_order(want, 3);
		assert_string_equal(cfg.entries[0].title, "foo GOOD");
		assert_string_equal(cfg.entries[2].file, "foo+0-2.conf");
		assert_int_equal(cfg.entries[2].tries_left, 0);
		assert_int_equal(cfg_default_index(&cfg), 0);
		assert_int_equal(cfg_find(&cfg, "foo"), 0);
		/* the menu marks the entry without tries left, under both firmwares */
		for (unsigned fw = CFG_FW_BIOS; fw <= CFG_FW_UEFI; fw++) {
			struct menu mn;
			screen_at = 0;
			menu_start(&mn, &cfg, fw, false, true);
			menu_draw(&mn, MENU_SHOW, screen_put);
			assert_non_null(strstr(screen, " * 1) foo GOOD\n   2) bar\n   3) foo BAD "
						       "(failed)\n"));
		}
	}
	/* a warning names the file as it is called, counter and all */
	capture_init(&cap);
	cfg_text("");
	assert_int_equal(add_file("foo+3-1.conf", "title x\n", &cap), AS_ECORRUPT);
	assert_reported(&cap, "bls.no_linux", "/loader/entries/foo+3-1.conf: no linux line");
}

/* The Boot Loader Interface's identifiers, as systemd 252's bootctl and logind name entries:
 * an anysector.cfg entry by its name, a /loader/entries one by its file's name without the
 * counter ("fine.conf" for fine+1.conf); what the running system asks for (LoaderEntryOneShot)
 * is found by either form, the menu name first. */
static void test_bli_ids(void **state)
{
	(void)state;
	struct capture cap;

	capture_init(&cap);
	cfg_text("default good\nentry good\n kernel /g/vmlinuz\n");
	add("fine+1.conf", "title Fine\n" KERNEL("fine"), &cap);
	add("good.conf", "title Good too\n" KERNEL("good"), &cap);
	add("mid-6.1.0-9.conf", "title Mid\n" KERNEL("mid"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cap.n, 0);
	/* files newest first: mid-6.1.0-9, good, fine */
	static const char *const want[] = { "good", "mid-6.1.0-9", "good", "fine" };
	expect_order(want, 4);
	assert_string_equal(cfg_entry_bli_suffix(&cfg.entries[0]), "");
	assert_string_equal(cfg_entry_bli_suffix(&cfg.entries[1]), ".conf");
	assert_string_equal(cfg_entry_bli_suffix(&cfg.entries[3]), ".conf");
	assert_int_equal(cfg_find_bli(&cfg, "fine.conf"), 3);
	assert_int_equal(cfg_find_bli(&cfg, "FINE.Conf"), 3);
	assert_int_equal(cfg_find_bli(&cfg, "fine"), 3);
	assert_int_equal(cfg_find_bli(&cfg, "good"), 0);
	assert_int_equal(cfg_find_bli(&cfg, "good.conf"), 2);
	assert_int_equal(cfg_find_bli(&cfg, "mid-6.1.0-9.conf"), 1);
	assert_int_equal(cfg_find_bli(&cfg, "mid-6.1.0-9"), 1);
	static const char *const none[] = { "fine+1.conf", "fine.efi", "fine.conf.conf", "fine.",
					    "good.efi", ".conf", "", "mid-6.1.0" };
	for (unsigned i = 0; i < ARRAY_SIZE(none); i++)
		if (cfg_find_bli(&cfg, none[i]) != -1)
			fail_msg("'%s' names entry %d", none[i], cfg_find_bli(&cfg, none[i]));
}

/* Titles: identical titles and versions get the file name too; a long title gives way to what
 * tells entries apart. */
static void test_titles(void **state)
{
	(void)state;
	struct capture cap;
	char text[512], t100[101];

	capture_init(&cap);
	memset(t100, 'T', 100);
	t100[100] = 0;
	cfg_text("entry Same\nkernel /k\n");
	snprintf(text, sizeof text, "title %s\nversion 6.1.0-18-amd64\n" KERNEL("a"), t100);
	add("aaaa-6.1.0-18-amd64.conf", text, &cap);
	add("bbbb-6.1.0-18-amd64.conf", text, &cap);
	add("uniq.conf", "title Same\n" KERNEL("u"), &cap);
	add("dup.conf", "title Debian\nversion 1\n" KERNEL("d"), &cap);
	add("dup+0-1.conf", "title Debian\nversion 1\n" KERNEL("d"), &cap);
	bls_menu_finish(&cfg, NULL);
	assert_int_equal(cap.n, 0);
	static const char *const want[] = { "Same", "uniq", "dup", "bbbb-6.1.0-18-amd64",
					    "aaaa-6.1.0-18-amd64", "dup" };
	expect_order(want, 6);
	/* "Same" (anysector.cfg's name) and "Same" (uniq's title) show alike: uniq shows its file */
	assert_string_equal(shown(0, 60), "Same");
	assert_string_equal(shown(1, 60), "Same (uniq.conf)");
	assert_string_equal(shown(2, 60), "Debian (1) (dup.conf)");
	assert_string_equal(shown(5, 60), "Debian (1) (dup+0-1.conf)");
	/* 100 T's: cut to make room, different in 60 columns */
	char a[64], b[64];
	strcpy(a, shown(3, 60));
	strcpy(b, shown(4, 60));
	assert_int_equal(strlen(a), 60);
	assert_string_equal(a + 30, " (6.1.0-18-amd64) (bbbb-6.1.0-");
	assert_true(strcmp(a, b) != 0);
	/* whole when there is room (--json's menu_title) */
	snprintf(text, sizeof text, "%s (6.1.0-18-amd64) (aaaa-6.1.0-18-amd64.conf)", t100);
	assert_string_equal(shown(4, 1000), text);

	/* a short title and a long suffix: the suffix is cut at its end */
	cfg_text("");
	add("u.conf", "title u\nversion 0123456789012345678901234567890123456789\n" KERNEL("u"),
	    &cap);
	bls_menu_finish(&cfg, NULL);
	assert_string_equal(shown(0, 24), "u (012345678901234567890");
}

/* Sort, then cut: 100 kernels arriving in any order leave the 64 newest (the menu's limit with
 * anysector.cfg's entry counted), the default the newest; every one left out is named. */
static void test_sort_then_cut(void **state)
{
	(void)state;
	static struct capture cap;
	char file[64], text[256];
	static char names[2][CFG_MENU_MAX][64];

	for (int round = 0; round < 2; round++) {
		capture_init(&cap);
		cfg_text("entry mine\nkernel /k\n");
		for (int i = 0; i < 100; i++) {
			int v = round ? 1 + (i * 37) % 100 : i + 1;   /* increasing, then shuffled */
			snprintf(file, sizeof file, "deb-6.1.0-%d.conf", v);
			snprintf(text, sizeof text, "title Debian\nversion 6.1.0-%d\n" KERNEL("%d"),
				 v, v, v);
			add(file, text, &cap);
		}
		bls_menu_finish(&cfg, NULL);
		assert_int_equal(cfg.nentries, CFG_MENU_MAX);
		assert_string_equal(cfg.entries[1].name, "deb-6.1.0-100");
		assert_string_equal(cfg.entries[CFG_MENU_MAX - 1].name, "deb-6.1.0-38");
		assert_int_equal(cfg_default_index(&cfg), 1);
		for (int v = 1; v <= 37; v++) {
			snprintf(text, sizeof text, "/loader/entries/deb-6.1.0-%d.conf left out: the "
				 "menu is full", v);
			const char *msg = text;
			assert_reported(&cap, "bls.left_out", msg);
		}
		assert_int_equal(cap.diag.warnings, 37);
		for (unsigned i = 0; i < cfg.nentries; i++)
			snprintf(names[round][i], sizeof names[0][0], "%s", cfg.entries[i].name);
	}
	assert_memory_equal(names[0], names[1], sizeof names[0]);
}

/* The text arena is the other limit: long command lines fill it before 64 entries; again the
 * oldest are the ones left out, and every kept entry reads back whole. */
static void test_text_full(void **state)
{
	(void)state;
	static struct capture cap;
	static char text[2048];
	char file[64], opts[1001];

	memset(opts, 'o', 1000);
	opts[1000] = 0;
	capture_init(&cap);
	cfg_text("");
	for (int i = 0; i < 64; i++) {
		int v = 1 + (i * 29) % 64;
		snprintf(file, sizeof file, "k-%d.conf", v);
		snprintf(text, sizeof text, "version %d\noptions %d %s\n" KERNEL("x"), v, v, opts);
		add(file, text, &cap);
		assert_true(cfg.text_used <= CFG_TEXT_MAX);
	}
	bls_menu_finish(&cfg, NULL);
	unsigned n = cfg.nentries;
	assert_true(n > 40 && n < 64);
	for (unsigned i = 0; i < n; i++) {
		char want[16];
		snprintf(want, sizeof want, "k-%u", 64 - i);
		assert_string_equal(cfg.entries[i].name, want);
		snprintf(want, sizeof want, "%u ", 64 - i);
		assert_int_equal(strncmp(cfg.entries[i].cmdline, want, strlen(want)), 0);
		assert_int_equal(strlen(cfg.entries[i].cmdline), strlen(want) + 1000);
		assert_string_equal(cfg.entries[i].initrd[0], "/mid/x/initrd");
	}
	assert_int_equal(cap.diag.warnings, 64 - n);
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
	/* not the specification's characters: the FAT reader shows "d?bian.conf", refused */
	assert_int_equal(put(img, "/loader/entries/d\xc3\xa9" "bian.conf", KERNEL("d")), 0);
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
	assert_int_equal(bls_load_fat(&fs, &cfg, buf, &scratch, NULL, &cap.diag), 2);
	assert_int_equal(cfg_menu_check(&cfg, &cap.diag), 0);
	static const char *const want[] = { "mine", "mid-6.1.0-18-amd64", "mid-6.1.0-9-amd64" };
	expect_order(want, 3);
	assert_string_equal(cfg.default_name, "mid-6.1.0-9-amd64");
	assert_int_equal(cfg.timeout, 4);
	assert_reported(&cap, "bls.no_linux", "/loader/entries/broken.conf: no linux line");
	assert_reported(&cap, "bls.too_big", "/loader/entries/huge.conf is more than the 16384 "
			"bytes");
	assert_reported(&cap, "bls.name", "/loader/entries/d?bian.conf: not NAME.conf");
	assert_int_equal(cap.diag.errors, 3);
	assert_int_equal(cap.diag.warnings, 0);
	test_disk_free(d);
	run_cmd("rm -rf '%s'", workdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_then_bls),
		cmocka_unit_test(test_loader_conf_applies),
		cmocka_unit_test(test_default_names),
		cmocka_unit_test(test_default_rule),
		cmocka_unit_test(test_boot_counted_pair),
		cmocka_unit_test(test_bli_ids),
		cmocka_unit_test(test_titles),
		cmocka_unit_test(test_sort_then_cut),
		cmocka_unit_test(test_text_full),
		cmocka_unit_test(test_load_from_fat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
