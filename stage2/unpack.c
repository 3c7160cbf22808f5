/* SPDX-License-Identifier: BSD-2-Clause */
/* The uncompressed part of stage2 after head.asm: check the image stage1 loaded against its
 * sealed CRC32, then unpack the LZMA-compressed body (everything else) to where it was linked
 * and run it. This file, unlzma.c, bioscall.c and the common/ functions they call are placed in
 * .head by linker.ld; the build checks they call nothing in the body. Failures here are printed
 * through the BIOS teletype and COM1 directly: the body's console does not exist yet. */
#include "common/bootinfo.h"
#include "common/le.h"
#include "common/uart.h"
#include "stage2/bioscall.h"
#include "stage2/unlzma.h"
#include "stage2/io.h"
#include "stage2/layout.h"

ASMLINKAGE void stage2_unpack(uint32_t drive, uint32_t stage1_bps);
void stage2_main(uint32_t drive, uint32_t stage1_bps);

static void early_putc(char c)
{
	struct biosregs r;

	for (unsigned i = 0; i < 100000; i++)
		if (inb(UART_COM1 + UART_LSR) & UART_LSR_THR_EMPTY)
			break;
	outb(UART_COM1 + UART_DATA, (uint8_t)c);
	initregs(&r);
	r.ah = 0x0E;
	r.al = (uint8_t)c;
	bios_call(0x10, &r, 0);
}

static void early_puts(const char *s)
{
	while (*s) {
		if (*s == '\n')
			early_putc('\r');
		early_putc(*s++);
	}
}

/* A number in decimal, or in hexadecimal with 8 digits. Not fmt_vsnprintf: it and the 64-bit
 * division it needs stay in the compressed body, which keeps the image about 1 KiB smaller. */
static void early_num(uint32_t v, unsigned base)
{
	char b[12];
	unsigned n = 0;

	do {
		b[n++] = "0123456789ABCDEF"[v % base];
		v /= base;
	} while (v || (base == 16 && n < 8));
	while (n)
		early_putc(b[--n]);
}

/* Prints "anysector stage2", then each piece of the sentence followed by its number (base 0:
 * none), and stops. */
__attribute__((noreturn)) static void early_halt(const char *const *text, const uint32_t *num,
						 const uint8_t *base, unsigned n)
{
	outb(UART_COM1 + UART_LCR, UART_LCR_DLAB);
	outb(UART_COM1 + UART_DATA, UART_CLOCK / 115200);
	outb(UART_COM1 + UART_IER, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_8N1);
	outb(UART_COM1 + UART_FCR, UART_FCR_FIFO_CLEAR);
	outb(UART_COM1 + UART_MCR, UART_MCR_DTR_RTS);
	early_puts("\nanysector stage2");
	for (unsigned i = 0; i < n; i++) {
		early_puts(text[i]);
		if (base[i])
			early_num(num[i], base[i]);
	}
	early_puts("\nanysector: halted.\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}

ASMLINKAGE void stage2_unpack(uint32_t drive, uint32_t stage1_bps)
{
	const uint8_t *img = __image_start;
	uint32_t len = le32_load(img + STAGE2_LENGTH_OFF);
	uint32_t head = (uint32_t)(__head_end - __image_start);
	uint32_t body = (uint32_t)(__body_end - __body_start);

	if (len <= head || len > STAGE2_MAX_SIZE) {
		static const char *const t[] = {
			": the header says the image is ", " bytes, but its head alone is ",
			" and the most is ", ": this stage2 was not sealed or its header is damaged; "
			"reinstall with anysector install" };
		early_halt(t, (const uint32_t[]){ len, head, STAGE2_MAX_SIZE, 0 },
			   (const uint8_t[]){ 10, 10, 10, 0 }, 4);
	}
	uint32_t want = le32_load(img + STAGE2_CRC_OFF);
	uint32_t crc = stage2_image_crc(img, len);
	if (crc != want) {
		static const char *const t[] = {
			" is damaged: the CRC32 of its image is ", " but its header records ",
			"; the install was torn or something overwrote it. Reinstall with anysector "
			"install." };
		early_halt(t, (const uint32_t[]){ crc, want, 0 }, (const uint8_t[]){ 16, 16, 0 }, 3);
	}
	/* The model lives in __linux_rm: nothing else uses it before the body runs. */
	if (!lzma_unpack(img + head, len - head, __body_start, body, __linux_rm,
			 (size_t)(__linux_rm_end - __linux_rm))) {
		static const char *const t[] = {
			": its packed body does not unpack to the ", " bytes it was linked as; the build "
			"is broken" };
		early_halt(t, (const uint32_t[]){ body, 0 }, (const uint8_t[]){ 10, 0 }, 2);
	}
	x86_unfilter(__body_start, (size_t)(__text_end - __body_start));
	stage2_main(drive, stage1_bps);
}
