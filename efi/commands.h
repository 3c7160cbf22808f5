/* SPDX-License-Identifier: BSD-2-Clause */
/* What the application does when the UEFI shell runs it with arguments (and the plain boot when
 * it has none). Each returns the EFI_STATUS the shell shows as %lasterror%. */
#ifndef ANYSECTOR_EFI_COMMANDS_H
#define ANYSECTOR_EFI_COMMANDS_H

#include "efi/args.h"

/* `check` exit statuses, as the installer's `anysector check` exit codes. */
#define CHECK_STATUS_WARNINGS ((EFI_STATUS)1)
#define CHECK_STATUS_ERRORS ((EFI_STATUS)2)

bool cmd_is_command(const char *word);
EFI_STATUS cmd_run(const struct args *a);
/* Firmware boot: the menu of the partition we were loaded from. */
EFI_STATUS cmd_boot_default(void);

#endif
