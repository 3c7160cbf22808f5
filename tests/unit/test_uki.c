/* SPDX-License-Identifier: BSD-2-Clause */
/* common/uki.c: the judgement of a unified kernel image both loaders make (on a PE32+ image with
 * the sections objcopy adds to systemd's stub, built here, and every damage the QEMU tests boot),
 * .osrel's values as os-release(5) writes them, and .cmdline's text. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg_fat.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/uki.h"

#define LFANEW 0x80
#define OPT (LFANEW + 24)
#define OPT_SIZE 240
#define SECTIONS (OPT + OPT_SIZE)
#define NSEC 8
#define DATA 0x1000            /* the sections' data start here, each at a 0x200 boundary */
#define FILE_MAX 0x4000

static const char osrel[] = "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
			    "(bookworm)\"\nVERSION_ID=\"12\"\nID=debian\n";
static const char cmdline[] = "root=/dev/vda1 console=ttyS0\n";
static const char *const names[NSEC] = { ".text", ".sbat", ".osrel", ".cmdline", ".uname",
					 ".ucode", ".linux", ".initrd" };
static const uint32_t sizes[NSEC] = { 0x300, 0x80, sizeof osrel - 1, sizeof cmdline, 7, 0x123,
				      0x800, 0x456 };
static uint8_t img[FILE_MAX];
static size_t img_len;
static uint32_t sec_off[NSEC];

static void build(void)
{
	memset(img, 0, sizeof img);
	img[0] = 'M';
	img[1] = 'Z';
	le32_store(img + 0x3C, LFANEW);
	memcpy(img + LFANEW, "PE\0\0", 4);
	le16_store(img + LFANEW + 4, UKI_PE_MACHINE_X64);
	le16_store(img + LFANEW + 6, NSEC);
	le16_store(img + LFANEW + 20, OPT_SIZE);
	le16_store(img + OPT, 0x20B);
	le32_store(img + OPT + 108, 16);
	uint32_t at = DATA;
	for (unsigned i = 0; i < NSEC; i++) {
		uint8_t *s = img + SECTIONS + 40 * i;
		uint32_t raw = (sizes[i] + 0x1FF) & ~0x1FFu;
		memcpy(s, names[i], strlen(names[i]));
		le32_store(s + 8, sizes[i]);
		le32_store(s + 16, raw);
		le32_store(s + 20, at);
		sec_off[i] = at;
		memset(img + at, 0xA0 + i, sizes[i]);
		at += raw;
	}
	memcpy(img + sec_off[2], osrel, sizeof osrel - 1);
	memcpy(img + sec_off[3], cmdline, sizeof cmdline);
	img_len = at;
	assert_true(img_len <= sizeof img);
}

static const uint8_t *img_buf(void)
{
	return img;
}

static int parse(size_t head, size_t len, struct uki *u, struct capture *c)
{
	capture_init(c);
	return uki_parse(img, head, len, "/EFI/Linux/x.efi", 1024, u, &c->diag);
}

