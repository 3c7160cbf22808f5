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

/* The first guess at the map's size: OVMF's holds 60-130 descriptors of 48 bytes, so one
 * GetMemoryMap call usually does; each call and pool allocation costs a loader's timed stretch
 * tens of microseconds under emulation (make bench). Not static storage: gnu-efi's PE image
 * carries .bss as file bytes. */
#define MAP_GUESS_BYTES (16u * 1024u)
#define MAP_TRIES 3u

/* The firmware's map in pool memory (free with efi_free); NULL when it cannot be read. */
static EFI_MEMORY_DESCRIPTOR *read_map(UINTN *size, UINTN *dsize)
{
	UINTN key, want = MAP_GUESS_BYTES;
	UINT32 dver;

	for (unsigned t = 0; t < MAP_TRIES; t++) {
		EFI_MEMORY_DESCRIPTOR *map = NULL;
		if (EFI_ERROR(g_bs->AllocatePool(EfiLoaderData, want, (void **)&map)))
			return NULL;
		*size = want;
		EFI_STATUS s = g_bs->GetMemoryMap(size, map, &key, dsize, &dver);
		if (!EFI_ERROR(s) && *dsize >= sizeof *map)
			return map;
		g_bs->FreePool(map);
		if (s != EFI_BUFFER_TOO_SMALL)
			return NULL;
		want = *size + 16 * sizeof *map;   /* our own allocation may add descriptors */
	}
	return NULL;
}

_Static_assert(sizeof(struct mem_range) <= sizeof(EFI_MEMORY_DESCRIPTOR),
	       "memory_map converts the map in place");

/* The firmware's map as common/memplace.h ranges (conventional memory is the usable kind),
 * usable ones merged, in the map's own pool memory (free with efi_free); NULL when it cannot be
 * read. *n gets the count. Range i is written after descriptor i is read, and ends before
 * descriptor i + 1 starts (a range is no larger than a descriptor). */
static struct mem_range *memory_map(unsigned *n)
{
	UINTN size = 0, dsize = 0;
	EFI_MEMORY_DESCRIPTOR *map = read_map(&size, &dsize);
	struct mem_range *r = (struct mem_range *)map;

	if (!map)
		return NULL;
	*n = (unsigned)(size / dsize);
	for (unsigned i = 0; i < *n; i++) {
		const EFI_MEMORY_DESCRIPTOR *m = (const void *)((const uint8_t *)map + i * dsize);
		struct mem_range one = { m->PhysicalStart, m->NumberOfPages * PAGE_BYTES,
					 m->Type == EfiConventionalMemory };
		r[i] = one;
	}
	*n = mem_merge_usable(r, *n);
	return r;
}

/* Firmwares whose PCI root bridge cannot address memory above 4 GiB (OVMF's says
 * DmaAbove4G = FALSE) have every disk read into a buffer above it made into one below and
 * copied up by the CPU on Unmap: a 512 MiB initrd read above 4 GiB took OVMF's NVMe driver 3 to
 * 6 times as long as the same read below (docs/FIRMWARE.md "OVMF"). */
#define DMA_DIRECT_LIMIT 0x100000000ull

void *efi_alloc_read_buffer(uint64_t bytes, uint64_t hi, UINTN *pages, uint64_t *largest)
{
	UINTN np = DIV_ROUND_UP(bytes, PAGE_BYTES);
	unsigned n = 0;
	struct mem_range *r = memory_map(&n);

	*pages = 0;
	*largest = 0;
	if (!r)
		return NULL;
	/* never below 1 MiB: firmwares keep legacy things there */
	EFI_PHYSICAL_ADDRESS at = mem_place_low_first(r, n, (uint64_t)(np ? np : 1) * PAGE_BYTES,
						      ONE_MIB, DMA_DIRECT_LIMIT, hi, PAGE_BYTES,
						      largest);
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
