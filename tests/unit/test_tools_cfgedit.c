/* SPDX-License-Identifier: BSD-2-Clause */
/* What add does to anysector.cfg's text (tools/esp/cfgedit.c): entry names from kernel file names,
 * unique names, FAT-safe file names, the lines of a new entry and the "default" line; every
 * result is also read back with the loaders' parser. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "tools/esp/cfgedit.h"

static void assert_parses(const char *text, struct cfg *c)
{
	struct capture cap;
	capture_init(&cap);
	if (cfg_parse(text, strlen(text), c, &cap.diag)) {
		capture_dump(&cap);
		fail_msg("does not parse:\n%s", text);
	}
}

static void test_name_from_file(void **state)
{
	(void)state;
	char n[CFG_NAME_MAX];

	entry_name_from_file("/boot/vmlinuz-6.1.0-18-amd64", n, sizeof n);
	assert_string_equal(n, "6.1.0-18-amd64");
	entry_name_from_file("/boot/vmlinuz", n, sizeof n);
	assert_string_equal(n, "linux");
	entry_name_from_file("bzImage", n, sizeof n);
	assert_string_equal(n, "linux");
	entry_name_from_file("linux-LTS Kernel!", n, sizeof n);
	assert_string_equal(n, "lts-kernel-");
	/* a prefix with nothing after it is the name itself */
	entry_name_from_file("vmlinuz-", n, sizeof n);
	assert_string_equal(n, "vmlinuz-");
	/* cut to the room given */
	entry_name_from_file("vmlinuz-0123456789abcdef0123456789abcdef", n, 28);
	assert_string_equal(n, "0123456789abcdef0123456789a");
}

static void test_name_pick(void **state)
{
	(void)state;
	const char *text = "timeout 3\nentry linux\n  kernel /linux/vmlinuz\n"
			   "entry linux-2\n  kernel /linux-2/vmlinuz\n";
	char n[CFG_NAME_MAX];

	/* a derived name gets the first free suffix */
	assert_true(entry_name_pick(text, NULL, "/boot/vmlinuz", n));
	assert_string_equal(n, "linux-3");
	assert_true(entry_name_pick(text, NULL, "/boot/vmlinuz-6.1", n));
	assert_string_equal(n, "6.1");
	/* a given one must be free */
	assert_false(entry_name_pick(text, "linux-2", "/boot/vmlinuz", n));
	assert_string_equal(n, "linux-2");
	assert_true(entry_name_pick(text, "rescue", "/boot/vmlinuz", n));
	assert_string_equal(n, "rescue");
	/* a long derived name keeps its suffix within CFG_NAME_MAX */
	char longest[CFG_NAME_MAX], kernel[CFG_NAME_MAX + 16], longer[2 * CFG_NAME_MAX], want[CFG_NAME_MAX];
	for (int i = 0; i < CFG_NAME_MAX - 5; i++)
		longest[i] = "0123456789abcdef"[i % 16];
	longest[CFG_NAME_MAX - 5] = 0;
	snprintf(kernel, sizeof kernel, "vmlinuz-%sXYZ", longest);
	snprintf(longer, sizeof longer, "entry %s\n  kernel /k\n", longest);
	snprintf(want, sizeof want, "%.*s-2", CFG_NAME_MAX - 6, longest);
	assert_true(entry_name_pick(longer, NULL, kernel, n));
	assert_string_equal(n, want);
	assert_true(strlen(n) < CFG_NAME_MAX);
}

static void test_file_names(void **state)
{
	(void)state;
	char out[160];

	cfg_file_name("/tmp/my kernel:1?.img", out, sizeof out);
	assert_string_equal(out, "my_kernel_1_.img");
	cfg_file_name("a\tb", out, sizeof out);
	assert_string_equal(out, "a_b");
	entry_file_path("deb", "/boot/initrd.img-6.1 new", out, sizeof out);
	assert_string_equal(out, "/deb/initrd.img-6.1_new");
}

