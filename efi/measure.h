/* SPDX-License-Identifier: BSD-2-Clause */
/* Measured boot under UEFI: the common/measure.h events through EFI_TCG2_PROTOCOL's
 * HashLogExtendEvent, which hashes into every active PCR bank and logs the event in the
 * firmware's event log (the one Linux reads). */
#ifndef ANYSECTOR_EFI_MEASURE_H
#define ANYSECTOR_EFI_MEASURE_H

#include "efi/app.h"

#include "common/measure.h"

/* The measurer when the firmware has EFI_TCG2_PROTOCOL and says a TPM is present, else NULL
 * (no TPM: nothing measured, nothing said). A failed extend is reported to d as
 * "measure.extend" (a warning: the boot goes on). */
struct measure *efi_measure(struct diag *d);

#endif
