/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/plan/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/crc32.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"

int journal_default_path(const struct hostdev *h, char *out, size_t cap)
{
	char base[4096 + 64];

	if (h->is_block) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", h->path);
		snprintf(base, sizeof base, "anysector-backup-%.4000s", basename(tmp));
	} else {
		snprintf(base, sizeof base, "%.4000s.anysector-backup", h->path);
	}
	for (unsigned i = 0; i < 1000; i++) {
		if (i)
			snprintf(out, cap, "%s.%u", base, i);
		else
			snprintf(out, cap, "%s", base);
		if (access(out, F_OK) && errno == ENOENT)
			return 0;
	}
	t_error("journal.path", "no free backup file name next to %s", base);
	return EXIT_ERRORS;
}

int journal_pick_path(const struct hostdev *h, const char *given, char *out, size_t cap)
{
	int rc;

	if (given)
		snprintf(out, cap, "%s", given);
	else if ((rc = journal_default_path(h, out, cap)))
		return rc;
	if (access(out, F_OK))
		return 0;
	t_error("refuse.backup_exists",
		"the backup file %s exists already; choose another --backup (an earlier backup is "
		"never overwritten)",
		out);
	return EXIT_REFUSED;
}

/* Writes all of buf at *off, moves *off past it and adds it to the running CRC. Returns 0 or
 * AS_EIO (errno says why). */
static int write_all(int fd, const void *buf, size_t len, uint64_t *off, uint32_t *crc)
{
	*crc = crc32_update(*crc, buf, len);
	int rc = pwrite_full(fd, buf, len, *off);
	*off += len;
	return rc;
}

/* Makes the directory entry of a new file durable. Returns 0 or AS_EIO (errno says why). */
static int sync_dir_of(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", path);
	int fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return AS_EIO;
	int rc = fsync(fd) ? AS_EIO : 0;
	close(fd);
	return rc;
}

int journal_write(const char *path, struct hostdev *h, const struct plan *p)
{
	uint8_t hdr[JOURNAL_HDR_SIZE] = { 0 }, rec[JOURNAL_REC_SIZE], tr[JOURNAL_TRAILER_SIZE];
	uint32_t lss = h->topo.lss, crc = 0;
	uint64_t off = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		t_error("journal.create", "cannot create the backup file %s: %s", path,
			strerror(errno));
		return errno == EEXIST ? EXIT_REFUSED : EXIT_ERRORS;
	}
	memcpy(hdr, JOURNAL_MAGIC, 8);
	le32_store(hdr + 8, JOURNAL_VERSION);
	le32_store(hdr + 12, lss);
	le64_store(hdr + 16, h->dev.sectors * lss);
	le32_store(hdr + 24, p->n);
	le64_store(hdr + 32, (uint64_t)time(NULL));
	le32_store(hdr + 60, crc32(hdr, 60));
	bool ok = !write_all(fd, hdr, sizeof hdr, &off, &crc);
	for (unsigned i = 0; ok && i < p->n; i++) {
		const struct write_op *o = &p->ops[i];
		size_t len = (size_t)(o->count * lss);
		uint8_t *old = xmalloc(len);
		int rc = bdev_read(&h->dev, o->lba, o->count, old);
		if (rc) {
			t_error("journal.read", "%s: LBA %llu..%llu could not be read for the backup: %s",
				h->path, (unsigned long long)o->lba,
				(unsigned long long)(o->lba + o->count - 1), as_strerror(rc));
			free(old);
			close(fd);
			unlink(path);
			return EXIT_ERRORS;
		}
		memset(rec, 0, sizeof rec);
		le64_store(rec, o->lba);
		le64_store(rec + 8, o->count);
		le32_store(rec + 16, crc32(old, len));
		le32_store(rec + 20, crc32(o->data, len));
		le32_store(rec + 28, crc32(rec, 28));
		ok = !write_all(fd, rec, sizeof rec, &off, &crc) &&
		     !write_all(fd, old, len, &off, &crc);
		free(old);
	}
	memcpy(tr, JOURNAL_END_MAGIC, 8);
	le32_store(tr + 8, p->n);
	le32_store(tr + 12, crc);
	ok = ok && !write_all(fd, tr, sizeof tr, &off, &crc) && !fsync(fd);
	if (close(fd))
		ok = false;
	if (!ok || sync_dir_of(path)) {
		t_error("journal.write", "writing the backup file %s failed: %s", path, strerror(errno));
		unlink(path);
		return EXIT_ERRORS;
	}
	return 0;
}

