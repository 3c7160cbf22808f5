/* SPDX-License-Identifier: BSD-2-Clause */
/* partition: a new aligned layout (tools/disk/layout.c) written as its tables, wiped gaps and a
 * formatted ESP, and the erasure of what --force replaces. */
#include "tools/ops/partition.h"

#include <errno.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/stage2_place.h"
#include "tools/boot/stages.h"
#include "tools/dev/hostdev_open.h"
#include "tools/disk/foreign.h"
#include "tools/disk/inspect.h"
#include "tools/esp/fatfmt.h"
#include "tools/plan/journal.h"

#define WIPE_CHUNK (1u << 20)

static void random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "anysector: getrandom failed: %s\n", strerror(errno));
			exit(EXIT_ERRORS);
		}
		p += n;
		len -= (size_t)n;
	}
}

static void random_guid(struct guid *g)
{
	random_bytes(g->b, sizeof g->b);
	g->b[7] = (uint8_t)((g->b[7] & 0x0F) | 0x40); /* version 4 (time_hi is little-endian) */
	g->b[8] = (uint8_t)((g->b[8] & 0x3F) | 0x80); /* RFC 4122 variant */
}

/* --force: the signatures found are erased first, as a plan of their own (tools/plan/plan.h): the
 * sectors holding them saved to the backup file, written, read back; then each is named as
 * wipefs names it. The new layout overwrites more than those sectors, so the backup brings back
 * the signatures (restore --force), not the old disk. */
int partition_erase_found(struct hostdev *h, const struct probe_result *found, const char *backup,
			  bool dry_run)
{
	struct plan p;
	char path[4200];
	int rc;

	plan_init(&p, h->topo.lss);
	if ((rc = foreign_erase_plan(h, found, &p, NULL, 0)))
		goto out;
	if ((rc = journal_pick_path(h, backup, path, sizeof path)))
		goto out;
	if (dry_run) {
		plan_print(&p, stdout);
		printf("would first save the original bytes of %llu sectors to %s\n",
		       (unsigned long long)plan_sectors(&p), path);
		goto out;
	}
	if ((rc = journal_write(path, h, &p)))
		goto out;
	printf("saved the original bytes of %llu sectors to %s (the erased signatures only: "
	       "'anysector restore --force %s %s' puts them back over the new layout)\n",
	       (unsigned long long)plan_sectors(&p), path, h->path, path);
	if ((rc = plan_execute(h, &p)))
		goto out;
	for (unsigned i = 0; i < found->n; i++) {
		char line[200];
		printf("%s\n", foreign_erased_text(&found->hit[i], line, sizeof line));
	}
out:
	plan_free(&p);
	return rc;
}

/* Zeroes [lba, lba + count) where it is not zero already (keeps sparse images sparse). */
static int zero_range(struct hostdev *h, uint64_t lba, uint64_t count)
{
	uint32_t lss = h->topo.lss;
	uint64_t per = WIPE_CHUNK / lss;
	uint8_t *buf = xmalloc(WIPE_CHUNK), *zero = xcalloc(1, WIPE_CHUNK);
	int rc = 0;

	while (count && !rc) {
		uint64_t n = count < per ? count : per;
		int err = bdev_read(&h->dev, lba, n, buf);
		if (!err && !all_zero(buf, (size_t)(n * lss)))
			err = bdev_write(&h->dev, lba, n, zero);
		if (err) {
			t_error("io.write", "%s: clearing LBA %llu..%llu failed: %s", h->path,
				(unsigned long long)lba, (unsigned long long)(lba + n - 1),
				as_strerror(err));
			rc = EXIT_ERRORS;
		}
		lba += n;
		count -= n;
	}
	free(buf);
	free(zero);
	return rc;
}

