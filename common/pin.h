/* SPDX-License-Identifier: BSD-2-Clause */
/* Pinned files: an anysector.cfg entry's "sha256" lines (common/config.h) hold the SHA-256 of
 * its kernel (or EFI application) and initrds. Both loaders hash each file once it is in memory
 * and compare here before anything is started; the host's check does the same over the FAT.
 * A pin says which bytes may boot; it does not protect anysector.cfg itself
 * (docs/SECURITY.md "Pinned hashes"). Entries from /loader/entries carry no pins. */
#ifndef ANYSECTOR_PIN_H
#define ANYSECTOR_PIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/sha256.h"

/* Pin slots: the kernel or EFI application, then initrd i at PIN_INITRD + i. */
#define PIN_KERNEL 0u
#define PIN_INITRD 1u

static inline bool pin_has(const struct cfg_entry *e, unsigned slot)
{
	return (e->pinned >> slot) & 1u;
}

/* The first file of e that carries no pin: its slot, or -1 when every file the entry loads (its
 * kernel or EFI application and each initrd) is pinned; a chainload entry loads none. A locked
 * configuration (common/cfg_lock.h) must have none. */
int pin_first_missing(const struct cfg_entry *e);

/* The path of the file in slot. */
const char *pin_path(const struct cfg_entry *e, unsigned slot);

/* Compares got with the pin of slot: 0 when they are equal or the slot has none; otherwise one
 * sentence naming the entry, the file and the first bytes of both hashes (code "pin.mismatch")
 * and AS_EDENIED. */
int pin_compare(const struct cfg_entry *e, unsigned slot, const uint8_t got[SHA256_BYTES],
		struct diag *d);

/* Hashes the file lying in memory in up to two pieces, a[0..alen) then b[0..blen) (stage2's
 * kernel: its real-mode setup and the rest at 1 MiB; otherwise blen 0), and compares it
 * (pin_compare); an unpinned slot is not hashed. */
int pin_check(const struct cfg_entry *e, unsigned slot, const void *a, size_t alen,
	      const void *b, size_t blen, struct diag *d);

#endif
