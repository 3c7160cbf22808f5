/* SPDX-License-Identifier: BSD-2-Clause */
/* install as a write plan: stage2 into a slot of the boot region, BOOTX64.EFI (and shim) onto
 * the ESP, stage1 into LBA 0 last. */
#include "tools/ops/install.h"
#include "tools/ops/install_efi.h"
#include "tools/ops/menu_edit.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/bootstate.h"
#include "common/errors.h"
#include "common/features.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/stage2_place.h"
#include "tools/disk/foreign.h"

/* Where stage2 may go: [first, end) in LBAs, and a phrase naming the place. Returns 0 or an exit
 * code. */
static int stage2_region(struct txn *t, uint64_t *first, uint64_t *end, char *where, size_t cap)
{
	const struct disk_info *di = &t->di;

	if (di->label == LABEL_GPT) {
		if (di->bios_boot < 0) {
			t_error("refuse.no_bios_boot",
				"%s has no BIOS boot partition (type 21686148-6449-6E6F-744E-656564454649): "
				"stage2 has nowhere to go; 'anysector install --uefi-only' installs for UEFI "
				"alone, beside what is there ('anysector partition' makes a new layout, "
				"erasing the disk)",
				t->h->path);
			return EXIT_REFUSED;
		}
		const struct part_info *p = &di->parts[di->bios_boot];
		*first = p->first;
		*end = p->first + p->sectors;
		snprintf(where, cap, "BIOS boot partition (partition %u, LBA %llu..%llu)", p->number,
			 (unsigned long long)p->first, (unsigned long long)(*end - 1));
	} else {
		*first = 1;
		*end = di->first_part_lba;
		snprintf(where, cap, "gap between the MBR and the first partition (LBA 1..%llu)",
			 (unsigned long long)(*end - 1));
	}
	return 0;
}

/* stage1.bin must leave the disk's timestamp bytes alone. Returns 0 or an exit code. */
static int stage1_check(const struct stages *s)
{
	if (all_zero(s->stage1 + MBR_TIMESTAMP_OFF, MBR_TIMESTAMP_LEN))
		return 0;
	t_error("stages.stage1",
		"%s/stage1.bin uses bytes 0x%X..0x%X, which belong to the disk (timestamp)", s->dir,
		MBR_TIMESTAMP_OFF, MBR_TIMESTAMP_OFF + MBR_TIMESTAMP_LEN - 1);
	return EXIT_ERRORS;
}

/* The slot choice: places the slots in the region, reads what they and LBA 0 hold, and picks
 * the slot to write (stage2_place.h). Leaves the slots' room in *room and LBA 0 in *lba0 (the
 * caller frees both, also on failure). Returns 0 or an exit code. */
static int choose_stage2_place(struct txn *t, uint32_t len, const char *where, uint64_t first,
			       uint64_t end, struct stage2_place *pl, uint8_t **room, uint8_t **lba0)
{
	struct hostdev *h = t->h;
	uint32_t lss = h->topo.lss;
	int err;

	*room = *lba0 = NULL;
	if (stage2_slots(&h->topo, t->di.slot_grain, first, end, len, pl)) {
		uint64_t at = pl->slot[0];
		t_error("refuse.stage2_fit",
			"stage2 (%u bytes) does not fit the %s: %llu bytes are free from byte %llu, the "
			"first logical and physical sector boundary",
			(unsigned)len, where, (unsigned long long)(at < end ? (end - at) * lss : 0),
			(unsigned long long)(at == STAGE2_NO_LBA ? 0 : at * lss));
		return EXIT_REFUSED;
	}
	*room = xmalloc((size_t)((pl->end - pl->slot[0]) * lss));
	if ((err = bdev_read(&h->dev, pl->slot[0], pl->end - pl->slot[0], *room))) {
		t_error("io.read", "%s: LBA %llu..%llu could not be read: %s", h->path,
			(unsigned long long)pl->slot[0], (unsigned long long)(pl->end - 1),
			as_strerror(err));
		return EXIT_ERRORS;
	}
	stage2_find_ours(pl, *room, lss);
	*lba0 = xmalloc(lss);
	if ((err = bdev_read(&h->dev, 0, 1, *lba0))) {
		t_error("io.read", "%s: LBA 0 could not be read: %s", h->path, as_strerror(err));
		return EXIT_ERRORS;
	}
	stage1_live_stage2(pl, *lba0, lss);
	stage2_choose_slot(pl, lss);
	return 0;
}

/* Refusing foreign bytes: the sectors stage2 replaces may hold only zeros and our own stage2,
 * unless --force. Returns 0 or an exit code. */
