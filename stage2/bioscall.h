/* SPDX-License-Identifier: BSD-2-Clause */
/* The real-mode call gate (stage2/head.asm): stage2 runs in 32-bit protected mode and drops to
 * real mode for each BIOS service. The register block is laid out in pushad order followed by
 * the segment registers and EFLAGS, the order head.asm pops and pushes them. */
#ifndef ANYSECTOR_STAGE2_BIOSCALL_H
#define ANYSECTOR_STAGE2_BIOSCALL_H

#include <stdbool.h>
#include <stdint.h>

#define REG32(e, x, l, h) \
	union { \
		uint32_t e; \
		uint16_t x; \
		struct { uint8_t l, h; }; \
	}
#define REG32_NOBYTES(e, x) \
	union { \
		uint32_t e; \
		uint16_t x; \
	}

struct biosregs {
	REG32_NOBYTES(edi, di);
	REG32_NOBYTES(esi, si);
	REG32_NOBYTES(ebp, bp);
	uint32_t unused_esp;
	REG32(ebx, bx, bl, bh);
	REG32(edx, dx, dl, dh);
	REG32(ecx, cx, cl, ch);
	REG32(eax, ax, al, ah);
	uint16_t gs, fs, es, ds;
	uint32_t eflags;
};

_Static_assert(sizeof(struct biosregs) == 44, "head.asm copies 11 dwords");

/* stage2's C passes the first three arguments in EAX, EDX, ECX (-mregparm=3, stage2.mk); the
 * functions head.asm defines or calls take every argument on the stack. */
#define ASMLINKAGE __attribute__((regparm(0)))

#define EFLAGS_CF 0x0001u
#define EFLAGS_FIXED1 0x0002u  /* always reads as 1 */
#define EFLAGS_ZF 0x0040u
#define EFLAGS_IF 0x0200u

/* Zeroed registers, segments 0, interrupts enabled while the BIOS runs, CF set (bioscall.c). */
void initregs(struct biosregs *r);

/* Implemented in head.asm. out may be NULL; in and out may be the same block. */
ASMLINKAGE void bios_call(uint8_t intno, const struct biosregs *in, struct biosregs *out);

static inline bool regs_cf(const struct biosregs *r)
{
	return r->eflags & EFLAGS_CF;
}

/* Real-mode segment:offset of a linear address below 1 MiB. */
static inline uint16_t rm_seg(const void *p)
{
	return (uint16_t)((uintptr_t)p >> 4);
}

static inline uint16_t rm_off(const void *p)
{
	return (uint16_t)((uintptr_t)p & 0xF);
}

/* head.asm: enter a Linux kernel's real-mode setup at seg+0x20:0 with all segments = seg. */
ASMLINKAGE __attribute__((noreturn)) void linux_enter_real_mode(uint16_t seg, uint16_t sp);

#endif
