/* SPDX-License-Identifier: BSD-2-Clause */
#include "common/menu.h"

#include "common/mem.h"
#include "common/str.h"

static const struct cfg_entry *entry(const struct menu *m, unsigned i)
{
	return &m->cfg->entries[i];
}

/* Boots entry i once with cmdline (NULL: its own), unless this firmware cannot start it. */
static enum menu_action boot(struct menu *m, unsigned i, const char *cmdline)
{
	m->sel = i;
	if (!cfg_entry_runs_on(entry(m, i), m->fw)) {
		m->note = m->fw == CFG_FW_UEFI ? "that entry cannot be started under UEFI"
					       : "that entry cannot be started under BIOS";
		return MENU_NOTE;
	}
	m->boot = i;
	m->cmdline = cmdline ? cmdline : entry(m, i)->cmdline;
	return MENU_BOOT;
}

enum menu_action menu_start(struct menu *m, const struct cfg *c, enum cfg_firmware fw, bool editor,
			    bool countdown)
{
	int def = cfg_default_index(c);

	memset(m, 0, sizeof *m);
	m->cfg = c;
	m->fw = fw;
	m->editor = editor;
	m->def = m->sel = def > 0 ? (unsigned)def : 0;
	m->mode = countdown && cfg_entry_runs_on(entry(m, m->def), fw) ? MENU_COUNTDOWN : MENU_CHOOSE;
	m->wait_tenths = c->timeout * 10u;
	m->left = c->timeout;
	return MENU_SHOW;
}

enum menu_action menu_time(struct menu *m, uint32_t tenths)
{
	if (m->mode != MENU_COUNTDOWN)
		return MENU_NONE;
	if (tenths >= m->wait_tenths)
		return boot(m, m->def, NULL);
	/* whole seconds rounded up; not DIV_ROUND_UP, which packs 4 bytes larger into stage2 */
	unsigned left = (m->wait_tenths - tenths + 9) / 10;
	if (left == m->left)
		return MENU_NONE;
	m->left = left;
	return MENU_SHOW_LINE;
}

static enum menu_action edit_start(struct menu *m)
{
	if (!m->editor) {
		/* off by the config, or by Secure Boot (cfg_editor_allowed) */
		m->note = m->cfg->editor == CFG_EDITOR_OFF ?
			"editing is turned off (anysector.cfg: editor off)" :
			"editing is off under Secure Boot (anysector.cfg: editor on allows it)";
		return MENU_NOTE;
	}
	if (!cfg_entry_runs_on(entry(m, m->sel), m->fw))
		return boot(m, m->sel, NULL);   /* says why not */
	str_copy(m->line, sizeof m->line, entry(m, m->sel)->cmdline);
	m->len = m->cur = (unsigned)str_len(m->line);
	m->view = m->cur > MENU_EDIT_COLS ? m->cur - MENU_EDIT_COLS : 0;
	m->mode = MENU_EDIT;
	return MENU_SHOW;
}

static enum menu_action choose_key(struct menu *m, int key)
{
	unsigned n = m->cfg->nentries, was = m->sel;

	switch (key) {
	case KEY_UP:
		if (m->sel)
			m->sel--;
		break;
	case KEY_DOWN:
		if (m->sel + 1 < n)
			m->sel++;
		break;
	case KEY_HOME:
		m->sel = 0;
		break;
	case KEY_END:
		m->sel = n - 1;
		break;
	case KEY_ENTER:
		return boot(m, m->sel, NULL);
	case KEY_ESC:
		return MENU_LEAVE;
	case 'e':
	case 'E':
		return edit_start(m);
	default:
		if (key >= '1' && key <= '9' && (unsigned)(key - '1') < n)
			return boot(m, (unsigned)(key - '1'), NULL);
		return MENU_NONE;
	}
	return m->sel == was ? MENU_NONE : MENU_SHOW_LINE;
}

static enum menu_action edit_key(struct menu *m, int key)
{
	char *l = m->line;

	switch (key) {
	case KEY_ESC:
		m->mode = MENU_CHOOSE;
		return MENU_SHOW;
	case KEY_ENTER:
		return boot(m, m->sel, l);
	case KEY_LEFT:
		if (!m->cur)
			return MENU_NONE;
		m->cur--;
		break;
	case KEY_RIGHT:
		if (m->cur == m->len)
			return MENU_NONE;
		m->cur++;
		break;
	case KEY_HOME:
		m->cur = 0;
		break;
	case KEY_END:
		m->cur = m->len;
		break;
	case KEY_BACKSPACE:
		if (!m->cur)
			return MENU_NONE;
		m->cur--;
		__attribute__((fallthrough)); /* delete what is now under the cursor */
	case KEY_DELETE:
		if (m->cur == m->len)
			return MENU_NONE;
		memmove(l + m->cur, l + m->cur + 1, m->len - m->cur);   /* with the NUL */
		m->len--;
		break;
	default:
		if (key < 0x20 || key > 0x7E || m->len + 1 >= sizeof m->line)
			return MENU_NONE;
		memmove(l + m->cur + 1, l + m->cur, m->len - m->cur + 1);
		l[m->cur++] = (char)key;
		m->len++;
		break;
	}
	/* Keep the cursor inside the window of MENU_EDIT_COLS characters. */
	if (m->cur < m->view)
		m->view = m->cur;
	else if (m->cur > m->view + MENU_EDIT_COLS)
		m->view = m->cur - MENU_EDIT_COLS;
	return MENU_SHOW_LINE;
}

enum menu_action menu_key(struct menu *m, int key)
{
	enum menu_action a;

	if (key == KEY_NONE)
		return MENU_NONE;
	m->note = 0;
	if (m->mode == MENU_EDIT)
		return edit_key(m, key);
	if (m->mode == MENU_CHOOSE)
		return choose_key(m, key);
	/* The key that stops the countdown counts as a key of the menu (a note then comes with the
	 * whole menu, which the countdown never showed in choosing mode). */
	m->mode = MENU_CHOOSE;
	a = choose_key(m, key);
	return a == MENU_NONE || a == MENU_SHOW_LINE || a == MENU_NOTE ? MENU_SHOW : a;
}

enum menu_action menu_key_locked(struct menu *m, int key, bool locked)
{
	enum menu_action a = menu_key(m, key);
	if (locked && a == MENU_NOTE && m->note && !str_ncmp(m->note, "editing is", 10))
		m->note = "editing is off: anysector.cfg is locked (its SHA-256 is in BOOTX64.EFI)";
	return a;
}
