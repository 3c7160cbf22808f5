/* SPDX-License-Identifier: BSD-2-Clause */
/* install and add, as write plans over a disk whose table is already there (tools/ops/ops.h). */
#include <errno.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/linux.h"
#include "common/pin.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/boot/stage2_place.h"
#include "tools/dev/mounts.h"
#include "tools/disk/foreign.h"
#include "tools/esp/cfgedit.h"
#include "tools/esp/espdir.h"
#include "tools/esp/espdir_write.h"
#include "tools/esp/hashfile.h"
#include "tools/ops/ops.h"
#include "tools/plan/journal.h"

void txn_summary(struct txn *t, const char *fmt, ...)
{
	va_list ap;
	if (t->nsummary >= ARRAY_SIZE(t->summary))
		return;
	va_start(ap, fmt);
	vsnprintf(t->summary[t->nsummary++], sizeof t->summary[0], fmt, ap);
	va_end(ap);
}

int txn_begin(struct txn *t, struct hostdev *h)
{
	struct report q;
	int rc;

	memset(t, 0, sizeof *t);
	t->h = h;
	t->journal = true;
	t->cfg_timeout = CFG_DEFAULT_TIMEOUT;
	plan_init(&t->pre, h->topo.lss);
	plan_init(&t->post, h->topo.lss);
	/* The disk itself in use is refused; its partitions only where a write would go
	 * (txn_commit), and a mounted boot partition is changed through its filesystem. */
	usage_scan(h, &t->use);
	for (unsigned i = 0; i < t->use.n; i++) {
		char what[PATH_MAX + 128];
		if (t->use.dev[i].whole && kdev_in_use(&t->use.dev[i], what, sizeof what)) {
			t_error("refuse.mounted", "%s is in use: %s; unmount it first", h->path, what);
			return EXIT_REFUSED;
		}
	}
	report_init(&q, false);
	rc = disk_inspect(h, &t->di, false, &q);
	for (unsigned i = 0; i < q.n; i++)
		if (q.items[i].level >= DIAG_WARN || t->di.damaged)
			report_add(g_report, q.items[i].level == DIAG_ERROR ? DIAG_WARN : q.items[i].level,
				   q.items[i].code, q.items[i].msg);
	report_free(&q);
	if (rc)
		return rc;
	if (t->di.label == LABEL_NONE) {
		/* name what the disk holds instead, each kind once */
		unsigned named = 0;
		for (unsigned i = 0; i < t->di.sigs.n; i++) {
			const struct probe_hit *sig = &t->di.sigs.hit[i];
			bool dup = false;
			for (unsigned k = 0; k < i && !dup; k++)
				dup = !strcmp(t->di.sigs.hit[k].type, sig->type);
			if (dup)
				continue;
			char line[600];
			t_error("refuse.no_table", "%s", sig_sentence(h, &t->di, sig, line, sizeof line));
			named++;
		}
		if (named)
			t_error("refuse.no_table",
				"%s has no partition table anysector reads; 'anysector partition --force' "
				"replaces what it holds",
				h->path);
		else
			t_error("refuse.no_table",
				"%s has no partition table; run 'anysector partition' first", h->path);
		return EXIT_REFUSED;
	}
	if (t->di.damaged) {
		/* Damaged input, not a safety rule on a valid disk: exit 2 (anysector.8 EXIT STATUS). */
		t_error("table.damaged",
			"%s: cannot validate the partition table: %s; refusing to write (see 'anysector "
			"check')",
			h->path, t->di.damage);
		return EXIT_ERRORS;
	}
	if (t->di.esp < 0) {
		t_error("refuse.no_esp", "%s has no %s: nowhere to put the boot files", h->path,
			t->di.label == LABEL_GPT ? "EFI system partition" : "FAT boot partition");
		return EXIT_REFUSED;
	}
	return 0;
}