static void test_add_entry_text(void **state)
{
	(void)state;
	const char *initrd[] = { "/deb/ucode.img", "/deb/initrd.img" };
	struct cfg *c = calloc(1, sizeof *c);
	assert_non_null(c);

	char *t = cfg_text_add_entry("# mine\ntimeout 5", "deb", "Debian", CFG_KIND_LINUX, "/deb/vmlinuz", 0, initrd, 2,
				     "root=/dev/sda3 quiet", 0, NULL);
	assert_string_equal(t, "# mine\ntimeout 5\n\nentry deb\n  title   Debian\n"
			       "  kernel  /deb/vmlinuz\n  initrd  /deb/ucode.img\n"
			       "  initrd  /deb/initrd.img\n  cmdline root=/dev/sda3 quiet\n");
	assert_parses(t, c);
	assert_int_equal(c->nentries, 1);
	assert_int_equal(c->timeout, 5);
	assert_int_equal(c->entries[0].ninitrd, 2);
	assert_string_equal(c->entries[0].cmdline, "root=/dev/sda3 quiet");

	/* no title: the name; an empty command line: no line */
	char *u = cfg_text_add_entry(t, "old", NULL, CFG_KIND_LINUX, "/old/vmlinuz", 0, NULL, 0, "", 0,
				     NULL);
	assert_string_equal(u + strlen(t), "\nentry old\n  title   old\n  kernel  /old/vmlinuz\n");
	assert_parses(u, c);
	assert_int_equal(c->nentries, 2);
	assert_string_equal(c->entries[1].title, "old");
	assert_string_equal(c->entries[1].cmdline, "");

	/* an EFI application on partition 3 (its LoadOptions), then a boot record */
	char *v = cfg_text_add_entry(u, "shell", "Shell", CFG_KIND_EFI, "/EFI/tools/shell.efi", 3,
				     NULL, 0, "-nostartup", 0, NULL);
	assert_string_equal(v + strlen(u), "\nentry shell\n  title   Shell\n"
			    "  efi     /EFI/tools/shell.efi\n  partition 3\n  cmdline -nostartup\n");
	char *w = cfg_text_add_entry(v, "dos", NULL, CFG_KIND_CHAIN, "2", 0, NULL, 0, NULL, 0,
				     NULL);
	assert_string_equal(w + strlen(v), "\nentry dos\n  title   dos\n  chainload 2\n");
	assert_parses(w, c);
	assert_int_equal(c->nentries, 4);
	assert_int_equal(c->entries[2].kind, CFG_KIND_EFI);
	assert_int_equal(c->entries[2].partition, 3);
	assert_string_equal(c->entries[2].kernel, "/EFI/tools/shell.efi");
	assert_string_equal(c->entries[2].cmdline, "-nostartup");
	assert_int_equal(c->entries[3].kind, CFG_KIND_CHAIN);
	assert_int_equal(c->entries[3].partition, 2);
	free(t);
	free(u);
	free(v);
	free(w);
	free(c);
}

/* add --pin: a sha256 line after the kernel's line and after each pinned initrd's, which the
 * parser reads back as those files' pins; cfg_text_remove_entry takes them out with the entry. */
static void test_add_pinned_entry(void **state)
{
	(void)state;
	const char *initrd[] = { "/p/one.img", "/p/two.img" };
	uint8_t pin[1 + CFG_MAX_INITRDS][SHA256_BYTES];
	struct cfg *c = calloc(1, sizeof *c);
	assert_non_null(c);
	for (unsigned s = 0; s < 3; s++)
		memset(pin[s], 0x11 * (s + 1), SHA256_BYTES);

	char *t = cfg_text_add_entry("", "p", NULL, CFG_KIND_LINUX, "/p/vmlinuz", 0, initrd, 2,
				     "quiet", 1u | 4u, (const uint8_t (*)[SHA256_BYTES])pin);
	assert_string_equal(t, "\nentry p\n  title   p\n  kernel  /p/vmlinuz\n"
			       "  sha256  1111111111111111111111111111111111111111111111111111111111111111\n"
			       "  initrd  /p/one.img\n  initrd  /p/two.img\n"
			       "  sha256  3333333333333333333333333333333333333333333333333333333333333333\n"
			       "  cmdline quiet\n");
	assert_parses(t, c);
	assert_int_equal(c->entries[0].pinned, 1u | 4u);
	assert_memory_equal(c->entries[0].pin[0], pin[0], SHA256_BYTES);
	assert_memory_equal(c->entries[0].pin[2], pin[2], SHA256_BYTES);

	char *u = cfg_text_add_entry(t, "q", NULL, CFG_KIND_EFI, "/q/app.efi", 0, NULL, 0, NULL, 1u,
				     (const uint8_t (*)[SHA256_BYTES])pin);
	char *v = cfg_text_remove_entry(u, "p");
	assert_non_null(v);
	assert_string_equal(v, "\nentry q\n  title   q\n  efi     /q/app.efi\n"
			       "  sha256  1111111111111111111111111111111111111111111111111111111111111111\n");
	free(t);
	free(u);
	free(v);
	free(c);
}

static void test_set_default(void **state)
{
	(void)state;
	struct cfg *c = calloc(1, sizeof *c);
	assert_non_null(c);
	const char *two = "timeout 3\n\nentry a\n  kernel /a/k\nentry b\n  kernel /b/k\n";

	/* inserted before the first entry */
	char *t = cfg_text_set_default(two, "b");
	assert_string_equal(t, "timeout 3\n\ndefault b\n\nentry a\n  kernel /a/k\nentry b\n"
			       "  kernel /b/k\n");
	assert_parses(t, c);
	assert_string_equal(c->default_name, "b");

	/* replacing the one there */
	char *u = cfg_text_set_default(t, "a");
	assert_string_equal(u, "timeout 3\n\ndefault a\n\nentry a\n  kernel /a/k\nentry b\n"
			       "  kernel /b/k\n");
	assert_parses(u, c);
	assert_string_equal(c->default_name, "a");

	/* an indented one is replaced too; a file without entries gets it at the end */
	char *v = cfg_text_set_default("  default a\ntimeout 1\n", "z");
	assert_string_equal(v, "default z\ntimeout 1\n");
	char *w = cfg_text_set_default("timeout 1\n", "z");
	assert_string_equal(w, "timeout 1\ndefault z\n");
	free(t);
	free(u);
	free(v);
	free(w);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_from_file),
		cmocka_unit_test(test_name_pick),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test(test_add_entry_text),
		cmocka_unit_test(test_add_pinned_entry),
		cmocka_unit_test(test_set_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
