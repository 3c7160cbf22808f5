/* SPDX-License-Identifier: BSD-2-Clause */
/* The transaction of a change to a disk whose table is already there (tools/ops/txn.h). */
#include "tools/ops/txn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/fileio.h"
#include "tools/base/report.h"
#include "tools/base/exit_codes.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/esp/espdir.h"
#include "tools/esp/espdir_write.h"
#include "tools/esp/esp_read.h"
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

/* Which files are anysector's, decided on the partition as it is before the command changes
 * it (the migration rule reads the menu, quietly: install needs no valid one). Returns 0 or an
 * exit code. */
static int load_owned(struct txn *t)
{
	struct boot_menu *m = xcalloc(1, sizeof *m);
	struct report q;

	report_init(&q, false);
	bool ok = !boot_menu_load(&t->esp, m, &q);
	report_free(&q);
	int rc = owned_load(&t->own, &t->esp, ok ? m : NULL);
	boot_menu_free(m);
	free(m);
	t->own_loaded = !rc;
	if (!rc && t->own.migrated)
		txn_summary(t, "%s on partition %u: %u file%s anysector wrote before it kept this list",
			    OWNED_FILE_NAME, t->esp.number, t->own.migrated,
			    t->own.migrated == 1 ? "" : "s");
	return rc;
}

int txn_open_esp(struct txn *t)
{
	if (t->esp.open)
		return 0;
	const struct part_info *bp = &t->di.parts[t->di.esp];
	uint32_t lss = t->h->topo.lss;
	const struct kdev *k = usage_partition(&t->use, bp->first * lss, bp->sectors * lss);
	char what[PATH_MAX + 128];

	int rc;

	if (!k || !kdev_in_use(k, what, sizeof what)) {
		rc = t->esp_whole ? esp_open_whole(&t->esp, t->h, bp->first, bp->sectors, bp->number,
						   t->esp_new_bytes)
				  : esp_open(&t->esp, t->h, bp->first, bp->sectors, bp->number,
					     t->esp_new_bytes);
		if (rc)
			return rc;
		return load_owned(t);
	}
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
	if ((rc = esp_open_mounted(&t->esp, t->h, bp->first, bp->sectors, bp->number, k->mount)))
		return rc;
	return load_owned(t);
}

void txn_expect(struct txn *t, const char *src)
{
	struct stat st;
	/* a file that cannot be read is refused later, naming it */
	if (src && !stat(src, &st) && S_ISREG(st.st_mode))
		t->esp_new_bytes += (uint64_t)st.st_size;
}

int txn_put_owned(struct txn *t, const char *src, const char *dst)
{
	uint8_t before[SHA256_BYTES];
	bool had = owned_state(&t->own, &t->esp, dst) == OWN_YES &&
		   !esp_sha256(&t->esp, dst, before);
	int rc = esp_put(&t->esp, src, dst);
	return rc ? rc : owned_record(&t->own, &t->esp, dst, had ? before : NULL);
}

