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
#include "tools/base/crc32_fast.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/plan/disk_identity.h"

/* The first name of the default series: next to an image, in the current directory for a
 * device. */
static void default_base(const struct hostdev *h, char *base, size_t cap)
{
	if (h->is_block) {
		char tmp[4096];
		snprintf(tmp, sizeof tmp, "%s", h->path);
		snprintf(base, cap, "anysector-backup-%.4000s", basename(tmp));
	} else {
		snprintf(base, cap, "%.4000s.anysector-backup", h->path);
	}
}

int journal_default_path(const struct hostdev *h, char *out, size_t cap)
{
	char base[4096 + 64];

	default_base(h, base, sizeof base);
	for (unsigned i = 0; i < 1000; i++) {
		if (i)
			snprintf(out, cap, "%s.%u", base, i);
		else
			snprintf(out, cap, "%s", base);
		if (!access(out, F_OK))
			continue;
		if (errno == ENOENT)
			return 0;
		/* a name too long, a directory that cannot be searched: no other number helps */
		t_error("journal.path", "the backup file cannot be %s: %s; name one with --backup FILE",
			out, strerror(errno));
		return EXIT_ERRORS;
	}
	t_error("journal.path", "no free backup file name next to %s (%s to %s.999 exist); name "
		"one with --backup FILE", base, base, base);
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
	*crc = crc32_fast_update(*crc, buf, len);
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

/* The ranges of a plan's writes, malloc'd. */
static struct sector_span *plan_spans(const struct plan *p)
{
	struct sector_span *s = xcalloc(p->n ? p->n : 1, sizeof *s);
	for (unsigned i = 0; i < p->n; i++)
		s[i] = (struct sector_span){ p->ops[i].lba, p->ops[i].count };
	return s;
}

/* The pieces old bytes are read and saved in: a record may hold a whole initrd. */
#define SAVE_CHUNK (1u << 20)

/* Saves op i's old bytes as one record at *off (header, then the bytes) and adds both to the
 * running CRC. The bytes are read once, a piece at a time, and written behind the header's
 * place; the header (which holds their CRC) goes in after them, the running CRC taking it
 * first by crc32_fast_combine. The file is new (O_EXCL) and the trailer ends it, so a piece
 * not written reads as zeros. Returns 0, EXIT_ERRORS for a read (said) or AS_EIO for a write
 * (errno says why). */
static int save_record(int fd, struct hostdev *h, const struct plan *p,
		       const struct sector_span *spans, unsigned i, uint64_t *off, uint32_t *crc)
{
	const struct write_op *o = &p->ops[i];
	uint32_t lss = h->topo.lss, per = SAVE_CHUNK / lss ? SAVE_CHUNK / lss : 1;
	uint8_t rec[JOURNAL_REC_SIZE], *buf = xmalloc((size_t)per * lss);
	uint64_t at = *off + JOURNAL_REC_SIZE;
	uint32_t old_crc = 0, new_crc = 0, beside;
	bool has;
	int rc = span_neighbours_crc(h, spans, p->n, i, &beside, &has), wr = 0;

	for (uint64_t k = 0; !rc && !wr && k < o->count; k += per) {
		uint64_t n = o->count - k < per ? o->count - k : per;
		size_t len = (size_t)(n * lss);
		const uint8_t *new = plan_op_piece(o, lss, k, n, buf);
		if (!new) {
			t_error("journal.read", "LBA %llu..%llu: the bytes to write there could not be "
				"read: %s", (unsigned long long)o->lba,
				(unsigned long long)(o->lba + o->count - 1), strerror(errno));
			free(buf);
			return EXIT_ERRORS;
		}
		new_crc = crc32_fast_update(new_crc, new, len);
		if (!(rc = bdev_read(&h->dev, o->lba + k, n, buf))) {
			/* zeros (free clusters of a new ESP) stay a hole of the new file: they read
			 * back as zeros all the same, and cost no write nor sync */
			bool zero = all_zero(buf, len);
			old_crc = zero ? crc32_fast_zeros(old_crc, len)
				       : crc32_fast_update(old_crc, buf, len);
			wr = zero ? 0 : pwrite_full(fd, buf, len, at);
			at += len;
		}
	}
	free(buf);
	if (rc) {
		t_error("journal.read", "%s: LBA %llu..%llu could not be read for the backup: %s",
			h->path, (unsigned long long)o->lba,
			(unsigned long long)(o->lba + o->count - 1), as_strerror(rc));
		return EXIT_ERRORS;
	}
	if (wr)
		return AS_EIO;
	memset(rec, 0, sizeof rec);
	le64_store(rec, o->lba);
	le64_store(rec + 8, o->count);
	le32_store(rec + 16, old_crc);
	le32_store(rec + 20, new_crc);
	le32_store(rec + 24, beside);
	le32_store(rec + 28, crc32_fast(rec, 28));
	if (write_all(fd, rec, sizeof rec, off, crc))
		return AS_EIO;
	*crc = crc32_fast_combine(*crc, old_crc, o->count * lss);
	*off = at;
	return 0;
}

int journal_write(const char *path, struct hostdev *h, const struct plan *p)
{
	uint8_t hdr[JOURNAL_HDR_SIZE] = { 0 }, tr[JOURNAL_TRAILER_SIZE];
	uint32_t lss = h->topo.lss, crc = 0;
	uint64_t off = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		t_error("journal.create", "cannot create the backup file %s: %s", path,
			strerror(errno));
		return errno == EEXIST ? EXIT_REFUSED : EXIT_ERRORS;
	}
	struct disk_identity id;
	disk_identity_read(h, &id);
	memcpy(hdr, JOURNAL_MAGIC, 8);
	le32_store(hdr + 8, JOURNAL_VERSION);
	le32_store(hdr + 12, lss);
	le64_store(hdr + 16, h->dev.sectors * lss);
	le32_store(hdr + 24, p->n);
	le64_store(hdr + 32, (uint64_t)time(NULL));
	le32_store(hdr + 40, id.kind);
	memcpy(hdr + 44, id.id, sizeof id.id);
	le32_store(hdr + 60, crc32_fast(hdr, 60));
	struct sector_span *spans = plan_spans(p);
	int rc = write_all(fd, hdr, sizeof hdr, &off, &crc);
	for (unsigned i = 0; !rc && i < p->n; i++)
		rc = save_record(fd, h, p, spans, i, &off, &crc);
	free(spans);
	if (rc == EXIT_ERRORS) {
		close(fd);
		unlink(path);
		return EXIT_ERRORS;
	}
	memcpy(tr, JOURNAL_END_MAGIC, 8);
	le32_store(tr + 8, p->n);
	le32_store(tr + 12, crc);
	bool ok = !rc && !write_all(fd, tr, sizeof tr, &off, &crc) && !fsync(fd);
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
	uint32_t beside_crc;        /* version 2: CRC32 of the sectors beside the range */
	const uint8_t *old;
};

