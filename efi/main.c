#include <efi.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	(void)image;
	st->ConOut->OutputString(st->ConOut, (CHAR16 *)L"anysector\r\n");
	return EFI_SUCCESS;
}
