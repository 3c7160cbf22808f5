/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu's state machine (common/menu.c) and its text (common/menu_draw.c), driven with
 * key sequences and clock ticks as the loaders feed them: the countdown and the key that stops
 * it, selection without wrap-around, digits, Home/End, Enter, Esc, the editor (insert, move,
 * delete, the window over a long line, the edited line booted once and the config untouched),
 * the editor key, and what the console shows. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <string.h>

#include "common/menu.h"

static const char cfg_text[] =
	"timeout 3\n"
	"default two\n"
	"entry one\n  title First\n  kernel /one\n  cmdline root=/dev/sda1 quiet\n"
	"entry two\n  title Second\n  kernel /two\n  cmdline console=ttyS0\n"
	"entry three\n  kernel /three\n";

static struct cfg cfg;
static char screen[16384];

static void put(const char *s)
{
	strncat(screen, s, sizeof screen - strlen(screen) - 1);
}

static void parse(const char *text)
{
	assert_int_equal(cfg_parse(text, strlen(text), &cfg, NULL), 0);
}

static int setup(void **state)
{
	(void)state;
	parse(cfg_text);
	screen[0] = 0;
	return 0;
}

/* Feeds keys; returns the last action. */
static enum menu_action keys(struct menu *m, const int *k, unsigned n)
{
	enum menu_action a = MENU_NONE;
	for (unsigned i = 0; i < n; i++) {
		a = menu_key(m, k[i]);
		menu_draw(m, a, put);
	}
	return a;
}
#define KEYS(m, ...) keys((m), (const int[]){ __VA_ARGS__ }, sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

static void type(struct menu *m, const char *s)
{
	for (; *s; s++)
		assert_int_equal(menu_key(m, *s), MENU_SHOW_LINE);
}

static void test_countdown_boots_default(void **state)
{
	(void)state;
	struct menu m;
	assert_int_equal(menu_start(&m, &cfg, CFG_FW_BIOS, true, true), MENU_SHOW);
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, "\nanysector boot menu\n   1) First\n * 2) Second\n   3) three\n"));
	assert_non_null(strstr(screen, "\rbooting 2) in 3 s; press a key for the menu "));
	assert_int_equal(menu_time(&m, 1), MENU_NONE);
	assert_int_equal(menu_time(&m, 9), MENU_NONE);     /* 2.1 s left: still "3 s" */
	assert_int_equal(menu_time(&m, 10), MENU_SHOW_LINE);
	assert_int_equal(m.left, 2);
	assert_int_equal(menu_time(&m, 15), MENU_NONE);
	assert_int_equal(menu_time(&m, 25), MENU_SHOW_LINE);
	assert_int_equal(m.left, 1);
	assert_int_equal(menu_time(&m, 29), MENU_NONE);
	assert_int_equal(menu_time(&m, 30), MENU_BOOT);
	assert_int_equal(m.boot, 1);
	assert_string_equal(m.cmdline, "console=ttyS0");
}

static void test_timeout_zero_boots_at_once(void **state)
{
	(void)state;
	struct menu m;
	parse("timeout 0\nentry a\n kernel /a\n cmdline x\n");
	assert_int_equal(menu_start(&m, &cfg, CFG_FW_UEFI, true, true), MENU_SHOW);
	menu_draw(&m, MENU_SHOW, put);
	assert_null(strstr(screen, "booting 1) in"));    /* no countdown line */
	assert_int_equal(menu_time(&m, 0), MENU_BOOT);
	assert_int_equal(m.boot, 0);
	/* without the countdown (after a failed boot) the same menu waits */
	assert_int_equal(menu_start(&m, &cfg, CFG_FW_UEFI, true, false), MENU_SHOW);
	assert_int_equal(menu_time(&m, 1000), MENU_NONE);
	assert_int_equal(m.mode, MENU_CHOOSE);
}

