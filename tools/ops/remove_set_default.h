/* SPDX-License-Identifier: BSD-2-Clause */
/* remove and set-default as write plans: changes to the boot menu alone. */
#ifndef ANYSECTOR_TOOLS_REMOVE_SET_DEFAULT_H
#define ANYSECTOR_TOOLS_REMOVE_SET_DEFAULT_H

#include "tools/ops/txn.h"

/* remove: the entry called name (anysector.cfg's lines or its /loader/entries file) and the
 * files only it uses; set-default: "default NAME" in anysector.cfg (made when there is none).
 * Both refuse (EXIT_REFUSED) a name the menu does not have; remove refuses to leave the menu
 * empty unless force. Each returns 0 or an exit code. */
int txn_remove(struct txn *t, const char *name);
int txn_set_default(struct txn *t, const char *name);
/* set-default --once: the entry boots next time only, whatever the default (a one-shot record in
 * the boot state block, common/bootstate.h: one copy written, the one not holding the state).
 * Refuses (EXIT_REFUSED) a name the menu does not have, and a disk with no state block. Returns 0
 * or an exit code. */
int txn_set_oneshot(struct txn *t, const char *name);

#endif
