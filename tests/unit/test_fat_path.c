/* SPDX-License-Identifier: BSD-2-Clause */
/* One path walk for the loaders and the installer (common/fat_path.h): the names fat_open
 * follows, and fat_path_eq, which the installer uses to tell whether two paths of anysector.cfg
 * are one file. The rule is pinned against fat_open itself on a FAT made by mkfs.fat and mtools:
 * two spellings compare equal exactly when fat_open opens them as the same file. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/fat.h"
#include "common/fat_path.h"

/* The names fat_path_next gives for path, joined by '|'. */
static const char *walk(const char *path)
{
	static char out[512];
	const char *p = path, *name;
	size_t len, n = 0;

	out[0] = 0;
	while ((len = fat_path_next(&p, &name)))
		n += (size_t)snprintf(out + n, sizeof out - n, "%s%.*s", n ? "|" : "", (int)len, name);
	assert_ptr_equal(p, path + strlen(path));     /* the walk ends at the terminator */
	return out;
}

static void test_next(void **state)
{
	(void)state;
	assert_string_equal(walk(""), "");
	assert_string_equal(walk("/"), "");
	assert_string_equal(walk("//\\\\/"), "");
	assert_string_equal(walk("/./././"), "");
	assert_string_equal(walk("EFI"), "EFI");
	assert_string_equal(walk("/EFI/BOOT/BOOTX64.EFI"), "EFI|BOOT|BOOTX64.EFI");
	assert_string_equal(walk("\\EFI\\\\BOOT\\"), "EFI|BOOT");
	assert_string_equal(walk("/a/./b/."), "a|b");
	assert_string_equal(walk("./a"), "a");
	assert_string_equal(walk("/a/../b"), "a|..|b");
	assert_string_equal(walk("/.a/a./.../..x"), ".a|a.|...|..x");
}

static void test_eq_rules(void **state)
{
	(void)state;
	static const struct {
		const char *a, *b;
		bool eq;
	} cases[] = {
		{ "/vmlinuz", "/vmlinuz", true },
		{ "/vmlinuz", "vmlinuz", true },
		{ "/vmlinuz", "/VMLinuz", true },
		{ "/d/vmlinuz", "\\d\\vmlinuz", true },
		{ "/d/vmlinuz", "//d///vmlinuz/", true },
		{ "/d/vmlinuz", "/d/./vmlinuz", true },          /* what esp_path_eq got wrong */
		{ "/d/vmlinuz", "/./d/vmlinuz/.", true },
		{ "/d/vmlinuz", "/d/x/../vmlinuz", true },
		{ "/d/vmlinuz", "/../d/vmlinuz", true },           /* the root's parent is the root */
		{ "/d/vmlinuz", "/d/../../d/vmlinuz", true },
		{ "", "/", true },
		{ "/", "/.", true },
		{ "/", "/d/..", true },
		{ "/d/vmlinuz", "/d/vmlinuz2", false },
		{ "/d/vmlinuz", "/vmlinuz", false },
		{ "/d/vmlinuz", "/d", false },
		{ "/d/vmlinuz", "/d/..vmlinuz", false },
		{ "/d/vmlinuz", "/d/vmlinuz/..", false },
		{ "/d/vmlinuz", "/d.vmlinuz", false },
		{ "/a", "/a.", false },
		{ "/a", "/\xc3\xa4", false },
		{ "/\xc4", "/\xe4", false },                       /* only ASCII folds */
	};
	for (unsigned i = 0; i < ARRAY_SIZE(cases); i++) {
		if (fat_path_eq(cases[i].a, cases[i].b) != cases[i].eq ||
		    fat_path_eq(cases[i].b, cases[i].a) != cases[i].eq)
			fail_msg("'%s' and '%s': fat_path_eq should say %d", cases[i].a, cases[i].b,
				 cases[i].eq);
	}
}

