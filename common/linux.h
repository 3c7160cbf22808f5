/* SPDX-License-Identifier: BSD-2-Clause */
/* The Linux/x86 boot protocol's setup header (Documentation/arch/x86/boot.rst), parsed and
 * validated once for the BIOS loader, the EFI application and the installer. The protocol counts
 * in 512-byte "sectors" whatever the disk: LINUX_SETUP_SECTOR is that unit. */
#ifndef ANYSECTOR_LINUX_H
#define ANYSECTOR_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define LINUX_SETUP_SECTOR 512u        /* the boot protocol's unit, not a disk sector */
#define LINUX_HDR_OFF 0x1F1
#define LINUX_HDR_MAGIC 0x53726448u    /* "HdrS" at 0x202 */
#define LINUX_MIN_PROTOCOL 0x0202      /* we need cmd_line_ptr */
#define LINUX_HEADER_BYTES 0x280       /* how much of the file the parser needs */
#define LINUX_LOADED_HIGH 0x01         /* loadflags */
#define LINUX_CAN_USE_HEAP 0x80
#define LINUX_XLF_KERNEL_64 0x01
#define LINUX_XLF_CAN_BE_LOADED_ABOVE_4G 0x02 /* the kernel takes an initrd above 4 GiB */

/* Offsets of fields a loader writes (relative to the start of the setup code / file). */
#define LINUX_OFF_SETUP_SECTS 0x1F1
#define LINUX_OFF_VID_MODE 0x1FA
#define LINUX_OFF_BOOT_FLAG 0x1FE
#define LINUX_OFF_VERSION 0x206
#define LINUX_OFF_TYPE_OF_LOADER 0x210
#define LINUX_OFF_LOADFLAGS 0x211
#define LINUX_OFF_RAMDISK_IMAGE 0x218
#define LINUX_OFF_RAMDISK_SIZE 0x21C
#define LINUX_OFF_HEAP_END_PTR 0x224
#define LINUX_OFF_CMD_LINE_PTR 0x228
#define LINUX_OFF_INITRD_ADDR_MAX 0x22C
#define LINUX_OFF_CMDLINE_SIZE 0x238

struct linux_header {
	uint16_t version;              /* protocol, e.g. 0x020F */
	uint8_t setup_sects;           /* as stored (0 means 4) */
	uint32_t setup_bytes;          /* (setup_sects or 4, +1) * 512: where the protected-mode kernel starts */
	uint64_t kernel_bytes;         /* file size - setup_bytes */
	uint8_t loadflags;
	uint32_t syssize;              /* 16-byte paragraphs */
	uint32_t initrd_addr_max;      /* highest address the initrd may end at (inclusive) */
	uint32_t kernel_alignment;
	uint8_t relocatable;
	uint32_t cmdline_size;         /* maximum command line length without the NUL */
	uint64_t pref_address;
	uint32_t init_size;
	uint16_t xloadflags;
	bool has_pe_header;            /* "MZ" + PE signature: an EFI stub the firmware can start */
};

/* buf holds the first min(file_size, LINUX_HEADER_BYTES or more) bytes of the file. Refuses, with
 * a sentence: a file too small, no 0xAA55 boot flag, no "HdrS", protocol < 2.02, not LOADED_HIGH
 * (zImage), setup larger than the file, syssize beyond the file. Defaults for old protocols:
 * initrd_addr_max 0x37FFFFFF (< 2.03), cmdline_size 255 (< 2.06). */
int linux_header_parse(const uint8_t *buf, size_t len, uint64_t file_size, struct linux_header *h,
		       struct diag *d);

#endif
