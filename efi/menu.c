/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu under UEFI: common/menu.c decides, this file reads ConIn, counts tenths of a
 * second with a timer, draws on ConOut (mirrored to serial) and boots through efi/boot.c. */
#include "efi/menu.h"

#include "common/bootcount.h"
#include "common/errors.h"
#include "common/menu.h"
#include "efi/bli.h"
#include "efi/boot.h"
#include "efi/cfglock.h"
#include "efi/rename.h"
#include "efi/secureboot.h"

EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, struct bstate_io *state,
		    struct diag *d)
{
	struct menu *m = efi_alloc(sizeof *m);
	enum menu_action a;
	uint32_t tenths = 0;
	bool counted = false;
	/* Under Secure Boot an edited command line could undo the kernel's lockdown or init: the
	 * editor is off unless the config says "editor on"; under a lock it is off whatever the
	 * config says. */
	struct cfg_lock lock;
	cfglock_get(&lock);
	bool editor = !lock.locked && cfg_editor_allowed(c, sb_enabled());

	if (!m)
		return EFI_OUT_OF_RESOURCES;
	/* The firmware arms a 5-minute watchdog for boot options; a menu may wait longer. */
	g_bs->SetWatchdogTimer(0, 0, 0, NULL);
	con_flush_keys();
	a = menu_start(m, c, CFG_FW_UEFI, editor, true);
	for (;;) {
		menu_draw(m, a, con_puts);
		if (a == MENU_LEAVE) {
			efi_free(m);
			return EFI_ABORTED;
		}
		if (a == MENU_BOOT) {
			unsigned i = m->boot;
			if (state) {
				bli_selected(&c->entries[i]);
				bootcount_before(c, i, state, BSTATE_FW_UEFI);
				/* one try per start of the loader: a boot that comes back failed
				 * was not the kernel's failure, and its file has a new name */
				if (!counted)
					bootvol_count_try(v, &c->entries[i], d);
				counted = true;
			}
			int rc = boot_entry(v, &c->entries[i], m->cmdline, d);
			/* Only a failed boot comes back; never the same entry again by itself. */
			con_printf("booting %u) failed: %s\n", i + 1, as_strerror(rc));
			a = menu_start(m, c, CFG_FW_UEFI, editor, false);
			continue;
		}
		/* A countdown already over ("timeout 0") boots at once, as stage2 does: a key typed
		 * by now still stops it, but waiting a tenth for one cost 0.1 s of every boot. */
		bool over = m->mode == MENU_COUNTDOWN && tenths >= m->wait_tenths;
		int key = over ? con_poll_key() : con_wait_key(m->mode == MENU_COUNTDOWN ? 1 : 0);
		a = key ? menu_key_locked(m, key, lock.locked) : menu_time(m, over ? tenths : ++tenths);
	}
}
