/* SPDX-License-Identifier: BSD-2-Clause */
/* The values add writes into anysector.cfg (common/config.h cfg_value_fault) and UTF-8
 * (common/utf8.h): a value the rule accepts is read back by the loaders' parser exactly as
 * given, in an entry as tools/esp/cfgedit.c writes it; a title or cmdline it refuses for white
 * space or a comment is read back differently; names are one portable FAT file name. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/config.h"
#include "common/utf8.h"
#include "tools/esp/cfgedit.h"

static enum cfg_fault fault(enum cfg_field f, const char *s)
{
	return cfg_value_fault(f, s, strlen(s), NULL);
}

/* Whether an entry written with this title and command line parses back to exactly them. */
static bool round_trips(const char *title, const char *cmdline)
{
	static struct cfg c;
	char *text = cfg_text_add_entry("", "e", title, CFG_KIND_LINUX, "/e/k", 0, NULL, 0, cmdline,
					0, NULL);
	bool ok = !cfg_parse(text, strlen(text), &c, NULL) && c.nentries == 1 &&
		  !strcmp(c.entries[0].title, title) && !strcmp(c.entries[0].cmdline, cmdline);
	free(text);
	return ok;
}

static void test_names(void **state)
{
	(void)state;
	static const char *const good[] = {
		"debian", "6.1.0-18-amd64", "a", "A_b+c.d-e", ".hidden", "con1", "com10", "lpt0",
		"console", "nul-2", "x.con",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk",  /* 63 */
	};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (fault(CFG_FIELD_NAME, good[i]) != CFG_FAULT_NONE)
			fail_msg("name '%s' refused", good[i]);

	size_t at = 99;
	assert_int_equal(fault(CFG_FIELD_NAME, ""), CFG_FAULT_EMPTY);
	assert_int_equal(fault(CFG_FIELD_NAME,
			       "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"),
			 CFG_FAULT_TOO_LONG);
	assert_int_equal(cfg_value_fault(CFG_FIELD_NAME, "../x", 4, &at), CFG_FAULT_CHAR);
	assert_int_equal(at, 2);
	assert_int_equal(cfg_value_fault(CFG_FIELD_NAME, "EFI/BOOT", 8, &at), CFG_FAULT_CHAR);
	assert_int_equal(at, 3);
	assert_int_equal(fault(CFG_FIELD_NAME, "a b"), CFG_FAULT_CHAR);
	assert_int_equal(fault(CFG_FIELD_NAME, "a#b"), CFG_FAULT_CHAR);
	assert_int_equal(fault(CFG_FIELD_NAME, "a\\b"), CFG_FAULT_CHAR);
	assert_int_equal(fault(CFG_FIELD_NAME, "d\xc3\xa9"), CFG_FAULT_CHAR);
	assert_int_equal(fault(CFG_FIELD_NAME, "a\tb"), CFG_FAULT_CHAR);
	assert_int_equal(fault(CFG_FIELD_NAME, "."), CFG_FAULT_DOTS);
	assert_int_equal(fault(CFG_FIELD_NAME, ".."), CFG_FAULT_DOTS);
	assert_int_equal(fault(CFG_FIELD_NAME, "a."), CFG_FAULT_DOTS);
	static const char *const reserved[] = { "CON", "con", "Prn", "AUX", "nul", "COM1", "com9",
						"LPT1", "lpt9", "con.txt", "AUX.tar.gz" };
	for (size_t i = 0; i < ARRAY_SIZE(reserved); i++)
		if (fault(CFG_FIELD_NAME, reserved[i]) != CFG_FAULT_RESERVED)
			fail_msg("name '%s' not refused as a device name", reserved[i]);
}

