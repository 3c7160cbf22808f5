/* SPDX-License-Identifier: BSD-2-Clause */
/* The console: VGA text memory and COM1 together, for output and for keys. */
#ifndef ANYSECTOR_STAGE2_CONSOLE_H
#define ANYSECTOR_STAGE2_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/keys.h"

void con_init(void);
/* COM1 mirror at baud (0 switches it off). */
void con_serial(uint32_t baud);
void con_putc(char c);
void con_write(const char *s);
void con_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Moves the BIOS's idea of the cursor to ours, so the next owner of the screen continues there. */
void con_sync_bios_cursor(void);

/* A key (common/keys.h) from the keyboard (int 16h) or COM1, KEY_NONE when there is none.
 * Never waits. */
int con_getkey(void);

/* BIOS timer ticks (18.2 Hz); they advance while BIOS calls run with interrupts enabled. */
uint32_t con_ticks(void);

/* A diag sink that prints every report as a sentence. */
extern struct diag con_diag;

/* Prints the reason and stops the machine. */
__attribute__((noreturn)) void halt_with(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
