/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot menu (common/menu.h) on ConOut/ConIn, mirrored to serial by OVMF. */
#ifndef ANYSECTOR_EFI_MENU_H
#define ANYSECTOR_EFI_MENU_H

#include "efi/bootvol.h"

/* Runs until an entry boots (never returns then) or the user presses Esc (returns
 * EFI_ABORTED). A failed boot says "booting N) failed: reason" and comes back to the menu,
 * without the countdown. firmware: started by the firmware (not the shell's "boot"), so each
 * boot is told to the running system through the Boot Loader Interface (efi/bli.h). */
EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, bool firmware, struct diag *d);

#endif