/* The key that stops the countdown counts. */
static void test_key_stops_countdown_and_counts(void **state)
{
	(void)state;
	struct menu m;
	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, KEY_DOWN), MENU_SHOW);
	assert_int_equal(m.mode, MENU_CHOOSE);
	assert_int_equal(m.sel, 2);
	assert_int_equal(menu_time(&m, 1000), MENU_NONE);   /* the countdown is over */

	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, '1'), MENU_BOOT);
	assert_int_equal(m.boot, 0);

	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, 'x'), MENU_SHOW);       /* any key: the menu, waiting */
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, "waiting for a key: 1-3 or Up/Down and Enter boot an entry, "
				       "e edits it; Esc leaves\n\rselected: 2) Second"));

	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, 'e'), MENU_SHOW);
	assert_int_equal(m.mode, MENU_EDIT);
	assert_string_equal(m.line, "console=ttyS0");

	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, KEY_ESC), MENU_LEAVE);
	menu_start(&m, &cfg, CFG_FW_BIOS, true, true);
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_BOOT);
	assert_int_equal(m.boot, 1);
}

static void test_choose_keys(void **state)
{
	(void)state;
	struct menu m;
	menu_start(&m, &cfg, CFG_FW_UEFI, true, false);
	assert_int_equal(m.sel, 1);
	assert_int_equal(menu_key(&m, KEY_UP), MENU_SHOW_LINE);
	assert_int_equal(m.sel, 0);
	assert_int_equal(menu_key(&m, KEY_UP), MENU_NONE);     /* no wrap-around */
	assert_int_equal(m.sel, 0);
	assert_int_equal(menu_key(&m, KEY_END), MENU_SHOW_LINE);
	assert_int_equal(m.sel, 2);
	assert_int_equal(menu_key(&m, KEY_DOWN), MENU_NONE);
	assert_int_equal(menu_key(&m, KEY_HOME), MENU_SHOW_LINE);
	assert_int_equal(m.sel, 0);
	assert_int_equal(menu_key(&m, KEY_DOWN), MENU_SHOW_LINE);
	menu_draw(&m, MENU_SHOW_LINE, put);
	assert_non_null(strstr(screen, "\rselected: 2) Second"));
	assert_int_equal(menu_key(&m, '4'), MENU_NONE);       /* no entry 4 */
	assert_int_equal(menu_key(&m, '0'), MENU_NONE);
	assert_int_equal(menu_key(&m, KEY_LEFT), MENU_NONE);
	assert_int_equal(menu_key(&m, KEY_NONE), MENU_NONE);
	assert_int_equal(menu_key(&m, '3'), MENU_BOOT);
	assert_int_equal(m.boot, 2);
	assert_string_equal(m.cmdline, "");
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_BOOT);
	assert_int_equal(m.boot, 2);                           /* the digit moved the selection */
	assert_int_equal(menu_key(&m, KEY_ESC), MENU_LEAVE);
}

static void test_edit_and_boot_once(void **state)
{
	(void)state;
	struct menu m;
	menu_start(&m, &cfg, CFG_FW_BIOS, true, false);
	KEYS(&m, KEY_UP);
	assert_int_equal(menu_key(&m, 'e'), MENU_SHOW);
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, "editing 1)'s command line: Enter boots it once, Esc goes back\n"));
	assert_int_equal(m.cur, strlen("root=/dev/sda1 quiet"));   /* the cursor at the end */
	type(&m, " single");
	assert_string_equal(m.line, "root=/dev/sda1 quiet single");
	KEYS(&m, KEY_HOME, KEY_DELETE, KEY_DELETE, KEY_DELETE, KEY_DELETE, KEY_DELETE);
	assert_string_equal(m.line, "/dev/sda1 quiet single");
	type(&m, "ro ");
	KEYS(&m, KEY_END, KEY_BACKSPACE, KEY_BACKSPACE, KEY_LEFT, KEY_LEFT, KEY_BACKSPACE);
	assert_string_equal(m.line, "ro /dev/sda1 quiet sng");
	assert_int_equal(m.cur, strlen("ro /dev/sda1 quiet s"));
	KEYS(&m, KEY_RIGHT, KEY_RIGHT);
	assert_int_equal(menu_key(&m, KEY_RIGHT), MENU_NONE);  /* at the end */
	KEYS(&m, KEY_HOME);
	assert_int_equal(menu_key(&m, KEY_LEFT), MENU_NONE);
	assert_int_equal(menu_key(&m, KEY_BACKSPACE), MENU_NONE);
	assert_int_equal(menu_key(&m, 0x01), MENU_NONE);       /* not printable */
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_BOOT);
	assert_int_equal(m.boot, 0);
	assert_string_equal(m.cmdline, "ro /dev/sda1 quiet sng");
	/* not saved: the entry keeps its line, and a new edit starts from it */
	assert_string_equal(cfg.entries[0].cmdline, "root=/dev/sda1 quiet");
	menu_start(&m, &cfg, CFG_FW_BIOS, true, false);
	KEYS(&m, KEY_UP, 'e');
	assert_string_equal(m.line, "root=/dev/sda1 quiet");
	/* Esc goes back to the menu; Enter there boots the entry's own line */
	type(&m, "xyz");
	assert_int_equal(menu_key(&m, KEY_ESC), MENU_SHOW);
	assert_int_equal(m.mode, MENU_CHOOSE);
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_BOOT);
	assert_string_equal(m.cmdline, "root=/dev/sda1 quiet");
	/* digits and 'e' are text in the editor */
	KEYS(&m, 'e');
	type(&m, "1e");
	assert_string_equal(m.line, "root=/dev/sda1 quiet1e");
}

