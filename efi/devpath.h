/* SPDX-License-Identifier: BSD-2-Clause */
/* Device paths: walked byte by byte (nodes are packed and may sit at any alignment), with a hard
 * bound on their length so a malformed path cannot run us off into memory. */
#ifndef ANYSECTOR_EFI_DEVPATH_H
#define ANYSECTOR_EFI_DEVPATH_H

#include "efi/app.h"

#include "common/guid.h"

#define DP_MAX_BYTES 4096u /* longer device paths are treated as malformed */

/* A hard-drive media node (UEFI spec 10.3.5.1). */
struct dp_hd {
	uint32_t number;       /* partition number, 1-based */
	uint64_t start;        /* first LBA, in the disk's blocks */
	uint64_t size;         /* blocks */
	struct guid signature; /* GPT unique partition GUID, on-disk byte order (sig_type 2) */
	uint32_t mbr_sig;      /* MBR disk signature (sig_type 1) */
	uint8_t mbr_type;      /* 1 MBR, 2 GPT */
	uint8_t sig_type;      /* 0 none, 1 MBR signature, 2 GUID */
};

EFI_DEVICE_PATH *dp_of_handle(EFI_HANDLE h);
/* Bytes of the path including its end node; 0 when it is malformed or longer than DP_MAX_BYTES. */
size_t dp_size(const EFI_DEVICE_PATH *dp);
/* The last node before the end node, or NULL for an empty or malformed path. */
const EFI_DEVICE_PATH *dp_last_node(const EFI_DEVICE_PATH *dp);
/* Decodes a hard-drive media node; false when node is something else or too short. */
bool dp_hd_decode(const EFI_DEVICE_PATH *node, struct dp_hd *out);
/* Whether a and b differ only in their last node: two partitions of one disk. */
bool dp_same_parent(const EFI_DEVICE_PATH *a, const EFI_DEVICE_PATH *b);
/* A pool copy of dp without its last node (the parent device); NULL on failure. */
EFI_DEVICE_PATH *dp_parent(const EFI_DEVICE_PATH *dp);
/* A pool copy of dp with a file-path node for path ('/' become '\\') appended. */
EFI_DEVICE_PATH *dp_append_file(const EFI_DEVICE_PATH *dp, const char *path);
/* Prints the path as text (the firmware's DevicePathToText) or "(no device path)". */
void dp_print(const EFI_DEVICE_PATH *dp);

#endif
