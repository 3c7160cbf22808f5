/* SPDX-License-Identifier: BSD-2-Clause */
#include "stage2/memmap.h"

#include "common/bits.h"
#include "common/le.h"
#include "common/mem.h"
#include "stage2/bioscall.h"
#include "stage2/console.h"

#define SMAP 0x534D4150u
/* An int 15h E820 entry (ACPI "Address Range Descriptor Structure"): */
#define E820_BASE_OFF 0           /* u64 base address */
#define E820_LENGTH_OFF 8         /* u64 length in bytes */
#define E820_TYPE_OFF 16          /* u32 type (E820_RAM, ...) */
#define E820_ATTR_OFF 20          /* u32 extended attributes (ACPI 3.0; not all BIOSes fill it) */
#define E820_ENTRY_BYTES 24u
#define E820_MIN_BYTES 20u        /* an entry without the attributes */
#define E820_ACPI_ENABLED 1u      /* attribute bit 0: the entry is valid */

static uint8_t e820_buf[E820_ENTRY_BYTES] __attribute__((aligned(16)));

static void add(struct memmap *m, uint64_t base, uint64_t len, uint32_t type)
{
	if (len && m->count < MEMMAP_MAX)
		m->e[m->count++] = (struct mem_range){ base, len, type == E820_RAM };
}

static void read_e820(struct memmap *m)
{
	struct biosregs r;
	uint32_t cont = 0;

	for (unsigned i = 0; i < MEMMAP_MAX; i++) {
		memset(e820_buf, 0, sizeof e820_buf);
		le32_store(e820_buf + E820_ATTR_OFF, E820_ACPI_ENABLED); /* for 20-byte answers */
		initregs(&r);
		r.eax = 0xE820;
		r.edx = SMAP;
		r.ebx = cont;
		r.ecx = E820_ENTRY_BYTES;
		r.es = rm_seg(e820_buf);
		r.di = rm_off(e820_buf);
		bios_call(0x15, &r, &r);
		if (regs_cf(&r) || r.eax != SMAP || r.ecx < E820_MIN_BYTES)
			break;
		if (le32_load(e820_buf + E820_ATTR_OFF) & E820_ACPI_ENABLED)
			add(m, le64_load(e820_buf + E820_BASE_OFF), le64_load(e820_buf + E820_LENGTH_OFF),
			    le32_load(e820_buf + E820_TYPE_OFF));
		cont = r.ebx;
		if (!cont)
			break;
	}
}

/* E801: KiB between 1 and 16 MiB, 64 KiB blocks above 16 MiB. */
static void read_e801(struct memmap *m)
{
	struct biosregs r;

	initregs(&r);
	r.ax = 0xE801;
	bios_call(0x15, &r, &r);
	if (regs_cf(&r))
		return;
	uint32_t low_kib = r.ax ? r.ax : r.cx;
	uint32_t high_blocks = r.ax ? r.bx : r.dx;
	add(m, 0x100000u, (uint64_t)low_kib << 10, E820_RAM);
	add(m, 0x1000000u, (uint64_t)high_blocks << 16, E820_RAM);
}

bool memmap_read(struct memmap *m)
{
	m->count = 0;
	read_e820(m);
	if (!m->count)
		read_e801(m);
	/* Some BIOSes list one stretch of RAM as several adjacent or overlapping entries (E801
	 * always splits at 16 MiB): merged, a kernel or initrd may span the seams. */
	m->count = mem_merge_usable(m->e, m->count);
	if (!m->count) {
		con_printf("memory: the BIOS gives no memory map (int 15h E820 and E801 both failed)\n");
		return false;
	}
	return true;
}
