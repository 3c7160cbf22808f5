/* SPDX-License-Identifier: BSD-2-Clause */
/* make bench's UEFI floor application: what the firmware's BlockIo costs for the bytes
 * BOOTX64.EFI reads. The bench puts it in \EFI\BOOT\BOOTX64.EFI's place on a copy of
 * anysector's disk, with the ReadBlocks calls BOOTX64.EFI made for the kernel and initrd in a
 * recorded boot (its "LBA+blocks x calls" runs) patched into `table`. It opens the whole disk it
 * was loaded from as BOOTX64.EFI does (its device path minus the partition node) and makes
 * exactly those calls three times, doing nothing with the bytes (after one untimed call, as
 * BOOTX64.EFI has made calls before its timed stretch):
 *   pass 1  into one buffer as large as the largest call: the firmware's read path, the floor;
 *   pass 2  each call into the next part of one buffer as large as all of them, memory the
 *           guest has not written yet (BOOTX64.EFI reads straight into the files' buffers);
 *   pass 3  the same, into the memory pass 2 wrote.
 * It prints a line before the first call and one after each pass (the time between two lines
 * is one pass), then "done", and shuts the machine down. */
#include <efi.h>
#include <stdbool.h>

#include "common/fmt.h"
#include "common/le.h"

#define FLOOR_RUNS 1024
#define LINE_MAX 160

/* Found by the bench through its magic and filled in the .efi file: the block size the calls
 * were made with, the number of runs, then the runs. Not static: the compiler must not take
 * the values it sees here for the ones the program runs with. */
struct floor_table {
	char magic[8];
	UINT32 block_size, nruns;
	struct {
		UINT64 lba;
		UINT32 count, calls;
	} runs[FLOOR_RUNS];
};
extern struct floor_table table;
struct floor_table table = { "ASFLOOR1", 0, 0, { { 0, 0, 0 } } };

static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;
static EFI_GUID device_path_guid = DEVICE_PATH_PROTOCOL;
static EFI_GUID block_io_guid = EFI_BLOCK_IO_PROTOCOL_GUID;
static EFI_SYSTEM_TABLE *st;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	static char text[LINE_MAX];
	static CHAR16 wide[LINE_MAX + 3];
	fmt_va_list ap;
	UINTN n = 0;

	fmt_va_start(ap, fmt);
	fmt_vsnprintf(text, sizeof text, fmt, ap);
	fmt_va_end(ap);
	for (UINTN i = 0; text[i]; i++)
		wide[n++] = (CHAR16)(unsigned char)text[i];
	wide[n++] = '\r';
	wide[n++] = '\n';
	wide[n] = 0;
	st->ConOut->OutputString(st->ConOut, wide);
}

static void __attribute__((noreturn)) stop(void)
{
	st->RuntimeServices->ResetSystem(EfiResetShutdown, EFI_SUCCESS, 0, NULL);
	for (;;)
		__asm__ volatile("hlt");
}

static void __attribute__((noreturn)) fail(const char *what, EFI_STATUS s)
{
	say("anysector floor application: %s (status 0x%llx)", what, (unsigned long long)s);
	stop();
}

/* The BlockIo of the whole disk holding our partition: our device path with its last node
 * (the partition's HD node) cut off, as BOOTX64.EFI finds it. */
