/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/console.h"

#include "common/fmt.h"
#include "common/uart.h"
#include "stage2/bioscall.h"
#include "stage2/io.h"

#define UART_TX_SPIN 100000u   /* bounded wait for the transmitter: a missing UART never hangs */

#define VGA_COLOUR_TEXT 0xB8000u
#define VGA_MONO_TEXT 0xB0000u
#define VGA_ATTR 0x0700u       /* light grey on black */

static struct {
	volatile uint16_t *vram;
	unsigned cols, rows, x, y;
	uint16_t crtc;
	bool uart_present;
	bool serial_on;
	struct key_decoder kbd, serial_keys;
	uint32_t serial_last;         /* tick of the last byte from COM1 */
	char buf[1024];
} con;

static void uart_setup(uint32_t baud)
{
	uint16_t div = (uint16_t)(UART_CLOCK / baud);

	outb(UART_COM1 + UART_IER, 0);
	outb(UART_COM1 + UART_LCR, UART_LCR_DLAB);
	outb(UART_COM1 + UART_DATA, (uint8_t)div);
	outb(UART_COM1 + UART_IER, (uint8_t)(div >> 8));
	outb(UART_COM1 + UART_LCR, UART_LCR_8N1);
	outb(UART_COM1 + UART_FCR, UART_FCR_FIFO_CLEAR);
	outb(UART_COM1 + UART_MCR, UART_MCR_DTR_RTS);
}

void con_serial(uint32_t baud)
{
	if (!baud || baud > UART_CLOCK || UART_CLOCK % baud) {
		con.serial_on = false;
		return;
	}
	if (!con.uart_present)
		return;
	uart_setup(baud);
	con.serial_on = true;
}

static void serial_putc(char c)
{
	for (unsigned i = 0; i < UART_TX_SPIN; i++)
		if (inb(UART_COM1 + UART_LSR) & UART_LSR_THR_EMPTY)
			break;
	outb(UART_COM1 + UART_DATA, (uint8_t)c);
}

static void vga_cursor(void)
{
	unsigned pos = con.y * con.cols + con.x;

	outb(con.crtc, 0x0E);
	outb(con.crtc + 1, (uint8_t)(pos >> 8));
	outb(con.crtc, 0x0F);
	outb(con.crtc + 1, (uint8_t)pos);
}

static void vga_newline(void)
{
	con.x = 0;
	if (++con.y < con.rows)
		return;
	con.y = con.rows - 1;
	for (unsigned i = 0; i < (con.rows - 1) * con.cols; i++)
		con.vram[i] = con.vram[i + con.cols];
	for (unsigned i = 0; i < con.cols; i++)
		con.vram[(con.rows - 1) * con.cols + i] = VGA_ATTR | ' ';
}

static void vga_putc(char c)
{
	switch (c) {
	case '\n':
		vga_newline();
		return;
	case '\r':
		con.x = 0;
		return;
	case '\b':
		if (con.x)
			con.x--;
		return;
	}
	con.vram[con.y * con.cols + con.x] = (uint16_t)(VGA_ATTR | (uint8_t)c);
	if (++con.x >= con.cols)
		vga_newline();
}

void con_init(void)
{
	con.cols = peek16(BDA_VIDEO_COLS);
	con.rows = peek8(BDA_VIDEO_ROWS) + 1u;
	if (con.cols < 40 || con.cols > 132)
		con.cols = 80;
	if (con.rows < 25 || con.rows > 60)
		con.rows = 25;
	con.x = peek8(BDA_CURSOR_POS);
	con.y = peek8(BDA_CURSOR_POS + 1);
	if (con.x >= con.cols)
		con.x = 0;
	if (con.y >= con.rows)
		con.y = con.rows - 1;
	con.crtc = peek16(BDA_CRTC_PORT);
	if (con.crtc != 0x3B4)
		con.crtc = 0x3D4;
	con.vram = (volatile uint16_t *)(uintptr_t)(con.crtc == 0x3B4 ? VGA_MONO_TEXT : VGA_COLOUR_TEXT);

	/* A UART keeps what is written to its scratch register; an empty port reads back 0xFF. */
	outb(UART_COM1 + UART_SCRATCH, 0x5A);
	con.uart_present = inb(UART_COM1 + UART_SCRATCH) == 0x5A;
	con_serial(UART_CLOCK);
}

