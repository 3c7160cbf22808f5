/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/layout.h"

#include <stdio.h>
#include <string.h>

#include "common/bits.h"
#include "common/gpt.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"

const char *role_name(enum part_role role)
{
	switch (role) {
	case ROLE_BIOS_BOOT: return "BIOS boot";
	case ROLE_ESP: return "EFI system";
	default: return "Linux filesystem";
	}
}


/* The physical-sector grain only (what "physically aligned" means). */
static uint64_t phys_grain(const struct topology *t)
{
	struct topology p = *t;
	p.io_min = p.io_opt = 0;
	return align_grain(&p, false);
}

/* Warns about every --dos-compat start that breaks the drive's alignment. */
static void dos_compat_warnings(const struct topology *t, const struct layout *l, struct report *r)
{
	uint64_t pg = phys_grain(t), g = l->grain;
	char gbuf[32];

	for (unsigned i = 0; i < l->n; i++) {
		uint64_t lba = l->p[i].first, byte = lba * t->lss;
		if (!align_lba_ok(t, lba, pg)) {
			uint64_t into = (byte + t->pss - align_effective_offset(t) % t->pss) % t->pss;
			report_printf(r, DIAG_WARN, "partition.dos_compat",
				      "--dos-compat: partition %u starts at LBA %llu (byte %llu), %llu "
				      "bytes into a %u-byte physical sector: every 4 KiB block in it "
				      "straddles two physical sectors (aligned: LBA %llu)",
				      i + 1, (unsigned long long)lba, (unsigned long long)byte,
				      (unsigned long long)into, (unsigned)t->pss,
				      (unsigned long long)align_up(t, lba, g));
		} else if (!align_lba_ok(t, lba, g)) {
			report_printf(r, DIAG_WARN, "partition.dos_compat",
				      "--dos-compat: partition %u starts at LBA %llu (byte %llu), not on a "
				      "%s boundary (it is physically aligned on this drive; aligned: LBA "
				      "%llu)",
				      i + 1, (unsigned long long)lba, (unsigned long long)byte,
				      human_size(g, gbuf, sizeof gbuf),
				      (unsigned long long)align_up(t, lba, g));
		}
	}
}

static int plan_dos_compat(const struct topology *t, const struct layout_opts *o,
			   struct layout *l, uint64_t last_lba, struct report *r)
{
	uint64_t esp_sectors = DIV_ROUND_UP(o->esp_bytes ? o->esp_bytes : LAYOUT_ESP_DEFAULT_BYTES, t->lss);
	uint64_t end_cyl = (last_lba + 1) / LAYOUT_CYLINDER; /* whole cylinders on the disk */
	uint64_t esp_last = DIV_ROUND_UP(63 + esp_sectors, LAYOUT_CYLINDER) * LAYOUT_CYLINDER - 1;

	if (end_cyl < 2) {
		report_printf(r, DIAG_ERROR, "partition.too_small",
			      "--dos-compat needs at least two cylinders (%u sectors each); the disk "
			      "has %llu sectors",
			      LAYOUT_CYLINDER, (unsigned long long)(last_lba + 1));
		return EXIT_ERRORS;
	}
	if (esp_last >= end_cyl * LAYOUT_CYLINDER) {
		if (o->esp_bytes) {
			report_printf(r, DIAG_ERROR, "partition.esp_too_big",
				      "--esp-size %llu bytes does not fit on this disk with --dos-compat",
				      (unsigned long long)o->esp_bytes);
			return EXIT_ERRORS;
		}
		esp_last = end_cyl * LAYOUT_CYLINDER - 1;
	}
	l->p[l->n++] = (struct layout_part){ ROLE_ESP, 63, esp_last };
	uint64_t rest_first = esp_last + 1, rest_last = end_cyl * LAYOUT_CYLINDER - 1;
	if (!o->no_rest && rest_last > rest_first)
		l->p[l->n++] = (struct layout_part){ ROLE_REST, rest_first, rest_last };
	dos_compat_warnings(t, l, r);
	return 0;
}

