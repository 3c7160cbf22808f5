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

/* Counts down from the configured timeout; true when it ran out with no key pressed. */
static bool countdown(const struct cfg *c, int sel)
{
	const struct cfg_entry *e = &c->entries[sel];
	for (unsigned left = c->timeout; left; left--) {
		con_printf("\rBooting %s in %u s; press any key for the menu. ", e->name, left);
		if (con_wait_key(10) != KEY_NONE) {
			con_puts("\n");
			return false;
		}
	}
	con_puts("\n");
	return true;
}

EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, struct diag *d)
{
	int sel = cfg_default_index(c);
	bool timed = true;
	int n = (int)c->nentries;

	if (sel < 0)
		return EFI_NOT_FOUND;
	/* The firmware arms a 5-minute watchdog for boot options; a menu may wait longer. */
	g_bs->SetWatchdogTimer(0, 0, 0, NULL);
	con_flush_keys();
	for (;;) {
		show(c, sel);
		bool go = timed && (c->timeout == 0 || countdown(c, sel));
		timed = false;
		if (!go) {
			con_puts("Up/Down and Enter, or the entry's number; Esc leaves.\n");
			int k = con_wait_key(0);
			if (k == KEY_ESC)
				return EFI_ABORTED;
			if (k == KEY_UP)
				sel = (sel + n - 1) % n;
			else if (k == KEY_DOWN)
				sel = (sel + 1) % n;
			else if (k >= '1' && k <= '9' && k - '1' < n)
				sel = k - '1', go = true;
			else if (k == KEY_ENTER)
				go = true;
		}
		if (!go)
			continue;
		boot_entry(v, &c->entries[sel], d);
		con_puts("Press any key to return to the menu.\n");
		con_wait_key(0);
	}
}
