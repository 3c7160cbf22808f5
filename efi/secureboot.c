/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/secureboot.h"

static EFI_GUID global_variable_guid = EFI_GLOBAL_VARIABLE;
/* shim's SHIM_LOCK_GUID (shim's shim.h). */
static EFI_GUID shim_lock_guid = { 0x605dab50, 0xe046, 0x4300,
				   { 0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23 } };

/* shim's SHIM_LOCK interface. shim is built with gnu-efi's default calling convention, so on
 * x86-64 its functions take System V arguments, not the UEFI (Microsoft) ones. */
struct shim_lock {
	EFI_STATUS __attribute__((sysv_abi)) (*verify)(void *buffer, UINT32 size);
	void *hash;
	void *read_header;
};

bool sb_enabled(void)
{
	UINT8 value = 0;
	UINTN size = sizeof value;
	EFI_STATUS s = g_st->RuntimeServices->GetVariable(L"SecureBoot", &global_variable_guid,
							   NULL, &size, &value);
	return !EFI_ERROR(s) && size == sizeof value && value == 1;
}

EFI_STATUS sb_shim_verify(void *buf, uint32_t size)
{
	struct shim_lock *lock = NULL;
	EFI_STATUS s = g_bs->LocateProtocol(&shim_lock_guid, NULL, (void **)&lock);
	if (EFI_ERROR(s) || !lock || !lock->verify)
		return EFI_NOT_FOUND;
	return lock->verify(buf, size);
}