static void test_edit_line_drawing(void **state)
{
	(void)state;
	struct menu m;
	menu_start(&m, &cfg, CFG_FW_BIOS, true, false);
	KEYS(&m, KEY_DOWN, 'e');      /* entry 3: an empty line */
	screen[0] = 0;
	type(&m, "ab");
	KEYS(&m, KEY_LEFT);
	screen[0] = 0;
	menu_draw(&m, MENU_SHOW_LINE, put);
	/* "\r", no left marker, the text, no right marker, padding, then back to column 2 */
	char want[200];
	int n = snprintf(want, sizeof want, "\r ab %*s", MENU_EDIT_COLS - 2, "");
	for (int i = 1; i <= MENU_EDIT_COLS; i++)
		want[n++] = '\b';
	want[n] = 0;
	assert_string_equal(screen, want);
}

/* A line longer than the window: the window follows the cursor, with markers. */
static void test_edit_long_line(void **state)
{
	(void)state;
	struct menu m;
	char text[CFG_CMDLINE_MAX + 64];
	memset(text, 'a', 200);
	text[200] = 0;
	char cfgtext[1200];
	snprintf(cfgtext, sizeof cfgtext, "entry a\n kernel /a\n cmdline %s\n", text);
	parse(cfgtext);
	menu_start(&m, &cfg, CFG_FW_BIOS, true, false);
	KEYS(&m, 'e');
	assert_int_equal(m.cur, 200);
	assert_int_equal(m.view, 200 - MENU_EDIT_COLS);
	screen[0] = 0;
	menu_draw(&m, MENU_SHOW_LINE, put);
	assert_int_equal(screen[1], '<');
	KEYS(&m, KEY_HOME);
	assert_int_equal(m.view, 0);
	screen[0] = 0;
	menu_draw(&m, MENU_SHOW_LINE, put);
	assert_int_equal(screen[1], ' ');
	assert_int_equal(screen[2 + MENU_EDIT_COLS], '>');
	for (unsigned i = 0; i < MENU_EDIT_COLS + 5; i++)
		KEYS(&m, KEY_RIGHT);
	assert_int_equal(m.view, 5);
	/* the line fills up to CFG_CMDLINE_MAX - 1 characters and no further */
	KEYS(&m, KEY_END);
	for (unsigned i = 200; i < CFG_CMDLINE_MAX - 1; i++)
		assert_int_equal(menu_key(&m, 'b'), MENU_SHOW_LINE);
	assert_int_equal(menu_key(&m, 'b'), MENU_NONE);
	assert_int_equal(m.len, CFG_CMDLINE_MAX - 1);
	assert_int_equal(strlen(m.line), CFG_CMDLINE_MAX - 1);
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_BOOT);
	assert_int_equal(strlen(m.cmdline), CFG_CMDLINE_MAX - 1);
}