/* FAT_PATH_DEPTH names may remain, not one more; ".." gives room back. */
static void test_depth(void **state)
{
	(void)state;
	static char deep[4 * FAT_PATH_DEPTH + 16], deeper[sizeof deep + 8];
	size_t n = 0;
	for (unsigned i = 0; i < FAT_PATH_DEPTH; i++)
		n += (size_t)snprintf(deep + n, sizeof deep - n, "/d");
	assert_true(fat_path_eq(deep, deep));
	snprintf(deeper, sizeof deeper, "%s/x", deep);
	assert_false(fat_path_eq(deeper, deeper));
	snprintf(deeper, sizeof deeper, "%s/../x", deep);
	assert_true(fat_path_eq(deeper, deeper));
}

/* The installer's answer is fat_open's: a FAT with /EFI/BOOT/BOOTX64.EFI, /d/vmlinuz and
 * /vmlinuz, every pair of these spellings compared both ways. */
static void test_agrees_with_fat_open(void **state)
{
	(void)state;
	static const char *const spellings[] = {
		"/d/vmlinuz", "d\\VMLINUZ", "/d/./vmlinuz", "/./d//vmlinuz", "/EFI/../d/vmlinuz",
		"/vmlinuz", "/d/../vmlinuz", "/../vmlinuz", "/EFI/BOOT/../../vmlinuz",
		"/EFI/BOOT/BOOTX64.EFI", "/efi/boot/./bootx64.efi", "/EFI/./BOOT/../BOOT/BOOTX64.EFI",
		"/EFI/BOOT", "/EFI/BOOT/.", "/EFI/./BOOT/", "/d", "/d/.", "/", "", "/.", "/EFI/..",
	};
	char workdir[512], img[600], src[600];
	if (!have_program("mkfs.fat") || !have_program("mcopy")) {
		printf("SKIP: mkfs.fat or mtools not installed\n");
		skip();
	}
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	assert_int_equal(test_workdir(workdir, sizeof workdir, "test-data", "fat_path"), 0);
	snprintf(img, sizeof img, "%s/fat.img", workdir);
	snprintf(src, sizeof src, "%s/src", workdir);
	assert_int_equal(run_cmd("truncate -s 4M '%s' && mkfs.fat -S 512 '%s' >/dev/null && "
				 "echo x > '%s' && mmd -i '%s' ::/EFI ::/EFI/BOOT ::/d && "
				 "mcopy -i '%s' '%s' ::/EFI/BOOT/BOOTX64.EFI && "
				 "mcopy -i '%s' '%s' ::/d/vmlinuz && mcopy -i '%s' '%s' ::/vmlinuz",
				 img, img, src, img, img, src, img, src, img, src), 0);
	size_t len;
	uint8_t *data = read_file(img, &len);
	assert_non_null(data);
	struct test_disk *d = test_disk_new(len, 512, 512, 0, 0);
	memcpy(d->md.data, data, len);
	free(data);
	static struct fat_fs fs;
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);

	struct fat_file f[ARRAY_SIZE(spellings)];
	for (unsigned i = 0; i < ARRAY_SIZE(spellings); i++)
		if (fat_open(&fs, spellings[i], &f[i], NULL))
			fail_msg("fat_open('%s') failed", spellings[i]);
	for (unsigned i = 0; i < ARRAY_SIZE(spellings); i++) {
		for (unsigned j = 0; j < ARRAY_SIZE(spellings); j++) {
			bool same = f[i].is_root == f[j].is_root &&
				    f[i].first_cluster == f[j].first_cluster;
			if (fat_path_eq(spellings[i], spellings[j]) != same)
				fail_msg("'%s' and '%s': fat_open says %s file, fat_path_eq says %s",
					 spellings[i], spellings[j], same ? "one" : "another",
					 same ? "not" : "so");
		}
	}
	test_disk_free(d);
	run_cmd("rm -rf '%s'", workdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next),
		cmocka_unit_test(test_eq_rules),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_agrees_with_fat_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
