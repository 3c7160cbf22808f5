/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu (common/menu.h) on ConOut/ConIn, mirrored to serial by OVMF. */
#ifndef ANYSECTOR_EFI_MENU_H
#define ANYSECTOR_EFI_MENU_H

#include "efi/bootvol.h"

#include "common/bootstate.h"

/* Runs until an entry boots (never returns then) or the user presses Esc (returns
 * EFI_ABORTED). A failed boot says "booting N) failed: reason" and comes back to the menu,
 * without the countdown. state: when the firmware started us (not the shell's "boot"): each
 * boot is told to the running system through the Boot Loader Interface (efi/bli.h) and goes
 * through the boot state block's rules (common/bootcount.h; state->live < 0 when there is
 * none); NULL from the shell. */
EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, struct bstate_io *state,
		    struct diag *d);

#endif
