/* SPDX-License-Identifier: BSD-2-Clause */
/* Measured boot under BIOS: the common/measure.h events extended into a TPM 2.0 and appended to
 * the firmware's event log, through SeaBIOS's TCG interface (int 1Ah, AH=BBh): its status
 * check for the log, its pass-through for TPM2_PCR_Extend with one digest per active bank
 * (its own hash-log-extend builds SHA-1-only digests a TPM 2.0 refuses: docs/FIRMWARE.md
 * "TPM 2.0 and measured boot"), and the log area the ACPI TPM2 table gives (where Linux reads
 * it). Not in the legacy-gap build (common/features.h). */
#ifndef ANYSECTOR_STAGE2_TPM_H
#define ANYSECTOR_STAGE2_TPM_H

#include "common/features.h"
#include "common/measure.h"

#if FEATURE_MEASURE
/* The measurer, or NULL when the BIOS has no TCG interface or no TPM (said nothing), or the TPM
 * or its log cannot be used (said why, once). Measures stage2 itself (as loaded) first. */
struct measure *tpm_measure(void);
/* cmdline measured as systemd-boot measures it (common/measure.h measure_cmdline). */
void tpm_measure_cmdline(struct measure *m, const char *cmdline);
#else
static inline struct measure *tpm_measure(void)
{
	return 0;
}

static inline void tpm_measure_cmdline(struct measure *m, const char *cmdline)
{
	(void)m, (void)cmdline;
}
#endif

#endif
