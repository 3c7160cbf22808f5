/* SPDX-License-Identifier: BSD-2-Clause */
/* A locked configuration on the installer's side (common/cfg_lock.h): reading the lock of
 * anysector's loader, and making a loader locked to given hashes, signed for Secure Boot. */
#ifndef ANYSECTOR_TOOLS_CFGLOCK_H
#define ANYSECTOR_TOOLS_CFGLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cfg_lock.h"
#include "tools/boot/efisig.h"

struct loader_lock {
	bool block;                 /* the loader has a CFG_LOCK_SECTION */
	bool bad;                   /* ... whose block does not parse */
	size_t off;                 /* its file offset */
	struct cfg_lock lock;
};

/* Looks at a PE image's bytes. Never fails: no block, or a bad one, is marked in *out. */
void loader_lock_inspect(const uint8_t *buf, size_t len, struct loader_lock *out);

/* A copy of the loader in (anysector's, with a lock block; signed or not) into a new temporary
 * file: its signatures removed (sbattach --remove), its block set to l, signed with sg
 * (loader_sign). The name goes to out. Returns 0 or an exit code (the temporary file is gone
 * then). */
int loader_lock_sign(const char *in, const struct cfg_lock *l, const struct efi_signing *sg,
		     char *out, size_t cap);

/* "locked to anysector.cfg 1a2b3c4d..." / "not locked" for messages (the first 8 digits). */
const char *loader_lock_text(const struct loader_lock *ll, char *buf, size_t cap);

#endif
