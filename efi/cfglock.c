/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/cfglock.h"

#include "common/mem.h"

/* The block in a section of its own (CFG_LOCK_SECTION, kept by efi/efi.mk's objcopy), so the
 * installer finds it through the PE section table. volatile: the compiler must read what the
 * installer wrote, not fold the "not locked" it was built with. */
__attribute__((section(".cfglock"), used, aligned(16)))
static volatile uint8_t lock_block[CFG_LOCK_BYTES] = {
	'a', 'n', 'y', 's', 'e', 'c', 't', 'o', 'r', ' ', 'c', 'f', 'g', 'l', 'c', 'k',
	CFG_LOCK_VERSION, 0, 0, 0,
};

_Static_assert(sizeof(CFG_LOCK_MAGIC) - 1 == CFG_LOCK_MAGIC_LEN, "the magic is 16 bytes");

void cfglock_get(struct cfg_lock *out)
{
	uint8_t copy[CFG_LOCK_BYTES];
	for (unsigned i = 0; i < CFG_LOCK_BYTES; i++)
		copy[i] = lock_block[i];
	if (cfg_lock_parse(copy, sizeof copy, out)) {
		memset(out, 0, sizeof *out);
		out->locked = true; /* no hash: every configuration is refused */
	}
}