static int refuse_foreign_bytes(struct txn *t, const struct stage2_place *pl, const uint8_t *room,
				const char *where)
{
	uint32_t lss = t->h->topo.lss;
	uint64_t at;

	if (!stage2_foreign_byte(pl, room, lss, &at))
		return 0;
	unsigned long long byte = pl->slot[0] * lss + at;
	if (!t->force) {
		t_error("refuse.foreign_gap",
			"the %s holds data that is not anysector's (byte %llu is 0x%02X): another "
			"boot loader may live there; use --force to overwrite it (the backup keeps "
			"a copy)",
			where, byte, room[at]);
		return EXIT_REFUSED;
	}
	t_warn("install.foreign_gap",
	       "--force: overwriting data that is not anysector's in the %s (byte %llu is 0x%02X)",
	       where, byte, room[at]);
	return 0;
}

/* Signatures libblkid finds where install writes (LBA 0's boot code, the whole stage2 region
 * [first, end)): each named, and refused; under --force each is erased instead: by a write of
 * its own before stage2's where stage1 and stage2 do not replace it, zeroed in LBA 0's new
 * contents where it lies in the bytes stage1 keeps, and named in the summary. Returns 0 or an
 * exit code. */
static int foreign_signatures(struct txn *t, const struct stage2_place *pl, uint64_t first,
			      uint64_t end, const char *where, uint8_t *lba0)
{
	struct hostdev *h = t->h;
	uint32_t lss = h->topo.lss;
	struct lba_range ours[2];
	unsigned nours = 0;
	struct probe_result found;
	int rc;

	for (unsigned k = 0; k < 2; k++)
		if (pl->ours_len[k])
			ours[nours++] = (struct lba_range){ pl->slot[k], DIV_ROUND_UP(pl->ours_len[k], lss) };
	if ((rc = foreign_install_scan(h, &t->di.sigs, first, end, ours, nours, &found)) || !found.n)
		return rc;
	if (!t->force) {
		for (unsigned i = 0; i < found.n; i++) {
			char what[200];
			probe_hit_text(&found.hit[i], what, sizeof what);
			if (found.hit[i].offset < lss)
				t_error("refuse.foreign", "LBA 0 holds %s, where install writes stage1",
					what);
			else
				t_error("refuse.foreign", "the %s holds %s, where install writes stage2",
					where, what);
		}
		t_error("refuse.foreign",
			"use --force to erase %s (the backup keeps a copy of every sector it changes)",
			found.n == 1 ? "it" : "them");
		return EXIT_REFUSED;
	}
	const struct lba_range replaced[2] = { { 0, 1 }, { pl->lba, pl->count } };
	if ((rc = foreign_erase_plan(h, &found, &t->pre, replaced, 2)))
		return rc;
	for (unsigned i = 0; i < found.n; i++) {
		char line[200], what[200];
		foreign_zero_in(&found.hit[i], 0, lba0, MBR_BOOTCODE_SIZE);
		txn_summary(t, "%s", foreign_erased_text(&found.hit[i], line, sizeof line));
		/* said while planning too, so a dry run names what stage1 and stage2 replace */
		t_warn("install.erase", "--force: erasing %s, which is not anysector's, in the %s",
		       probe_hit_text(&found.hit[i], what, sizeof what),
		       found.hit[i].offset < lss ? "LBA 0" : where);
	}
	return 0;
}

static void warn_not_crash_safe(const struct stage2_place *pl, uint32_t lss, uint32_t len,
				const char *where)
{
	if (pl->nslots == 1)
		t_warn("install.not_crash_safe",
		       "the %s has room for one copy of stage2 only (%u bytes from byte %llu): an "
		       "install replaces it in place, so a crash during one can leave the disk "
		       "unbootable until 'anysector restore' puts the backup back",
		       where, (unsigned)len, (unsigned long long)(pl->slot[0] * lss));
	else if (!pl->safe)
		t_warn("install.not_crash_safe",
		       "the stage2 stage1 loads now (LBA %llu..%llu) overlaps both slots of the %s: "
		       "it is overwritten before LBA 0 switches, so a crash during this install can "
		       "leave the disk unbootable until 'anysector restore' puts the backup back",
		       (unsigned long long)pl->live, (unsigned long long)(pl->live_end - 1), where);
}

/* The boot state block (common/bootstate.h) at the end of the slots' room: kept when either copy
 * there is valid, else written empty where the room holds only zeros (a foreign byte is refused
 * unless --force), before stage2, whose header then records it (*offset; 0 when there is none).
 * Returns 0 or an exit code. */
