/* SPDX-License-Identifier: BSD-2-Clause */
/* A target's topology, decided once when it is opened: a block device's from the kernel
 * (tools/dev/hostdev.c), an image file's from --sector-size or from the tables it holds
 * (docs/FIRMWARE.md "Alignment", "GPT"). */
#ifndef ANYSECTOR_TOOLS_TOPOLOGY_H
#define ANYSECTOR_TOOLS_TOPOLOGY_H

#include <stdint.h>

#include "tools/dev/hostdev.h"

/* Decides the topology. Block devices: the kernel's values; --sector-size must match it, the
 * other flags override (with a note). Image files: --sector-size when given, else a CRC-valid
 * GPT header (primary at LBA 1 or backup at the last LBA) at 512/1024/2048/4096 (valid at more
 * than one size: the smallest with a warning, or EXIT_ERRORS when opened for writing), else for
 * a protective MBR without a valid header the one size its remains point to ("EFI PART" where a
 * header belongs, else the 0xEE entry's size; EXIT_ERRORS when there is none), else 512 for a
 * blank image; for an image holding only an MBR the one size its contents tell
 * (tools/disk/mbr_size.h), else EXIT_USAGE with a sentence naming the sizes that fit.
 * Returns 0 or an exit code. */
int topology_find(struct hostdev *h, const struct topo_flags *f);

/* The sector sizes at which the image holds a CRC-valid GPT header, as a bit set of
 * (1 << log2(size)); for tests and detection. */
unsigned topology_gpt_sizes(int fd, uint64_t size_bytes);

#endif