bool txn_foreign(struct txn *t, const char *dst, enum own_state *st)
{
	*st = owned_state(&t->own, &t->esp, dst);
	return *st == OWN_FOREIGN || *st == OWN_CHANGED;
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

/* Copies the host file src to the new file dst and syncs it. Returns 0 or AS_EIO (errno). */
static int copy_host_file(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	uint8_t *buf = xmalloc(1u << 20);
	uint64_t off = 0;
	ssize_t n = -1;

	while (out >= 0 && (n = read(in, buf, 1u << 20)) > 0 && !pwrite_full(out, buf, (size_t)n, off))
		off += (uint64_t)n;
	int err = errno;
	bool ok = out >= 0 && n == 0 && !fsync(out);
	free(buf);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ok = false;
	if (!ok && out >= 0)
		unlink(dst);
	errno = ok ? 0 : err;
	return ok ? 0 : AS_EIO;
}

/* install --force through a mounted ESP: the journal holds raw sectors only, so each foreign
 * file it replaces is first copied to BACKUP.NAME (never over an existing file) and synced.
 * Returns 0 or an exit code. */
static int save_foreign_files(struct txn *t, const char *backup)
{
	for (unsigned i = 0; i < t->nsaved; i++) {
		char src[8400], dst[4400];
		const char *base = strrchr(t->saved[i], '/');
		snprintf(src, sizeof src, "%s%s", t->esp.mount_dir, t->saved[i]);
		snprintf(dst, sizeof dst, "%.4000s.%s", backup, base ? base + 1 : t->saved[i]);
		if (t->dry_run) {
			printf("would first copy %s to %s\n", src, dst);
			continue;
		}
		if (copy_host_file(src, dst)) {
			t_error("install.save_foreign", "cannot copy %s to %s before replacing it: %s; "
				"nothing was written", src, dst, strerror(errno));
			return EXIT_ERRORS;
		}
		printf("saved %s to %s\n", src, dst);
	}
	return 0;
}

int txn_commit(struct txn *t)
{
	struct hostdev *h = t->h;
	struct plan all, esp;
	char path[4200];
	int rc = 0, *claims = xcalloc(t->use.n + 1, sizeof *claims);
	bool held = false;

	plan_init(&all, h->topo.lss);
	plan_init(&esp, h->topo.lss);
	/* the list goes first through a mounted ESP (the sectors' order does it on a raw one: the
	 * root directory precedes every subdirectory's cluster) */
	if (t->own_loaded && (rc = owned_store(&t->own, &t->esp)))
		goto out;
	/* through a mounted ESP the files that switch first are renamed first, after the list */
	for (unsigned i = t->nfirst; t->esp.mounted && i-- > 0;)
		espdir_hoist(&t->esp, t->first[i]);
	if (t->esp.mounted)
		espdir_hoist(&t->esp, "/" OWNED_FILE_NAME);
	if (t->esp.open) {
		char what[120];
		snprintf(what, sizeof what, "files on partition %u", t->esp.number);
		/* a change in two steps: the disk to the middle state, then that to the end */
		char first[160];
		snprintf(first, sizeof first, "%s (the re-signed loaders first)", what);
		if (t->mid.open && ((rc = esp_diff(&t->mid, &esp, first)) ||
				    (rc = esp_diff_from(&t->esp, &t->mid, &esp, what))))
			goto out;
		if (t->mid.open)
			plan_split_overlaps(&esp);
		if (!t->mid.open && (rc = esp_diff(&t->esp, &esp, what)))
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
	if ((rc = claim_partitions(t, &all, claims)) ||
	    (t->journal && (rc = save_foreign_files(t, path))))
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
		if (t->print_more)
			t->print_more(t);
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
	if ((rc = plan_execute(h, &all)) || (t->after_writes && (rc = t->after_writes(t))))
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

void txn_esp_reset(struct txn *t)
{
	if (t->menu) {
		boot_menu_free(t->menu);
		free(t->menu);
		t->menu = NULL;
	}
	owned_free(&t->own);
	memset(&t->own, 0, sizeof t->own);
	t->own_loaded = false;
	esp_close(&t->esp);
	memset(&t->esp, 0, sizeof t->esp);
	t->nreplaced = 0;
	t->nadded = 0;
	t->nsummary = 0;
	t->allow_empty_menu = false;
}

void txn_end(struct txn *t)
{
	if (t->signed_loader[0])
		temp_remove(t->signed_loader);
	t->signed_loader[0] = 0;
	for (unsigned i = 0; i < t->nfirst; i++)
		if (t->first_src[i][0])
			temp_remove(t->first_src[i]);
	t->nfirst = 0;
	esp_close(&t->mid);
	usage_free(&t->use);
	txn_esp_reset(t);
	plan_free(&t->pre);
	plan_free(&t->post);
	disk_info_free(&t->di);
}
