/* SPDX-License-Identifier: BSD-2-Clause */
/* The boot stages the installer writes: stage1.bin (LBA 0 code), stage2.bin (the BIOS loader),
 * stage2-gap.bin (its legacy-gap build, common/features.h; optional), BOOTX64.EFI (the UEFI
 * application), found in one directory:
 * --stages DIR, else $ANYSECTOR_STAGES, else ../stages or ../../stages next to the executable
 * (build trees: build/tools/anysector and build/asan/tools/anysector both find build/stages),
 * else ANYSECTOR_LIBDIR (PREFIX/lib/anysector). */
#ifndef ANYSECTOR_TOOLS_STAGES_H
#define ANYSECTOR_TOOLS_STAGES_H

#include <stddef.h>
#include <stdint.h>

struct stages {
	char dir[4096];
	uint8_t *stage1;     /* 512 bytes */
	uint8_t *stage2;
	uint32_t stage2_len;
	uint8_t *stage2_gap;     /* NULL: the directory has no stage2-gap.bin */
	uint32_t stage2_gap_len;
	char efi_path[4096 + 32]; /* BOOTX64.EFI, copied by mtools */
};

/* Finds the directory (opt may be NULL) and loads and validates the stages: stage1 is a 512-byte
 * record with the "ASB1" patch block and 0x55AA, stage2 carries a valid sealed header (and
 * stage2-gap.bin, when there is one, the gap build's flag too), BOOTX64.EFI starts with "MZ".
 * Returns 0 or an exit code. */
int stages_load(const char *opt, struct stages *s);
void stages_free(struct stages *s);

/* The directory that would be used, without loading anything (for --help / errors). */
const char *stages_dir(const char *opt, char *out, size_t cap);

#endif
