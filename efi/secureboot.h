/* SPDX-License-Identifier: BSD-2-Clause */
/* Secure Boot as the loader sees it: whether the firmware enforces it (its SecureBoot variable)
 * and shim's verdict on an image (its SHIM_LOCK protocol, present when shim started us). */
#ifndef ANYSECTOR_EFI_SECUREBOOT_H
#define ANYSECTOR_EFI_SECUREBOOT_H

#include "efi/app.h"

/* The global variable SecureBoot is 1: the firmware verifies what LoadImage loads. */
bool sb_enabled(void);

/* shim's verdict on an image in memory: EFI_SUCCESS when it is signed by a key shim trusts
 * (its built-in vendor certificate, db, a MOK) and not revoked by dbx, MOKX or SBAT; an error
 * status when not; EFI_NOT_FOUND when no shim is there to ask. */
EFI_STATUS sb_shim_verify(void *buf, uint32_t size);

#endif