struct jrec {
	uint64_t lba, count;
	uint32_t old_crc, new_crc;
	const uint8_t *old;
};

struct journal {
	uint8_t *buf;
	size_t len;
	uint32_t lss;
	uint64_t size;
	uint32_t n;
	struct jrec *recs;
};

static int bad(const char *path, const char *why)
{
	t_error("journal.corrupt", "%s is not a usable anysector backup: %s", path, why);
	return EXIT_ERRORS;
}

static int journal_load(const char *path, struct journal *j)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(j, 0, sizeof *j);
	if (fd < 0 || fstat(fd, &st)) {
		t_error("journal.open", "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_ERRORS;
	}
	if (st.st_size < JOURNAL_HDR_SIZE + JOURNAL_TRAILER_SIZE) {
		close(fd);
		return bad(path, "too short");
	}
	j->len = (size_t)st.st_size;
	j->buf = xmalloc(j->len);
	int rc = pread_full(fd, j->buf, j->len, 0);
	close(fd);
	if (rc)
		return bad(path, "read failed");
	const uint8_t *h = j->buf;
	if (memcmp(h, JOURNAL_MAGIC, 8))
		return bad(path, "no \"" JOURNAL_MAGIC "\" magic");
	if (le32_load(h + 60) != crc32(h, 60))
		return bad(path, "header CRC mismatch");
	if (le32_load(h + 8) != JOURNAL_VERSION)
		return bad(path, "unknown version");
	j->lss = le32_load(h + 12);
	j->size = le64_load(h + 16);
	j->n = le32_load(h + 24);
	if (!is_pow2(j->lss) || j->lss < 512 || j->lss > 65536)
		return bad(path, "bad sector size");
	const uint8_t *tr = j->buf + j->len - JOURNAL_TRAILER_SIZE;
	if (memcmp(tr, JOURNAL_END_MAGIC, 8) || le32_load(tr + 8) != j->n)
		return bad(path, "truncated (no trailer)");
	if (le32_load(tr + 12) != crc32(j->buf, j->len - JOURNAL_TRAILER_SIZE))
		return bad(path, "file CRC mismatch");
	j->recs = xcalloc(j->n ? j->n : 1, sizeof *j->recs);
	size_t pos = JOURNAL_HDR_SIZE, end = j->len - JOURNAL_TRAILER_SIZE;
	for (uint32_t i = 0; i < j->n; i++) {
		if (end - pos < JOURNAL_REC_SIZE)
			return bad(path, "record past the end");
		const uint8_t *r = j->buf + pos;
		if (le32_load(r + 28) != crc32(r, 28))
			return bad(path, "record header CRC mismatch");
		struct jrec *x = &j->recs[i];
		x->lba = le64_load(r);
		x->count = le64_load(r + 8);
		x->old_crc = le32_load(r + 16);
		x->new_crc = le32_load(r + 20);
		pos += JOURNAL_REC_SIZE;
		if (!x->count || x->count > (end - pos) / j->lss || x->lba > j->size / j->lss ||
		    x->count > j->size / j->lss - x->lba)
			return bad(path, "record range outside the file or the disk");
		x->old = j->buf + pos;
		if (crc32(x->old, (size_t)(x->count * j->lss)) != x->old_crc)
			return bad(path, "saved data CRC mismatch");
		pos += (size_t)(x->count * j->lss);
	}
	if (pos != end)
		return bad(path, "stray bytes after the last record");
	return 0;
}

