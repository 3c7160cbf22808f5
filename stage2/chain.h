/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef ANYSECTOR_STAGE2_CHAIN_H
#define ANYSECTOR_STAGE2_CHAIN_H

#include <stdint.h>

#include "common/blockdev.h"
#include "common/config.h"
#include "common/measure.h"
#include "stage2/bioscall.h"

/* Starts the boot record a chainload entry names (partition N of the boot disk, or LBA 0 of
 * BIOS disk 0x80 + N). Returns only when it cannot, after saying why: unreadable, or no 0x55AA
 * at bytes 510..511. The record is measured into m (NULL: none) before it runs. */
int chain_boot(struct blockdev *boot_disk, uint8_t boot_drive, const struct cfg_entry *e,
	       struct measure *m);

/* head.asm: copies `bytes` from segment src_seg:0 to 0000:7C00 and jumps there in real mode with
 * DL = drive, DS:SI = 0000:si, SS:SP = 0000:7C00, interrupts on. */
ASMLINKAGE __attribute__((noreturn)) void chain_enter(uint32_t drive, uint32_t bytes,
						      uint32_t si, uint32_t src_seg);

#endif