struct journal {
	uint8_t *buf;
	size_t len;
	uint32_t version;
	uint32_t lss;
	uint64_t size;
	uint64_t time;
	struct disk_identity id;    /* version 2; DISK_ID_NONE in version 1 */
	uint32_t n;
	struct jrec *recs;
};

/* Refuses a journal that cannot be used (said unless quiet). Returns EXIT_ERRORS. */
static int bad(const char *path, const char *why, bool quiet)
{
	if (!quiet)
		t_error("journal.corrupt", "%s is not a usable anysector backup: %s", path, why);
	return EXIT_ERRORS;
}

/* The header's fields into j. Returns 0 or EXIT_ERRORS (said unless quiet). */
static int load_header(const char *path, struct journal *j, bool quiet)
{
	const uint8_t *h = j->buf;
	if (memcmp(h, JOURNAL_MAGIC, 8))
		return bad(path, "no \"" JOURNAL_MAGIC "\" magic", quiet);
	if (le32_load(h + 60) != crc32_fast(h, 60))
		return bad(path, "header CRC mismatch", quiet);
	j->version = le32_load(h + 8);
	if (j->version != 1 && j->version != JOURNAL_VERSION)
		return bad(path, "unknown version", quiet);
	j->lss = le32_load(h + 12);
	j->size = le64_load(h + 16);
	j->n = le32_load(h + 24);
	j->time = le64_load(h + 32);
	if (j->version >= 2) {
		j->id.kind = (enum disk_id_kind)le32_load(h + 40);
		memcpy(j->id.id, h + 44, sizeof j->id.id);
	}
	if (!is_pow2(j->lss) || j->lss < 512 || j->lss > 65536)
		return bad(path, "bad sector size", quiet);
	if (j->id.kind > DISK_ID_MBR)
		return bad(path, "unknown kind of disk identity", quiet);
	const uint8_t *tr = j->buf + j->len - JOURNAL_TRAILER_SIZE;
	if (memcmp(tr, JOURNAL_END_MAGIC, 8) || le32_load(tr + 8) != j->n)
		return bad(path, "truncated (no trailer)", quiet);
	if (le32_load(tr + 12) != crc32_fast(j->buf, j->len - JOURNAL_TRAILER_SIZE))
		return bad(path, "file CRC mismatch", quiet);
	return 0;
}

