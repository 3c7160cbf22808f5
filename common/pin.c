/* Pinned files (common/pin.h): the one comparison and the one sentence for both loaders and
 * the host's check. */
#include "common/pin.h"

#include "common/errors.h"
#include "common/mem.h"

const char *pin_path(const struct cfg_entry *e, unsigned slot)
{
	return slot == PIN_KERNEL ? e->kernel : e->initrd[slot - PIN_INITRD];
}

int pin_compare(const struct cfg_entry *e, unsigned slot, const uint8_t got[SHA256_BYTES],
		struct diag *d)
{
	char have[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];

	if (!pin_has(e, slot) || !memcmp(got, e->pin[slot], SHA256_BYTES))
		return 0;
	sha256_hex(got, have);
	sha256_hex(e->pin[slot], want);
	/* the first 8 digits of each tell a changed file from a mistyped pin at a glance */
	diag_error(d, "pin.mismatch", "entry '%s': the SHA-256 of %s (%.8s...) differs from the "
		   "pinned one (%.8s...), so it is not booted", e->name, pin_path(e, slot), have,
		   want);
	return AS_EDENIED;
}

int pin_check(const struct cfg_entry *e, unsigned slot, const void *data, size_t len,
	      struct diag *d)
{
	uint8_t got[SHA256_BYTES];

	if (!pin_has(e, slot))
		return 0;
	sha256(data, len, got);
	return pin_compare(e, slot, got, d);
}
