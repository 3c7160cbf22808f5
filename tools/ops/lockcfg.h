/* SPDX-License-Identifier: BSD-2-Clause */
/* A locked configuration in the operations (common/cfg_lock.h, docs/SECURITY.md "A locked
 * configuration"): install and mkimage --lock-config lock anysector's loaders on the ESP to
 * anysector.cfg; add, remove and set-default on a locked menu lock them again to the new one,
 * signed with the key they are given, and refuse without one. */
#ifndef ANYSECTOR_TOOLS_LOCKCFG_H
#define ANYSECTOR_TOOLS_LOCKCFG_H

#include "tools/ops/txn.h"

/* Reads the lock of anysector's loaders on the ESP (txn_open_esp first) into t->lock_before and
 * the SHA-256 of anysector.cfg into t->cfg_before. Loaders that disagree are an error (exit 2).
 * Returns 0 or an exit code. */
int txn_lock_scan(struct txn *t);

/* add, remove, set-default: on a locked menu the change needs --sign-key and --sign-cert and an
 * anysector.cfg the lock still takes; refused (EXIT_REFUSED, nothing written) otherwise. Sets
 * t->relock. Returns 0 or an exit code. */
int txn_lock_for_change(struct txn *t);

/* At the end of an operation with t->relock: every entry of the new anysector.cfg must be
 * pinned (else EXIT_REFUSED), and each of anysector's loaders on the ESP is replaced by a copy
 * locked to it (and, on a menu that was locked, to the one before: a crash between the two
 * switches still boots), signed with t->sign. Returns 0 or an exit code. */
int txn_relock(struct txn *t);

/* Runs an operation (add, remove, set-default) so that a locked menu's change can be written in
 * two steps: op once, which learns the new anysector.cfg and signs the loaders for it; then, when
 * it did, op again on a fresh copy of the partition that already holds those loaders (and the
 * ownership list), which is kept as t->mid: txn_commit writes the disk to it first, so no crash
 * leaves the old loader with the new anysector.cfg, and each step keeps every prefix a valid
 * FAT. Through a mounted ESP one pass does (the loaders are renamed first). Returns 0 or an exit
 * code. */
typedef int txn_op_fn(struct txn *t, const void *arg);
int txn_lock_run(struct txn *t, txn_op_fn *op, const void *arg);

#endif
