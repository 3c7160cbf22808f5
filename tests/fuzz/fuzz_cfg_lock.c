/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer: the lock block of BOOTX64.EFI (common/cfg_lock.c), which the installer's check and
 * install read from loaders found on the ESP. An accepted block is locked exactly when it holds
 * a hash, at most CFG_LOCK_HASHES of them; encoding it and reading that again gives the same
 * lock; the lock takes each hash it holds, and a mismatch is one well-formed sentence. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/cfg_lock.h"
#include "common/errors.h"
#include "tests/fuzz/fuzz_diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag diag = { .emit = fuzz_emit };
	struct cfg_lock l, again;
	uint8_t block[CFG_LOCK_BYTES], other[SHA256_BYTES];

	if (cfg_lock_parse(data, size, &l))
		return 0;
	if (size < CFG_LOCK_BYTES || l.nhashes > CFG_LOCK_HASHES || l.locked != (l.nhashes > 0))
		__builtin_trap();
	cfg_lock_encode(&l, block);
	if (cfg_lock_parse(block, sizeof block, &again) || again.locked != l.locked ||
	    again.nhashes != l.nhashes || memcmp(again.hash, l.hash, sizeof l.hash))
		__builtin_trap();
	for (unsigned i = 0; i < l.nhashes; i++)
		if (cfg_lock_check(&l, l.hash[i], &diag))
			__builtin_trap();
	/* a hash none of the block's is: each byte differs from the first hash's */
	for (unsigned i = 0; i < SHA256_BYTES; i++)
		other[i] = (uint8_t)(l.hash[0][i] ^ 0xFF);
	int rc = cfg_lock_check(&l, other, &diag);
	bool held = l.nhashes > 1 && !memcmp(other, l.hash[1], SHA256_BYTES);
	if (l.locked && !held ? rc != AS_EDENIED : rc != 0)
		__builtin_trap();
	return 0;
}