/* The usable range of a dual GPT, in the topology's sectors. */
static int plan_dual(const struct topology *t, const struct layout_opts *o, struct layout *l,
		     struct report *r)
{
	int k = dual_half_index(t->lss);

	if (o->label != LABEL_GPT || o->dos_compat) {
		report_printf(r, DIAG_ERROR, "usage.sector_size",
			      "--sector-size any makes a GPT: an MBR's LBAs mean one sector size only");
		return EXIT_USAGE;
	}
	if (k < 0) {
		report_printf(r, DIAG_ERROR, "usage.sector_size",
			      "--sector-size any lays out a disk for %u- and %u-byte sectors; this one "
			      "has %u-byte sectors",
			      DUAL_SMALL_LSS, DUAL_LARGE_LSS, (unsigned)t->lss);
		return EXIT_USAGE;
	}
	if (t->aoff) {
		report_printf(r, DIAG_ERROR, "usage.align_offset",
			      "--sector-size any puts partitions on 1 MiB byte boundaries at both sizes; "
			      "an alignment offset of %u bytes cannot be honoured",
			      (unsigned)t->aoff);
		return EXIT_USAGE;
	}
	if (!dual_geometry(t->sectors * t->lss, 0, &l->dual_geo)) {
		report_printf(r, DIAG_ERROR, "partition.too_small",
			      "--sector-size any needs a disk of whole %u-byte blocks with room for four "
			      "GPT entry arrays: %llu bytes is not",
			      DUAL_BLOCK, (unsigned long long)(t->sectors * t->lss));
		return EXIT_ERRORS;
	}
	l->dual = true;
	l->first_usable = l->dual_geo.half[k].place.first_usable;
	l->last_usable = l->dual_geo.half[k].place.last_usable;
	return 0;
}

/* The ESP's size in sectors from esp_first, below limit: esp_bytes, or with no --esp-size all
 * that is left when that is less (at least LAYOUT_ESP_MIN_BYTES). Returns 0 or an exit code. */
static int esp_sectors_fit(const struct topology *t, const struct layout_opts *o,
			   uint64_t esp_bytes, uint64_t esp_first, uint64_t limit,
			   uint64_t *esp_sectors, struct report *r)
{
	char a[32], b[32];
	uint64_t lss = t->lss;
	uint64_t room = esp_first < limit ? limit - esp_first : 0; /* sectors */
	uint64_t want = DIV_ROUND_UP(esp_bytes, lss);
	*esp_sectors = want;
	if (want > room) {
		if (o->esp_bytes) {
			report_printf(r, DIAG_ERROR, "partition.esp_too_big",
				      "--esp-size %s does not fit: %s is left after LBA %llu",
				      human_size(want * lss, a, sizeof a), human_size(room * lss, b, sizeof b),
				      (unsigned long long)esp_first);
			return EXIT_ERRORS;
		}
		*esp_sectors = room;
		if (*esp_sectors * lss < LAYOUT_ESP_MIN_BYTES) {
			report_printf(r, DIAG_ERROR, "partition.too_small",
				      "the disk is too small: only %s is left for the ESP",
				      human_size(room * lss, a, sizeof a));
			return EXIT_ERRORS;
		}
		report_printf(r, DIAG_INFO, "partition.esp_shrunk",
			      "the disk has no room for a %s ESP; the ESP takes the %s that is left",
			      human_size(LAYOUT_ESP_DEFAULT_BYTES, a, sizeof a),
			      human_size(*esp_sectors * lss, b, sizeof b));
	}
	return 0;
}

int layout_plan(const struct topology *t, const struct layout_opts *o, struct layout *l,
		struct report *r)
{
	char a[32], b[32];
	uint64_t n = t->sectors, lss = t->lss;

	memset(l, 0, sizeof *l);
	l->label = o->label;
	l->grain = align_grain(t, true);
	if (o->esp_bytes && o->esp_bytes < LAYOUT_ESP_MIN_BYTES) {
		report_printf(r, DIAG_ERROR, "usage.esp_size", "--esp-size %llu: the ESP needs at least %s",
			      (unsigned long long)o->esp_bytes,
			      human_size(LAYOUT_ESP_MIN_BYTES, a, sizeof a));
		return EXIT_USAGE;
	}

