/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu as a state machine, shared by stage2 and BOOTX64.EFI: it is fed keys
 * (common/keys.h) and the time, and answers with what to draw or do. The loaders only read keys,
 * draw (menu_draw, through their console) and boot; so both menus behave alike, and the host
 * tests drive this with key sequences (tests/unit/test_menu.c).
 *
 * Modes: a countdown to the default entry, which any key stops (and that key counts: a digit
 * boots, Down moves, e edits, Esc leaves); choosing; editing the selected entry's command line.
 *   choosing  Up/Down move (no wrap-around), Home/End go to the first/last entry, 1..9 boot that
 *             entry, Enter boots the selected one, e edits it, Esc leaves to the firmware;
 *   editing   printable characters insert at the cursor, Left/Right/Home/End move, Backspace
 *             and Delete delete, Enter boots the entry once with the edited line (the config is
 *             not changed), Esc goes back to choosing.
 * An entry this firmware cannot start is listed as unavailable and never booted. */
#ifndef ANYSECTOR_MENU_H
#define ANYSECTOR_MENU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/keys.h"

#define MENU_EDIT_COLS 64   /* characters of the command line shown at once */

enum menu_mode {
	MENU_COUNTDOWN,
	MENU_CHOOSE,
	MENU_EDIT,
};

/* What the loader must do after a call. */
enum menu_action {
	MENU_NONE,          /* nothing changed */
	MENU_SHOW,          /* draw the whole menu (and m->note, when set) and the line of the
			     * current mode */
	MENU_SHOW_LINE,     /* redraw the current mode's line in place (countdown, selection,
			     * edit line) */
	MENU_NOTE,          /* say m->note on its own line, then the mode's line again */
	MENU_BOOT,          /* start entry m->boot with the command line m->cmdline */
	MENU_LEAVE,         /* return to the firmware */
};

struct menu {
	const struct cfg *cfg;
	enum cfg_firmware fw;
	bool editor;                  /* editing allowed (cfg_editor_allowed) */
	enum menu_mode mode;
	unsigned sel;                 /* the highlighted entry */
	unsigned def;                 /* the default entry */
	uint32_t wait_tenths;         /* the countdown, in tenths of a second */
	unsigned left;                /* whole seconds the countdown line shows */
	/* editing */
	char line[CFG_CMDLINE_MAX];
	unsigned len, cur, view;      /* length, cursor, first column shown */
	/* results */
	unsigned boot;
	const char *cmdline;
	const char *note;
};

/* Starts the menu with the default entry selected. With countdown (the first showing after the
 * loader started) the config's timeout runs: 0 boots the default at once (MENU_BOOT); otherwise
 * MENU_SHOW. A default this firmware cannot start gets no countdown. */
enum menu_action menu_start(struct menu *m, const struct cfg *c, enum cfg_firmware fw, bool editor,
			    bool countdown);

enum menu_action menu_key(struct menu *m, int key);
/* menu_key under a lock (locked: common/cfg_lock.h), whose editor is off: its note names the
 * lock, not Secure Boot or the config's editor line, which do not decide it then. */
enum menu_action menu_key_locked(struct menu *m, int key, bool locked);

/* Time since menu_start, in tenths of a second: the countdown's clock. */
enum menu_action menu_time(struct menu *m, uint32_t tenths);

/* The title the menu shows for e in at most cols bytes (out holds cols + 1): cfg_entry_title,
 * then " (version)" when it has one and " (file)" when e->show_file. What does not fit is cut
 * from the title first, so the part that tells two entries apart stays. */
void menu_title(const struct cfg_entry *e, char *out, size_t cols);

/* Draws what an action asks for (menu_start's or menu_key's or menu_time's) as text: lines end
 * in "\n", a line redrawn in place starts with "\r", and the edit line puts the cursor back with
 * "\b", so any console that knows CR, LF and BS shows it (VGA text, a serial terminal, ConOut).
 * put gets pieces of at most a line. */
void menu_draw(const struct menu *m, enum menu_action a, void (*put)(const char *text));

#endif
