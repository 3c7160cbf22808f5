/* SPDX-License-Identifier: BSD-2-Clause */
/* Partition alignment from a device topology (docs/FIRMWARE.md "Alignment"). The math runs in
 * sectors: with a grain of gs sectors and an offset of os sectors, an LBA is aligned iff
 * LBA mod gs == os. Working in sectors keeps every product below 2^64. */
#include "common/align.h"
#include "common/bits.h"

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* lcm of two nonzero values; 0 stays out of it (unknown). Values here are at most a few
 * 32-bit factors, far from overflowing. */
static uint64_t lcm64(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a / gcd64(a, b) * b;
}

uint32_t align_sane_io_opt(const struct topology *t)
{
	uint32_t unit = t->pss ? t->pss : t->lss;

	if (!t->io_opt || t->io_opt == ALIGN_BOGUS_IO_OPT || !unit || t->io_opt % unit)
		return 0;
	return t->io_opt;
}

uint64_t align_grain(const struct topology *t, bool with_mib)
{
	uint64_t g = lcm64(t->lss, t->pss);

	g = lcm64(g, t->io_min);
	g = lcm64(g, align_sane_io_opt(t));
	if (with_mib)
		g = lcm64(g, ALIGN_MIB);
	return g;
}

uint32_t align_effective_offset(const struct topology *t)
{
	if (!t->lss || t->aoff % t->lss)
		return 0;
	return t->aoff;
}

/* Grain and offset in sectors; false when the topology gives nothing to align to. */
static bool in_sectors(const struct topology *t, uint64_t grain, uint64_t *gs, uint64_t *os)
{
	if (!t->lss)
		return false;
	grain = lcm64(grain, t->lss); /* a grain that is not whole sectors cannot be honoured */
	*gs = grain / t->lss;
	*os = (align_effective_offset(t) / t->lss) % *gs;
	return true;
}

bool align_lba_ok(const struct topology *t, uint64_t lba, uint64_t grain)
{
	uint64_t gs, os;

	if (!in_sectors(t, grain, &gs, &os))
		return true;
	return lba % gs == os;
}

uint64_t align_up(const struct topology *t, uint64_t lba, uint64_t grain)
{
	uint64_t gs, os;

	if (!in_sectors(t, grain, &gs, &os))
		return lba;
	uint64_t base = lba - lba % gs;
	uint64_t add = lba % gs <= os ? os : gs + os;
	if (base > UINT64_MAX - add)
		return UINT64_MAX;
	return base + add;
}

uint64_t align_down(const struct topology *t, uint64_t lba, uint64_t grain)
{
	uint64_t gs, os;

	if (!in_sectors(t, grain, &gs, &os))
		return lba;
	uint64_t base = lba - lba % gs;
	if (lba % gs >= os)
		return base + os;
	if (base < gs)
		return UINT64_MAX;
	return base - gs + os;
}

bool align_topology_check(const struct topology *t, struct diag *d)
{
	bool ok = true;

	if (!is_pow2(t->lss)) {
		diag_error(d, "align.lss", "logical sector size %u is not a power of two",
			   (unsigned)t->lss);
		ok = false;
	}
	if (!is_pow2(t->pss) || t->pss < t->lss) {
		diag_warn(d, "align.pss",
			  "physical sector size %u is not a power of two at least the logical size %u; "
			  "aligning to the logical size",
			  (unsigned)t->pss, (unsigned)t->lss);
	}
	if (t->lss && t->aoff % t->lss) {
		diag_warn(d, "align.aoff",
			  "alignment offset %u is not a multiple of the logical sector size %u; it is "
			  "ignored",
			  (unsigned)t->aoff, (unsigned)t->lss);
	} else if (t->pss && t->aoff >= t->pss) {
		diag_warn(d, "align.aoff",
			  "alignment offset %u is not below the physical sector size %u",
			  (unsigned)t->aoff, (unsigned)t->pss);
	}
	if (t->io_min && t->lss && t->io_min % t->lss) {
		diag_warn(d, "align.io_min",
			  "minimum I/O size %u is not a multiple of the logical sector size %u",
			  (unsigned)t->io_min, (unsigned)t->lss);
	}
	if (t->io_opt && !align_sane_io_opt(t)) {
		if (t->io_opt == ALIGN_BOGUS_IO_OPT)
			diag_info(d, "align.io_opt",
				  "optimal I/O size %u is a known controller bug; ignored",
				  (unsigned)t->io_opt);
		else
			diag_info(d, "align.io_opt",
				  "optimal I/O size %u is not a multiple of the physical sector size %u; "
				  "ignored",
				  (unsigned)t->io_opt, (unsigned)t->pss);
	}
	return ok;
}