static void print_layout(const struct hostdev *h, const struct layout *l)
{
	const struct topology *t = &h->topo;
	char a[32];

	printf("%s: %s layout, %u-byte sectors (physical %u, alignment offset %u), grain %s\n",
	       h->path, l->dual ? "dual GPT (512 and 4096-byte sectors)"
			: l->label == LABEL_GPT ? "GPT" : "MBR", (unsigned)t->lss, (unsigned)t->pss,
	       (unsigned)t->aoff, human_size(l->grain, a, sizeof a));
	for (int k = 0; l->dual && k < DUAL_HALVES; k++) {
		const struct dual_half *d = &l->dual_geo.half[k];
		printf("  %u-byte GPT: usable LBA %llu..%llu, entry arrays at LBA %llu and %llu\n",
		       (unsigned)d->lss, (unsigned long long)d->place.first_usable,
		       (unsigned long long)d->place.last_usable,
		       (unsigned long long)d->place.primary_array,
		       (unsigned long long)d->place.backup_array);
	}
	if (l->label == LABEL_GPT && !l->dual)
		printf("  GPT usable LBA %llu..%llu\n", (unsigned long long)l->first_usable,
		       (unsigned long long)l->last_usable);
	for (unsigned i = 0; i < l->n; i++)
		printf("  %u  LBA %llu..%llu  %s  %s%s\n", i + 1, (unsigned long long)l->p[i].first,
		       (unsigned long long)l->p[i].last,
		       human_size((l->p[i].last - l->p[i].first + 1) * t->lss, a, sizeof a),
		       role_name(l->p[i].role),
		       l->label == LABEL_MBR && l->p[i].role == ROLE_ESP ? " (FAT, active)" : "");
}

/* Both GPTs of a dual layout, each through a view of the disk at its own sector size. */
static int write_dual(struct hostdev *h, const struct layout *l, const struct guid *disk,
		      const struct gpt_entry *e)
{
	struct blockdev views[DUAL_HALVES], *v[DUAL_HALVES];
	int rc = 0;

	for (int k = 0; k < DUAL_HALVES; k++) {
		v[k] = &views[k];
		if (h->topo.lss == l->dual_geo.half[k].lss)
			views[k] = h->dev;
		else if (hostdev_view(h, l->dual_geo.half[k].lss, &views[k]))
			rc = AS_ERANGE;
	}
	if (!rc)
		rc = dual_write_gpts(v, &l->dual_geo, disk, e, l->n, h->topo.lss, &g_report->diag);
	for (int k = 0; k < DUAL_HALVES; k++)
		if (views[k].scratch != h->dev.scratch)
			hostdev_view_free(&views[k]);
	return rc;
}

static int write_gpt(struct hostdev *h, const struct layout *l)
{
	struct gpt_entry e[3];
	struct guid disk;
	static const char *const names[] = { "BIOS boot", "EFI system", "Linux filesystem" };

	memset(e, 0, sizeof e);
	for (unsigned i = 0; i < l->n; i++) {
		const struct layout_part *p = &l->p[i];
		e[i].type = p->role == ROLE_BIOS_BOOT ? GUID_BIOS_BOOT
			    : p->role == ROLE_ESP	  ? GUID_ESP
							  : GUID_LINUX_FS;
		random_guid(&e[i].unique);
		e[i].first_lba = p->first;
		e[i].last_lba = p->last;
		gpt_name_set(&e[i], names[p->role]);
	}
	random_guid(&disk);
	int rc = l->dual ? write_dual(h, l, &disk, e) :
			   gpt_write(&h->dev, &disk, e, l->n, 0, 0, 0, &g_report->diag);
	if (rc) {
		t_error("io.write", "%s: writing the GPT failed: %s", h->path, as_strerror(rc));
		return EXIT_ERRORS;
	}
	return 0;
}

static int write_lba0(struct hostdev *h, const struct layout *l)
{
	uint32_t lss = h->topo.lss;
	uint8_t *sector = xcalloc(1, lss);
	struct mbr m;
	int rc = 0;

	if (l->dual) {
		dual_protective_mbr(&m);
	} else if (l->label == LABEL_GPT) {
		mbr_build_protective(h->dev.sectors, &m);
	} else {
		memset(&m, 0, sizeof m);
		do
			random_bytes(&m.disk_sig, sizeof m.disk_sig);
		while (!m.disk_sig);
		for (unsigned i = 0; i < l->n && !rc; i++) {
			const struct layout_part *p = &l->p[i];
			bool esp = p->role == ROLE_ESP;
			if (mbr_entry_set(&m.part[i], esp ? MBR_TYPE_ESP : MBR_TYPE_LINUX, esp, p->first,
					  p->last - p->first + 1))
				rc = EXIT_ERRORS;
		}
		m.boot_signature = true;
	}
	if (!rc) {
		/* A dual GPT's 512-byte primary header shares LBA 0's 4 KiB: write the record only. */
		int err = l->dual ? bdev_read(&h->dev, 0, 1, sector) : 0;
		mbr_encode(&m, sector);
		if (!err)
			err = bdev_write(&h->dev, 0, 1, sector);
		if (err) {
			t_error("io.write", "%s: writing LBA 0 failed: %s", h->path, as_strerror(err));
			rc = EXIT_ERRORS;
		}
	} else {
		t_error("partition.mbr_limit", "a partition does not fit the MBR's 32-bit fields");
	}
	free(sector);
	return rc;
}