/* Reads and checks the whole journal at path into j (free with journal_free, also after a
 * failure). Returns 0 or EXIT_ERRORS (said unless quiet). */
static int journal_load(const char *path, struct journal *j, bool quiet)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	memset(j, 0, sizeof *j);
	if (fd < 0 || fstat(fd, &st)) {
		if (!quiet)
			t_error("journal.open", "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_ERRORS;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < JOURNAL_HDR_SIZE + JOURNAL_TRAILER_SIZE) {
		close(fd);
		return bad(path, S_ISREG(st.st_mode) ? "too short" : "not a regular file", quiet);
	}
	j->len = (size_t)st.st_size;
	j->buf = xmalloc(j->len);
	rc = pread_full(fd, j->buf, j->len, 0);
	close(fd);
	if (rc)
		return bad(path, "read failed", quiet);
	if ((rc = load_header(path, j, quiet)))
		return rc;
	j->recs = xcalloc(j->n ? j->n : 1, sizeof *j->recs);
	size_t pos = JOURNAL_HDR_SIZE, end = j->len - JOURNAL_TRAILER_SIZE;
	for (uint32_t i = 0; i < j->n; i++) {
		if (end - pos < JOURNAL_REC_SIZE)
			return bad(path, "record past the end", quiet);
		const uint8_t *r = j->buf + pos;
		if (le32_load(r + 28) != crc32_fast(r, 28))
			return bad(path, "record header CRC mismatch", quiet);
		struct jrec *x = &j->recs[i];
		x->lba = le64_load(r);
		x->count = le64_load(r + 8);
		x->old_crc = le32_load(r + 16);
		x->new_crc = le32_load(r + 20);
		x->beside_crc = le32_load(r + 24);
		pos += JOURNAL_REC_SIZE;
		if (!x->count || x->count > (end - pos) / j->lss || x->lba > j->size / j->lss ||
		    x->count > j->size / j->lss - x->lba)
			return bad(path, "record range outside the file or the disk", quiet);
		x->old = j->buf + pos;
		if (crc32_fast(x->old, (size_t)(x->count * j->lss)) != x->old_crc)
			return bad(path, "saved data CRC mismatch", quiet);
		pos += (size_t)(x->count * j->lss);
	}
	if (pos != end)
		return bad(path, "stray bytes after the last record", quiet);
	return 0;
}

static void journal_free(struct journal *j)
{
	free(j->buf);
	free(j->recs);
}

static struct sector_span *journal_spans(const struct journal *j)
{
	struct sector_span *s = xcalloc(j->n ? j->n : 1, sizeof *s);
	for (uint32_t i = 0; i < j->n; i++)
		s[i] = (struct sector_span){ j->recs[i].lba, j->recs[i].count };
	return s;
}

/* The journal fits h: its sector size (set from it for an image) and its size. Returns 0 or an
 * exit code. */
static int same_geometry(struct hostdev *h, const struct journal *j, const char *path)
{
	if (h->is_block && h->topo.lss != j->lss) {
		t_error("refuse.journal_geometry",
			"%s was made for %u-byte sectors; %s has %u-byte sectors", path,
			(unsigned)j->lss, h->path, (unsigned)h->topo.lss);
		return EXIT_REFUSED;
	}
	if (!h->is_block)
		hostdev_set_sector_size(h, j->lss, TOPO_GIVEN, "the backup file");
	if (h->dev.sectors * j->lss != j->size) {
		t_error("refuse.journal_geometry",
			"%s was made for a disk of %llu bytes; %s has %llu bytes", path,
			(unsigned long long)j->size, h->path,
			(unsigned long long)(h->dev.sectors * j->lss));
		return EXIT_REFUSED;
	}
	return 0;
}

/* Whether lba lies in a range the journal saved (its content is then checked as a range). */
static bool saved(const struct journal *j, uint64_t lba)
{
	for (uint32_t i = 0; i < j->n; i++)
		if (lba >= j->recs[i].lba && lba - j->recs[i].lba < j->recs[i].count)
			return true;
	return false;
}

/* The disk is the one the journal was made from (version 2): the same disk GUID or MBR disk
 * signature (unless the sector holding it is a saved range), and not every saved range's
 * neighbours changed. Said as errors, or with force as warnings. Returns 0 or an exit code. */
