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

/* Room for the firmware's map in one GetMemoryMap call: OVMF's holds 60-130 descriptors of 48
 * bytes, and a bigger map is read into pool memory. Static, because each call and pool
 * allocation costs a loader's timed stretch tens of microseconds under emulation (make bench). */
#define MAP_STATIC_BYTES (16u * 1024u)
#define MAP_STATIC_RANGES (MAP_STATIC_BYTES / sizeof(EFI_MEMORY_DESCRIPTOR))

static union {
	EFI_MEMORY_DESCRIPTOR d;
	uint8_t bytes[MAP_STATIC_BYTES];
} map_static;
static struct mem_range ranges_static[MAP_STATIC_RANGES];

/* The map into map_static, or, when it does not fit, into pool memory (*pooled). NULL when it
 * cannot be read; *size and *dsize as GetMemoryMap gives them. */
static EFI_MEMORY_DESCRIPTOR *read_map(UINTN *size, UINTN *dsize, bool *pooled)
{
	UINTN key;
	UINT32 dver;
	EFI_MEMORY_DESCRIPTOR *map;
	EFI_STATUS s;

	*pooled = false;
	*size = sizeof map_static;
	s = g_bs->GetMemoryMap(size, &map_static.d, &key, dsize, &dver);
	if (!EFI_ERROR(s))
		return *dsize ? &map_static.d : NULL;
	if (s != EFI_BUFFER_TOO_SMALL || !*dsize)
		return NULL;
	*size += 16 * *dsize;     /* our own allocation may add descriptors */
	if (!(map = efi_alloc(*size)))
		return NULL;
	if (EFI_ERROR(g_bs->GetMemoryMap(size, map, &key, dsize, &dver))) {
		efi_free(map);
		return NULL;
	}
	*pooled = true;
	return map;
}

/* The firmware's map as common/memplace.h ranges (conventional memory is the usable kind),
 * usable ones merged; NULL when it cannot be read. *n gets the count; *pooled says the ranges
 * are pool memory, to be freed with efi_free. */
static struct mem_range *memory_map(unsigned *n, bool *pooled)
{
	UINTN size = 0, dsize = 0;
	bool map_pooled;
	EFI_MEMORY_DESCRIPTOR *map = read_map(&size, &dsize, &map_pooled);
	struct mem_range *r = ranges_static;

	*pooled = false;
	if (!map)
		return NULL;
	*n = (unsigned)(size / dsize);
	if (*n > MAP_STATIC_RANGES) {
		if (!(r = efi_alloc(*n * sizeof *r))) {
			if (map_pooled)
				efi_free(map);
			return NULL;
		}
		*pooled = true;
	}
	for (unsigned i = 0; i < *n; i++) {
		const EFI_MEMORY_DESCRIPTOR *m = (const void *)((const uint8_t *)map + i * dsize);
		r[i] = (struct mem_range){ m->PhysicalStart, m->NumberOfPages * PAGE_BYTES,
					   m->Type == EfiConventionalMemory };
	}
	if (map_pooled)
		efi_free(map);
	*n = mem_merge_usable(r, *n);
	return r;
}

void *efi_alloc_high(uint64_t bytes, uint64_t hi, UINTN *pages, uint64_t *largest)
{
	UINTN np = DIV_ROUND_UP(bytes, PAGE_BYTES);
	unsigned n = 0;
	bool pooled;
	struct mem_range *r = memory_map(&n, &pooled);

	*pages = 0;
	*largest = 0;
	if (!r)
		return NULL;
	/* never below 1 MiB: firmwares keep legacy things there */
	EFI_PHYSICAL_ADDRESS at = mem_place_high(r, n, (uint64_t)(np ? np : 1) * PAGE_BYTES, ONE_MIB,
						 hi, PAGE_BYTES, largest);
	if (pooled)
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
