#include "stage2/bioscall.h"

#include "common/mem.h"

void initregs(struct biosregs *r)
{
	memset(r, 0, sizeof *r);
	r->eflags = EFLAGS_IF | 0x2u; /* bit 1 always reads as 1 */
}
