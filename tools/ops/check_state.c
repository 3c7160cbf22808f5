/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/check_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bootstate.h"
#include "common/crc32.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/boot/bstate_disk.h"

/* The records of a valid copy as text ("one-shot 'x'; 'a' 1 tries left, 2 done; ..."), or
 * "empty". */
static void state_records_text(uint8_t *copy, char *out, size_t cap)
{
	char name[BSTATE_NAME_MAX + 1];
	size_t n = 0;

	out[0] = 0;
	for (uint8_t *rec = bstate_next(copy, NULL); rec && n < cap; rec = bstate_next(copy, rec)) {
		bstate_name(rec, name, sizeof name);
		const char *sep = n ? "; " : "";
		if (rec[0] == BSTATE_ONESHOT)
			n += (size_t)snprintf(out + n, cap - n, "%sone-shot '%s'", sep, name);
		else if (rec[0] == BSTATE_TRIES)
			n += (size_t)snprintf(out + n, cap - n, "%s'%s' %u tries left, %u done", sep,
					      name, rec[2], rec[3]);
		else
			n += (size_t)snprintf(out + n, cap - n, "%s'%s' started last by %s%s%s", sep,
					      name, rec[2] == BSTATE_FW_UEFI ? "BOOTX64.EFI" : "stage2",
					      rec[3] & BSTATE_BOOTED_COUNTED ? ", counted" : "",
					      rec[3] & BSTATE_BOOTED_ONESHOT ? ", as the one-shot" : "");
	}
	if (!out[0])
		snprintf(out, cap, "empty");
}

/* Why a copy is not whole (bstate_valid false), as a sentence's tail: the first check it fails,
 * in bstate_valid's order, so that a torn write (its CRC) is told apart from a place that was
 * never written or was overwritten by something else. */
static void copy_fault(const uint8_t *copy, char *out, size_t cap)
{
	static const uint8_t zero[4];
	uint32_t stored = le32_load(copy + BSTATE_CRC_OFF);
	uint32_t crc = crc32_update(crc32_update(crc32_update(0, copy, BSTATE_CRC_OFF), zero, 4),
				    copy + BSTATE_CRC_OFF + 4,
				    BSTATE_COPY_BYTES - BSTATE_CRC_OFF - 4);
	size_t nz = 0;

	while (nz < BSTATE_COPY_BYTES && !copy[nz])
		nz++;
	if (nz == BSTATE_COPY_BYTES)
		snprintf(out, cap, "it holds only zeros");
	else if (memcmp(copy, BSTATE_MAGIC, 8))
		snprintf(out, cap, "it does not start with \"" BSTATE_MAGIC "\" (not a state "
			 "block, or overwritten)");
	else if (le32_load(copy + BSTATE_VERSION_OFF) != BSTATE_VERSION)
		snprintf(out, cap, "its format version is %u, not %u",
			 (unsigned)le32_load(copy + BSTATE_VERSION_OFF), BSTATE_VERSION);
	else if (le32_load(copy + BSTATE_SIZE_OFF) != BSTATE_COPY_BYTES)
		snprintf(out, cap, "it says it is %u bytes, not %u",
			 (unsigned)le32_load(copy + BSTATE_SIZE_OFF), BSTATE_COPY_BYTES);
	else if (stored != crc)
		snprintf(out, cap, "its CRC32 field is 0x%08x but its bytes give 0x%08x (a write cut "
			 "short?)", (unsigned)stored, (unsigned)crc);
	else
		snprintf(out, cap, "a record in it runs past its end or is of an unknown type");
}

/* Whether [lba, lba + n) lies where stage2 may: the BIOS boot partition (GPT) or the gap before
 * the first partition (MBR). */
static bool in_boot_region(const struct disk_info *di, uint64_t lba, uint64_t n)
{
	if (di->label == LABEL_GPT) {
		if (di->bios_boot < 0)
			return false;
		const struct part_info *p = &di->parts[di->bios_boot];
		return lba >= p->first && lba + n <= p->first + p->sectors;
	}
	return lba >= 1 && lba + n <= di->first_part_lba;
}

void check_state(struct hostdev *h, const struct disk_info *di, uint32_t offset,
		 struct report *r)
{
	struct bstate_disk *d;
	const char *why = "";
	char text[1500];

	if (!offset) {
		report_printf(r, DIAG_INFO, "boot.state",
			      "stage2 records no boot state block: under BIOS there are no one-shot "
			      "boots (set-default --once) and no boot counting (reinstall where the "
			      "region has room for two slots of stage2; the legacy gap has not)");
		return;
	}
	d = calloc(1, sizeof *d);
	int rc = bstate_disk_read(&h->dev, d, &why);
	if (rc || !in_boot_region(di, d->io.lba, 2ull * d->io.sectors)) {
		report_printf(r, DIAG_ERROR, "boot.state_place",
			      "stage2 records a boot state block at byte %u, %s", (unsigned)offset,
			      rc ? why[0] ? why : as_strerror(rc) :
			      "outside the BIOS boot partition or the gap where stage2 lives");
		free(d);
		return;
	}
	char why0[160], why1[160];
	if (d->io.live < 0) {
		copy_fault(d->io.copy[0], why0, sizeof why0);
		copy_fault(d->io.copy[1], why1, sizeof why1);
		report_printf(r, DIAG_WARN, "boot.state_damaged",
			      "the boot state block at byte %u has no whole copy (copy 0: %s; copy "
			      "1: %s): the loaders boot with no one-shot and no boot counts until the "
			      "next change rewrites it", (unsigned)offset, why0, why1);
		free(d);
		return;
	}
	unsigned other = d->io.live ^ 1;
	state_records_text(d->io.copy[d->io.live], text, sizeof text);
	report_printf(r, DIAG_INFO, "boot.state",
		      "boot state block at byte %u: copy %d (sequence %llu) holds it: %s",
		      (unsigned)offset, d->io.live, (unsigned long long)bstate_seq(d->io.copy[d->io.live]),
		      text);
	if (!bstate_valid(d->io.copy[other])) {
		copy_fault(d->io.copy[other], why0, sizeof why0);
		report_printf(r, DIAG_WARN, "boot.state_copy",
			      "copy %u of the boot state block (byte %llu) is not whole: %s; copy %d "
			      "holds the state, and the next change rewrites copy %u", other,
			      (unsigned long long)offset + other * BSTATE_COPY_BYTES, why0, d->io.live,
			      other);
	}
	free(d);
}
