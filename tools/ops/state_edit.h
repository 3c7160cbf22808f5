/* SPDX-License-Identifier: BSD-2-Clause */
/* Changes to the boot state block (common/bootstate.h) that a change of the menu brings: the
 * counts of an entry that is made again forgotten, so that it starts from its own tries, and
 * the records of a removed entry dropped. */
#ifndef ANYSECTOR_TOOLS_STATE_EDIT_H
#define ANYSECTOR_TOOLS_STATE_EDIT_H

#include "common/config.h"
#include "tools/ops/txn.h"

/* Takes the TRIES records of the names (anysector.cfg entries add wrote) and a BOOTED record
 * naming one of them out of the block, in one copy written after the boot partition's change
 * (t->post), when the disk has a block holding any. A crash in between leaves the new entry
 * with the old entry's counts (failed when those were used up), never the old entry with
 * fresh ones; add run again completes it. Returns 0 (nothing to do is 0 too). */
int txn_state_forget(struct txn *t, const char (*names)[CFG_NAME_MAX], unsigned n);
/* remove: takes every record naming the removed entry (names: its name, and a file's name)
 * out of the block, its TRIES, a BOOTED and a ONESHOT, in one copy written after the boot
 * partition's change (t->post). A crash in between leaves records naming no entry, which the
 * loaders ignore (common/bootcount.c); the other order could leave the entry in the menu with
 * fresh tries or without its one-shot. Returns 0 (nothing to do is 0 too). */
int txn_state_removed(struct txn *t, const char *const *names, unsigned n);

#endif