void con_putc(char c)
{
	if (c == '\t') {
		do
			con_putc(' ');
		while (con.x % 8);
		return;
	}
	vga_putc(c);
	if (con.serial_on) {
		if (c == '\n')
			serial_putc('\r');
		serial_putc(c);
	}
}

void con_write(const char *s)
{
	while (*s)
		con_putc(*s++);
	vga_cursor();
}

void con_printf(const char *fmt, ...)
{
	fmt_va_list ap;

	fmt_va_start(ap, fmt);
	fmt_vsnprintf(con.buf, sizeof con.buf, fmt, ap);
	fmt_va_end(ap);
	con_write(con.buf);
}

void con_sync_bios_cursor(void)
{
	poke8(BDA_CURSOR_POS, (uint8_t)con.x);
	poke8(BDA_CURSOR_POS + 1, (uint8_t)con.y);
	vga_cursor();
}

/* int 16h scan codes (AH when AL is 0 or 0xE0) of the keys the menu uses. */
static int scan_key(uint8_t scan)
{
	switch (scan) {
	case 0x48: return KEY_UP;
	case 0x50: return KEY_DOWN;
	case 0x4B: return KEY_LEFT;
	case 0x4D: return KEY_RIGHT;
	case 0x47: return KEY_HOME;
	case 0x4F: return KEY_END;
	case 0x53: return KEY_DELETE;
	default: return KEY_NONE;
	}
}

static int keyboard_key(void)
{
	struct biosregs r;

	initregs(&r);
	r.ah = 0x01;
	bios_call(0x16, &r, &r);
	if (r.eflags & EFLAGS_ZF)
		return KEY_NONE;
	initregs(&r);
	r.ah = 0x00;
	bios_call(0x16, &r, &r);
	if (r.al == 0 || r.al == 0xE0)
		return scan_key(r.ah);
	if (r.al == 0x1B)
		return KEY_ESC;
	return key_feed(&con.kbd, r.al);   /* Enter, Backspace, printable */
}

/* Bytes from COM1 through the escape-sequence decoder; an ESC with nothing after it for two
 * timer ticks (110 ms) is the Esc key. */
static int serial_key(void)
{
	int k = key_feed(&con.serial_keys, -1);

	if (k || !con.serial_on)
		return k;
	if (inb(UART_COM1 + UART_LSR) & UART_LSR_DATA_READY) {
		con.serial_last = con_ticks();
		return key_feed(&con.serial_keys, inb(UART_COM1 + UART_DATA));
	}
	if (key_partial(&con.serial_keys) && con_ticks() - con.serial_last >= 2)
		return key_timeout(&con.serial_keys);
	return KEY_NONE;
}

int con_getkey(void)
{
	int k = keyboard_key();
	return k != KEY_NONE ? k : serial_key();
}

uint32_t con_ticks(void)
{
	return peek32(BDA_TIMER_TICKS);
}

static void diag_to_console(struct diag *d, enum diag_level level, const char *code, const char *msg)
{
	(void)d;
	(void)code;
	con_printf("%s%s\n", level == DIAG_ERROR ? "error: " : level == DIAG_WARN ? "warning: " : "",
		   msg);
}

struct diag con_diag = { .emit = diag_to_console };

void halt_with(const char *fmt, ...)
{
	fmt_va_list ap;

	fmt_va_start(ap, fmt);
	fmt_vsnprintf(con.buf, sizeof con.buf, fmt, ap);
	fmt_va_end(ap);
	con_write("anysector: ");
	con_write(con.buf);
	con_write("\nanysector: halted.\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}
