/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/app.h"

#include "common/bits.h"
#include "common/fmt.h"

static const char *const error_names[] = {
	[1] = "EFI_LOAD_ERROR", [2] = "EFI_INVALID_PARAMETER", [3] = "EFI_UNSUPPORTED",
	[4] = "EFI_BAD_BUFFER_SIZE", [5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
	[7] = "EFI_DEVICE_ERROR", [8] = "EFI_WRITE_PROTECTED", [9] = "EFI_OUT_OF_RESOURCES",
	[10] = "EFI_VOLUME_CORRUPTED", [11] = "EFI_VOLUME_FULL", [12] = "EFI_NO_MEDIA",
	[13] = "EFI_MEDIA_CHANGED", [14] = "EFI_NOT_FOUND", [15] = "EFI_ACCESS_DENIED",
	[18] = "EFI_TIMEOUT", [21] = "EFI_ABORTED", [26] = "EFI_SECURITY_VIOLATION",
};

const char *efi_status_name(EFI_STATUS s, char buf[24])
{
	if (s == EFI_SUCCESS)
		return "EFI_SUCCESS";
	if (EFI_ERROR(s)) {
		UINTN code = s & ~EFI_ERROR_MASK;
		if (code < ARRAY_SIZE(error_names) && error_names[code])
			return error_names[code];
	}
	fmt_snprintf(buf, 24, "0x%llx", (unsigned long long)s);
	return buf;
}
