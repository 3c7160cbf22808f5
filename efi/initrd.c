/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/initrd.h"

#include "efi/initrd_media.h"

#include "common/mem.h"

static EFI_GUID load_file2_guid = LOAD_FILE2_PROTOCOL_GUID;
static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;

static struct initrd_media_path media_path = INITRD_MEDIA_PATH_INIT;

static EFI_HANDLE initrd_handle;
static const void *initrd_data;
static UINTN initrd_size;

static EFI_STATUS EFIAPI initrd_load_file(EFI_LOAD_FILE_PROTOCOL *this, EFI_DEVICE_PATH *path,
					  BOOLEAN boot_policy, UINTN *size, VOID *buf)
{
	(void)this;
	(void)path;
	/* LoadFile2 never loads boot options (UEFI spec 13.2). */
	if (boot_policy)
		return EFI_UNSUPPORTED;
	if (!size)
		return EFI_INVALID_PARAMETER;
	if (!buf || *size < initrd_size) {
		*size = initrd_size;
		return EFI_BUFFER_TOO_SMALL;
	}
	memcpy(buf, initrd_data, initrd_size);
	*size = initrd_size;
	return EFI_SUCCESS;
}

static EFI_LOAD_FILE_PROTOCOL load_file2 = { initrd_load_file };

EFI_STATUS initrd_publish(const void *data, UINTN size)
{
	EFI_DEVICE_PATH *dp = (EFI_DEVICE_PATH *)&media_path;
	EFI_HANDLE other;
	EFI_STATUS s;

	if (!EFI_ERROR(g_bs->LocateDevicePath(&load_file2_guid, &dp, &other)))
		return EFI_ALREADY_STARTED;
	initrd_data = data;
	initrd_size = size;
	initrd_handle = NULL;
	s = g_bs->InstallProtocolInterface(&initrd_handle, &device_path_guid, EFI_NATIVE_INTERFACE,
					   &media_path);
	if (EFI_ERROR(s))
		return s;
	s = g_bs->InstallProtocolInterface(&initrd_handle, &load_file2_guid, EFI_NATIVE_INTERFACE,
					   &load_file2);
	if (EFI_ERROR(s)) {
		g_bs->UninstallProtocolInterface(initrd_handle, &device_path_guid, &media_path);
		initrd_handle = NULL;
	}
	return s;
}

void initrd_unpublish(void)
{
	if (!initrd_handle)
		return;
	g_bs->UninstallProtocolInterface(initrd_handle, &load_file2_guid, &load_file2);
	g_bs->UninstallProtocolInterface(initrd_handle, &device_path_guid, &media_path);
	initrd_handle = NULL;
}