int txn_open_esp(struct txn *t)
{
	if (t->esp.open)
		return 0;
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss;
	const struct kdev *k = usage_partition(&t->use, bp->first * lss, bp->sectors * lss);
	char what[PATH_MAX + 128];

	if (!k || !kdev_in_use(k, what, sizeof what))
		return esp_open(&t->esp, t->h, bp->first, bp->sectors, bp->number);
	/* Mounted (Debian's /boot/efi): its files change through the filesystem, never as raw
	 * sectors under the kernel's driver. */
	if (!k->mount[0] || k->mount_subtree || k->mount_ro) {
		t_error("refuse.esp_busy",
			"the boot partition (partition %u) is in use: %s%s; nothing was written",
			bp->number, what,
			k->mount_ro ? ", read-only (mount -o remount,rw it)"
			: k->mount_subtree ? " (only a directory of it is mounted there)" : "");
		return EXIT_REFUSED;
	}
	t_info("esp.mounted", "partition %u is mounted on %s (%s): its files are changed through "
	       "the filesystem", bp->number, k->mount, k->fstype);
	return esp_open_mounted(&t->esp, t->h, bp->first, bp->sectors, bp->number, k->mount);
}

/* Before anything is written (and for a dry run): no write may fall into a partition in use,
 * and each partition written is held with O_EXCL until the writes are done, so nothing mounts
 * it meanwhile (the disk held with O_EXCL itself already keeps every partition free). claims
 * gets the descriptors (-1 where none). Returns 0 or an exit code. */
static int claim_partitions(struct txn *t, const struct plan *all, int *claims)
{
	uint32_t lss = t->h->topo.lss;

	for (unsigned i = 0; i < t->use.n; i++)
		claims[i] = -1;
	for (unsigned i = 0; i < all->n; i++) {
		const struct write_op *o = &all->ops[i];
		uint64_t start = o->lba * lss, len = o->count * lss;
		const struct kdev *k = usage_in_use_at(&t->use, start, len);
		char what[PATH_MAX + 128];
		if (k && kdev_in_use(k, what, sizeof what)) {
			t_error("refuse.mounted",
				"writing LBA %llu..%llu (%s) is refused: %s; nothing was written",
				(unsigned long long)o->lba,
				(unsigned long long)(o->lba + o->count - 1), o->what, what);
			return EXIT_REFUSED;
		}
		for (unsigned d = 0; d < t->use.n; d++) {
			const struct kdev *p = &t->use.dev[d];
			bool hit = start < p->start + p->size && p->start < start + len;
			/* the disk opened with O_EXCL keeps all its partitions free already */
			bool have_disk = t->h->is_block && t->h->writable && !t->h->live;
			if (!hit || p->whole || claims[d] >= 0 || have_disk)
				continue;
			claims[d] = kdev_claim(p);
			if (claims[d] < 0 && errno == EBUSY) {
				t_error("refuse.busy",
					"writing LBA %llu..%llu (%s) is refused: another program holds %s "
					"open exclusively; nothing was written",
					(unsigned long long)o->lba,
					(unsigned long long)(o->lba + o->count - 1), o->what, p->node);
				return EXIT_REFUSED;
			}
		}
	}
	return 0;
}

/* After the writes: the partitions written through the disk drop what their own caches hold,
 * so a later mount reads the new sectors. */
static void release_partitions(struct txn *t, int *claims, bool flush)
{
	for (unsigned i = 0; i < t->use.n; i++) {
		if (claims[i] < 0)
			continue;
		if (flush)
			ioctl(claims[i], BLKFLSBUF, 0);
		close(claims[i]);
	}
}

static int apply_mounted(void *ctx)
{
	return espdir_apply(ctx);
}

/* --- install --- */

/* Where stage2 may go: [first, end) in LBAs, and a phrase naming the place. Returns 0 or an exit
 * code. */