static void test_titles_and_cmdlines_round_trip(void **state)
{
	(void)state;
	static const char *const good[] = {
		"Debian GNU/Linux", "C#", "C# x", "a#b", "tab\tinside",
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", "x",
	};
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		enum cfg_fault f = fault(CFG_FIELD_TITLE, good[i]);
		if (f == CFG_FAULT_NONE && !round_trips(good[i], "q"))
			fail_msg("title '%s' accepted but read back differently", good[i]);
	}
	assert_int_equal(fault(CFG_FIELD_TITLE, "C#"), CFG_FAULT_NONE);
	assert_true(round_trips("C#", "q"));
	assert_true(round_trips("caf\xc3\xa9", "q"));

	/* refused for the parser's reasons: each reads back differently */
	static const char *const differ[] = { "C# # x", "#x", " x", "x ", "x\t", "a #b" };
	for (size_t i = 0; i < ARRAY_SIZE(differ); i++) {
		enum cfg_fault f = fault(CFG_FIELD_TITLE, differ[i]);
		if (f != CFG_FAULT_COMMENT && f != CFG_FAULT_EDGE_SPACE)
			fail_msg("title '%s' not refused (fault %d)", differ[i], (int)f);
		if (round_trips(differ[i], "q"))
			fail_msg("title '%s' refused but it reads back the same", differ[i]);
	}
	assert_int_equal(fault(CFG_FIELD_TITLE, ""), CFG_FAULT_EMPTY);
	assert_int_equal(fault(CFG_FIELD_TITLE, "a\nb"), CFG_FAULT_CONTROL);
	assert_int_equal(fault(CFG_FIELD_TITLE, "a\x7f"), CFG_FAULT_CONTROL);
	assert_int_equal(fault(CFG_FIELD_TITLE, "\xff"), CFG_FAULT_NOT_UTF8);
	char t80[81];
	memset(t80, 'x', 80);
	t80[80] = 0;
	assert_int_equal(fault(CFG_FIELD_TITLE, t80), CFG_FAULT_TOO_LONG);
	t80[79] = 0;
	assert_int_equal(fault(CFG_FIELD_TITLE, t80), CFG_FAULT_NONE);
	assert_true(round_trips(t80, "q"));

	/* a command line keeps '#' and any bytes; only its ends and line breaks matter */
	static const char *const cmd_good[] = { "root=/dev/sda1 # not a comment", "#x", "a #b",
						"init=/bin/sh\tquiet", "x=\xff" };
	for (size_t i = 0; i < ARRAY_SIZE(cmd_good); i++) {
		assert_int_equal(fault(CFG_FIELD_CMDLINE, cmd_good[i]), CFG_FAULT_NONE);
		if (!round_trips("t", cmd_good[i]))
			fail_msg("cmdline '%s' accepted but read back differently", cmd_good[i]);
	}
	assert_int_equal(fault(CFG_FIELD_CMDLINE, ""), CFG_FAULT_NONE);
	assert_int_equal(fault(CFG_FIELD_CMDLINE, " quiet"), CFG_FAULT_EDGE_SPACE);
	assert_false(round_trips("t", " quiet"));
	assert_int_equal(fault(CFG_FIELD_CMDLINE, "a\rb"), CFG_FAULT_CONTROL);
	char *big = malloc(CFG_CMDLINE_MAX + 1);
	memset(big, 'a', CFG_CMDLINE_MAX);
	big[CFG_CMDLINE_MAX] = 0;
	assert_int_equal(fault(CFG_FIELD_CMDLINE, big), CFG_FAULT_TOO_LONG);
	big[CFG_CMDLINE_MAX - 1] = 0;
	assert_int_equal(fault(CFG_FIELD_CMDLINE, big), CFG_FAULT_NONE);
	assert_true(round_trips("t", big));
	free(big);

	assert_int_equal(fault(CFG_FIELD_PATH, "/EFI/a b/x.efi"), CFG_FAULT_NONE);
	assert_int_equal(fault(CFG_FIELD_PATH, "/EFI/a #b.efi"), CFG_FAULT_COMMENT);
	assert_int_equal(fault(CFG_FIELD_PATH, "/EFI/\xff.efi"), CFG_FAULT_NOT_UTF8);
}

static void test_utf8(void **state)
{
	(void)state;
	size_t bad = 99;
	assert_int_equal(utf8_seq_len("a", 1), 1);
	assert_int_equal(utf8_seq_len("\xc3\xa9", 2), 2);
	assert_int_equal(utf8_seq_len("\xe2\x82\xac", 3), 3);
	assert_int_equal(utf8_seq_len("\xf0\x9f\x90\xa7", 4), 4);
	assert_int_equal(utf8_seq_len("\xf4\x8f\xbf\xbf", 4), 4);       /* U+10FFFF */
	assert_int_equal(utf8_seq_len("\xed\x9f\xbf", 3), 3);           /* U+D7FF */
	assert_int_equal(utf8_seq_len("", 0), 0);
	assert_int_equal(utf8_seq_len("\x80", 1), 0);                   /* continuation */
	assert_int_equal(utf8_seq_len("\xc0\xaf", 2), 0);               /* overlong '/' */
	assert_int_equal(utf8_seq_len("\xc1\xbf", 2), 0);
	assert_int_equal(utf8_seq_len("\xe0\x9f\xbf", 3), 0);           /* overlong */
	assert_int_equal(utf8_seq_len("\xed\xa0\x80", 3), 0);           /* surrogate U+D800 */
	assert_int_equal(utf8_seq_len("\xf0\x8f\xbf\xbf", 4), 0);       /* overlong */
	assert_int_equal(utf8_seq_len("\xf4\x90\x80\x80", 4), 0);       /* U+110000 */
	assert_int_equal(utf8_seq_len("\xf5\x80\x80\x80", 4), 0);
	assert_int_equal(utf8_seq_len("\xe2\x82", 2), 0);               /* cut short */
	assert_int_equal(utf8_seq_len("\xe2\x82\xac", 2), 0);           /* cut by n */
	assert_int_equal(utf8_seq_len("\xe2\x28\xac", 3), 0);
	assert_true(utf8_valid("caf\xc3\xa9", 5, &bad));
	assert_false(utf8_valid("caf\xc3", 4, &bad));
	assert_int_equal(bad, 3);
	assert_false(utf8_valid("ab\xff" "cd", 5, NULL));
	assert_true(utf8_valid("", 0, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_titles_and_cmdlines_round_trip),
		cmocka_unit_test(test_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