	uint64_t next; /* the first LBA the next partition may use */
	uint64_t esp_bytes = o->esp_bytes ? o->esp_bytes : LAYOUT_ESP_DEFAULT_BYTES;
	if (o->dual) {
		int rc = plan_dual(t, o, l, r);
		if (rc)
			return rc;
		esp_bytes = ALIGN_UP(esp_bytes, (uint64_t)DUAL_BLOCK);
		next = l->first_usable;
	} else if (o->label == LABEL_GPT) {
		if (o->dos_compat) {
			report_printf(r, DIAG_ERROR, "usage.dos_compat",
				      "--dos-compat is for --label mbr only: a GPT disk has no legacy "
				      "cylinder layout");
			return EXIT_USAGE;
		}
		if (n < 2 * gpt_array_sectors((uint32_t)lss, GPT_DEFAULT_ENTRIES, GPT_ENTRY_SIZE) + 3) {
			report_printf(r, DIAG_ERROR, "partition.too_small",
				      "the disk is too small for a GPT: %llu sectors", (unsigned long long)n);
			return EXIT_ERRORS;
		}
		gpt_default_layout((uint32_t)lss, n, GPT_DEFAULT_ENTRIES, GPT_ENTRY_SIZE,
				   &l->first_usable, &l->last_usable);
		next = l->first_usable;
	} else {
		if (n - 1 > LAYOUT_MBR_LBA_LIMIT) {
			report_printf(r, DIAG_ERROR, "partition.mbr_limit",
				      "an MBR cannot address this disk: it has %llu sectors of %u bytes "
				      "(%s) but MBR fields stop at LBA %llu (%s); use --label gpt",
				      (unsigned long long)n, (unsigned)lss, human_size(n * lss, a, sizeof a),
				      LAYOUT_MBR_LBA_LIMIT,
				      human_size((LAYOUT_MBR_LBA_LIMIT + 1) * lss, b, sizeof b));
			return EXIT_ERRORS; /* a request the disk cannot satisfy, like "too small" */
		}
		l->first_usable = 1;
		l->last_usable = n - 1;
		if (o->dos_compat) {
			l->esp = 0;
			return plan_dos_compat(t, o, l, n - 1, r);
		}
		next = LAYOUT_MBR_GAP_BYTES / lss;
	}

	/* aligned end + 1 of the usable area: partitions end just before an aligned LBA */
	uint64_t limit = align_down(t, l->last_usable + 1, l->grain);
	if (limit == UINT64_MAX)
		limit = 0;

	if (o->label == LABEL_GPT) {
		uint64_t first = align_up(t, next, l->grain);
		uint64_t last = first + DIV_ROUND_UP(LAYOUT_BIOS_BOOT_BYTES, lss) - 1;
		if (first == UINT64_MAX || last >= limit) {
			report_printf(r, DIAG_ERROR, "partition.too_small",
				      "the disk is too small for a BIOS boot partition and an ESP");
			return EXIT_ERRORS;
		}
		l->p[l->n++] = (struct layout_part){ ROLE_BIOS_BOOT, first, last };
		next = last + 1;
	}

	uint64_t esp_first = align_up(t, next, l->grain), esp_sectors;
	int rc = esp_sectors_fit(t, o, esp_bytes, esp_first, limit, &esp_sectors, r);
	if (rc)
		return rc;
	l->esp = l->n;
	l->p[l->n++] = (struct layout_part){ ROLE_ESP, esp_first, esp_first + esp_sectors - 1 };

	if (!o->no_rest) {
		uint64_t rest_first = align_up(t, esp_first + esp_sectors, l->grain);
		if (rest_first != UINT64_MAX && rest_first < limit)
			l->p[l->n++] = (struct layout_part){ ROLE_REST, rest_first, limit - 1 };
		else
			report_printf(r, DIAG_INFO, "partition.no_rest",
				      "no room is left after the ESP for a Linux partition");
	}
	return 0;
}
