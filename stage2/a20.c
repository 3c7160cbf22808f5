/* SPDX-License-Identifier: BSD-2-Clause */
/* The A20 gate: stage2 copies the kernel to 1 MiB and the initrd higher, so addresses with bit
 * 20 set must not wrap. Tried in order of politeness: already on, the BIOS (int 15h AX=2401h),
 * the keyboard controller, the "fast A20" port 0x92. */
#include "stage2/a20.h"

#include "stage2/bioscall.h"
#include "stage2/io.h"

#define A20_TEST_ADDR ((uintptr_t)&a20_probe)
#define KBC_SPIN 100000u

static volatile uint32_t a20_probe;

/* With A20 off, the address 1 MiB above a20_probe aliases it. */
static bool a20_is_on(void)
{
	volatile uint32_t *alias = (volatile uint32_t *)(A20_TEST_ADDR + 0x100000u);
	uint32_t saved = a20_probe;
	bool on = false;

	for (uint32_t i = 0; i < 64 && !on; i++) {
		a20_probe = saved ^ (0x5A5A0000u + i);
		io_delay();
		on = *alias != a20_probe;
	}
	a20_probe = saved;
	return on;
}

static void a20_bios(void)
{
	struct biosregs r;

	initregs(&r);
	r.ax = 0x2401;
	bios_call(0x15, &r, &r);
}

static bool kbc_wait_input_empty(void)
{
	for (uint32_t i = 0; i < KBC_SPIN; i++) {
		uint8_t st = inb(0x64);
		if (st == 0xFF)
			return false;           /* no controller */
		if (st & 1) {
			io_delay();
			(void)inb(0x60);        /* drain output the controller is holding */
			continue;
		}
		if (!(st & 2))
			return true;
		io_delay();
	}
	return false;
}

static void a20_kbc(void)
{
	if (!kbc_wait_input_empty())
		return;
	outb(0x64, 0xD1);                       /* write the output port */
	if (!kbc_wait_input_empty())
		return;
	outb(0x60, 0xDF);                       /* A20 on, CPU reset line off */
	kbc_wait_input_empty();
	outb(0x64, 0xFF);                       /* null command, lets some UHCI emulations settle */
	kbc_wait_input_empty();
}

static void a20_fast(void)
{
	uint8_t v = inb(0x92);
	if (!(v & 2))
		outb(0x92, (uint8_t)((v | 2) & ~1u)); /* never touch bit 0: it resets the machine */
}

const char *a20_enable(void)
{
	if (a20_is_on())
		return "already on";
	a20_bios();
	if (a20_is_on())
		return "BIOS";
	a20_kbc();
	if (a20_is_on())
		return "keyboard controller";
	a20_fast();
	if (a20_is_on())
		return "port 0x92";
	return 0;
}
