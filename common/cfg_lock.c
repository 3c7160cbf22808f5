/* SPDX-License-Identifier: BSD-2-Clause */
/* The lock block of BOOTX64.EFI (common/cfg_lock.h): one reader and one sentence for the loader
 * and the installer's check. */
#include "common/cfg_lock.h"

#include "common/errors.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/pin.h"

const char *const cfg_lock_loaders[CFG_LOCK_LOADERS] = {
	"/EFI/BOOT/BOOTX64.EFI", "/EFI/BOOT/grubx64.efi", "/EFI/anysector/anysectorx64.efi",
	"/EFI/anysector/grubx64.efi",
};

int cfg_lock_parse(const uint8_t *block, size_t len, struct cfg_lock *out)
{
	memset(out, 0, sizeof *out);
	if (len < CFG_LOCK_BYTES || memcmp(block, CFG_LOCK_MAGIC, CFG_LOCK_MAGIC_LEN) ||
	    le32_load(block + CFG_LOCK_VERSION_OFF) != CFG_LOCK_VERSION)
		return AS_ECORRUPT;
	uint32_t flags = le32_load(block + CFG_LOCK_FLAGS_OFF);
	uint32_t n = le32_load(block + CFG_LOCK_COUNT_OFF);
	if ((flags & ~CFG_LOCK_LOCKED) || n > CFG_LOCK_HASHES || !(flags & CFG_LOCK_LOCKED) != !n)
		return AS_ECORRUPT;
	out->locked = flags & CFG_LOCK_LOCKED;
	out->nhashes = n;
	for (unsigned i = 0; i < n; i++)
		memcpy(out->hash[i], block + CFG_LOCK_HASH_OFF + i * SHA256_BYTES, SHA256_BYTES);
	return 0;
}

void cfg_lock_encode(const struct cfg_lock *l, uint8_t out[CFG_LOCK_BYTES])
{
	unsigned n = !l->locked ? 0 : l->nhashes < CFG_LOCK_HASHES ? l->nhashes : CFG_LOCK_HASHES;
	memset(out, 0, CFG_LOCK_BYTES);
	memcpy(out, CFG_LOCK_MAGIC, CFG_LOCK_MAGIC_LEN);
	le32_store(out + CFG_LOCK_VERSION_OFF, CFG_LOCK_VERSION);
	le32_store(out + CFG_LOCK_FLAGS_OFF, n ? CFG_LOCK_LOCKED : 0);
	le32_store(out + CFG_LOCK_COUNT_OFF, n);
	for (unsigned i = 0; i < n; i++)
		memcpy(out + CFG_LOCK_HASH_OFF + i * SHA256_BYTES, l->hash[i], SHA256_BYTES);
}

/* The first four bytes as a number: %08x prints the hash's first 8 hex digits. */
static uint32_t first32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int cfg_lock_check(const struct cfg_lock *l, const uint8_t got[SHA256_BYTES], struct diag *d)
{
	if (!l->locked)
		return 0;
	for (unsigned i = 0; i < l->nhashes; i++)
		if (!memcmp(got, l->hash[i], SHA256_BYTES))
			return 0;
	diag_error(d, "cfg.locked_mismatch", "anysector.cfg (SHA-256 %08x...) is not the "
		   "configuration BOOTX64.EFI is locked to (SHA-256 %08x...), so nothing is booted",
		   first32(got), first32(l->hash[0]));
	return AS_EDENIED;
}

int cfg_lock_entry(const struct cfg_lock *l, const struct cfg_entry *e, struct diag *d)
{
	int slot = l->locked ? pin_first_missing(e) : -1;

	if (slot < 0)
		return 0;
	diag_error(d, "cfg.locked_unpinned", "entry %s: anysector.cfg is locked, but %s has no "
		   "sha256 line, so it is not booted", e->name, pin_path(e, (unsigned)slot));
	return AS_EDENIED;
}
