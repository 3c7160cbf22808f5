/* SPDX-License-Identifier: BSD-2-Clause */
/* A locked configuration (Secure Boot owners, docs/SECURITY.md "A locked configuration"): the
 * SHA-256 of anysector.cfg written into BOOTX64.EFI before it is signed, so the signed loader
 * boots that configuration and no other. The lock lives in a block of its own in the loader,
 * the PE section CFG_LOCK_SECTION, which the build fills with the magic and "not locked" and the
 * installer patches (tools/boot/cfglock.c) before sbsign. Under a lock BOOTX64.EFI refuses a
 * differing anysector.cfg with one sentence and boots nothing, reads no Boot Loader
 * Specification entry, keeps the editor off and boots no entry whose files are not all pinned.
 * stage2 follows the same lock, read from that loader on the ESP (cfg_lock_read_fat), except
 * in its legacy-gap build (FEATURE_CFG_LOCK): under BIOS, without Secure Boot, for a disk that
 * behaves alike under both firmwares, not as a protection.
 *
 * The block, CFG_LOCK_BYTES bytes, little-endian:
 *   0   16  CFG_LOCK_MAGIC
 *   16   4  version (CFG_LOCK_VERSION)
 *   20   4  flags: CFG_LOCK_LOCKED
 *   24   4  hashes that count (0..CFG_LOCK_HASHES): a locked loader takes the first, and during
 *           a change the installer also leaves the previous one, so that a crash between the
 *           loader's and the configuration's switch still boots (the first is the newer)
 *   28   4  zero
 *   32  32  SHA-256 of anysector.cfg's bytes (a missing file counts as empty)
 *   64  32  the previous one (when count is 2), else zero
 *   96  32  zero */
#ifndef ANYSECTOR_CFG_LOCK_H
#define ANYSECTOR_CFG_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/diag.h"
#include "common/sha256.h"

#define CFG_LOCK_SECTION ".cfglock"
#define CFG_LOCK_MAGIC "anysector cfglck"   /* 16 bytes, no terminator in the block */
#define CFG_LOCK_MAGIC_LEN 16
#define CFG_LOCK_VERSION 1u
#define CFG_LOCK_BYTES 128u
#define CFG_LOCK_LOCKED 1u
#define CFG_LOCK_HASHES 2u

#define CFG_LOCK_VERSION_OFF 16
#define CFG_LOCK_FLAGS_OFF 20
#define CFG_LOCK_COUNT_OFF 24
#define CFG_LOCK_HASH_OFF 32

struct cfg_lock {
	bool locked;
	unsigned nhashes;
	uint8_t hash[CFG_LOCK_HASHES][SHA256_BYTES];
};

/* Reads a block (len bytes). Returns 0, or AS_ECORRUPT for a block too short, without the
 * magic, of another version, or whose fields disagree (locked without a hash, a count above
 * CFG_LOCK_HASHES). */
int cfg_lock_parse(const uint8_t *block, size_t len, struct cfg_lock *out);

/* Writes the block for l into out[CFG_LOCK_BYTES] (an unlocked l: the block as built; of more
 * than CFG_LOCK_HASHES hashes, the first ones). */
void cfg_lock_encode(const struct cfg_lock *l, uint8_t out[CFG_LOCK_BYTES]);

/* Whether got (the SHA-256 of anysector.cfg as read) is a hash the lock takes. An unlocked l
 * takes everything. Otherwise one sentence (code "cfg.locked_mismatch") naming anysector.cfg
 * and the first 8 hex digits of both hashes, and AS_EDENIED. */
int cfg_lock_check(const struct cfg_lock *l, const uint8_t got[SHA256_BYTES], struct diag *d);

/* Whether a locked configuration may boot e: every file it loads pinned (pin_first_missing).
 * Otherwise one sentence (code "cfg.locked_unpinned") naming the entry and the file, and
 * AS_EDENIED; an unlocked l takes every entry. */
int cfg_lock_entry(const struct cfg_lock *l, const struct cfg_entry *e, struct diag *d);

/* Where anysector's UEFI loader may be on the ESP, the block's home: the fallback path, shim's
 * second stage beside it, and the same in anysector's own directory. The installer locks each;
 * stage2 takes the first that holds a block (cfg_lock_read_fat, common/cfg_fat.h). */
#define CFG_LOCK_LOADERS 4
extern const char *const cfg_lock_loaders[CFG_LOCK_LOADERS];

#endif
