/* The boot menu on ConOut/ConIn (mirrored to serial by OVMF): a countdown to the default entry
 * that any key stops, then arrows + Enter or the entry's number. */
#ifndef ANYSECTOR_EFI_MENU_H
#define ANYSECTOR_EFI_MENU_H

#include "efi/bootvol.h"

/* Runs until an entry boots (never returns then) or the user presses Esc (returns
 * EFI_ABORTED). A failed boot prints its reason and comes back to the menu, without the
 * countdown. */
EFI_STATUS menu_run(struct boot_volume *v, const struct cfg *c, struct diag *d);

#endif
