/* SPDX-License-Identifier: BSD-2-Clause */
/* What the menu changes (add, remove, set-default) share. */
#ifndef ANYSECTOR_TOOLS_MENU_EDIT_H
#define ANYSECTOR_TOOLS_MENU_EDIT_H

#include "tools/ops/txn.h"

/* Each returns 0 or an exit code. txn_load_menu reads the menu from the boot partition
 * (txn_open_esp) into t->menu and refuses an anysector.cfg that is not valid; txn_store_config
 * puts a new anysector.cfg onto it; txn_check_menu refuses a result the loaders would not
 * accept. */
int txn_load_menu(struct txn *t);
int txn_store_config(struct txn *t, const char *text);
int txn_check_menu(struct txn *t);
/* When this change installs the legacy-gap stage2 (install, mkimage) onto a disk whose ESP
 * already holds a valid menu: boot.gap_uki's warning, as txn_check_menu gives it for a new
 * menu. */
void txn_warn_gap_menu(struct txn *t);
/* Deletes those of the files (paths on the boot partition) that no entry of the menu now on the
 * copy uses and that are anysector's (tools/ops/owned.h), and then their directories when that
 * leaves them empty (never the root, /EFI or /loader). A file some entry still uses, or one
 * anysector did not write, is kept, and the summary says which and why. Returns 0 or an exit
 * code. */
int txn_drop_unused(struct txn *t, const char *const *files, unsigned n);

#endif