static int plan_state(struct txn *t, struct stage2_place *pl, const uint8_t *room,
		      const char *where, uint32_t *offset)
{
	uint32_t lss = t->h->topo.lss;
	const char *why;
	uint64_t at = stage2_state_place(&t->h->topo, t->di.slot_grain, pl, &why);

	*offset = 0;
	if (at != STAGE2_NO_LBA && at * lss > UINT32_MAX - 2 * BSTATE_COPY_BYTES) {
		at = STAGE2_NO_LBA;
		why = "the region lies beyond the first 4 GiB of the disk, which stage2's header can name";
	}
	if (at == STAGE2_NO_LBA) {
		txn_summary(t, "no boot state block: %s; 'set-default --once' and 'tries' lines do "
			    "not work on this disk (under UEFI, LoaderEntryOneShot and counted entry "
			    "files still do)", why);
		return 0;
	}
	const uint8_t *cur = room + (at - pl->slot[0]) * lss;
	*offset = (uint32_t)(at * lss);
	if (pl->lba + pl->count > at)        /* clearing an older stage2's tail stops short of it */
		pl->count = at - pl->lba;
	if (bstate_valid(cur) || bstate_valid(cur + BSTATE_COPY_BYTES)) {
		txn_summary(t, "boot state block kept at byte %llu", (unsigned long long)*offset);
		return 0;
	}
	if (!all_zero(cur, 2 * BSTATE_COPY_BYTES)) {
		if (!t->force) {
			t_error("refuse.foreign_gap",
				"the %s holds data that is not anysector's where the boot state block goes "
				"(bytes %llu..%llu); use --force to overwrite it (the backup keeps a copy)",
				where, (unsigned long long)*offset,
				(unsigned long long)*offset + 2 * BSTATE_COPY_BYTES - 1);
			return EXIT_REFUSED;
		}
		t_warn("install.foreign_gap", "--force: overwriting data that is not anysector's "
		       "where the boot state block goes in the %s", where);
	}
	uint8_t fresh[2 * BSTATE_COPY_BYTES];
	bstate_init(fresh, 0);
	bstate_init(fresh + BSTATE_COPY_BYTES, 0);
	char what[300];
	snprintf(what, sizeof what, "boot state block, two empty copies of %u bytes, at the end "
		 "of the %s", BSTATE_COPY_BYTES, where);
	plan_add(&t->pre, at, 2 * BSTATE_COPY_BYTES / lss, fresh, what);
	txn_summary(t, "boot state block at byte %llu", (unsigned long long)*offset);
	return 0;
}

/* Which build of stage2 goes in: stage2.bin wherever it fits; the legacy-gap build only where
 * the region holds it and not stage2.bin (the 31 KiB gap before a partition at LBA 63), saying
 * what it leaves out (common/features.h). */
static void pick_stage2(struct txn *t, const struct stages *s, uint64_t first, uint64_t end,
			const char *where, const uint8_t **img, uint32_t *len)
{
	struct stage2_place probe;

	*img = s->stage2;
	*len = s->stage2_len;
	if (!s->stage2_gap ||
	    !stage2_slots(&t->h->topo, t->di.slot_grain, first, end, s->stage2_len, &probe) ||
	    stage2_slots(&t->h->topo, t->di.slot_grain, first, end, s->stage2_gap_len, &probe))
		return;
	*img = s->stage2_gap;
	*len = s->stage2_gap_len;
	t->installed_gap = true;
	t_warn("install.gap_build",
	       "the %s holds the legacy-gap build of stage2 (%u bytes) but not stage2.bin (%u "
	       "bytes), which leaves out %s; a partition 1 at 1 MiB (partition without --dos-compat) "
	       "has room for all of stage2",
	       where, (unsigned)*len, (unsigned)s->stage2_len, FEATURES_NOT_IN_GAP);
}

/* Planning stage2 (stage2[0..len), the build pick_stage2 chose): the image patched with the
 * boot partition's identity and the state block's place, in the chosen slot. Returns 0 or an
 * exit code. */