/* --dos-compat leaves stage2 only the gap before LBA 63: say now, not at install, when the
 * stage2 install would use does not fit there (the slots install places, stage2_place.h): its
 * legacy-gap build (common/features.h), else stage2.bin, from the directory stages_opt names
 * (NULL: the default). */
static void dos_compat_stage2_fit(const struct hostdev *h, const struct layout *l,
				  const char *stages_opt)
{
	char dir[4096], path[4096 + 16];
	struct topology pt = h->topo;
	struct stage2_place pl;
	struct stat st;

	snprintf(path, sizeof path, "%s/stage2-gap.bin", stages_dir(stages_opt, dir, sizeof dir));
	if (stat(path, &st))
		snprintf(path, sizeof path, "%s/stage2.bin", dir);
	if (stat(path, &st) || st.st_size <= 0 || st.st_size > UINT32_MAX) {
		t_info("partition.dos_compat_stage2", "--dos-compat: no stage2 at %s to measure; "
		       "install needs it to fit the %llu bytes before partition 1", path,
		       (unsigned long long)((l->p[0].first - 1) * h->topo.lss));
		return;
	}
	pt.io_min = pt.io_opt = 0;
	if (stage2_slots(&h->topo, align_grain(&pt, false), 1, l->p[0].first,
			 (uint32_t)st.st_size, &pl))
		t_warn("partition.dos_compat_stage2", "--dos-compat: stage2 (%lld bytes, %s) does not "
		       "fit the %llu bytes between the MBR and partition 1 at LBA %llu, so 'anysector "
		       "install' will refuse this disk; without --dos-compat partition 1 starts at "
		       "1 MiB and stage2 fits", (long long)st.st_size, path,
		       (unsigned long long)(pl.slot[0] < l->p[0].first ?
					    (l->p[0].first - pl.slot[0]) * h->topo.lss : 0),
		       (unsigned long long)l->p[0].first);
}

int partition_disk(struct hostdev *h, const struct layout_opts *lo, bool dry_run)
{
	struct layout l;
	int rc = layout_plan(&h->topo, lo, &l, g_report);

	if (rc)
		return rc;
	print_layout(h, &l);
	if (lo->dos_compat)
		dos_compat_stage2_fit(h, &l, lo->stages);
	if (dry_run) {
		printf("dry run: nothing was written\n");
		return 0;
	}
	/* Old boot code, stale tables and signatures must not survive into the new layout: clear
	 * everything before the first partition, the BIOS boot partition, and the last 1 MiB of
	 * the disk (an old backup GPT lies there, maybe inside a new partition, whose contents are
	 * undefined anyway; the ESP is formatted afterwards). */
	uint64_t n = h->dev.sectors;
	uint64_t tail = (1u << 20) / h->topo.lss;
	uint64_t tail_first = n > tail ? n - tail : 1;
	if ((rc = zero_range(h, 0, l.p[0].first)) || (rc = zero_range(h, tail_first, n - tail_first)))
		return rc;
	for (unsigned i = 0; i < l.n; i++)
		if (l.p[i].role == ROLE_BIOS_BOOT &&
		    (rc = zero_range(h, l.p[i].first, l.p[i].last - l.p[i].first + 1)))
			return rc;
	if (l.label == LABEL_GPT && (rc = write_gpt(h, &l)))
		return rc;
	if ((rc = write_lba0(h, &l)) || (rc = hostdev_sync(h)))
		return rc;
	const struct layout_part *esp = &l.p[l.esp];
	if ((rc = fatfmt_format(h, esp->first, esp->last - esp->first + 1, "ESP",
			     l.dual ? DUAL_BLOCK : 0)))
		return rc;
	if (h->is_block && ioctl(h->fd, BLKRRPART, 0))
		t_info("partition.reread",
		       "the kernel did not re-read the partition table (%s); run partx -u %s",
		       strerror(errno), h->path);

	/* Read back what was written, through the same checks `check` uses. */
	struct disk_info di;
	struct report q;
	report_init(&q, false);
	if (disk_inspect(h, &di, true, &q) || q.diag.errors || di.nparts != l.n) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		t_error("partition.verify", "the new layout does not read back correctly: %s",
			it ? it->msg : "partition count differs");
		rc = EXIT_ERRORS;
	}
	disk_info_free(&di);
	report_free(&q);
	return rc;
}