/* "editor off", "editor on", unset; and what Secure Boot will change. */
static void test_editor_key(void **state)
{
	(void)state;
	struct menu m;
	parse("editor off\nentry a\n kernel /a\n");
	assert_int_equal(cfg.editor, CFG_EDITOR_OFF);
	assert_false(cfg_editor_allowed(&cfg, false));
	menu_start(&m, &cfg, CFG_FW_BIOS, cfg_editor_allowed(&cfg, false), false);
	assert_int_equal(menu_key(&m, 'e'), MENU_NOTE);
	assert_int_equal(m.mode, MENU_CHOOSE);
	menu_draw(&m, MENU_NOTE, put);
	assert_non_null(strstr(screen, "\nediting is turned off (anysector.cfg: editor off)\n\rselected: 1)"));
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, "waiting for a key: 1-1 or Up/Down and Enter boot an entry; Esc"));
	/* during the countdown: the note comes with the whole menu */
	menu_start(&m, &cfg, CFG_FW_BIOS, false, true);
	assert_int_equal(menu_key(&m, 'e'), MENU_SHOW);
	assert_non_null(m.note);

	parse("editor on\nentry a\n kernel /a\n");
	assert_int_equal(cfg.editor, CFG_EDITOR_ON);
	assert_true(cfg_editor_allowed(&cfg, true));
	parse("entry a\n kernel /a\n");
	assert_int_equal(cfg.editor, CFG_EDITOR_UNSET);
	assert_true(cfg_editor_allowed(&cfg, false));
	assert_false(cfg_editor_allowed(&cfg, true));
	/* unset and Secure Boot on: off, and the note says why */
	menu_start(&m, &cfg, CFG_FW_UEFI, cfg_editor_allowed(&cfg, true), false);
	assert_int_equal(menu_key(&m, 'e'), MENU_NOTE);
	screen[0] = 0;
	menu_draw(&m, MENU_NOTE, put);
	assert_non_null(strstr(screen, "\nediting is off under Secure Boot (anysector.cfg: "
				       "editor on allows it)\n"));
}

/* Entries the firmware cannot start: listed as such, never booted, no countdown to them. */
static void test_unavailable_entries(void **state)
{
	(void)state;
	struct menu m;
	parse("timeout 5\ndefault dos\nentry lin\n kernel /k\nentry dos\n chainload 1\n"
	      "entry win\n efi /w.efi\n");
	assert_int_equal(menu_start(&m, &cfg, CFG_FW_UEFI, true, true), MENU_SHOW);
	assert_int_equal(m.mode, MENU_CHOOSE);               /* no countdown to entry 2 */
	assert_int_equal(menu_time(&m, 100), MENU_NONE);
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, " * 2) dos (BIOS only)\n   3) win\n"));
	assert_int_equal(menu_key(&m, '2'), MENU_NOTE);
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_NOTE);
	assert_int_equal(menu_key(&m, 'e'), MENU_NOTE);
	assert_non_null(strstr(m.note, "cannot be started under UEFI"));
	assert_int_equal(menu_key(&m, '3'), MENU_BOOT);
	assert_int_equal(m.boot, 2);

	screen[0] = 0;
	assert_int_equal(menu_start(&m, &cfg, CFG_FW_BIOS, true, true), MENU_SHOW);
	assert_int_equal(m.mode, MENU_COUNTDOWN);
	menu_draw(&m, MENU_SHOW, put);
	assert_non_null(strstr(screen, " * 2) dos\n   3) win (UEFI only)\n"));
	assert_int_equal(menu_key(&m, '3'), MENU_SHOW);      /* stops the countdown, with a note */
	assert_non_null(strstr(m.note, "cannot be started under BIOS"));
	assert_int_equal(m.sel, 2);                           /* the digit still selects it */
	assert_int_equal(menu_key(&m, KEY_ENTER), MENU_NOTE);
	assert_int_equal(menu_key(&m, KEY_HOME), MENU_SHOW_LINE);
	assert_int_equal(menu_key(&m, '2'), MENU_BOOT);
	assert_int_equal(m.boot, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_countdown_boots_default, setup),
		cmocka_unit_test_setup(test_timeout_zero_boots_at_once, setup),
		cmocka_unit_test_setup(test_key_stops_countdown_and_counts, setup),
		cmocka_unit_test_setup(test_choose_keys, setup),
		cmocka_unit_test_setup(test_edit_and_boot_once, setup),
		cmocka_unit_test_setup(test_edit_line_drawing, setup),
		cmocka_unit_test_setup(test_edit_long_line, setup),
		cmocka_unit_test_setup(test_editor_key, setup),
		cmocka_unit_test_setup(test_unavailable_entries, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
