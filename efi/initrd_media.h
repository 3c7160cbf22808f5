/* SPDX-License-Identifier: BSD-2-Clause */
/* Where the Linux EFI stub looks for its initrd (drivers/firmware/efi/libstub,
 * efi_load_initrd_dev_path): EFI_LOAD_FILE2_PROTOCOL on the handle whose device path is one
 * vendor media node with LINUX_EFI_INITRD_MEDIA_GUID, then the end node. gnu-efi 3.0.15 defines
 * neither GUID. Needs only <efi.h>, so the test payload and mock loader (tests/payload/efi/)
 * share it with the loader (efi/initrd.c). */
#ifndef ANYSECTOR_EFI_INITRD_MEDIA_H
#define ANYSECTOR_EFI_INITRD_MEDIA_H

#include <efi.h>

/* 5568e427-68fc-4f3d-ac74-ca555231cc68 (Linux include/linux/efi.h) */
#define LINUX_EFI_INITRD_MEDIA_GUID \
	{ 0x5568e427, 0x68fc, 0x4f3d, { 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68 } }
/* EFI_LOAD_FILE2_PROTOCOL: LoadFile's interface under its own GUID (UEFI spec 13.2). */
#define LOAD_FILE2_PROTOCOL_GUID \
	{ 0x4006c0c1, 0xfcb3, 0x403e, { 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d } }

struct __attribute__((packed)) initrd_media_path {
	VENDOR_DEVICE_PATH vendor;
	EFI_DEVICE_PATH end;
};

#define INITRD_MEDIA_PATH_INIT                                                                 \
	{                                                                                      \
		{ { MEDIA_DEVICE_PATH, MEDIA_VENDOR_DP, { sizeof(VENDOR_DEVICE_PATH), 0 } },   \
		  LINUX_EFI_INITRD_MEDIA_GUID },                                               \
		{ END_DEVICE_PATH_TYPE, END_ENTIRE_DEVICE_PATH_SUBTYPE,                        \
		  { sizeof(EFI_DEVICE_PATH), 0 } },                                            \
	}

#endif