static EFI_BLOCK_IO *own_disk(EFI_HANDLE image)
{
	static UINT8 path[512];
	EFI_LOADED_IMAGE *li = NULL;
	const UINT8 *dp = NULL;
	UINTN at = 0, last = 0;
	EFI_HANDLE h = NULL;
	EFI_BLOCK_IO *bio = NULL;
	EFI_BOOT_SERVICES *bs = st->BootServices;

	if (EFI_ERROR(bs->HandleProtocol(image, &loaded_image_guid, (void **)&li)) || !li ||
	    EFI_ERROR(bs->HandleProtocol(li->DeviceHandle, &device_path_guid, (void **)&dp)) || !dp)
		fail("no device path for the device we were loaded from", EFI_NOT_FOUND);
	for (int i = 0; i < 64 && dp[at] != END_DEVICE_PATH_TYPE; i++) {
		UINT16 len = le16_load(dp + at + 2);
		if (len < 4 || at + len + 4 > sizeof path)
			fail("our device path is malformed or too long", EFI_INVALID_PARAMETER);
		last = at;
		at += len;
	}
	if (!last)
		fail("our device path has no partition node", EFI_NOT_FOUND);
	for (UINTN i = 0; i < last; i++)
		path[i] = dp[i];
	path[last] = END_DEVICE_PATH_TYPE;
	path[last + 1] = END_ENTIRE_DEVICE_PATH_SUBTYPE;
	path[last + 2] = 4;
	path[last + 3] = 0;
	EFI_DEVICE_PATH *rest = (EFI_DEVICE_PATH *)path;
	EFI_STATUS s = bs->LocateDevicePath(&block_io_guid, &rest, &h);
	if (EFI_ERROR(s) || EFI_ERROR(bs->HandleProtocol(h, &block_io_guid, (void **)&bio)) || !bio)
		fail("no BlockIo for the disk we were loaded from", s);
	return bio;
}

/* One pass over the calls into buf, each call to the next part of it when `advance`. */
static void one_pass(EFI_BLOCK_IO *bio, UINT8 *buf, bool advance, unsigned pass)
{
	UINT64 bytes = 0;
	UINT32 calls = 0;

	for (UINT32 i = 0; i < table.nruns; i++) {
		UINT64 lba = table.runs[i].lba;
		UINTN size = (UINTN)table.runs[i].count * table.block_size;
		for (UINT32 c = 0; c < table.runs[i].calls; c++, lba += table.runs[i].count) {
			EFI_STATUS s = bio->ReadBlocks(bio, bio->Media->MediaId, lba, size,
						       advance ? buf + bytes : buf);
			if (EFI_ERROR(s))
				fail("ReadBlocks failed", s);
			calls++;
			bytes += size;
		}
	}
	/* the line ends a timed stretch, and under OVMF each character costs about 15 us:
	 * bench/floor.py PASSES names the passes */
	say("floor pass %u: %u ReadBlocks calls, %llu bytes read", pass, calls,
	    (unsigned long long)bytes);
}

static UINT8 *alloc(UINT64 bytes)
{
	EFI_PHYSICAL_ADDRESS at = 0;
	EFI_STATUS s = st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderData,
						       bytes / EFI_PAGE_SIZE + 1, &at);
	if (EFI_ERROR(s))
		fail("no memory for the buffer", s);
	return (UINT8 *)(UINTN)at;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	UINT32 total = 0, largest = 0;
	UINT64 size = 0;

	st = systab;
	if (!table.nruns || table.nruns > FLOOR_RUNS)
		fail("the bench put no calls in the table", EFI_NOT_READY);
	EFI_BLOCK_IO *bio = own_disk(image);
	if (bio->Media->BlockSize != table.block_size)
		fail("the disk's block size is not the one the calls were recorded with",
		     bio->Media->BlockSize);
	for (UINT32 i = 0; i < table.nruns; i++) {
		UINT32 one = table.runs[i].count * table.block_size;
		total += table.runs[i].calls;
		size += (UINT64)one * table.runs[i].calls;
		if (one > largest)
			largest = one;
	}
	UINT8 *small = alloc(largest), *large = alloc(size);
	/* BOOTX64.EFI has read its configuration and the files' directories before its timed
	 * stretch starts, so QEMU has already translated the firmware's read path; one untimed
	 * call does the same here, or pass 1 would pay that translation and pass for slower. */
	EFI_STATUS s = bio->ReadBlocks(bio, bio->Media->MediaId, table.runs[0].lba,
				       (UINTN)table.runs[0].count * table.block_size, small);
	if (EFI_ERROR(s))
		fail("ReadBlocks failed", s);

	say("anysector floor application (%u ReadBlocks calls of the kernel and initrd, 3 passes)",
	    total);
	one_pass(bio, small, false, 1);   /* the calls, into one buffer */
	one_pass(bio, large, true, 2);    /* into fresh memory as large as the loader's buffers */
	one_pass(bio, large, true, 3);    /* the same calls again, into that memory */
	say("anysector floor application: done, 3 passes of %u", total);
	stop();
}
