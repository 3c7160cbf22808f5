/* The EFI test payload: the UEFI twin of the BIOS payload. It does what the Linux EFI stub does
 * to receive its command line and initrd from a loader (drivers/firmware/efi/libstub:
 * efi_load_initrd_dev_path), checksums the initrd and prints one line on ConOut:
 *
 *   ANYSECTOR-PAYLOAD proto=efi cmdline="..." initrd_size=N initrd_crc32=xxxxxxxx
 *
 * (initrd=none when nobody serves LINUX_EFI_INITRD_MEDIA_GUID; "ANYSECTOR-PAYLOAD-ERROR
 * <sentence>" when the LoadFile2 protocol misbehaves), then shuts the machine down. */
#include <efi.h>

#include "common/crc32.h"

#define LINE_MAX_BYTES 8192

/* 5568e427-68fc-4f3d-ac74-ca555231cc68 (include/linux/efi.h) */
#define LINUX_EFI_INITRD_MEDIA_GUID \
	{ 0x5568e427, 0x68fc, 0x4f3d, { 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68 } }
/* EFI_LOAD_FILE2_PROTOCOL: same interface as LoadFile, its own GUID (UEFI spec 13.2). */
#define LOAD_FILE2_PROTOCOL_GUID \
	{ 0x4006c0c1, 0xfcb3, 0x403e, { 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d } }

static EFI_GUID load_file2_guid = LOAD_FILE2_PROTOCOL_GUID;
static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;

/* The device path the stub looks for: one vendor media node, then the end node. */
static const struct __attribute__((packed)) {
	VENDOR_DEVICE_PATH vendor;
	EFI_DEVICE_PATH_PROTOCOL end;
} initrd_media_path = {
	{ { MEDIA_DEVICE_PATH, MEDIA_VENDOR_DP, { sizeof(VENDOR_DEVICE_PATH), 0 } },
	  LINUX_EFI_INITRD_MEDIA_GUID },
	{ END_DEVICE_PATH_TYPE, END_ENTIRE_DEVICE_PATH_SUBTYPE, { sizeof(EFI_DEVICE_PATH_PROTOCOL), 0 } },
};

static EFI_SYSTEM_TABLE *st;

/* The report line is assembled in ASCII, then widened for ConOut. */
static char line[LINE_MAX_BYTES];
static UINTN line_len;

static void add_char(char c)
{
	if (line_len < LINE_MAX_BYTES - 1)
		line[line_len++] = c;
}

static void add_str(const char *s)
{
	while (*s)
		add_char(*s++);
}

static void add_dec(UINT64 v)
{
	char buf[21];
	int i = 0;
	do {
		buf[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i)
		add_char(buf[--i]);
}

static void add_hex(UINT64 v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	while (digits--)
		add_char(hex[(v >> (digits * 4)) & 15]);
}

/* UCS-2 -> ASCII as the BIOS payload prints its command line: printable ASCII as is; '"', '\\',
 * control characters and 0x7F..0xFF as \xHH; anything above 0xFF as \uHHHH. */
static void add_load_options(const CHAR16 *s, UINT32 bytes)
{
	for (UINT32 i = 0; s && i < bytes / sizeof(CHAR16) && s[i]; i++) {
		CHAR16 c = s[i];
		if (c >= 0x20 && c <= 0x7E && c != '"' && c != '\\') {
			add_char((char)c);
		} else if (c <= 0xFF) {
			add_str("\\x");
			add_hex(c, 2);
		} else {
			add_str("\\u");
			add_hex(c, 4);
		}
	}
}

static void print_line(void)
{
	static CHAR16 wide[LINE_MAX_BYTES + 3];
	UINTN n = 0;
	wide[n++] = '\r';
	wide[n++] = '\n';
	for (UINTN i = 0; i < line_len; i++)
		wide[n++] = (CHAR16)(unsigned char)line[i];
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
	line_len = 0;
	add_str("ANYSECTOR-PAYLOAD-ERROR ");
	add_str(what);
	add_str(" (status 0x");
	add_hex(status, 16);
	add_str(")");
	print_line();
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
	UINTN pages = (want + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
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

	add_str("ANYSECTOR-PAYLOAD proto=efi cmdline=\"");
	add_load_options(li->LoadOptions, li->LoadOptionsSize);
	add_str("\" initrd_size=");
	add_dec(initrd_size);
	add_str(" initrd_crc32=");
	add_hex(initrd_size ? crc32(initrd, initrd_size) : 0, 8);
	if (rd == EFI_NOT_FOUND)
		add_str(" initrd=none");
	print_line();
	shut_down();
}
