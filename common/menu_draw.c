/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu's text (common/menu.h): the same lines on every console of both loaders. */
#include "common/menu.h"

#include "common/features.h"
#include "common/fmt.h"
#include "common/mem.h"
#include "common/str.h"

#define LINE_COLS 76   /* a line redrawn in place is padded to this, to hide the old one */

#define TITLE_COLS 60

void menu_title(const struct cfg_entry *e, char *out, size_t cols)
{
	char suf[2 * 256 + 16];
	const char *t = cfg_entry_title(e);
	size_t tl = str_len(t), sl = 0, ts = tl;

	suf[0] = 0;
	if (e->version[0])
		sl = (size_t)fmt_snprintf(suf, sizeof suf, " (%s)", e->version);
	if (e->show_file)
		sl += (size_t)fmt_snprintf(suf + sl, sizeof suf - sl, " (%s)", e->file);
	/* Too long: the title gives way, down to half the room; a suffix longer than the rest is
	 * cut at its end. (A cut may split a UTF-8 character: the consoles show one replacement
	 * character.) */
	if (tl + sl > cols)
		ts = cols - (sl < cols / 2 ? sl : cols / 2);
	fmt_snprintf(out, cols + 1, "%.*s%s", (int)ts, t, suf);
}

static void line(void (*put)(const char *), const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(void (*put)(const char *), const char *fmt, ...)
{
	char buf[LINE_COLS + 8];
	fmt_va_list ap;

	fmt_va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof buf, fmt, ap);
	fmt_va_end(ap);
	put(buf);
}

/* The edit line: a window of the command line, '<' and '>' where it goes on, the cursor put back
 * with backspaces. */
static void edit_line(const struct menu *m, void (*put)(const char *))
{
	char buf[MENU_EDIT_COLS * 2 + 8];
	unsigned n = 0, shown = m->len - m->view;

	if (shown > MENU_EDIT_COLS)
		shown = MENU_EDIT_COLS;
	buf[n++] = '\r';
	buf[n++] = m->view ? '<' : ' ';
	for (unsigned i = 0; i < shown; i++)
		buf[n++] = m->line[m->view + i];
	buf[n++] = m->view + shown < m->len ? '>' : ' ';
	for (unsigned i = shown; i < MENU_EDIT_COLS; i++)
		buf[n++] = ' ';
	buf[n] = 0;
	put(buf);
	/* The cursor is now past the marker, MENU_EDIT_COLS + 2 columns in; it belongs at
	 * column 1 + (cur - view). */
	n = 0;
	for (unsigned i = m->cur - m->view; i <= MENU_EDIT_COLS; i++)
		buf[n++] = '\b';
	buf[n] = 0;
	put(buf);
}

static void mode_line(const struct menu *m, void (*put)(const char *))
{
	char t[TITLE_COLS + 1];

	switch (m->mode) {
	case MENU_COUNTDOWN:
		if (m->wait_tenths)
			line(put, "\rbooting %u) in %u s; press a key for the menu ", m->def + 1, m->left);
		break;
	case MENU_CHOOSE:
		menu_title(&m->cfg->entries[m->sel], t, TITLE_COLS);
		line(put, "\rselected: %u) %-60s", m->sel + 1, t);
		break;
	case MENU_EDIT:
		edit_line(m, put);
		break;
	}
}

/* What follows a row's title: where it does not run, or that its boot counter (a file's, or an
 * anysector.cfg entry's "tries") has no tries left (the legacy-gap stage2 leaves that word out:
 * its size). */
static const char *row_note(const struct menu *m, const struct cfg_entry *e)
{
	if (!cfg_entry_runs_on(e, m->fw))
		return m->fw == CFG_FW_UEFI ? " (BIOS only)" : " (UEFI only)";
	return FEATURE_BOOT_STATE && !e->tries_left ? " (failed)" : "";
}

static void header(const struct menu *m, void (*put)(const char *))
{
	const struct cfg *c = m->cfg;
	char t[TITLE_COLS + 1];

	put("\nanysector boot menu\n");
	for (unsigned i = 0; i < c->nentries; i++) {
		menu_title(&c->entries[i], t, TITLE_COLS);
		line(put, " %c %u) %s%s\n", i == m->def ? '*' : ' ', i + 1, t,
		     row_note(m, &c->entries[i]));
	}
	/* the owner's default names nothing: said, not silently replaced */
	if (cfg_default_missing(c))
		line(put, "default '%.40s' names no entry: * marks what boots\n", c->default_name);
	if (m->note)
		line(put, "%.70s\n", m->note);
	if (m->mode == MENU_CHOOSE)
		line(put, "waiting for a key: 1-%u or Up/Down and Enter boot an entry%s; Esc leaves\n",
		     c->nentries < 9 ? c->nentries : 9, m->editor ? ", e edits it" : "");
	else if (m->mode == MENU_EDIT)
		line(put, "editing %u)'s command line: Enter boots it once, Esc goes back\n", m->sel + 1);
}

void menu_draw(const struct menu *m, enum menu_action a, void (*put)(const char *text))
{
	switch (a) {
	case MENU_SHOW:
		header(m, put);
		mode_line(m, put);
		break;
	case MENU_SHOW_LINE:
		mode_line(m, put);
		break;
	case MENU_NOTE:
		line(put, "\n%.70s\n", m->note);
		mode_line(m, put);
		break;
	case MENU_BOOT:
	case MENU_LEAVE:
		put("\n");
		break;
	case MENU_NONE:
		break;
	}
}
