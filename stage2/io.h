/* SPDX-License-Identifier: BSD-2-Clause */
/* Port I/O and the few fixed low-memory places stage2 touches. */
#ifndef ANYSECTOR_STAGE2_IO_H
#define ANYSECTOR_STAGE2_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* A short delay: a write to the POST diagnostic port takes about a microsecond. */
static inline void io_delay(void)
{
	outb(0x80, 0);
}

/* Byte/word/dword access to a fixed physical address (flat protected mode, no paging). The
 * volatile keeps the compiler from assuming anything about memory the BIOS or hardware owns. */
static inline uint8_t peek8(uintptr_t a)
{
	return *(volatile uint8_t *)a;
}

static inline uint16_t peek16(uintptr_t a)
{
	return *(volatile uint16_t *)a;
}

static inline uint32_t peek32(uintptr_t a)
{
	return *(volatile uint32_t *)a;
}

static inline void poke8(uintptr_t a, uint8_t v)
{
	*(volatile uint8_t *)a = v;
}

static inline void poke16(uintptr_t a, uint16_t v)
{
	*(volatile uint16_t *)a = v;
}

static inline void poke32(uintptr_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

/* BIOS data area fields used here. */
#define BDA_VIDEO_COLS 0x44Au   /* u16 */
#define BDA_CURSOR_POS 0x450u   /* page 0: u8 column, u8 row */
#define BDA_CRTC_PORT 0x463u    /* u16, 0x3D4 colour / 0x3B4 mono */
#define BDA_TIMER_TICKS 0x46Cu  /* u32, 18.2 Hz, wraps at midnight */
#define BDA_VIDEO_ROWS 0x484u   /* u8, rows - 1 (EGA and later) */

#endif
