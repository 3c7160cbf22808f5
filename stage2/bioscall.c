/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/bioscall.h"

#include "common/mem.h"

/* CF starts set, as in Linux's arch/x86/boot/regs.c: a service that reports success by clearing
 * CF but returns without touching it (not there, or a BIOS bug) then reads as a failure instead
 * of as a success with whatever the registers hold. */
void initregs(struct biosregs *r)
{
	memset(r, 0, sizeof *r);
	r->eflags = EFLAGS_IF | EFLAGS_CF | EFLAGS_FIXED1;
}