static void test_valid(void **state)
{
	(void)state;
	struct capture c;
	struct uki u;
	build();
	assert_int_equal(parse(img_len, img_len, &u, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(u.sec[UKI_LINUX].off, sec_off[6]);
	assert_int_equal(u.sec[UKI_LINUX].len, 0x800);
	assert_int_equal(u.sec[UKI_INITRD].off, sec_off[7]);
	assert_int_equal(u.sec[UKI_INITRD].len, 0x456);     /* the virtual size, not the raw */
	assert_int_equal(u.sec[UKI_UCODE].off, sec_off[5]);
	assert_int_equal(u.sec[UKI_CMDLINE].len, sizeof cmdline);
	assert_int_equal(u.sec[UKI_OSREL].off, sec_off[2]);
	assert_int_equal(u.sec[UKI_UNAME].len, 7);
	assert_int_equal(u.has, (1u << UKI_SECTIONS) - 1);
	/* the headers alone, from the first 4096 bytes (the rest judged by the file's size) */
	assert_int_equal(parse(UKI_HEAD_BYTES, img_len, &u, &c), 0);
	assert_int_equal(u.sec[UKI_INITRD].off, sec_off[7]);
	/* more than 4096 bytes given: only 4096 count */
	assert_int_equal(parse(img_len, img_len, &u, &c), 0);
	/* .ucode, .initrd and .uname are optional */
	memcpy(img + SECTIONS + 40 * 5, ".ucodf", 6);
	memcpy(img + SECTIONS + 40 * 7, ".initre", 7);
	assert_int_equal(parse(img_len, img_len, &u, &c), 0);
	assert_false(uki_has(&u, UKI_UCODE));
	assert_false(uki_has(&u, UKI_INITRD));
	assert_true(uki_has(&u, UKI_LINUX));
}

/* Every cut of the file past the headers and before the end of the last section's data is
 * refused, with a sentence naming the section the cut runs through and the file's size (the
 * alignment padding after it may go). */
static void test_truncated(void **state)
{
	(void)state;
	struct capture c;
	struct uki u;
	build();
	for (size_t len = DATA; len < sec_off[7] + 0x456; len += 0x40) {
		assert_int_equal(parse(UKI_HEAD_BYTES, len, &u, &c), AS_ECORRUPT);
		assert_int_equal(c.n, 1);
		if (!capture_has(&c, "uki.cut", "cut short") && !capture_has(&c, "uki.section", ""))
			fail_msg("cut at %zu: %s", len, c.items[0].msg);
	}
	assert_int_equal(parse(UKI_HEAD_BYTES, sec_off[7] + 0x100, &u, &c), AS_ECORRUPT);
	char want[160];
	snprintf(want, sizeof want, "section .initrd (bytes %u..%u) runs past the end of the %u-byte "
		 "file", sec_off[7], sec_off[7] + 0x456, sec_off[7] + 0x100);
	const char *w = want;
	assert_reported(&c, "uki.cut", w);
	/* cut inside the headers: the section table is not all there */
	assert_int_equal(parse(SECTIONS + 100, SECTIONS + 100, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.table", "lies outside the");
	assert_int_equal(parse(0x20, 0x20, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.not_pe", "/EFI/Linux/x.efi is not an EFI executable");
}

static void test_damaged(void **state)
{
	(void)state;
	struct capture c;
	struct uki u;
	build();
	/* a section pointing past the file */
	le32_store(img + SECTIONS + 40 * 6 + 20, 0x7FFFFF00u);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.section", "section .linux points at bytes 2147483392..");
	/* a section of no interest pointing outside counts too, its name shown safely */
	build();
	memcpy(img + SECTIONS, "\x01\xFFtext", 6);
	le32_store(img + SECTIONS + 8, 0);
	le32_store(img + SECTIONS + 16, 0xFFFFFFFFu);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.cut", "section ??text (bytes 4096..");
	/* a section table beyond the first 4096 bytes of a file that has them */
	build();
	le32_store(img + 0x3C, 0xE00);
	memmove(img + 0xE00, img + LFANEW, SECTIONS + 40 * NSEC - LFANEW);
	memset(img + LFANEW, 0, 0xE00 - LFANEW);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.table", "is past the first 4096 bytes");
	/* headers damaged */
	build();
	le16_store(img + OPT, 0x107);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.header", "PE headers");
	build();
	memcpy(img + LFANEW, "PX", 2);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.not_pe", "no PE header");
}

static void test_not_uki(void **state)
{
	(void)state;
	struct capture c;
	struct uki u;
	static const struct { unsigned sec; const char *name; } need[] = {
		{ 6, ".linux" }, { 3, ".cmdline" }, { 2, ".osrel" },
	};
	for (unsigned i = 0; i < 3; i++) {
		build();
		img[SECTIONS + 40 * need[i].sec + 1] = 'X';
		assert_int_equal(parse(img_len, img_len, &u, &c), AS_EUNSUPP);
		char want[80];
		snprintf(want, sizeof want, "it has no %s section", need[i].name);
		const char *w = want;
		assert_reported(&c, "uki.not_uki", w);
		assert_int_equal(c.items[0].level, DIAG_WARN);
	}
	build();
	le16_store(img + LFANEW + 4, 0xAA64);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_EUNSUPP);
	assert_reported(&c, "uki.machine", "PE machine 0xaa64");
	/* .cmdline longer than the menu's field, .osrel longer than the loaders read */
	build();
	assert_int_equal(uki_parse(img, img_len, img_len, "k", sizeof cmdline, &u, NULL),
			 AS_ECORRUPT);
	assert_int_equal(uki_parse(img, img_len, img_len, "k", sizeof cmdline + 1, &u, NULL), 0);
	le32_store(img + SECTIONS + 40 * 2 + 8, UKI_OSREL_MAX + 1);
	le32_store(img + SECTIONS + 40 * 2 + 16, UKI_OSREL_MAX + 1);
	le32_store(img + SECTIONS + 40 * 2 + 20, 0x200);
	assert_int_equal(parse(img_len, img_len, &u, &c), AS_ECORRUPT);
	assert_reported(&c, "uki.too_long", "its .osrel is 4097 bytes, more than the 4096");
}

static void value_is(const char *text, const char *key, int rc, const char *want)
{
	char out[32];
	int got = uki_osrel_value(text, strlen(text), key, out, sizeof out);
	if (got != rc || strcmp(out, want))
		fail_msg("%s in [%s]: %d [%s], want %d [%s]", key, text, got, out, rc, want);
}

static void test_osrel(void **state)
{
	(void)state;
	value_is(osrel, "PRETTY_NAME", 30, "Debian GNU/Linux 12 (bookworm)");
	value_is(osrel, "NAME", 16, "Debian GNU/Linux");
	value_is(osrel, "VERSION_ID", 2, "12");
	value_is(osrel, "ID", 6, "debian");
	value_is(osrel, "IMAGE_ID", -1, "");
	value_is(osrel, "VERSION", -1, "");
	value_is("ID=a\nID=b\n", "ID", 1, "b");                      /* the last one wins */
	value_is("# ID=x\n  ID='y z'\n", "ID", 3, "y z");            /* comments, indentation */
	value_is("ID=\"a\\\"b\\\\c\\$d\\x\"\n", "ID", 9, "a\"b\\c$d\\x");  /* shell's escapes */
	value_is("ID='a\\b'\n", "ID", 3, "a\\b");                    /* none in single quotes */
	value_is("ID=a\\ b\n", "ID", 3, "a b");
	value_is("ID=ab # comment\n", "ID", 2, "ab");
	value_is("ID=\"a\"'b'c\r\nX=1", "ID", 3, "abc");                /* CRLF, concatenation */
	value_is("ID=\n", "ID", 0, "");
	value_is("ID", "ID", -1, "");
	value_is("ID=\"a\tb\"", "ID", 3, "a\tb");
	value_is("ID=\"a\x01\"", "ID", -2, "");
	value_is("ID=\"a\x7F\"", "ID", -2, "");
	value_is("ID=a\\\x1b", "ID", -2, "");
	value_is("ID=0123456789012345678901234567890123456789", "ID", -2,
		 "0123456789012345678901234567890");
	value_is("XID=1\nIDX=2\n", "ID", -1, "");
	value_is("ID=\"unterminated", "ID", 12, "unterminated");
}

static void test_cmdline(void **state)
{
	(void)state;
	struct capture c;
	char t[] = "root=/dev/sda1 quiet\n\0\0";
	size_t n = sizeof t - 1;
	capture_init(&c);
	assert_true(uki_cmdline(t, &n, "k", &c.diag));
	assert_int_equal(n, 20);
	char tab[] = "a\tb  \r\n";
	n = sizeof tab - 1;
	assert_true(uki_cmdline(tab, &n, "k", &c.diag));
	assert_int_equal(n, 3);
	n = 0;
	assert_true(uki_cmdline("", &n, "k", &c.diag));
	char bad[] = "a\nb\n";
	n = sizeof bad - 1;
	assert_false(uki_cmdline(bad, &n, "/EFI/Linux/k.efi", &c.diag));
	assert_reported(&c, "uki.cmdline", "/EFI/Linux/k.efi: its .cmdline has a control character "
			"at byte 1");
	char nul[] = "a\0b";
	n = 3;
	assert_false(uki_cmdline(nul, &n, "k", &c.diag));
}

static char workdir[512];

static int write_host(const char *name, const void *data, size_t len)
{
	char path[700];
	snprintf(path, sizeof path, "%s/%s", workdir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

/* The loaders' menu (common/cfg_fat.c cfg_load_fat, common/uki_fat.c) from a FAT image with
 * /EFI/Linux holding a good UKI (a Type #2 entry), one cut short (left out, said), one an
 * anysector.cfg uki entry names in another case (that entry's: it gets .cmdline and
 * PRETTY_NAME, and is not listed twice), a file that is not .efi and a directory that is. */
static void test_menu_from_fat(void **state)
{
	(void)state;
	static char buf[CFG_FILE_MAX_BYTES];
	static struct bls_scratch bls;
	static struct cfg cfg;
	char img[600];

	if (!have_program("mkfs.fat") || !have_program("mcopy")) {
		printf("SKIP: mkfs.fat or mtools not installed\n");
		skip();
	}
	assert_int_equal(test_workdir(workdir, sizeof workdir, "test-data", "uki"), 0);
	snprintf(img, sizeof img, "%s/esp.img", workdir);
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	build();
	static const char cfg_text[] = "default a\nentry mine\n  uki /efi/linux/C.EFI\n"
				       "entry k\n  kernel /vmlinuz\n";
	assert_int_equal(write_host("a.efi", img_buf(), img_len), 0);
	assert_int_equal(write_host("b.efi", img_buf(), sec_off[7] + 0x100), 0);
	assert_int_equal(write_host("anysector.cfg", cfg_text, sizeof cfg_text - 1), 0);
	assert_int_equal(run_cmd("cd '%s' && truncate -s 4M esp.img && mkfs.fat -S 512 esp.img "
				 ">/dev/null && mmd -i esp.img ::/EFI ::/EFI/Linux ::/EFI/Linux/d.efi && "
				 "mcopy -i esp.img a.efi b.efi ::/EFI/Linux/ && mcopy -i esp.img a.efi "
				 "::/EFI/Linux/c.efi && mcopy -i esp.img anysector.cfg ::/ && mcopy -i "
				 "esp.img anysector.cfg ::/EFI/Linux/notes.txt", workdir), 0);
	size_t len;
	uint8_t *data = read_file(img, &len);
	assert_non_null(data);
	struct test_disk *d = test_disk_new(len, 512, 512, 0, 0);
	memcpy(d->md.data, data, len);
	free(data);
	struct fat_fs fs;
	struct capture c;
	capture_init(&c);
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_int_equal(cfg_load_fat(&fs, "/anysector.cfg", &cfg, buf, &bls, NULL, &c.diag), 0);
	assert_int_equal(cfg.nentries, 3);
	const struct cfg_entry *mine = &cfg.entries[0], *a = &cfg.entries[2];
	assert_int_equal(mine->kind, CFG_KIND_UKI);
	assert_string_equal(mine->cmdline, "root=/dev/vda1 console=ttyS0");
	assert_string_equal(mine->title, "Debian GNU/Linux 12 (bookworm)");
	assert_string_equal(a->name, "a");
	assert_int_equal(a->kind, CFG_KIND_UKI);
	assert_string_equal(a->kernel, "/EFI/Linux/a.efi");
	assert_string_equal(a->cmdline, "root=/dev/vda1 console=ttyS0");
	assert_string_equal(a->title, "Debian GNU/Linux 12 (bookworm)");
	assert_string_equal(a->version, "12");
	assert_string_equal(a->file, "a.efi");
	assert_true(a->bls);
	assert_int_equal(cfg_default_index(&cfg), 2);
	assert_reported(&c, "uki.cut", "/EFI/Linux/b.efi: section .initrd");
	assert_int_equal(c.n, 1);
	assert_true(cfg_entry_runs_on(a, CFG_FW_BIOS));
	assert_true(cfg_entry_runs_on(a, CFG_FW_UEFI));
	test_disk_free(d);
	run_cmd("rm -rf '%s'", workdir);
}

/* A UKI whose .osrel sets ID=debian and VERSION_ID=version (the section keeps its size: the
 * text is padded with newlines), written to the work directory as name. */
static void write_versioned(const char *name, const char *version)
{
	char text[sizeof osrel];
	int n = snprintf(text, sizeof text, "ID=debian\nVERSION_ID=%s\nPRETTY_NAME=\"Debian\"\n",
			 version);
	assert_true(n > 0 && (size_t)n < sizeof text);
	memset(text + n, '\n', sizeof text - 1 - (size_t)n);
	build();
	memcpy(img + sec_off[2], text, sizeof osrel - 1);
	assert_int_equal(write_host(name, img_buf(), img_len), 0);
}

/* Type #2 entries sort with the /loader/entries ones by the same rules (common/bls.h
 * bls_compare): the same sort-key (ID), newest version first, whichever directory an entry
 * comes from; a UKI whose boot counter says no tries left sorts last, even with the newest
 * version; the default rule picks the newest good one. */
static void test_sorts_with_type1(void **state)
{
	(void)state;
	static char buf[CFG_FILE_MAX_BYTES];
	static struct bls_scratch bls;
	static struct cfg cfg;
	char img_path[600];

	if (!have_program("mkfs.fat") || !have_program("mcopy")) {
		printf("SKIP: mkfs.fat or mtools not installed\n");
		skip();
	}
	assert_int_equal(test_workdir(workdir, sizeof workdir, "test-data", "uki-sort"), 0);
	snprintf(img_path, sizeof img_path, "%s/esp.img", workdir);
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	static const char cfg_text[] = "entry k\n  kernel /vmlinuz\n";
	static const char conf[] = "title Debian\nversion 6.1.0-10\nsort-key debian\n"
				   "linux /vmlinuz\n";
	assert_int_equal(write_host("anysector.cfg", cfg_text, sizeof cfg_text - 1), 0);
	assert_int_equal(write_host("deb-6.1.0-10.conf", conf, sizeof conf - 1), 0);
	write_versioned("deb-6.1.0-11.efi", "6.1.0-11");
	write_versioned("deb-6.1.0-9.efi", "6.1.0-9");
	write_versioned("old+0-3.efi", "6.1.0-12");
	assert_int_equal(run_cmd("cd '%s' && truncate -s 4M esp.img && mkfs.fat -S 512 esp.img "
				 ">/dev/null && mmd -i esp.img ::/EFI ::/EFI/Linux ::/loader "
				 "::/loader/entries && mcopy -i esp.img old+0-3.efi deb-6.1.0-9.efi "
				 "deb-6.1.0-11.efi ::/EFI/Linux/ && mcopy -i esp.img deb-6.1.0-10.conf "
				 "::/loader/entries/ && mcopy -i esp.img anysector.cfg ::/", workdir), 0);
	size_t len;
	uint8_t *data = read_file(img_path, &len);
	assert_non_null(data);
	struct test_disk *d = test_disk_new(len, 512, 512, 0, 0);
	memcpy(d->md.data, data, len);
	free(data);
	struct fat_fs fs;
	struct capture c;
	capture_init(&c);
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_int_equal(cfg_load_fat(&fs, "/anysector.cfg", &cfg, buf, &bls, NULL, &c.diag), 0);
	static const char *const want[] = { "k", "deb-6.1.0-11", "deb-6.1.0-10", "deb-6.1.0-9",
					    "old" };
	static const uint8_t kind[] = { CFG_KIND_LINUX, CFG_KIND_UKI, CFG_KIND_LINUX, CFG_KIND_UKI,
					CFG_KIND_UKI };
	assert_int_equal(cfg.nentries, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_string_equal(cfg.entries[i].name, want[i]);
		assert_int_equal(cfg.entries[i].kind, kind[i]);
	}
	assert_string_equal(cfg.entries[1].sort_key, "debian");
	assert_string_equal(cfg.entries[4].file, "old+0-3.efi");
	assert_int_equal(cfg.entries[4].tries_left, 0);
	assert_int_equal(cfg_default_index(&cfg), 1);
	assert_int_equal(c.n, 0);
	test_disk_free(d);
	run_cmd("rm -rf '%s'", workdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),   cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_damaged), cmocka_unit_test(test_not_uki),
		cmocka_unit_test(test_osrel),   cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_menu_from_fat), cmocka_unit_test(test_sorts_with_type1),
	};
	return cmocka_run_group_tests_name("uki", tests, NULL, NULL);
}