static int same_disk(struct hostdev *h, const struct journal *j, const char *path, bool force)
{
	enum diag_level lv = force ? DIAG_WARN : DIAG_ERROR;
	const char *tail = force ? "; --force: restoring anyway" : " (use --force to restore anyway)";
	struct disk_identity now;
	char a[80], b[80];

	if (j->version < 2)
		return 0;
	disk_identity_read(h, &now);
	/* the GPT's primary header or LBA 0: when the operation replaced it, its range says */
	if (j->id.kind != DISK_ID_NONE && !saved(j, j->id.kind == DISK_ID_GPT ? 1 : 0) &&
	    (now.kind != j->id.kind || memcmp(now.id, j->id.id, sizeof now.id))) {
		report_printf(g_report, lv, "refuse.journal_disk", "%s is not the disk %s was made "
			      "from: it has %s, the backup's had %s%s", h->path, path,
			      disk_identity_text(&now, a, sizeof a),
			      disk_identity_text(&j->id, b, sizeof b), tail);
		if (!force)
			return EXIT_REFUSED;
	}
	struct sector_span *spans = journal_spans(j);
	unsigned with = 0, differ = 0;
	for (uint32_t i = 0; i < j->n; i++) {
		uint32_t crc;
		bool has;
		int err = span_neighbours_crc(h, spans, j->n, i, &crc, &has);
		if (!err && has) {
			with++;
			differ += crc != j->recs[i].beside_crc;
		}
	}
	free(spans);
	if (!with || differ < with)
		return 0;
	report_printf(g_report, lv, "refuse.journal_disk", "%s is not the disk %s was made from, "
		      "or it changed all around the saved sectors: none of the %u sectors beside "
		      "them holds what it held then%s", h->path, path, with, tail);
	return force ? 0 : EXIT_REFUSED;
}

/* Which saved ranges hold neither what the operation wrote nor the original: changed[i], each
 * range said once; *ndone counts those back at the original already. Returns 0 or an exit
 * code. */
static int changed_ranges(struct hostdev *h, const struct journal *j, bool force, bool *changed,
			  unsigned *nchanged, unsigned *ndone)
{
	*nchanged = *ndone = 0;
	for (uint32_t i = 0; i < j->n; i++) {
		const struct jrec *x = &j->recs[i];
		size_t len = (size_t)(x->count * j->lss);
		uint8_t *cur = xmalloc(len);
		int err = bdev_read(&h->dev, x->lba, x->count, cur);
		uint32_t c = err ? 0 : crc32_fast(cur, len);
		free(cur);
		if (err) {
			t_error("io.read", "%s: LBA %llu could not be read: %s", h->path,
				(unsigned long long)x->lba, as_strerror(err));
			return EXIT_ERRORS;
		}
		/* A range written more than once (a FAT sector: new chains, links, frees; see
		 * tools/esp/espfs.c) may hold what any of its records wrote. */
		bool written = false, again = false;
		for (uint32_t k = 0; k < j->n; k++) {
			bool same = j->recs[k].lba == x->lba && j->recs[k].count == x->count;
			written |= same && c == j->recs[k].new_crc;
			again |= same && k < i;
		}
		changed[i] = c != x->old_crc && !written;
		*ndone += c == x->old_crc;
		*nchanged += changed[i];
		if (changed[i] && !again)
			report_printf(g_report, force ? DIAG_WARN : DIAG_ERROR, "refuse.journal_changed",
				      "LBA %llu..%llu changed since the backup was made",
				      (unsigned long long)x->lba,
				      (unsigned long long)(x->lba + x->count - 1));
	}
	return 0;
}

/* One backup that may be newer than the one being restored: its path, its series number (0
 * for the name itself, N for ".N") and its journal's time. */
struct other_backup {
	char path[4200];
	unsigned index;
	uint64_t time;
};

/* The series of backup names a path belongs to: path itself with a trailing ".N" taken off. */
static void series_base(const char *path, char *out, size_t cap)
{
	snprintf(out, cap, "%s", path);
	char *dot = strrchr(out, '.');
	if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
		*dot = 0;
}

/* Whether sector range k of journal c holds what c's operation wrote. */
static bool holds_written(struct hostdev *h, const struct journal *c, uint32_t k)
{
	size_t len = (size_t)(c->recs[k].count * c->lss);
	uint8_t *cur = xmalloc(len);
	bool yes = !bdev_read(&h->dev, c->recs[k].lba, c->recs[k].count, cur) &&
		   crc32_fast(cur, len) == c->recs[k].new_crc;
	free(cur);
	return yes;
}

