/* SPDX-License-Identifier: BSD-2-Clause */
/* Pinned files (common/pin.h): the one comparison and the one sentence for both loaders and
 * the host's check. */
#include "common/pin.h"

#include "common/errors.h"
#include "common/mem.h"

const char *pin_path(const struct cfg_entry *e, unsigned slot)
{
	return slot == PIN_KERNEL ? e->kernel : e->initrd[slot - PIN_INITRD];
}

int pin_first_missing(const struct cfg_entry *e)
{
	if (e->kind == CFG_KIND_CHAIN)
		return -1;
	for (unsigned slot = 0; slot < PIN_INITRD + e->ninitrd; slot++)
		if (!pin_has(e, slot))
			return (int)slot;
	return -1;
}

/* The first four bytes as a number: printed as %08x they are the hash's first 8 hex digits
 * (smaller in stage2 than the whole digest in hex). */
static uint32_t first32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int pin_compare(const struct cfg_entry *e, unsigned slot, const uint8_t got[SHA256_BYTES],
		struct diag *d)
{
	if (!pin_has(e, slot) || !memcmp(got, e->pin[slot], SHA256_BYTES))
		return 0;
	/* the first 8 digits of each tell a changed file from a mistyped pin at a glance */
	diag_error(d, "pin.mismatch", "entry '%s': the SHA-256 of %s (%08x...) differs from the "
		   "pinned one (%08x...), so it is not booted", e->name, pin_path(e, slot),
		   first32(got), first32(e->pin[slot]));
	return AS_EDENIED;
}

int pin_check(const struct cfg_entry *e, unsigned slot, const void *a, size_t alen,
	      const void *b, size_t blen, struct diag *d)
{
	struct sha256 s;
	uint8_t got[SHA256_BYTES];

	if (!pin_has(e, slot))
		return 0;
	sha256_init(&s);
	sha256_update(&s, a, alen);
	if (blen)
		sha256_update(&s, b, blen);
	sha256_final(&s, got);
	return pin_compare(e, slot, got, d);
}
