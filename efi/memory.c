/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/app.h"

#include "common/bits.h"
#include "common/mem.h"
#include "common/memplace.h"

#define ONE_MIB 0x100000ull

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

/* The firmware's map as common/memplace.h ranges (conventional memory is the usable kind),
 * usable ones merged; NULL when it cannot be read. *n gets the count; free with efi_free. */
static struct mem_range *memory_map(unsigned *n)
{
	UINTN size = 0, key, dsize = 0;
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	struct mem_range *r = NULL;

	if (g_bs->GetMemoryMap(&size, NULL, &key, &dsize, &dver) != EFI_BUFFER_TOO_SMALL || !dsize)
		return NULL;
	size += 16 * dsize;     /* our own two allocations may add descriptors */
	map = efi_alloc(size);
	r = efi_alloc((size / dsize) * sizeof *r);
	if (!map || !r || EFI_ERROR(g_bs->GetMemoryMap(&size, map, &key, &dsize, &dver))) {
		efi_free(map);
		efi_free(r);
		return NULL;
	}
	*n = (unsigned)(size / dsize);
	for (unsigned i = 0; i < *n; i++) {
		const EFI_MEMORY_DESCRIPTOR *m = (const void *)((const uint8_t *)map + i * dsize);
		r[i] = (struct mem_range){ m->PhysicalStart, m->NumberOfPages * PAGE_BYTES,
					   m->Type == EfiConventionalMemory };
	}
	efi_free(map);
	*n = mem_merge_usable(r, *n);
	return r;
}

void *efi_alloc_high(uint64_t bytes, uint64_t hi, UINTN *pages, uint64_t *largest)
{
	UINTN np = DIV_ROUND_UP(bytes, PAGE_BYTES);
	unsigned n = 0;
	struct mem_range *r = memory_map(&n);

	*pages = 0;
	*largest = 0;
	if (!r)
		return NULL;
	/* never below 1 MiB: firmwares keep legacy things there */
	EFI_PHYSICAL_ADDRESS at = mem_place_high(r, n, (uint64_t)(np ? np : 1) * PAGE_BYTES, ONE_MIB,
						 hi, PAGE_BYTES, largest);
	efi_free(r);
	if (!at || EFI_ERROR(g_bs->AllocatePages(AllocateAddress, EfiLoaderData, np ? np : 1, &at)))
		return NULL;
	*pages = np ? np : 1;
	return (void *)(uintptr_t)at;
}

void efi_free_pages(void *p, UINTN pages)
{
	if (p && pages)
		g_bs->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)p, pages);
}