/* Whether the journal at cand is usable on h, newer than j (made later, or at the same second
 * later in its series), and its operation's bytes are still on the disk in a range that
 * overlaps one of j's changed ranges: it has not been restored, and it changed them. */
static bool newer_and_overlapping(struct hostdev *h, const char *cand, unsigned index,
				  const struct journal *j, unsigned own_index, const bool *changed,
				  uint64_t *time)
{
	struct journal c;
	bool yes = false;

	if (!journal_load(cand, &c, true) && c.lss == j->lss && c.size == j->size &&
	    (c.time > j->time || (c.time == j->time && index > own_index))) {
		for (uint32_t i = 0; i < j->n && !yes; i++)
			for (uint32_t k = 0; k < c.n && changed[i] && !yes; k++)
				yes = c.recs[k].lba < j->recs[i].lba + j->recs[i].count &&
				      j->recs[i].lba < c.recs[k].lba + c.recs[k].count &&
				      holds_written(h, &c, k);
		*time = c.time;
	}
	journal_free(&c);
	return yes;
}

/* The newest backup of path's series and of h's default series (journal_default_path) that
 * changed what j's changed ranges hold: the one to restore first. False when there is none. */
static bool find_newer(struct hostdev *h, const char *path, const struct journal *j,
		       const bool *changed, struct other_backup *best)
{
	char bases[2][4200];
	struct stat own, st;
	bool found = false;

	if (stat(path, &own))
		return false;
	series_base(path, bases[0], sizeof bases[0]);
	default_base(h, bases[1], sizeof bases[1]);
	unsigned own_index = strlen(path) > strlen(bases[0]) ?
			     (unsigned)atoi(path + strlen(bases[0]) + 1) : 0;
	for (unsigned b = 0; b < 2; b++) {
		for (unsigned i = 0; i < 1000; i++) {
			struct other_backup c = { .index = i };
			if (i)
				snprintf(c.path, sizeof c.path, "%.4100s.%u", bases[b], i);
			else
				snprintf(c.path, sizeof c.path, "%.4100s", bases[b]);
			if (stat(c.path, &st) || (st.st_dev == own.st_dev && st.st_ino == own.st_ino) ||
			    !newer_and_overlapping(h, c.path, i, j, own_index, changed, &c.time))
				continue;
			if (!found || c.time > best->time ||
			    (c.time == best->time && c.index > best->index))
				*best = c;
			found = true;
		}
	}
	return found;
}

/* Puts the saved bytes back, LBA 0 (written last by install) first, or prints them (dry run).
 * Returns 0 or an exit code. */
static int put_back(struct hostdev *h, const struct journal *j, const char *path, bool dry_run)
{
	struct plan p;
	int rc = 0;

	plan_init(&p, j->lss);
	for (uint32_t i = j->n; i-- > 0;)
		plan_add(&p, j->recs[i].lba, j->recs[i].count, j->recs[i].old, "saved bytes");
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
	return rc;
}

int journal_restore(struct hostdev *h, const char *path, bool force, bool dry_run)
{
	struct journal j;
	bool *changed = NULL;
	unsigned nchanged, ndone;
	int rc = journal_load(path, &j, false);

	if (rc || (rc = same_geometry(h, &j, path)) || (rc = same_disk(h, &j, path, force)))
		goto out;
	changed = xcalloc(j.n ? j.n : 1, sizeof *changed);
	if ((rc = changed_ranges(h, &j, force, changed, &nchanged, &ndone)))
		goto out;
	if (nchanged && !force) {
		t_error("refuse.journal_changed",
			"%u of %u ranges no longer hold what the install wrote; restoring would "
			"overwrite newer data (use --force to restore anyway)",
			nchanged, (unsigned)j.n);
		struct other_backup newer;
		if (find_newer(h, path, &j, changed, &newer))
			t_error("refuse.journal_newer",
				"%s is a newer backup of %s that saved those sectors: restore it first "
				"(anysector restore %s %s), then this one", newer.path, h->path, h->path,
				newer.path);
		rc = EXIT_REFUSED;
		goto out;
	}
	if (ndone == j.n && j.n) {
		t_info("restore.nothing", "%s already holds the saved bytes; nothing to restore", h->path);
		goto out;
	}
	rc = put_back(h, &j, path, dry_run);
out:
	free(changed);
	journal_free(&j);
	return rc;
}
