/* SPDX-License-Identifier: BSD-2-Clause */
/* mockload.efi: a minimal stand-in for a Linux EFI loader, used only to test the EFI payload
 * (and the QEMU runner's EFI checks) before and independently of BOOTX64.EFI. Run from the UEFI
 * shell as
 *
 *   mockload.efi KERNEL INITRD [COMMAND LINE...]
 *
 * it reads KERNEL and INITRD from its own file system, serves INITRD through LoadFile2 on a
 * handle whose device path is VenMedia(LINUX_EFI_INITRD_MEDIA_GUID)/End, then LoadImage +
 * LoadOptions (the rest of the line, UCS-2) + StartImage — the protocol our loader implements. */
#include <efi.h>

#include "efi/initrd_media.h"

static EFI_GUID load_file2_guid = LOAD_FILE2_PROTOCOL_GUID;
static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;
static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
static EFI_GUID sfs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;

static struct initrd_media_path initrd_media_path = INITRD_MEDIA_PATH_INIT;

static EFI_SYSTEM_TABLE *st;
static void *initrd_data;
static UINTN initrd_size;

static void say(const CHAR16 *s)
{
	st->ConOut->OutputString(st->ConOut, (CHAR16 *)s);
}

static EFI_STATUS fail(const CHAR16 *what, EFI_STATUS s)
{
	say(L"mockload: ");
	say(what);
	say(L"\r\n");
	return s;
}

static EFI_STATUS EFIAPI serve_initrd(EFI_LOAD_FILE_PROTOCOL *this, EFI_DEVICE_PATH *path,
				      BOOLEAN boot_policy, UINTN *size, void *buf)
{
	(void)this;
	(void)path;
	if (boot_policy)
		return EFI_UNSUPPORTED;
	if (!size)
		return EFI_INVALID_PARAMETER;
	if (!buf || *size < initrd_size) {
		*size = initrd_size;
		return EFI_BUFFER_TOO_SMALL;
	}
	for (UINTN i = 0; i < initrd_size; i++)
		((UINT8 *)buf)[i] = ((UINT8 *)initrd_data)[i];
	*size = initrd_size;
	return EFI_SUCCESS;
}

static EFI_LOAD_FILE_PROTOCOL initrd_lf2 = { serve_initrd };

static EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *name, void **data, UINTN *size)
{
	EFI_FILE_HANDLE f;
	UINT64 end = 0;
	EFI_STATUS s = root->Open(root, &f, name, EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(s))
		return s;
	s = f->SetPosition(f, 0xFFFFFFFFFFFFFFFFull);
	if (!EFI_ERROR(s))
		s = f->GetPosition(f, &end);
	if (!EFI_ERROR(s))
		s = f->SetPosition(f, 0);
	if (!EFI_ERROR(s))
		s = st->BootServices->AllocatePool(EfiLoaderData, end ? end : 1, data);
	*size = end;
	if (!EFI_ERROR(s))
		s = f->Read(f, size, *data);
	f->Close(f);
	return s;
}

/* Splits the shell's line "mockload.efi K I rest": returns the start of word n (0-based) and
 * NUL-terminates the words before the rest. */
static CHAR16 *next_word(CHAR16 *p)
{
	while (*p && *p != ' ')
		p++;
	if (*p)
		*p++ = 0;
	while (*p == ' ')
		p++;
	return p;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_BOOT_SERVICES *bs = systab->BootServices;
	EFI_LOADED_IMAGE *li, *child_li;
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *sfs;
	EFI_FILE_HANDLE root;
	EFI_HANDLE initrd_handle = NULL, child;
	void *kernel;
	UINTN kernel_size;

	st = systab;
	EFI_STATUS s = bs->HandleProtocol(image, &loaded_image_guid, (void **)&li);
	if (EFI_ERROR(s) || !li->LoadOptions)
		return fail(L"no LoadOptions; usage: mockload.efi KERNEL INITRD [CMDLINE]", EFI_INVALID_PARAMETER);
	CHAR16 *kname = next_word((CHAR16 *)li->LoadOptions);
	CHAR16 *iname = next_word(kname);
	CHAR16 *cmdline = next_word(iname);
	if (!*kname || !*iname)
		return fail(L"usage: mockload.efi KERNEL INITRD [CMDLINE]", EFI_INVALID_PARAMETER);

	s = bs->HandleProtocol(li->DeviceHandle, &sfs_guid, (void **)&sfs);
	if (!EFI_ERROR(s))
		s = sfs->OpenVolume(sfs, &root);
	if (EFI_ERROR(s))
		return fail(L"cannot open my own file system", s);
	s = read_file(root, kname, &kernel, &kernel_size);
	if (EFI_ERROR(s))
		return fail(L"cannot read KERNEL", s);
	s = read_file(root, iname, &initrd_data, &initrd_size);
	if (EFI_ERROR(s))
		return fail(L"cannot read INITRD", s);

	s = bs->InstallProtocolInterface(&initrd_handle, &device_path_guid, EFI_NATIVE_INTERFACE,
					 &initrd_media_path);
	if (!EFI_ERROR(s))
		s = bs->InstallProtocolInterface(&initrd_handle, &load_file2_guid,
						 EFI_NATIVE_INTERFACE, &initrd_lf2);
	if (EFI_ERROR(s))
		return fail(L"cannot install the initrd LoadFile2 handle", s);

	s = bs->LoadImage(FALSE, image, NULL, kernel, kernel_size, &child);
	if (EFI_ERROR(s))
		return fail(L"LoadImage of KERNEL failed", s);
	s = bs->HandleProtocol(child, &loaded_image_guid, (void **)&child_li);
	if (EFI_ERROR(s))
		return fail(L"no LoadedImage on the kernel", s);
	UINTN len = 0;
	while (cmdline[len])
		len++;
	child_li->LoadOptions = cmdline;
	child_li->LoadOptionsSize = (UINT32)((len + 1) * sizeof(CHAR16));
	s = bs->StartImage(child, NULL, NULL);
	return fail(L"StartImage returned", s);
}
