#include "efi/menu.h"

#include "efi/boot.h"

static void show(const struct cfg *c, int sel)
{
	con_puts("\nanysector boot menu\n");
	for (unsigned i = 0; i < c->nentries; i++) {
		const struct cfg_entry *e = &c->entries[i];
		con_printf("%s %u. %s\n", (int)i == sel ? ">" : " ", i + 1,
			   e->title[0] ? e->title : e->name);
	}
}

/* Counts down from the configured timeout; returns the key that stopped it, KEY_NONE when it ran
 * out. */
static int countdown(const struct cfg *c, int sel)
{
	const struct cfg_entry *e = &c->entries[sel];
	int key = KEY_NONE;
	for (unsigned left = c->timeout; left && key == KEY_NONE; left--) {
		con_printf("\rBooting %s in %u s; press any key for the menu. ", e->name, left);
		key = con_wait_key(10);
	}
	con_puts("\n");
	return key;
}

EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, struct diag *d)
{
	int sel = cfg_default_index(c);
	int n = (int)c->nentries;

	if (sel < 0)
		return EFI_NOT_FOUND;
	/* The firmware arms a 5-minute watchdog for boot options; a menu may wait longer. */
	g_bs->SetWatchdogTimer(0, 0, 0, NULL);
	con_flush_keys();
	show(c, sel);
	/* The key that stops the countdown already counts: Down moves, a number or Enter boots. */
	int key = c->timeout ? countdown(c, sel) : KEY_NONE;
	bool go = key == KEY_NONE;
	for (;;) {
		if (key == KEY_ESC)
			return EFI_ABORTED;
		if (key == KEY_UP)
			sel = (sel + n - 1) % n;
		else if (key == KEY_DOWN)
			sel = (sel + 1) % n;
		else if (key >= '1' && key <= '9' && key - '1' < n) {
			sel = key - '1';
			go = true;
		}
		else if (key == KEY_ENTER)
			go = true;
		if (go) {
			boot_entry(v, &c->entries[sel], d);
			con_puts("Press any key to return to the menu.\n");
			con_wait_key(0);
			go = false;
		}
		show(c, sel);
		con_puts("Up/Down and Enter, or the entry's number; Esc leaves.\n");
		key = con_wait_key(0);
	}
}
