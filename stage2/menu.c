/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu under BIOS: common/menu.c decides, this file reads keys and the BIOS clock,
 * draws on the console (VGA text and COM1) and leaves through int 18h. */
#include "stage2/menu.h"

#include "common/features.h"
#include "common/menu.h"
#include "stage2/bioscall.h"
#include "stage2/bootvol.h"
#include "stage2/console.h"

#define TICKS_PER_10S 182u   /* the BIOS timer runs at 18.2 Hz */

static struct menu m;

int menu_choose(const struct cfg *c, bool countdown, const char **cmdline)
{
	/* under a lock the editor is off, as in BOOTX64.EFI (common/cfg_lock.h) */
	bool locked = FEATURE_CFG_LOCK && bootvol_lock()->locked;
	enum menu_action a = menu_start(&m, c, CFG_FW_BIOS, !locked && cfg_editor_allowed(c, false),
					countdown);
	uint32_t start = con_ticks();

	for (;;) {
		menu_draw(&m, a, con_write);
		if (a == MENU_BOOT) {
			*cmdline = m.cmdline;
			return (int)m.boot;
		}
		if (a == MENU_LEAVE) {
			/* The BIOS's "boot failed, try the next device"; it returns only if it has none. */
			struct biosregs r;
			initregs(&r);
			bios_call(0x18, &r, &r);
			a = MENU_SHOW;
			continue;
		}
		int key = con_getkey();
		a = FEATURE_CFG_LOCK ? menu_key_locked(&m, key, locked) : menu_key(&m, key);
		if (a == MENU_NONE) {
			uint32_t now = con_ticks();
			if (now < start)          /* midnight rollover: count from here */
				start = now;
			a = menu_time(&m, (now - start) * 100u / TICKS_PER_10S);
		}
	}
}
