/* SPDX-License-Identifier: BSD-2-Clause */
/* The partition layouts `anysector partition` writes (docs/DESIGN.md "On-disk layout"): pure
 * arithmetic over a topology, so the unit tests can run every mocked drive through it.
 *
 * GPT: BIOS boot (1 MiB) + ESP (--esp-size, default 260 MiB when the disk has room, else all that
 *      fits) + the rest as a Linux filesystem partition (unless --no-rest).
 * MBR: FAT boot partition (active, type 0xEF) + the rest (0x83); the first partition starts at
 *      or after 1 MiB so stage2 fits the gap. --dos-compat: LBA 63 and cylinder boundaries.
 * Every start is the first LBA >= the previous end that satisfies LBA*LSS = AOFF (mod G),
 * G = align_grain(topology, with 1 MiB); every end is aligned down the same way (as sfdisk does),
 * so the space after the last partition is whole grains.
 * Dual GPT (--sector-size any): the GPT layout inside the usable bytes both sizes share, with
 * the ESP rounded up to whole 4 KiB blocks, so every partition has the same byte range at 512-
 * and 4096-byte sectors; planned at the topology's own sector size (512 or 4096). */
#ifndef ANYSECTOR_TOOLS_LAYOUT_H
#define ANYSECTOR_TOOLS_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/align.h"
#include "common/label.h"
#include "tools/disk/dual.h"
#include "tools/base/report.h"

enum part_role {
	ROLE_BIOS_BOOT,
	ROLE_ESP,
	ROLE_REST,
};

#define LAYOUT_BIOS_BOOT_BYTES (1ull << 20)
#define LAYOUT_ESP_DEFAULT_BYTES (260ull << 20)
#define LAYOUT_ESP_MIN_BYTES (1ull << 20)
#define LAYOUT_MBR_GAP_BYTES (1ull << 20)   /* the MBR gap before the first partition */
#define LAYOUT_CYLINDER 16065u              /* 255 heads x 63 sectors, for --dos-compat */
#define LAYOUT_MBR_LBA_LIMIT 0xFFFFFFFFull  /* the last LBA a 32-bit MBR field can name */

struct layout_opts {
	enum label_kind label;
	uint64_t esp_bytes;   /* 0: the default */
	bool no_rest;
	bool dos_compat;
	const char *stages;   /* --stages of mkimage: the stage2 --dos-compat measures (NULL: the
			       * default directory, tools/boot/stages.h) */
	bool dual;            /* --sector-size any: a dual GPT (tools/disk/dual.h) */
};

struct layout_part {
	enum part_role role;
	uint64_t first, last; /* inclusive LBAs */
};

struct layout {
	enum label_kind label;
	unsigned n;
	struct layout_part p[3];
	unsigned esp;                /* index of the ESP / FAT boot partition in p */
	uint64_t first_usable;       /* GPT header values; MBR: 1 and the last addressable LBA */
	uint64_t last_usable;
	uint64_t grain;              /* bytes */
	bool dual;                   /* both GPTs of dual_geo; the LBAs above are the topology's */
	struct dual_geometry dual_geo;
};

/* Plans a layout. Returns 0, or reports (to r) and returns an exit code when it cannot: MBR past
 * the 32-bit limit ("use --label gpt"), an ESP that does not fit, a disk too small. Notes and
 * warnings (what was shrunk or left out, --dos-compat misalignment) also go to r. */
int layout_plan(const struct topology *t, const struct layout_opts *o, struct layout *out,
		struct report *r);

const char *role_name(enum part_role role);

#endif
