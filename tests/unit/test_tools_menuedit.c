/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector.cfg edits of set-default, remove and add --replace/--timeout (tools/esp/cfgedit.c):
 * exact texts, each read back by the loaders' parser. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "tools/esp/cfgedit.h"

static const char base[] =
	"# my menu\n"
	"timeout 3\n"
	"\n"
	"entry a\n"
	"  title   A\n"
	"  kernel  /a/vmlinuz\n"
	"  # a's initrd:\n"
	"  initrd  /a/initrd\n"
	"  cmdline root=/dev/sda1 # not a comment\n"
	"# the next one\n"
	"\n"
	"entry b\n"
	"  kernel  /b/vmlinuz\n"
	"Default A\n"
	"serial off\n";

static void parses(const char *text)
{
	static struct cfg c;
	if (cfg_parse_text(text, strlen(text), &c, NULL))
		fail_msg("does not parse:\n%s", text);
}

static void test_set_key(void **state)
{
	(void)state;
	char *t = cfg_text_set_key(base, "default", "b");
	/* replaced where it stands (after the entries; keys match without case) */
	assert_non_null(strstr(t, "  kernel  /b/vmlinuz\ndefault b\nserial off\n"));
	assert_null(strstr(t, "Default A"));
	parses(t);
	free(t);
	t = cfg_text_set_key(base, "TIMEOUT", "0");
	assert_string_equal(strstr(t, "# my menu\n") , t);
	assert_non_null(strstr(t, "# my menu\nTIMEOUT 0\n\nentry a"));
	free(t);
	/* a key not there goes before the first entry, a blank line after it */
	static const char no_globals[] = "entry a\n  kernel /k\n";
	t = cfg_text_set_key(no_globals, "timeout", "7");
	assert_string_equal(t, "timeout 7\n\nentry a\n  kernel /k\n");
	free(t);
	t = cfg_text_set_key("# head only\n", "default", "x");
	assert_string_equal(t, "# head only\ndefault x\n");
	free(t);
	t = cfg_text_set_key("# no newline", "default", "x");
	assert_string_equal(t, "# no newline\ndefault x\n");
	free(t);
	/* removing */
	t = cfg_text_set_key(base, "default", NULL);
	assert_null(strstr(t, "Default"));
	assert_non_null(strstr(t, "  kernel  /b/vmlinuz\nserial off\n"));
	free(t);
	t = cfg_text_set_key(no_globals, "default", NULL);
	assert_string_equal(t, no_globals);
	free(t);
	/* a cmdline mentioning "default" is no default line */
	static const char tricky[] = "entry a\n  kernel /k\n  cmdline default x\n";
	t = cfg_text_set_key(tricky, "default", "a");
	assert_string_equal(t, "default a\n\nentry a\n  kernel /k\n  cmdline default x\n");
	free(t);
}

static void test_remove_entry(void **state)
{
	(void)state;
	char *t = cfg_text_remove_entry(base, "A");
	assert_string_equal(t, "# my menu\n"
			       "timeout 3\n"
			       "# the next one\n"
			       "\n"
			       "entry b\n"
			       "  kernel  /b/vmlinuz\n"
			       "Default A\n"
			       "serial off\n");
	free(t);
	t = cfg_text_remove_entry(base, "b");
	assert_string_equal(t, "# my menu\n"
			       "timeout 3\n"
			       "\n"
			       "entry a\n"
			       "  title   A\n"
			       "  kernel  /a/vmlinuz\n"
			       "  # a's initrd:\n"
			       "  initrd  /a/initrd\n"
			       "  cmdline root=/dev/sda1 # not a comment\n"
			       "# the next one\n"
			       "Default A\n"
			       "serial off\n");
	parses(t);
	free(t);
	assert_null(cfg_text_remove_entry(base, "c"));
	assert_null(cfg_text_remove_entry(base, "entry"));
	/* the first line of the file, and a file that is one entry */
	t = cfg_text_remove_entry("entry x\nkernel /k\nentry y\nkernel /k\n", "x");
	assert_string_equal(t, "entry y\nkernel /k\n");
	free(t);
	t = cfg_text_remove_entry("\nentry x\nkernel /k\n", "x");
	assert_string_equal(t, "");
	free(t);
	/* every kind's lines go with the entry (keys without case, as the parser reads them) */
	static const char kinds[] =
		"entry a\n  kernel /a\n"
		"entry shell\n  EFI /EFI/x.efi\n  Partition 3\n  cmdline -v\n"
		"entry win\n  chainload 2\n  title W\n"
		"timeout 5\n";
	t = cfg_text_remove_entry(kinds, "shell");
	assert_string_equal(t, "entry a\n  kernel /a\nentry win\n  chainload 2\n  title W\n"
			    "timeout 5\n");
	parses(t);
	free(t);
	t = cfg_text_remove_entry(kinds, "win");
	assert_string_equal(t, "entry a\n  kernel /a\n"
			    "entry shell\n  EFI /EFI/x.efi\n  Partition 3\n  cmdline -v\n"
			    "timeout 5\n");
	parses(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_key),
		cmocka_unit_test(test_remove_entry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
