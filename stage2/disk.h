/* SPDX-License-Identifier: BSD-2-Clause */
/* The int 13h extensions block driver for common/blockdev.h. */
#ifndef ANYSECTOR_STAGE2_DISK_H
#define ANYSECTOR_STAGE2_DISK_H

#include <stdint.h>

#include "common/blockdev.h"

/* Fills dev for BIOS drive `drive` from AH=41h/48h. stage1_bps is the sector size stage1 used
 * (CX at entry): the fallback when AH=48h gives none. Prints the reason and returns an AS_* code
 * when the drive cannot be used. */
int int13_open(struct blockdev *dev, uint8_t drive, uint32_t stage1_bps);
/* Another BIOS drive (a chainload target), alongside the boot drive. */
int int13_open_other(struct blockdev *dev, uint8_t drive);

/* "disk 0x80: 57 int 13h AH=42h calls, 6565888 bytes read": every AH=42h call since stage2
 * started (retries too) and the bytes the successful ones moved. make bench parses this line. */
void int13_print_counts(void);

/* Records the boot drive's AH=42h calls from now on, which int13_print_log prints as runs of
 * "LBA+sectors x calls" six to a line (make bench's floor reader repeats them). */
void int13_log_start(void);
void int13_print_log(void);

/* The one sentence a user sees when a file cannot be loaded because the disk failed: the file,
 * the drive, the whole-disk LBA and the BIOS's last error (dev: the device, or a window of it,
 * whose read failed). */
void int13_print_read_error(const char *path, const struct blockdev *dev);

#endif