static int stage2_region(struct txn *t, uint64_t *first, uint64_t *end, char *where, size_t cap)
{
	const struct disk_info *di = &t->di;

	if (di->label == LABEL_GPT) {
		if (di->bios_boot < 0) {
			t_error("refuse.no_bios_boot",
				"%s has no BIOS boot partition (type 21686148-6449-6E6F-744E-656564454649): "
				"stage2 has nowhere to go; 'anysector partition' makes one",
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

/* Planning stage2: the image patched with the boot partition's identity, in the chosen slot.
 * Returns 0 or an exit code. */
static int plan_stage2(struct txn *t, const struct stages *s, const struct stage2_place *pl,
		       const char *where, char *slot_name, size_t cap)
{
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss, len = s->stage2_len;
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
	uint8_t *img = xcalloc(1, (size_t)(pl->count * lss));
	memcpy(img, s->stage2, len);
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

/* A file beside another: dir of path + name (into out). */
static void beside(const char *path, const char *name, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	snprintf(out, cap, "%.*s%s", dir, path, name);
}

/* MokManager, which shim starts when a MOK change waits (mokutil --import): mmx64.efi or
 * Debian's mmx64.efi.signed beside the shim given, else none (""). */
static void find_mok_manager(const char *shim, char *out, size_t cap)
{
	static const char *const names[] = { "mmx64.efi.signed", "mmx64.efi" };
	for (unsigned i = 0; i < 2; i++) {
		beside(shim, names[i], out, cap);
		if (!access(out, R_OK))
			return;
	}
	out[0] = 0;
}

/* The UEFI files: the loader as \EFI\BOOT\BOOTX64.EFI (signed first with --sign-key), or with
 * --shim the shim there, the loader as grubx64.efi (the name shim starts) and MokManager when
 * it is beside the shim. Returns 0 or an exit code. */
static int put_efi_files(struct txn *t, const struct stages *s)
{
	unsigned part = t->di.parts[t->di.esp].number;
	const char *loader = s->efi_path;
	char signer[300] = "", mm[4200];
	int rc;

	if (t->sign.key) {
		if ((rc = loader_sign(s->efi_path, &t->sign, t->signed_loader,
				      sizeof t->signed_loader))) {
			t->signed_loader[0] = 0;
			return rc;
		}
		loader = t->signed_loader;
		snprintf(signer, sizeof signer, ", signed with %s", t->sign.cert);
	}
	if ((rc = txn_open_esp(t)) || (rc = esp_mkdir_p(&t->esp, "/EFI/BOOT")))
		return rc;
	if (!t->sign.shim) {
		txn_summary(t, "\\EFI\\BOOT\\BOOTX64.EFI on partition %u%s", part, signer);
		return esp_put(&t->esp, loader, "/EFI/BOOT/BOOTX64.EFI");
	}
	if ((rc = esp_put(&t->esp, t->sign.shim, "/EFI/BOOT/BOOTX64.EFI")) ||
	    (rc = esp_put(&t->esp, loader, "/EFI/BOOT/" SHIM_SECOND_STAGE)))
		return rc;
	txn_summary(t, "\\EFI\\BOOT\\BOOTX64.EFI on partition %u: shim from %s", part, t->sign.shim);
	txn_summary(t, "\\EFI\\BOOT\\" SHIM_SECOND_STAGE " on partition %u: the loader shim starts%s",
		part, signer);
	find_mok_manager(t->sign.shim, mm, sizeof mm);
	if (mm[0]) {
		if ((rc = esp_put(&t->esp, mm, "/EFI/BOOT/mmx64.efi")))
			return rc;
		txn_summary(t, "\\EFI\\BOOT\\mmx64.efi on partition %u: MokManager from %s", part, mm);
	}
	return 0;
}

int txn_install(struct txn *t, const struct stages *s)
{
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss, len = s->stage2_len;
	struct stage2_place pl;
	uint8_t *room = NULL, *lba0 = NULL;
	uint64_t first, end;
	char where[200], slot_name[40];
	int rc;

	if ((rc = stage1_check(s)) || (rc = stage2_region(t, &first, &end, where, sizeof where)) ||
	    (rc = choose_stage2_place(t, len, where, first, end, &pl, &room, &lba0)) ||
	    (rc = foreign_signatures(t, &pl, first, end, where, lba0)) ||
	    (rc = refuse_foreign_bytes(t, &pl, room, where)))
		goto out;
	warn_not_crash_safe(&pl, lss, len, where);
	if ((rc = plan_stage2(t, s, &pl, where, slot_name, sizeof slot_name)))
		goto out;
	/* Planning stage1: LBA 0 with the new code, switched to the new stage2, written last. */
	stage1_merge(lba0, s->stage1, pl.lba * lss, len);
	plan_add(&t->post, 0, 1, lba0,
		 "stage1 in LBA 0 bytes 0..439 (disk signature, partition table, 0x55AA and bytes "
		 "0xDA..0xDF kept)");

	txn_summary(t, "stage1 in LBA 0, pointing at stage2 at byte %llu (%u bytes)",
		(unsigned long long)(pl.lba * lss), (unsigned)len);
	txn_summary(t, "stage2 in the %s%s, booting from partition %u", where, slot_name, bp->number);
	rc = put_efi_files(t, s);
out:
	free(room);
	free(lba0);
	return rc;
}

/* --- add --- */

static bool has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t')
			return true;
	return false;
}

/* Warns about a kernel that one of the firmware paths will refuse. */
static void check_kernel(const char *path)
{
	uint8_t buf[4096];
	FILE *f = fopen(path, "rb");
	size_t n;
	struct report q;

	if (!f)
		return;
	n = fread(buf, 1, sizeof buf, f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	report_init(&q, false);
	struct linux_header lh;
	if (linux_header_parse(buf, n, (uint64_t)(size > 0 ? size : 0), &lh, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_WARN);
		t_warn("add.kernel_bios", "%s is not a kernel the BIOS loader can start: %s", path,
		       it ? it->msg : "not a bzImage");
	}
	report_free(&q);
	if (n < 2 || buf[0] != 'M' || buf[1] != 'Z')
		t_warn("add.kernel_efi", "%s has no PE header: UEFI firmware cannot start it", path);
}

/* The anysector.cfg add starts from: the one on the ESP, which must be valid, or a new one.
 * Returns 0 or an exit code. */
int txn_load_menu(struct txn *t)
{
	struct report q;
	int rc;

	if (t->menu)
		return 0;
	t->menu = xcalloc(1, sizeof *t->menu);
	report_init(&q, false);
	rc = boot_menu_load(&t->esp, t->menu, &q);
	const struct report_item *bad = report_first(&q, DIAG_ERROR);
	if (rc == AS_ECORRUPT || rc == AS_ETOOBIG || report_has(&q, "cfg.default")) {
		for (unsigned i = 0; i < q.n && bad && strncmp(bad->code, "cfg.", 4); i++)
			if (q.items[i].level == DIAG_ERROR && !strncmp(q.items[i].code, "cfg.", 4))
				bad = &q.items[i];
		t_error("add.config_invalid",
			"the %s on the ESP is not valid (%s); fix it before changing the menu",
			CFG_FILE_NAME, bad ? bad->msg : as_strerror(rc));
		rc = EXIT_ERRORS;
	} else if (rc) {
		t_error("add.config_read", "reading the boot menu from the ESP failed: %s",
			bad ? bad->msg : as_strerror(rc));
		rc = EXIT_ERRORS;
	} else {
		/* the loaders leave broken /loader/entries files out: say so, change nothing */
		for (unsigned i = 0; i < q.n; i++)
			if (q.items[i].level >= DIAG_WARN && strcmp(q.items[i].code, "cfg.no_entry"))
				report_add(g_report, DIAG_WARN, q.items[i].code, q.items[i].msg);
	}
	report_free(&q);
	return rc;
}

int txn_check_menu(struct txn *t)
{
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct report q;
	int rc = 0;

	report_init(&q, false);
	int err = boot_menu_load(&t->esp, m, &q);
	if (!err && t->allow_empty_menu && !m->cfg.nentries)
		m->valid = true;
	if (err || !m->valid) {
		const struct report_item *it = NULL;
		for (unsigned i = 0; i < q.n && !it; i++)
			if (q.items[i].level == DIAG_ERROR && !strncmp(q.items[i].code, "cfg.", 4))
				it = &q.items[i];
		t_error("refuse.config_result",
			"the boot menu would not be valid (%s); nothing was changed",
			it ? it->msg : "?");
		rc = EXIT_REFUSED;
	}
	report_free(&q);
	boot_menu_free(m);
	free(m);
	return rc;
}

/* The anysector.cfg add starts from: the one on the ESP, which must be valid, or a new one.
 * Returns 0 or an exit code. */
static int config_load(struct txn *t, char **text)
{
	int rc = txn_load_menu(t);
	if (rc)
		return rc;
	if (t->menu->cfg_text) {
		*text = xstrdup(t->menu->cfg_text);
		return 0;
	}
	char head[160];
	snprintf(head, sizeof head,
		 "# anysector.cfg: the boot menu (see anysector(8)); written by 'anysector add'\n"
		 "timeout %u\n", t->cfg_timeout);
	*text = xstrdup(head);
	return 0;
}

/* An entry's text is one line each and its files can be read. Returns 0 or an exit code. */
static int entry_check(const struct add_entry *e)
{
	if (has_control(e->title) || has_control(e->cmdline) ||
	    (e->name && (strpbrk(e->name, " \t#") || has_control(e->name)))) {
		t_error("usage.value", "titles and command lines are one line; names one word");
		return EXIT_USAGE;
	}
	if (e->kind == CFG_KIND_CHAIN || e->partition)
		return 0;   /* the target is checked against the disk in add_entry */
	if (access(e->kernel, R_OK)) {
		t_error("add.file", "%s: %s", e->kernel, strerror(errno));
		return EXIT_ERRORS;
	}
	for (unsigned k = 0; k < e->ninitrd; k++) {
		if (access(e->initrd[k], R_OK)) {
			t_error("add.file", "%s: %s", e->initrd[k], strerror(errno));
			return EXIT_ERRORS;
		}
	}
	if (e->kind == CFG_KIND_LINUX)
		check_kernel(e->kernel);
	return 0;
}

/* Where an entry's files go on the ESP. */
struct entry_files {
	char kernel[CFG_NAME_MAX + 128];
	char initrd[CFG_MAX_INITRDS][CFG_NAME_MAX + 128];
	const char *initrd_list[CFG_MAX_INITRDS];
};

/* Copies an entry's kernel and initrds into /NAME on the ESP copy. Returns 0 or an exit code. */
static int entry_copy_files(struct txn *t, const struct add_entry *e, const char *name,
			    struct entry_files *f)
{
	char dir[CFG_NAME_MAX + 2];
	int rc;

	snprintf(dir, sizeof dir, "/%s", name);
	if ((rc = esp_mkdir_p(&t->esp, dir)))
		return rc;
	entry_file_path(name, e->kernel, f->kernel, sizeof f->kernel);
	if ((rc = esp_put(&t->esp, e->kernel, f->kernel)))
		return rc;
	for (unsigned j = 0; j < e->ninitrd; j++) {
		entry_file_path(name, e->initrd[j], f->initrd[j], sizeof f->initrd[j]);
		f->initrd_list[j] = f->initrd[j];
		if ((rc = esp_put(&t->esp, e->initrd[j], f->initrd[j])))
			return rc;
	}
	return 0;
}

/* add --pin: the SHA-256 of the host files add copies (the bytes that land on the ESP), bit s of
 * *pinned for pin slot s. Returns 0 or an exit code. */
static int entry_pins(const struct add_entry *e, unsigned *pinned,
		      uint8_t pin[1 + CFG_MAX_INITRDS][SHA256_BYTES])
{
	*pinned = 0;
	if (!e->pin)
		return 0;
	for (unsigned s = 0; s <= e->ninitrd; s++) {
		const char *file = s == PIN_KERNEL ? e->kernel : e->initrd[s - PIN_INITRD];
		if (host_file_sha256(file, pin[s])) {
			t_error("add.file", "%s: cannot read it to pin its SHA-256: %s", file,
				strerror(errno));
			return EXIT_ERRORS;
		}
		*pinned |= 1u << s;
	}
	return 0;
}

/* A chainload target: "hdN" (N < CFG_BIOS_DISKS) or a partition of this disk that exists. */
static int chain_target_check(struct txn *t, const char *target)
{
	char *end;
	bool disk = (target[0] == 'h' || target[0] == 'H') && (target[1] == 'd' || target[1] == 'D');
	unsigned long n = strtoul(target + (disk ? 2 : 0), &end, 10);

	if (*end || end == target + (disk ? 2 : 0) || (disk && n >= CFG_BIOS_DISKS) ||
	    (!disk && (n < 1 || n > CFG_PART_MAX))) {
		t_error("usage.chainload", "--chainload %s: give a partition number of this disk "
			"(1 to %u) or a BIOS disk hd0 to hd%u", target, CFG_PART_MAX,
			CFG_BIOS_DISKS - 1);
		return EXIT_USAGE;
	}
	if (disk)
		return 0;
	for (unsigned i = 0; i < t->di.nparts; i++)
		if (t->di.parts[i].number == n && !t->di.parts[i].container)
			return 0;
	t_error("refuse.chainload", "--chainload %s: %s has no partition %lu", target, t->h->path,
		n);
	return EXIT_REFUSED;
}

/* An efi entry's file on another partition: the partition exists and holds a FAT with that
 * file, an absolute path the config can hold. Nothing is copied. Returns 0 or an exit code. */
static int efi_on_partition_check(struct txn *t, const struct add_entry *e)
{
	if (e->kernel[0] != '/' || strlen(e->kernel) >= CFG_PATH_MAX || has_control(e->kernel)) {
		t_error("usage.efi_path", "--efi %s --partition %u: give the application's absolute "
			"path on that partition (/EFI/...), shorter than %u bytes", e->kernel,
			e->partition, CFG_PATH_MAX);
		return EXIT_USAGE;
	}
	char why[REPORT_MSG_MAX];
	if (!part_file_check(t->h, &t->di, e->partition, e->kernel, why, sizeof why))
		return 0;
	t_error("refuse.efi_partition", "--efi %s --partition %u: %s", e->kernel, e->partition,
		why);
	return EXIT_REFUSED;
}

/* Whether name is an entry of the boot menu that came from /loader/entries. */
static bool bls_name(const struct txn *t, const char *name)
{
	int i = boot_menu_find(t->menu, name);
	return i >= 0 && t->menu->src[i].bls;
}

/* The entry name for e: given or made from base (the kernel's file name); with --replace the
 * name of an anysector.cfg entry may be taken (that entry goes); a Boot Loader Specification
 * entry's never is. Returns 0 or an exit code. */
static int entry_name(struct txn *t, const struct add_entry *e, const char *base,
		      const char *text, char name[CFG_NAME_MAX])
{
	bool free_name = entry_name_pick(text, e->name, base, name);

	if (t->replace && e->name) {
		free_name = true;
		snprintf(name, CFG_NAME_MAX, "%s", e->name);
	} else if (t->replace) {
		entry_name_from_file(base, name, CFG_NAME_MAX - 4);
	}
	if (bls_name(t, name) && (e->name || t->replace)) {
		t_error("refuse.entry_exists",
			"'%s' is the Boot Loader Specification entry %s; remove it ('anysector remove') "
			"or choose another --name", name,
			t->menu->src[boot_menu_find(t->menu, name)].path);
		return EXIT_REFUSED;
	}
	/* a derived name steps past the BLS entries' names too */
	char stem[CFG_NAME_MAX];
	snprintf(stem, sizeof stem, "%s", name);
	for (unsigned k = 2; bls_name(t, name) && k < 100; k++)
		snprintf(name, CFG_NAME_MAX, "%.*s-%u", CFG_NAME_MAX - 6, stem, k);
	if (!free_name) {
		t_error("refuse.entry_exists",
			"%s already has an entry named '%s'; choose another --name, or --replace it",
			CFG_FILE_NAME, name);
		return EXIT_REFUSED;
	}
	return 0;
}

/* Adds one entry: its files onto the ESP copy, its lines to *text. With --replace an entry of
 * that name goes first; its files that nothing uses any more are deleted at the end
 * (txn_add). Returns 0 or an exit code. */
static int add_entry(struct txn *t, const struct add_entry *e, char **text)
{
	char name[CFG_NAME_MAX];
	struct entry_files f;
	int rc;

	if ((rc = entry_check(e)))
		return rc;
	if (e->kind == CFG_KIND_CHAIN && (rc = chain_target_check(t, e->kernel)))
		return rc;
	if (e->partition && (rc = efi_on_partition_check(t, e)))
		return rc;
	char base[CFG_PATH_MAX];
	snprintf(base, sizeof base, "%s%s", e->kind == CFG_KIND_CHAIN ? "chainload-" : "",
		 e->kernel);
	if ((rc = entry_name(t, e, base, *text, name)))
		return rc;
	char *cur = cfg_text_remove_entry(*text, name);
	bool replaced = cur != NULL;
	if (cur) {
		free(*text);
		*text = cur;
		if (t->nreplaced < CFG_MAX_ENTRIES)
			snprintf(t->replaced[t->nreplaced++], CFG_NAME_MAX, "%s", name);
	}
	if (e->kind == CFG_KIND_CHAIN || e->partition)
		snprintf(f.kernel, sizeof f.kernel, "%s", e->kernel);
	else if ((rc = entry_copy_files(t, e, name, &f)))
		return rc;
	uint8_t pin[1 + CFG_MAX_INITRDS][SHA256_BYTES];
	unsigned pinned;
	if ((rc = entry_pins(e, &pinned, pin)))
		return rc;
	cur = cfg_text_add_entry(*text, name, e->title, e->kind, f.kernel, e->partition,
				 f.initrd_list, e->ninitrd, e->cmdline, pinned, pin);
	free(*text);
	*text = cur;
	if (e->make_default) {
		cur = cfg_text_set_default(*text, name);
		free(*text);
		*text = cur;
	}
	char where[32] = "";
	if (e->partition)
		snprintf(where, sizeof where, " on partition %u", e->partition);
	txn_summary(t, "entry '%s' (%s %s%s%s%s) %s %s on partition %u", name,
		    e->kind == CFG_KIND_EFI ? "EFI application" : e->kind == CFG_KIND_CHAIN ?
		    "chainload" : "kernel", e->kernel, where, e->ninitrd ? " and initrd" : "",
		    pinned ? ", pinned by SHA-256" : "",
		    replaced ? "replaced in" : "in", CFG_FILE_NAME, t->esp.number);
	return 0;
}

/* Writes text to a new temporary file named in path. Returns 0 or AS_EIO (errno says why). */
static int write_temp(const char *text, char *path, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(path, cap, "%.4000s/anysector-cfg-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return AS_EIO;
	int rc = pwrite_full(fd, text, strlen(text), 0);
	close(fd);
	return rc;
}

/* The new anysector.cfg must parse and fit what the loaders read, then goes onto the ESP copy.
 * Returns 0 or an exit code. */
int txn_store_config(struct txn *t, const char *text)
{
	struct cfg *cfg;
	struct report q;
	int rc = 0;

	if (strlen(text) > CFG_FILE_MAX_BYTES) {
		t_error("refuse.config_size",
			"the new %s would be %zu bytes, more than the %u the loaders read; nothing "
			"was changed", CFG_FILE_NAME, strlen(text), CFG_FILE_MAX_BYTES);
		return EXIT_REFUSED;
	}
	cfg = xcalloc(1, sizeof *cfg);
	report_init(&q, false);
	if (cfg_parse_text(text, strlen(text), cfg, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		t_error("refuse.config_result",
			"the new %s would not be valid (%s); nothing was changed", CFG_FILE_NAME,
			it ? it->msg : "?");
		rc = EXIT_REFUSED;
	}
	report_free(&q);
	free(cfg);
	if (rc)
		return rc;
	char tmp[4096];
	if (write_temp(text, tmp, sizeof tmp)) {
		t_error("add.temp", "cannot write a temporary file: %s", strerror(errno));
		return EXIT_ERRORS;
	}
	rc = esp_put(&t->esp, tmp, "/" CFG_FILE_NAME);
	unlink(tmp);
	/* with /loader/entries the whole menu decides (a default may name one of those) */
	return rc ? rc : txn_check_menu(t);
}

int txn_add(struct txn *t, const struct add_entry *entries, unsigned n)
{
	char *text = NULL;
	int rc;

	if ((rc = txn_open_esp(t)) || (rc = config_load(t, &text)))
		goto out;
	for (unsigned i = 0; i < n; i++)
		if ((rc = add_entry(t, &entries[i], &text)))
			goto out;
	if (t->set_timeout) {
		char v[16], *cur;
		snprintf(v, sizeof v, "%u", t->cfg_timeout);
		cur = cfg_text_set_key(text, "timeout", v);
		free(text);
		text = cur;
		txn_summary(t, "timeout %u s in %s", t->cfg_timeout, CFG_FILE_NAME);
	}
	if ((rc = txn_store_config(t, text)))
		goto out;
	/* the files of replaced entries that no entry uses now */
	const char *old[CFG_MAX_ENTRIES * (1 + CFG_MAX_INITRDS)];
	unsigned nold = 0;
	for (unsigned i = 0; i < t->menu->cfg.nentries; i++) {
		const struct cfg_entry *e = &t->menu->cfg.entries[i];
		bool gone = false;
		for (unsigned k = 0; k < t->nreplaced && !t->menu->src[i].bls; k++)
			gone |= !strcasecmp(t->replaced[k], e->name);
		if (!gone)
			continue;
		nold += entry_boot_files(e, old + nold);
	}
	rc = txn_drop_unused(t, old, nold);
out:
	free(text);
	return rc;
}

/* --- commit --- */

int txn_commit(struct txn *t)
{
	struct hostdev *h = t->h;
	struct plan all, esp;
	char path[4200];
	int rc = 0, *claims = xcalloc(t->use.n + 1, sizeof *claims);
	bool held = false;

	plan_init(&all, h->topo.lss);
	plan_init(&esp, h->topo.lss);
	if (t->esp.open) {
		char what[120];
		snprintf(what, sizeof what, "files on partition %u", t->esp.number);
		if ((rc = esp_diff(&t->esp, &esp, what)))
			goto out;
	}
	/* Order: stage2 (read back), the ESP, LBA 0 last. */
	unsigned npre = t->pre.n;
	plan_append(&all, &t->pre);
	plan_append(&all, &esp);
	plan_append(&all, &t->post);
	if (t->esp.mounted) {
		/* a mounted ESP's changes go where its sectors would: after stage2, before LBA 0 */
		all.pause = apply_mounted;
		all.pause_ctx = &t->esp;
		all.pause_at = npre;
	}
	if (t->journal && (rc = journal_pick_path(h, t->backup, path, sizeof path)))
		goto out;
	held = true;
	if ((rc = claim_partitions(t, &all, claims)))
		goto out;
	if (t->dry_run) {
		plan_print(&all, stdout);
		if (t->esp.mounted)
			espdir_print(&t->esp, stdout);
		if (t->journal)
			printf("would first save the original bytes of %llu sectors to %s%s\n",
			       (unsigned long long)plan_sectors(&all), path,
			       t->esp.mounted ? " (not the files changed through the mounted filesystem)"
					      : "");
		printf("dry run: %u writes, %llu sectors%s; nothing was written\n", all.n,
		       (unsigned long long)plan_sectors(&all),
		       t->esp.mounted ? ", and the changes through the mounted filesystem above" : "");
		goto out;
	}
	if (t->journal) {
		if ((rc = journal_write(path, h, &all)))
			goto out;
		printf("saved the original bytes of %llu sectors to %s (undo: anysector restore %s %s)%s\n",
		       (unsigned long long)plan_sectors(&all), path, h->path, path,
		       t->esp.mounted ? "; the files changed through the mounted filesystem are not "
					"in it" : "");
	}
	all.crash_after = plan_crash_hook();
	if ((rc = plan_execute(h, &all)))
		goto out;
	for (unsigned i = 0; i < t->nsummary; i++)
		printf("%s\n", t->summary[i]);
out:
	if (held)
		release_partitions(t, claims, !t->dry_run);
	free(claims);
	plan_free(&all);
	plan_free(&esp);
	return rc;
}

void txn_end(struct txn *t)
{
	if (t->signed_loader[0])
		unlink(t->signed_loader);
	t->signed_loader[0] = 0;
	usage_free(&t->use);
	if (t->menu) {
		boot_menu_free(t->menu);
		free(t->menu);
		t->menu = NULL;
	}
	esp_close(&t->esp);
	plan_free(&t->pre);
	plan_free(&t->post);
	disk_info_free(&t->di);
}
