/* SPDX-License-Identifier: BSD-2-Clause */
/* The contracts between the installer and the boot stages (docs/DESIGN.md
 * "Stage1 -> stage2 contract"): the patch block inside stage1's 440 bytes, and the header at the
 * start of stage2. Offsets here are the single truth: stage1/mbr.asm checks them at build time,
 * stage2 and tools/ use these. */
#ifndef ANYSECTOR_BOOTINFO_H
#define ANYSECTOR_BOOTINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/guid.h"

/* ---- stage1 (LBA 0, bytes 0..439) ----
 * 0x1A4  4  "ASB1"  marks our boot code (anysector check looks for it)
 * 0x1A8  8  u64 byte offset of stage2 on the disk (a multiple of the logical sector size)
 * 0x1B0  4  u32 stage2 length in bytes
 * 0x1B4  2  u16 stage1 version
 * 0x1B6  2  u16 flags (reserved, 0)
 * 0x1B8     disk signature: not ours */
#define STAGE1_MAX_CODE 440
#define STAGE1_MAGIC_OFF 0x1A4
#define STAGE1_MAGIC "ASB1"
#define STAGE1_S2_OFFSET_OFF 0x1A8
#define STAGE1_S2_LENGTH_OFF 0x1B0
#define STAGE1_VERSION_OFF 0x1B4
#define STAGE1_FLAGS_OFF 0x1B6
#define STAGE1_VERSION 1

/* Where stage1 loads stage2 and how it enters it: real mode, CS:IP = 0000:8000, DL = BIOS drive,
 * CX = the bytes per sector stage1 used, interrupts enabled. Stage2 must end below 0x80000. */
#define STAGE2_LOAD_ADDR 0x8000u
#define STAGE2_LOAD_LIMIT 0x80000u
#define STAGE2_MAX_SIZE (STAGE2_LOAD_LIMIT - STAGE2_LOAD_ADDR)
/* The size goal: stage2 must fit the legacy 62-sector gap before LBA 63 (31,744 bytes). */
#define STAGE2_LEGACY_GAP_BYTES 31744u /* LBAs 1..62 of a 512-byte-sector disk */

/* ---- stage2 header (its first bytes) ----
 * 0x00   8  entry: a short jump over the header, padded
 * 0x08   8  "ANYSECT2"
 * 0x10   4  u32 header version (1)
 * 0x14   4  u32 image length in bytes (the whole stage2 file)
 * 0x18   4  u32 CRC32 of the whole image with this field taken as zero; recomputed by the
 *           installer after patching, so a torn install or a stray write is detected
 * 0x1C   4  u32 boot partition kind: 0 unset, 1 GPT, 2 MBR
 * 0x20  16  GPT unique partition GUID of the boot partition (kind 1)
 * 0x30   4  u32 MBR disk signature (kind 2)
 * 0x34   4  u32 MBR partition number, 1-based (kind 2)
 * 0x38   4  u32 flags: STAGE2_FLAG_GAP_BUILD, set by the build of stage2-gap.bin
 * 0x3C   4  u32 byte offset on the disk of the boot state block's first copy; the second
 *           follows it (common/bootstate.h); 0: none (installer)
 * 0x40  64  config file path on the boot partition, NUL-terminated ("/anysector.cfg")
 * 0x80      end of header; code follows */
#define STAGE2_MAGIC_OFF 0x08
#define STAGE2_MAGIC "ANYSECT2"
#define STAGE2_HDR_VERSION_OFF 0x10
#define STAGE2_LENGTH_OFF 0x14
#define STAGE2_CRC_OFF 0x18
#define STAGE2_KIND_OFF 0x1C
#define STAGE2_PART_GUID_OFF 0x20
#define STAGE2_MBR_SIG_OFF 0x30
#define STAGE2_MBR_PART_OFF 0x34
#define STAGE2_FLAGS_OFF 0x38
/* the legacy-gap build: what it leaves out is common/features.h FEATURES_NOT_IN_GAP */
#define STAGE2_FLAG_GAP_BUILD 0x1u
#define STAGE2_STATE_OFF 0x3C
#define STAGE2_CONFIG_PATH_OFF 0x40
#define STAGE2_CONFIG_PATH_MAX 64
#define STAGE2_HDR_SIZE 0x80
#define STAGE2_HDR_VERSION 1

enum stage2_boot_kind {
	STAGE2_KIND_UNSET = 0,
	STAGE2_KIND_GPT = 1,
	STAGE2_KIND_MBR = 2,
};

struct stage2_identity {
	enum stage2_boot_kind kind;
	struct guid part_guid;
	uint32_t mbr_disk_sig;
	uint32_t mbr_part;
	uint32_t state_offset;        /* the boot state block's byte offset, 0: none */
	char config_path[STAGE2_CONFIG_PATH_MAX];
};

/* The CRC stage2 carries: CRC32 over image[0..len) with bytes STAGE2_CRC_OFF..+4 taken as zero. */
uint32_t stage2_image_crc(const uint8_t *image, uint32_t len);
/* Checks magic, header version, length == len and the CRC. */
bool stage2_image_valid(const uint8_t *image, uint32_t len);
/* Decodes / patches the identity fields (patching also recomputes the CRC). */
void stage2_identity_get(const uint8_t *image, struct stage2_identity *id);
void stage2_identity_set(uint8_t *image, uint32_t len, const struct stage2_identity *id);

#endif
