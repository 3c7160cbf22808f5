/* SPDX-License-Identifier: BSD-2-Clause */
/* The 16550 UART at COM1, as stage2 (stage2/console.c, stage2/unpack.c), stage1's error path
 * (stage1/mbr.asm) and the test payloads (tests/payload/bios/setup.asm,
 * tests/payload/chain/bootrec.asm) drive it: one set of register names. The NASM sources get
 * them as $(BUILD)/inc/uart.inc, generated from this file by common/common.mk. Offsets are from the port base; with LCR's DLAB set, DATA and
 * IER hold the baud divisor's low and high byte. */
#ifndef ANYSECTOR_UART_H
#define ANYSECTOR_UART_H

#define UART_COM1 0x3F8u           /* the PC's first serial port */
#define UART_CLOCK 115200u         /* the base rate: divisor = UART_CLOCK / baud */

#define UART_DATA 0                /* transmit / receive; divisor low with DLAB */
#define UART_IER 1                 /* interrupt enable; divisor high with DLAB */
#define UART_FCR 2                 /* FIFO control */
#define UART_LCR 3                 /* line control */
#define UART_MCR 4                 /* modem control */
#define UART_LSR 5                 /* line status */
#define UART_SCRATCH 7

#define UART_LCR_DLAB 0x80u        /* DATA and IER address the divisor */
#define UART_LCR_8N1 0x03u         /* 8 data bits, no parity, 1 stop bit */
#define UART_FCR_FIFO_CLEAR 0x07u  /* FIFOs on, both cleared */
#define UART_FCR_TRIGGER_14 0xC0u  /* receive interrupt at 14 bytes */
#define UART_MCR_DTR_RTS 0x03u
#define UART_LSR_DATA_READY 0x01u
#define UART_LSR_THR_EMPTY 0x20u   /* the transmitter takes another byte */

#endif
