/* SPDX-License-Identifier: BSD-2-Clause */
/* The BIOS test payload's protected-mode part: reads what the loader wrote into the setup
 * header (command line pointer, initrd address and size), checksums the initrd bytes where they
 * lie in memory, prints one line on COM1 and leaves QEMU through isa-debug-exit.
 *
 *   ANYSECTOR-PAYLOAD proto=2.15 cmdline="..." initrd_size=N initrd_crc32=xxxxxxxx
 *
 * or, when the loader broke a rule a real kernel relies on:
 *
 *   ANYSECTOR-PAYLOAD-ERROR <sentence>
 */
#include <stdbool.h>
#include <stdint.h>

#include "common/fmt.h"
#include "common/le.h"
#include "common/uart.h"
#include "stage2/io.h"
#include "tests/payload/report_line.h"

#define EXIT_PORT 0xF4
#define EXIT_REPORTED 0x10 /* QEMU exit status (0x10 << 1) | 1 = 33 */
#define EXIT_ERROR 0x11    /* 35 */

/* Setup header offsets (Documentation/arch/x86/boot.rst). */
#define HDR_MAGIC_OFF 0x202
#define HDR_VERSION_OFF 0x206
#define HDR_TYPE_OF_LOADER_OFF 0x210
#define HDR_RAMDISK_IMAGE_OFF 0x218
#define HDR_RAMDISK_SIZE_OFF 0x21C
#define HDR_CMD_LINE_PTR_OFF 0x228
#define HDR_INITRD_ADDR_MAX_OFF 0x22C
#define HDR_CMDLINE_SIZE_OFF 0x238
#define HDR_MAGIC 0x53726448u /* "HdrS" */

void payload_main(uint32_t boot_params) __attribute__((noreturn));

static void serial_init(void)
{
	outb(UART_COM1 + UART_IER, 0x00); /* no interrupts */
	outb(UART_COM1 + UART_LCR, UART_LCR_DLAB);
	outb(UART_COM1 + UART_DATA, UART_CLOCK / 115200); /* divisor: 115200 baud */
	outb(UART_COM1 + UART_IER, 0x00);
	outb(UART_COM1 + UART_LCR, UART_LCR_8N1);
	outb(UART_COM1 + UART_FCR, UART_FCR_FIFO_CLEAR | UART_FCR_TRIGGER_14);
	outb(UART_COM1 + UART_MCR, UART_MCR_DTR_RTS);
}

static void put_char(char c)
{
	/* A missing UART must not hang the payload: give up waiting after a bounded spin. */
	for (uint32_t spin = 0; spin < 1000000; spin++)
		if (inb(UART_COM1 + UART_LSR) & UART_LSR_THR_EMPTY)
			break;
	outb(UART_COM1 + UART_DATA, (uint8_t)c);
}

static void put_str(const char *s)
{
	while (*s)
		put_char(*s++);
}

static void __attribute__((noreturn)) leave(uint8_t code)
{
	outb(EXIT_PORT, code);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static void __attribute__((noreturn)) fail(const char *what, uint32_t value)
{
	char text[160];
	fmt_snprintf(text, sizeof text, "ANYSECTOR-PAYLOAD-ERROR %s (0x%08x)\r\n", what,
		     (unsigned)value);
	put_str(text);
	leave(EXIT_ERROR);
}

void payload_main(uint32_t boot_params)
{
	const uint8_t *hdr = (const uint8_t *)(uintptr_t)boot_params;

	serial_init();
	put_str("\r\n");
	if (le32_load(hdr + HDR_MAGIC_OFF) != HDR_MAGIC)
		fail("no HdrS signature in the boot_params ESI points at", boot_params);

	uint16_t version = le16_load(hdr + HDR_VERSION_OFF);
	uint32_t cmd_ptr = le32_load(hdr + HDR_CMD_LINE_PTR_OFF);
	uint32_t cmd_max = le32_load(hdr + HDR_CMDLINE_SIZE_OFF) + 1;
	uint32_t rd_image = le32_load(hdr + HDR_RAMDISK_IMAGE_OFF);
	uint32_t rd_size = le32_load(hdr + HDR_RAMDISK_SIZE_OFF);
	uint32_t rd_max = le32_load(hdr + HDR_INITRD_ADDR_MAX_OFF);

	/* Linux ignores the initrd when type_of_loader is 0, and trusts initrd_addr_max. */
	if (rd_size && !hdr[HDR_TYPE_OF_LOADER_OFF])
		fail("type_of_loader is 0, so Linux would ignore the initrd", 0);
	if (rd_size && (rd_image == 0 || rd_image > rd_max || rd_max - rd_image < rd_size - 1))
		fail("initrd does not lie below initrd_addr_max; ramdisk_image", rd_image);

	static struct report_line line;
	char proto[8];
	fmt_snprintf(proto, sizeof proto, "%u.%02u", (unsigned)(version >> 8),
		     (unsigned)(version & 0xFF));
	line_begin(&line, proto);
	const uint8_t *cmd = (const uint8_t *)(uintptr_t)cmd_ptr;
	for (uint32_t i = 0; cmd && i < cmd_max && cmd[i]; i++)
		line_cmdline_char(&line, cmd[i]);
	line_end(&line, (const void *)(uintptr_t)rd_image, rd_size);
	put_str(line.text);
	put_str("\r\n");
	leave(EXIT_REPORTED);
}