static int plan_stage2(struct txn *t, const uint8_t *stage2, uint32_t len,
		       const struct stage2_place *pl, const char *where, uint32_t state,
		       char *slot_name, size_t cap)
{
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss;
	struct stage2_identity id = { 0 };

	if (t->di.label == LABEL_GPT) {
		id.kind = STAGE2_KIND_GPT;
		id.part_guid = bp->unique;
	} else {
		id.kind = STAGE2_KIND_MBR;
		id.mbr_disk_sig = t->di.mbr.disk_sig;
		id.mbr_part = bp->number;
		if (!id.mbr_disk_sig)
			t_warn("install.no_signature",
			       "the MBR's disk signature is 0: with several such disks the BIOS loader "
			       "cannot tell which one holds its boot partition");
	}
	snprintf(id.config_path, sizeof id.config_path, "/%s", CFG_FILE_NAME);
	id.state_offset = state;
	t->installed = true;
	t->state_planned = state;
	uint8_t *img = xcalloc(1, (size_t)(pl->count * lss));
	memcpy(img, stage2, len);
	stage2_identity_set(img, len, &id);
	if (!stage2_image_valid(img, len)) {
		t_error("install.stage2", "the patched stage2 does not verify (CRC32)");
		free(img);
		return EXIT_ERRORS;
	}
	if (pl->nslots == 2)
		snprintf(slot_name, cap, ", slot %c of 2", pl->use ? 'B' : 'A');
	else
		snprintf(slot_name, cap, ", the only slot");
	char what[400];
	snprintf(what, sizeof what, "stage2, %u bytes, boot partition %u, in the %s%s", (unsigned)len,
		 bp->number, where, slot_name);
	plan_add(&t->pre, pl->lba, pl->count, img, what);
	free(img);
	return 0;
}

int txn_install(struct txn *t, const struct stages *s)
{
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss, len = 0;
	const uint8_t *stage2 = NULL;
	struct stage2_place pl;
	uint8_t *room = NULL, *lba0 = NULL;
	uint64_t first, end;
	uint32_t state;
	char where[200], slot_name[40];
	int rc;

	if (t->uefi_only)
		return txn_install_efi(t, s);
	if ((rc = stage1_check(s)) || (rc = stage2_region(t, &first, &end, where, sizeof where)))
		goto out;
	pick_stage2(t, s, first, end, where, &stage2, &len);
	if ((rc = choose_stage2_place(t, len, where, first, end, &pl, &room, &lba0)) ||
	    (rc = foreign_signatures(t, &pl, first, end, where, lba0)) ||
	    (rc = refuse_foreign_bytes(t, &pl, room, where)))
		goto out;
	warn_not_crash_safe(&pl, lss, len, where);
	if ((rc = plan_state(t, &pl, room, where, &state)) ||
	    (rc = plan_stage2(t, stage2, len, &pl, where, state, slot_name, sizeof slot_name)))
		goto out;
	/* Planning stage1: LBA 0 with the new code, switched to the new stage2, written last. */
	stage1_merge(lba0, s->stage1, pl.lba * lss, len);
	plan_add(&t->post, 0, 1, lba0,
		 "stage1 in LBA 0 bytes 0..439 (disk signature, partition table, 0x55AA and bytes "
		 "0xDA..0xDF kept)");

	txn_summary(t, "stage1 in LBA 0, pointing at stage2 at byte %llu (%u bytes)",
		(unsigned long long)(pl.lba * lss), (unsigned)len);
	txn_summary(t, "stage2 in the %s%s, booting from partition %u", where, slot_name, bp->number);
	if (!(rc = txn_install_efi(t, s)))
		txn_warn_gap_menu(t);
out:
	free(room);
	free(lba0);
	return rc;
}

void install_preview(struct hostdev *h, const struct disk_info *di, struct report *r)
{
	struct txn t;
	struct stage2_place pl;
	struct stages s;
	struct report q, *saved = g_report;
	uint8_t *room = NULL, *lba0 = NULL;
	uint64_t first, end;
	uint32_t len = di->s2_length;
	char where[200];

	if (di->label == LABEL_NONE || di->damaged || di->esp < 0)
		return;
	/* install's steps, their sentences caught instead of said */
	report_init(&q, false);
	g_report = &q;
	if (!len || len > STAGE2_MAX_SIZE) {
		len = stages_load(NULL, &s) ? STAGE2_LEGACY_GAP_BYTES : s.stage2_len;
		stages_free(&s);
		report_free(&q);
	}
	memset(&t, 0, sizeof t);
	t.h = h;
	t.di = *di;
	if (!stage2_region(&t, &first, &end, where, sizeof where) &&
	    !choose_stage2_place(&t, len, where, first, end, &pl, &room, &lba0) &&
	    !foreign_signatures(&t, &pl, first, end, where, lba0))
		refuse_foreign_bytes(&t, &pl, room, where);
	g_report = saved;
	free(room);
	free(lba0);
	for (unsigned i = 0; i < q.n; i++)
		if (q.items[i].level == DIAG_ERROR && !strncmp(q.items[i].code, "refuse.", 7) &&
		    strcmp(q.items[i].code, "refuse.no_bios_boot"))
			report_printf(r, DIAG_WARN, "install.would_refuse",
				      "install would refuse it: %s", q.items[i].msg);
	report_free(&q);
}
