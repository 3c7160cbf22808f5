/* SPDX-License-Identifier: BSD-2-Clause */
/* This loader's own lock block (common/cfg_lock.h): built "not locked", patched by the
 * installer before it signs the loader (install/mkimage --lock-config). */
#ifndef ANYSECTOR_EFI_CFGLOCK_H
#define ANYSECTOR_EFI_CFGLOCK_H

#include "common/cfg_lock.h"

/* The lock as this image holds it. A block that does not parse (a loader patched by hand) is
 * taken as locked to no hash at all: nothing boots, never an unlocked menu. */
void cfglock_get(struct cfg_lock *out);

#endif
