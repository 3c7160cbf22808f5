/* SPDX-License-Identifier: BSD-2-Clause */
/* UEFI boot entries (the Boot#### variables): an EFI_LOAD_OPTION with the short-form device
 * path efibootmgr and bootctl write, HD(partition) then File(path), built and read back. Little-
 * endian byte layout (UEFI 2.10, 3.1.3 and 10.3): u32 attributes, u16 length of the device path
 * list, the description as NUL-terminated UCS-2, the device path, optional data (none here).
 * HD node: type 4, subtype 1, length 42: u32 partition number, u64 start LBA, u64 size in LBAs,
 * 16 bytes signature (GPT: the partition's unique GUID as on disk; MBR: the disk signature in
 * the first 4), u8 partition format (1 MBR, 2 GPT), u8 signature type (1 MBR, 2 GUID). File
 * node: type 4, subtype 4, the path as NUL-terminated UCS-2 with '\' separators. End node: 7F FF
 * 04 00. */
#ifndef ANYSECTOR_TOOLS_LOADOPT_H
#define ANYSECTOR_TOOLS_LOADOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOAD_OPTION_ACTIVE 0x00000001u
#define LOADOPT_DESC_MAX 64        /* characters of a description we write or show */
#define LOADOPT_PATH_MAX 256       /* characters of a file path */

/* The partition an entry boots from. */
struct loadopt_hd {
	uint32_t number;
	uint64_t start, size;          /* in the disk's logical sectors */
	uint8_t signature[16];
	bool gpt;                      /* GUID signature (else the MBR's 32-bit one) */
};

/* What a Boot#### variable says, as far as anysector looks. */
struct loadopt_info {
	uint32_t attributes;
	char desc[LOADOPT_DESC_MAX + 1];  /* non-ASCII characters as '?' */
	bool has_hd;                   /* an HD node was found in the first device path */
	struct loadopt_hd hd;
	bool has_file;
	char path[LOADOPT_PATH_MAX + 1];  /* the File node's path, '\' kept; non-ASCII '?' */
};

/* Builds an active load option for desc (ASCII) and path ('/' or '\' separated, ASCII) on hd
 * into out. Returns its length, or 0 when it would not fit cap or an argument is too long or
 * not ASCII. */
size_t loadopt_build(uint8_t *out, size_t cap, const char *desc, const struct loadopt_hd *hd,
		     const char *path);

/* Reads a load option: the description, and the first HD and File nodes of its first device
 * path (a firmware's own entries carry the whole path, PciRoot(...)/.../HD/File). Returns 0 or
 * AS_ECORRUPT (a length that runs past the data, a node shorter than its header). */
int loadopt_parse(const uint8_t *buf, size_t len, struct loadopt_info *out);

/* Whether two entry paths name the same file: '/' and '\' alike, without case (FAT). */
bool loadopt_path_eq(const char *a, const char *b);

#endif
