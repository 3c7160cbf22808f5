/* SPDX-License-Identifier: BSD-2-Clause */
/* BOOTX64.EFI: booted by the firmware (no arguments) it shows the anysector.cfg menu of the
 * partition it was loaded from and boots the chosen kernel; run from the UEFI shell with a
 * command it is a disk and partition inspection tool (efi/commands.c). */
#include "efi/app.h"
#include "efi/args.h"
#include "efi/commands.h"

EFI_SYSTEM_TABLE *g_st;
EFI_BOOT_SERVICES *g_bs;
EFI_HANDLE g_image;

/* gnu-efi's crt0 calls this with the SysV convention (docs/FIRMWARE.md "gnu-efi"). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	struct args a;

	g_image = image;
	g_st = st;
	g_bs = st->BootServices;
	args_get(&a, cmd_is_command);
	if (a.argc)
		return cmd_run(&a);
	return cmd_boot_default();
}
