/* SPDX-License-Identifier: BSD-2-Clause */
/* One-shot boots and boot counting as both loaders apply them to their menu, from the boot
 * state block (common/bootstate.h): the one rule stage2 and BOOTX64.EFI share.
 *
 * Before the menu, bootcount_apply makes the one-shot entry the menu's default (its selected
 * entry; the countdown boots it). Before an entry starts, bootcount_before writes the state the
 * boot leaves: the one-shot is used up whatever boots, and the entry the loader started is
 * recorded (BSTATE_BOOTED) for `anysector bless` and `status`. */
#ifndef ANYSECTOR_BOOTCOUNT_H
#define ANYSECTOR_BOOTCOUNT_H

#include "common/bootstate.h"
#include "common/config.h"

/* The one-shot of s (s->live < 0: none) made c's default when it names an entry. Returns its
 * index, or -1. */
int bootcount_apply(struct cfg *c, struct bstate_io *s);

/* Entry i is about to start (fw: BSTATE_FW_BIOS or BSTATE_FW_UEFI): when the state has a
 * one-shot, it goes, and entry i is recorded as booted; the changed state is written. Returns 0
 * (also when nothing needed writing) or the write's code (the boot goes on: the block layer has
 * said why). */
int bootcount_before(const struct cfg *c, unsigned i, struct bstate_io *s, unsigned fw);

/* The Boot Loader Specification's count of one try of a /loader/entries entry with a boot counter
 * (e->tries_left >= 0): its file's name after the try, "ID+(LEFT-1)-(DONE+1).conf" (LEFT stays
 * 0, DONE stops at 999999999, the most the reader takes), into out (cap bytes). False when e
 * has no counter or the name does not fit. */
bool bootcount_bls_next(const struct cfg_entry *e, char *out, size_t cap);

#endif
