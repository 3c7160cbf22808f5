/* SPDX-License-Identifier: BSD-2-Clause */
/* One-shot boots and boot counting as both loaders apply them to their menu, from the boot
 * state block (common/bootstate.h): the one rule stage2 and BOOTX64.EFI share.
 *
 * Before the menu, bootcount_apply makes the one-shot entry the menu's default (its selected
 * entry; the countdown boots it). Before an entry starts, bootcount_before writes the state the
 * boot leaves: the one-shot is used up whatever boots, and the entry the loader started is
 * recorded (BSTATE_BOOTED) for `anysector bless` and `status`. Under BIOS the tries of a
 * boot-counted /loader/entries file live in the block too (stage2 never writes the FAT). */
#ifndef ANYSECTOR_BOOTCOUNT_H
#define ANYSECTOR_BOOTCOUNT_H

#include "common/bootstate.h"
#include "common/config.h"

/* Before the menu: under BIOS (fw BSTATE_FW_BIOS) each boot-counted /loader/entries file gets
 * the tries the block holds for it (a BSTATE_TRIES record named by its file name, when there is
 * one) and the entries their order again, so one without tries left sorts last and is never the
 * automatic default; then the one-shot of s (s->live < 0: none) is made c's default when it
 * names an entry. Returns its index, or -1. */
int bootcount_apply(struct cfg *c, struct bstate_io *s, unsigned fw);

/* Entry i is about to start (fw: BSTATE_FW_BIOS or BSTATE_FW_UEFI). What changes is written in
 * one copy: the one-shot goes (whatever boots); under BIOS a boot-counted /loader/entries file
 * is counted (its TRIES record: LEFT-1, stopping at 0, and DONE+1, each at most 255) and
 * recorded as booted (BSTATE_BOOTED named by its file, flag COUNTED) for `anysector bless`;
 * the one-shot entry is recorded as booted (flag ONESHOT); a counted boot recorded before is
 * taken out when another entry boots; TRIES records of files the menu lacks go. Nothing is
 * written when nothing changes or s->disk is NULL. Returns 0 or the write's code (the boot
 * goes on: the block layer has said why). Called again after a failed boot it writes the same
 * state: a try is counted once per start of the loader. */
int bootcount_before(const struct cfg *c, unsigned i, struct bstate_io *s, unsigned fw);

/* The Boot Loader Specification's count of one try of a /loader/entries entry (or a Type #2
 * entry of /EFI/Linux, ".efi") with a boot counter
 * (e->tries_left >= 0): its file's name after the try, "ID+(LEFT-1)-(DONE+1).conf" (LEFT stays
 * 0, DONE stops at 999999999, the most the reader takes), into out (cap bytes). False when e
 * has no counter or the name does not fit. */
bool bootcount_bls_next(const struct cfg_entry *e, char *out, size_t cap);

#endif
