/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu's text (common/menu.h): the same lines on every console of both loaders. */
#include "common/menu.h"

#include "common/fmt.h"

#define LINE_COLS 76   /* a line redrawn in place is padded to this, to hide the old one */

static const char *title_of(const struct cfg_entry *e)
{
	return e->title[0] ? e->title : e->name;
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
	const struct cfg_entry *e = &m->cfg->entries[m->sel];

	switch (m->mode) {
	case MENU_COUNTDOWN:
		if (m->wait_tenths)
			line(put, "\rbooting %u) in %u s; press a key for the menu ", m->def + 1, m->left);
		break;
	case MENU_CHOOSE:
		line(put, "\rselected: %u) %-60.60s", m->sel + 1, title_of(e));
		break;
	case MENU_EDIT:
		edit_line(m, put);
		break;
	}
}

static void header(const struct menu *m, void (*put)(const char *))
{
	const struct cfg *c = m->cfg;

	put("\nanysector boot menu\n");
	for (unsigned i = 0; i < c->nentries; i++)
		line(put, " %c %u) %.60s%s\n", i == m->def ? '*' : ' ', i + 1,
		     title_of(&c->entries[i]),
		     cfg_entry_runs_on(&c->entries[i], m->fw) ? ""
		     : m->fw == CFG_FW_UEFI ? " (BIOS only)" : " (UEFI only)");
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
