/* SPDX-License-Identifier: BSD-2-Clause */
/* Every byte of a kernel and initrd goes through this copy (SeaBIOS lands no read above 1 MiB,
 * docs/FIRMWARE.md "SeaBIOS"), so it is shaped by what it costs under QEMU's TCG, where make
 * bench measures it; on real hardware any of these forms is as fast as memcpy. */
#include "stage2/copy.h"

#include <stdbool.h>
#include <stdint.h>

#include "common/mem.h"
#include "stage2/layout.h"

#define HOP_BYTES 4096u
/* QEMU's TLB is direct-mapped on the page number and has at least 2^6 entries. */
#define TLB_MIN_ENTRIES 64u

/* Eight 32-bit moves per iteration: each iteration of a rep string instruction is a trip of its
 * own through the translated code, so rep movsl cost more. Wider moves need CR0 and CR4 and were
 * slower: MMX, and SSE (movups, two per 32 bytes: stage2's copies other than the slow ones took
 * 133 M ticks against these 95 M, medians of 4 bios-nvme-4Kn boots each). blocks: 32-byte
 * blocks, at least one. */
static void copy_blocks(void *dst, const void *src, size_t blocks)
{
	uint32_t a, b;

	__asm__ volatile("1:\n\t"
			 "movl (%[s]), %[a]\n\t"
			 "movl 4(%[s]), %[b]\n\t"
			 "movl %[a], (%[d])\n\t"
			 "movl %[b], 4(%[d])\n\t"
			 "movl 8(%[s]), %[a]\n\t"
			 "movl 12(%[s]), %[b]\n\t"
			 "movl %[a], 8(%[d])\n\t"
			 "movl %[b], 12(%[d])\n\t"
			 "movl 16(%[s]), %[a]\n\t"
			 "movl 20(%[s]), %[b]\n\t"
			 "movl %[a], 16(%[d])\n\t"
			 "movl %[b], 20(%[d])\n\t"
			 "movl 24(%[s]), %[a]\n\t"
			 "movl 28(%[s]), %[b]\n\t"
			 "movl %[a], 24(%[d])\n\t"
			 "movl %[b], 28(%[d])\n\t"
			 "addl $32, %[s]\n\t"
			 "addl $32, %[d]\n\t"
			 "decl %[n]\n\t"
			 "jnz 1b"
			 : [d] "+r"(dst), [s] "+r"(src), [n] "+r"(blocks), [a] "=&r"(a), [b] "=&r"(b)
			 : : "memory");
}

/* Whether a byte's source and destination pages can share an entry of QEMU's TLB: then every
 * load and store of the copy evicts the other's page, and a 64 KiB copy took 8 times as long
 * (590,000 time stamp counter ticks against 70,000: with the bounce buffer at 0x50000, the
 * kernel's calls whose bytes went to 0x150000, 0x250000 and so on). A source page's bytes land
 * in the destination pages delta and delta + 1 pages on when dst - src is not page-aligned. */
static bool tlb_alias(const void *dst, const void *src)
{
	uint32_t d = (uint32_t)(uintptr_t)dst - (uint32_t)(uintptr_t)src;
	uint32_t pages = (d >> 12) % TLB_MIN_ENTRIES;

	return pages == 0 || (pages == TLB_MIN_ENTRIES - 1 && (d & 0xFFF));
}

static void copy_run(void *dst, const void *src, size_t n)
{
	if (n >= 32)
		copy_blocks(dst, src, n / 32);
	memcpy((uint8_t *)dst + (n & ~(size_t)31), (const uint8_t *)src + (n & ~(size_t)31),
	       n % 32);
}

void bounce_copy_out(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	/* Twice the moves through a page no source or destination page aliases (linker.ld puts
	 * __copy_hop just below the bounce buffer) are still a quarter of an aliased copy's time. */
	if (n >= HOP_BYTES && tlb_alias(d, s)) {
		for (; n >= HOP_BYTES; d += HOP_BYTES, s += HOP_BYTES, n -= HOP_BYTES) {
			copy_blocks(__copy_hop, s, HOP_BYTES / 32);
			copy_blocks(d, __copy_hop, HOP_BYTES / 32);
		}
	}
	copy_run(d, s, n);
}
