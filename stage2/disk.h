/* The int 13h extensions block driver for common/blockdev.h. */
#ifndef ANYSECTOR_STAGE2_DISK_H
#define ANYSECTOR_STAGE2_DISK_H

#include <stdint.h>

#include "common/blockdev.h"

/* Fills dev for BIOS drive `drive` from AH=41h/48h. stage1_bps is the sector size stage1 used
 * (CX at entry): the fallback when AH=48h gives none. Prints the reason and returns an AS_* code
 * when the drive cannot be used. */
int int13_open(struct blockdev *dev, uint8_t drive, uint32_t stage1_bps);

#endif
