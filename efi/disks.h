/* SPDX-License-Identifier: BSD-2-Clause */
/* `info` and `check`: every BlockIo device the firmware knows, with its geometry as the firmware
 * reports it, and for whole disks the partition table read through common/ and each partition's
 * alignment judged from the table's numbers (firmware geometry is unreliable:
 * docs/FIRMWARE.md "OVMF"). */
#ifndef ANYSECTOR_EFI_DISKS_H
#define ANYSECTOR_EFI_DISKS_H

#include "efi/app.h"

/* info: prints; returns EFI_SUCCESS unless the firmware has no BlockIo at all. */
EFI_STATUS disks_info(void);
/* check: reports problems through d (errors and warnings counted there). */
void disks_check(struct diag *d);

#endif