static void journal_free(struct journal *j)
{
	free(j->buf);
	free(j->recs);
}

int journal_restore(struct hostdev *h, const char *path, bool force, bool dry_run)
{
	struct journal j;
	int rc = journal_load(path, &j);

	if (rc)
		goto out;
	if (h->is_block) {
		if (h->topo.lss != j.lss) {
			t_error("refuse.journal_geometry",
				"%s was made for %u-byte sectors; %s has %u-byte sectors", path,
				(unsigned)j.lss, h->path, (unsigned)h->topo.lss);
			rc = EXIT_REFUSED;
			goto out;
		}
	} else {
		hostdev_set_sector_size(h, j.lss, TOPO_GIVEN, "the backup file");
	}
	if (h->dev.sectors * j.lss != j.size) {
		t_error("refuse.journal_geometry",
			"%s was made for a disk of %llu bytes; %s has %llu bytes", path,
			(unsigned long long)j.size, h->path,
			(unsigned long long)(h->dev.sectors * j.lss));
		rc = EXIT_REFUSED;
		goto out;
	}
	/* Every range must still hold what the operation wrote (or already the original). */
	unsigned changed = 0, done = 0;
	for (uint32_t i = 0; i < j.n; i++) {
		const struct jrec *x = &j.recs[i];
		size_t len = (size_t)(x->count * j.lss);
		uint8_t *cur = xmalloc(len);
		int err = bdev_read(&h->dev, x->lba, x->count, cur);
		uint32_t c = err ? 0 : crc32(cur, len);
		free(cur);
		if (err) {
			t_error("io.read", "%s: LBA %llu could not be read: %s", h->path,
				(unsigned long long)x->lba, as_strerror(err));
			rc = EXIT_ERRORS;
			goto out;
		}
		/* A range written more than once (a FAT sector: new chains, links, frees; see
		 * tools/esp/espfs.c) may hold what any of its records wrote. */
		bool written = c == x->new_crc;
		for (uint32_t k = 0; k < j.n && !written; k++)
			written = j.recs[k].lba == x->lba && j.recs[k].count == x->count &&
				  c == j.recs[k].new_crc;
		if (c == x->old_crc) {
			done++;
		} else if (!written) {
			changed++;
			report_printf(g_report, force ? DIAG_WARN : DIAG_ERROR, "refuse.journal_changed",
				      "LBA %llu..%llu changed since the backup was made",
				      (unsigned long long)x->lba,
				      (unsigned long long)(x->lba + x->count - 1));
		}
	}
	if (changed && !force) {
		t_error("refuse.journal_changed",
			"%u of %u ranges no longer hold what the install wrote; restoring would "
			"overwrite newer data (use --force to restore anyway)",
			changed, (unsigned)j.n);
		rc = EXIT_REFUSED;
		goto out;
	}
	if (done == j.n && j.n) {
		t_info("restore.nothing", "%s already holds the saved bytes; nothing to restore", h->path);
		rc = 0;
		goto out;
	}
	/* Reverse order: LBA 0 (written last by install) goes back first. */
	struct plan p;
	plan_init(&p, j.lss);
	for (uint32_t i = j.n; i-- > 0;)
		plan_add(&p, j.recs[i].lba, j.recs[i].count, j.recs[i].old, "saved bytes");
	if (dry_run) {
		plan_print(&p, stdout);
		printf("dry run: nothing was written\n");
	} else {
		rc = plan_execute(h, &p);
		if (!rc)
			printf("restored %llu sectors in %u ranges from %s\n",
			       (unsigned long long)plan_sectors(&p), p.n, path);
	}
	plan_free(&p);
out:
	journal_free(&j);
	return rc;
}
