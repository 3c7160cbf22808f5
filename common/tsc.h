/* SPDX-License-Identifier: BSD-2-Clause */
/* The time stamp counter, the one clock both loaders read in the guest: BOOTX64.EFI's Boot
 * Loader Interface times (efi/bli.c) and both loaders' account of their reads for make bench
 * (stage2/disk.c, efi/blockio.c). Only where the CPU has one: every x86-64 CPU does, a 32-bit
 * one says so in CPUID (stage2 asks first). */
#ifndef ANYSECTOR_TSC_H
#define ANYSECTOR_TSC_H

#include <stdint.h>

static inline uint64_t tsc_read(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#endif
