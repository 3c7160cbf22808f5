/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/app.h"

#include "common/bits.h"
#include "common/mem.h"

void *efi_alloc(size_t bytes)
{
	void *p = NULL;
	if (!bytes || EFI_ERROR(g_bs->AllocatePool(EfiLoaderData, bytes, &p)))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

void efi_free(void *p)
{
	if (p)
		g_bs->FreePool(p);
}

void *efi_alloc_pages(size_t bytes, UINTN *pages)
{
	EFI_PHYSICAL_ADDRESS addr = 0;
	UINTN n = DIV_ROUND_UP(bytes, PAGE_BYTES);

	*pages = 0;
	if (!n)
		n = 1;
	if (EFI_ERROR(g_bs->AllocatePages(AllocateAnyPages, EfiLoaderData, n, &addr)))
		return NULL;
	*pages = n;
	return (void *)(uintptr_t)addr;
}

void efi_free_pages(void *p, UINTN pages)
{
	if (p && pages)
		g_bs->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)p, pages);
}
