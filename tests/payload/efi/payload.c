/* SPDX-License-Identifier: BSD-2-Clause */
/* The EFI test payload: the UEFI twin of the BIOS payload. It does what the Linux EFI stub does
 * to receive its command line and initrd from a loader (drivers/firmware/efi/libstub:
 * efi_load_initrd_dev_path), checksums the initrd and prints one line on ConOut:
 *
 *   ANYSECTOR-PAYLOAD proto=efi cmdline="..." initrd_size=N initrd_crc32=xxxxxxxx
 *
 * (initrd=none when nobody serves LINUX_EFI_INITRD_MEDIA_GUID; partition=N when the device it
 * was loaded from is partition N of a disk, which is how a loader's device path shows;
 * "ANYSECTOR-PAYLOAD-ERROR <sentence>" when the LoadFile2 protocol misbehaves), then shuts the
 * machine down. */
#include <efi.h>

#include "common/bits.h"
#include "common/fmt.h"
#include "common/le.h"
#include "efi/initrd_media.h"
#include "tests/payload/report_line.h"

static EFI_GUID load_file2_guid = LOAD_FILE2_PROTOCOL_GUID;
static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;

/* The device path the stub looks for. */
static const struct initrd_media_path initrd_media_path = INITRD_MEDIA_PATH_INIT;

static EFI_SYSTEM_TABLE *st;

/* ASCII text on its own line on ConOut. */
static void print_line(const char *text)
{
	static CHAR16 wide[REPORT_LINE_MAX + 4];
	UINTN n = 0;
	wide[n++] = '\r';
	wide[n++] = '\n';
	for (UINTN i = 0; text[i] && n < REPORT_LINE_MAX + 1; i++)
		wide[n++] = (CHAR16)(unsigned char)text[i];
	wide[n++] = '\r';
	wide[n++] = '\n';
	wide[n] = 0;
	st->ConOut->OutputString(st->ConOut, wide);
}

static void __attribute__((noreturn)) shut_down(void)
{
	st->RuntimeServices->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	for (;;)
		__asm__ volatile("hlt");
}

static void __attribute__((noreturn)) fail(const char *what, EFI_STATUS status)
{
	char text[160];
	fmt_snprintf(text, sizeof text, "ANYSECTOR-PAYLOAD-ERROR %s (status 0x%016llx)", what,
		     (unsigned long long)status);
	print_line(text);
	shut_down();
}

/* Fetches the initrd exactly as the Linux stub does. Returns EFI_NOT_FOUND when no handle
 * carries the initrd media device path (no initrd given: not an error for Linux). */
static EFI_STATUS load_initrd(void **data, UINTN *size)
{
	EFI_BOOT_SERVICES *bs = st->BootServices;
	EFI_DEVICE_PATH_PROTOCOL *dp = (EFI_DEVICE_PATH_PROTOCOL *)&initrd_media_path;
	EFI_HANDLE handle;
	EFI_LOAD_FILE_PROTOCOL *lf2;

	EFI_STATUS s = bs->LocateDevicePath(&load_file2_guid, &dp, &handle);
	if (EFI_ERROR(s))
		return EFI_NOT_FOUND;
	s = bs->HandleProtocol(handle, &load_file2_guid, (void **)&lf2);
	if (EFI_ERROR(s))
		fail("HandleProtocol(LoadFile2) failed on the initrd media handle", s);

	UINTN want = 0;
	s = lf2->LoadFile(lf2, dp, FALSE, &want, NULL);
	if (s != EFI_BUFFER_TOO_SMALL)
		fail("LoadFile2 size query (NULL buffer) did not return EFI_BUFFER_TOO_SMALL", s);

	EFI_PHYSICAL_ADDRESS addr = 0;
	UINTN pages = DIV_ROUND_UP(want, EFI_PAGE_SIZE);
	s = bs->AllocatePages(AllocateAnyPages, EfiLoaderData, pages ? pages : 1, &addr);
	if (EFI_ERROR(s))
		fail("AllocatePages for the initrd failed", s);

	UINTN got = want;
	s = lf2->LoadFile(lf2, dp, FALSE, &got, (void *)(UINTN)addr);
	if (EFI_ERROR(s))
		fail("LoadFile2 read of the initrd failed", s);
	if (got != want)
		fail("LoadFile2 read returned a size other than its size query announced", got);
	*data = (void *)(UINTN)addr;
	*size = got;
	return EFI_SUCCESS;
}

/* The partition number in the last hard-drive node of device's path; 0 when it has none. */
static UINT32 partition_of(EFI_HANDLE device)
{
	const UINT8 *n = NULL;
	UINT32 number = 0;

	if (!device || EFI_ERROR(st->BootServices->HandleProtocol(device, &device_path_guid,
								   (void **)&n)))
		return 0;
	/* a bound on the walk: a device path is a few nodes */
	for (int i = 0; n && i < 64 && n[0] != END_DEVICE_PATH_TYPE; i++) {
		UINT16 len = le16_load(n + 2);
		if (len < 4)
			return 0;
		if (n[0] == MEDIA_DEVICE_PATH && n[1] == MEDIA_HARDDRIVE_DP && len >= 8)
			number = le32_load(n + 4);
		n += len;
	}
	return number;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *li = NULL;
	void *initrd = NULL;
	UINTN initrd_size = 0;

	st = systab;
	EFI_STATUS s = st->BootServices->HandleProtocol(image, &loaded_image_guid, (void **)&li);
	if (EFI_ERROR(s))
		fail("HandleProtocol(LoadedImage) on our own image failed", s);
	EFI_STATUS rd = load_initrd(&initrd, &initrd_size);

	static struct report_line line;
	const CHAR16 *opt = li->LoadOptions;
	line_begin(&line, "efi");
	/* LoadOptions up to their first NUL or their size */
	for (UINT32 i = 0; opt && i < li->LoadOptionsSize / sizeof(CHAR16) && opt[i]; i++)
		line_cmdline_char(&line, opt[i]);
	line_end(&line, initrd, initrd_size);
	if (rd == EFI_NOT_FOUND)
		line_add(&line, " initrd=none");
	UINT32 part = partition_of(li->DeviceHandle);
	if (part)
		line_add(&line, " partition=%u", (unsigned)part);
	print_line(line.text);
	shut_down();
}
