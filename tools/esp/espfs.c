/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/espfs.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/config.h"
#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/run.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"
#include "tools/dev/lock.h"
#include "tools/esp/esp_chains.h"
#include "tools/esp/esp_fence.h"
#include "tools/esp/esp_order.h"
#include "tools/esp/esp_read.h"
#include "tools/esp/esp_sparse.h"
#include "tools/esp/espdir_write.h"

#define CHUNK (1u << 20)

static int esp_check_chains(struct esp_session *s);

/* The copy's reads: what stays on the disk comes from there (tools/esp/esp_sparse.h). */
static int sparse_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct hostdev *img = (struct hostdev *)((char *)dev - offsetof(struct hostdev, dev));
	struct esp_session *s = (struct esp_session *)((char *)img - offsetof(struct esp_session, img));
	return esp_sparse_read(s->sparse, dev, lba, count, buf);
}

/* Plans the sparse copy (tools/esp/esp_sparse.h) when the layout allows it; otherwise
 * s->sparse stays NULL and the ESP is copied whole. */
static void sparse_try(struct esp_session *s)
{
	struct esp_sparse *sp = xcalloc(1, sizeof *sp);

	if (!bdev_slice(&s->h->dev, s->first_lba, s->sectors, &sp->part) &&
	    !esp_sparse_build(sp, &sp->part, s->h->topo.lss)) {
		s->sparse = sp;
		return;
	}
	free(sp);
}

/* The bytes a whole copy holds: the chunks of the partition's bytes on from_fd (from byte base)
 * that have data (on a block device, all). */
static uint64_t whole_need(const struct esp_session *s, int from_fd, uint64_t base)
{
	uint64_t total = s->sectors * s->h->topo.lss, n = 0;

	for (uint64_t off = 0; off < total; off += CHUNK) {
		uint64_t len = total - off < CHUNK ? total - off : CHUNK;
		if (fd_has_data(from_fd, base + off, len))
			n += len;
	}
	return n;
}

/* Temporary space is checked before anything is copied: the copy (metadata and directories, or
 * the whole partition), the new files (new_bytes) and some clusters for new directories, file
 * tails and the small files (anysector.cfg, the ownership list). Returns 0 or EXIT_ERRORS with
 * the sentence naming TMPDIR and the size. */
static int temp_room(const struct esp_session *s, int from_fd, uint64_t base, uint64_t new_bytes)
{
	uint64_t copy = s->sparse ? s->sparse->need : whole_need(s, from_fd, base);
	uint64_t slack = 32 * (s->sparse ? s->sparse->g.cluster : 65536);
	uint64_t need = copy + new_bytes + slack, room;
	struct statvfs v;
	char a[32], b[32], c[32], d[32];

	if (statvfs(temp_dir(), &v))
		return 0; /* temp_create made a file there: a failure now says nothing of room */
	room = (uint64_t)v.f_bavail * v.f_frsize;
	if (room >= need)
		return 0;
	t_error("esp.temp_space",
		"TMPDIR (%s) has %s free, but changing partition %u needs %s there (%s for %s and %s "
		"for the new files); nothing was written: set TMPDIR to a directory with more room",
		temp_dir(), human_size(room, a, sizeof a), s->number, human_size(need, b, sizeof b),
		human_size(copy, c, sizeof c),
		s->sparse ? "its FAT metadata and directories" : "a whole copy of it",
		human_size(need - copy, d, sizeof d));
	return EXIT_ERRORS;
}

/* Copies the partition's bytes on from (starting at byte base; from_fd for its holes) whole into
 * fd, leaving holes and zero chunks holes. Returns 0 or an exit code. */
static int copy_whole(struct esp_session *s, int fd, struct blockdev *from, int from_fd,
		      uint64_t base)
{
	uint64_t total = s->sectors * s->h->topo.lss;
	uint8_t *buf = xmalloc(CHUNK);
	int rc = 0;

	for (uint64_t off = 0; !rc && off < total; off += CHUNK) {
		size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
		if (!fd_has_data(from_fd, base + off, n))
			continue;
		int err = bdev_read_bytes(from, base + off, buf, n);
		if (err) {
			t_error("io.read", "%s: reading the ESP at byte %llu failed: %s", s->h->path,
				(unsigned long long)(base + off), as_strerror(err));
			rc = EXIT_ERRORS;
		} else if (!all_zero(buf, n) && pwrite_full(fd, buf, n, off)) {
			t_error("esp.temp", "%s: write failed: %s", s->path, strerror(errno));
			rc = EXIT_ERRORS;
		}
	}
	free(buf);
	return rc;
}

/* The session's copy made from the partition's bytes on from (starting at byte base; fd for
 * its holes), sparse when sparse_ok and the layout allows it, then mounted; TMPDIR must have
 * room for it and new_bytes (temp_room). Returns 0 or an exit code. */
static int copy_open(struct esp_session *s, struct blockdev *from, int from_fd, uint64_t base,
		     bool sparse_ok, uint64_t new_bytes)
{
	struct hostdev *h = s->h;
	uint32_t lss = h->topo.lss;
	unsigned number = s->number;
	int fd, rc = 0;

	if (temp_create("esp", s->path, sizeof s->path, &fd)) {
		t_error("esp.temp", "cannot create a temporary file in %s: %s", temp_dir(),
			strerror(errno));
		s->path[0] = 0;
		return EXIT_ERRORS;
	}
	s->open = true;
	if (ftruncate(fd, (off_t)(s->sectors * lss))) {
		t_error("esp.temp", "%s: %s", s->path, strerror(errno));
		rc = EXIT_ERRORS;
	}
	if (!rc && sparse_ok)
		sparse_try(s);
	if (!rc)
		rc = temp_room(s, from_fd, base, new_bytes);
	if (!rc && s->sparse) {
		int err = esp_sparse_copy(s->sparse, fd);
		if (err < 0)
			t_error("io.read", "%s: reading the FAT metadata and directories of partition %u "
				"failed: %s", h->path, number, as_strerror(err));
		else if (err)
			t_error("esp.temp", "%s: write failed: %s", s->path, strerror(err));
		rc = err ? EXIT_ERRORS : 0;
	} else if (!rc) {
		rc = copy_whole(s, fd, from, from_fd, base);
	}
	close(fd);
	if (rc)
		return rc;
	if ((rc = hostdev_open_own(&s->img, s->path, false)))
		return rc;
	hostdev_set_sector_size(&s->img, lss, TOPO_GIVEN, "the ESP copy");
	if (s->sparse) {
		s->sparse->read = s->img.dev.read;
		s->img.dev.read = sparse_read;
	}
	struct report q;
	report_init(&q, false);
	int err = fat_mount(&s->img.dev, s->fs = xcalloc(1, sizeof *s->fs), &q.diag);
	if (err) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		t_error("esp.fat",
			"partition %u (the boot partition) holds no valid FAT filesystem: %s; format it "
			"(anysector partition does)",
			number, it ? it->msg : as_strerror(err));
		report_free(&q);
		return EXIT_ERRORS;
	}
	report_free(&q);
	/* what is in use on the disk, for the fence around each mtools command (esp_fence.h): a
	 * sparse copy read it from the disk already, the same bytes the copy holds */
	s->fat0_len = s->fs->fat_bytes;
	if (s->sparse && s->sparse->g.fat_bytes == s->fat0_len) {
		s->fat0 = s->sparse->fat;
		s->fat0_borrowed = true;
		return esp_check_chains(s);
	}
	s->fat0 = xmalloc_huge((size_t)(s->fat0_len > (1ull << 30) ? 1 : s->fat0_len));
	if (s->fat0_len > (1ull << 30) || pread_full(s->img.fd, s->fat0, (size_t)s->fat0_len,
						     s->fs->fat_offset)) {
		t_error("esp.temp", "%s: reading the FAT of the copy failed", s->path);
		return EXIT_ERRORS;
	}
	return esp_check_chains(s);
}

int esp_open(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number, uint64_t new_bytes)
{
	esp_session_init(s, h, first_lba, sectors, number);
	return copy_open(s, &h->dev, h->fd, first_lba * h->topo.lss, true, new_bytes);
}

int esp_open_whole(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		   uint64_t sectors, unsigned number, uint64_t new_bytes)
{
	esp_session_init(s, h, first_lba, sectors, number);
	return copy_open(s, &h->dev, h->fd, first_lba * h->topo.lss, false, new_bytes);
}

/* The fork's fence (esp_fence.h) is what its copy holds at the start: s's state, which the
 * change writes to the disk before the fork's own. */
int esp_fork(struct esp_session *s, struct esp_session *out)
{
	esp_session_init(out, s->h, s->first_lba, s->sectors, s->number);
	if (s->mounted || !s->open || s->view || s->sparse) {
		t_error("esp.fork", "partition %u: only a whole copy of the boot partition can be "
			"forked", s->number);
		return EXIT_ERRORS;
	}
	return copy_open(out, &s->img.dev, s->img.fd, 0, false, 0);
}

int esp_open_mounted(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		     uint64_t sectors, unsigned number, const char *dir)
{
	esp_session_init(s, h, first_lba, sectors, number);
	s->mounted = true;
	snprintf(s->mount_dir, sizeof s->mount_dir, "%s", dir);
	if (access(dir, R_OK | X_OK)) {
		t_error("esp.mounted", "partition %u is mounted on %s, which cannot be read: %s",
			number, dir, strerror(errno));
		return EXIT_ERRORS;
	}
	s->open = true;
	/* A reader finds no lock file where no writer ever took it: nothing to wait for. */
	char lock[sizeof s->mount_dir + sizeof ESP_LOCK_FILE + 1];
	snprintf(lock, sizeof lock, "%s/%s", s->mount_dir, ESP_LOCK_FILE);
	if (h->writable || !access(lock, F_OK))
		return lock_take(lock, h->writable, h->writable, &s->lock);
	return 0;
}

void esp_close(struct esp_session *s)
{
	if (!s->open)
		return;
	if (s->mounted) {
		espdir_close(s);
		lock_release(s->lock);
		s->lock = 0;
		s->open = false;
		return;
	}
	esp_fence_unmap(s);
	if (!s->view) {
		hostdev_close(&s->img);
		temp_remove(s->path);
	}
	if (!s->view || s->own_fs)
		free(s->fs);
	s->fs = NULL;
	if (!s->fat0_borrowed)
		free(s->fat0);
	s->fat0 = NULL;
	s->fat0_borrowed = false;
	if (s->map)
		munmap((void *)(uintptr_t)s->map, (size_t)s->map_len);
	s->map = NULL;
	if (s->sparse) {
		esp_sparse_free(s->sparse);
		free(s->sparse);
		s->sparse = NULL;
	}
	s->open = false;
}

/* Runs an mtools command on the copy of s, inside the fence that keeps the clusters the
 * change freed from being taken again (esp_fence.h); a failure names the path on the ESP it was
 * about (its last "::" argument) and mtools' reason. Returns 0 or an exit code. */
static int mtool(struct esp_session *s, const char *what, const char *const argv[])
{
	char out[2048], why[2200];
	const char *path = "";
	struct esp_fence f = { 0 };
	int err = esp_fence_up(s, &f);

	if (err) {
		t_error("esp.temp", "%s: marking the clusters freed so far failed: %s", s->path,
			as_strerror(err));
		esp_fence_free(&f);
		return EXIT_ERRORS;
	}
	int rc = run_capture(argv, out, sizeof out);
	if ((err = esp_fence_down(s, &f)))
		t_error("esp.temp", "%s: freeing the marked clusters again failed: %s", s->path,
			as_strerror(err));
	esp_fence_free(&f);
	if (err)
		return EXIT_ERRORS;
	if (!rc)
		return 0;
	for (unsigned i = 1; argv[i]; i++)
		if (!strncmp(argv[i], "::", 2))
			path = argv[i] + 2;
	t_error("esp.mtools", "%s (%s) failed: %s %s", what, path, argv[0],
		run_failure_text(rc, out, why, sizeof why));
	return EXIT_ERRORS;
}

/* Runs "tool -i COPY ::path" (mmd, mdel, mrd) on the copy. Returns 0 or an exit code. */
static int mtool_on(struct esp_session *s, const char *tool, const char *path, const char *what)
{
	char target[1100];
	snprintf(target, sizeof target, "::%s", path);
	const char *argv[] = { tool, "-i", s->path, target, NULL };
	return mtool(s, what, argv);
}

int esp_mkdir_p(struct esp_session *s, const char *dir)
{
	char path[1024];
	bool is_dir;

	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char saved = *p;
		*p = 0;
		if (!esp_exists(s, path, &is_dir)) {
			int rc = s->mounted ? espdir_mkdir(s, path)
					    : mtool_on(s, "mmd", path, "creating a directory on the ESP");
			if (rc)
				return rc;
		} else if (!is_dir) {
			t_error("esp.not_dir", "%s on the ESP is a file, not a directory", path);
			return EXIT_ERRORS;
		}
		if (!saved)
			break;
		*p = saved;
	}
	return 0;
}

int esp_delete(struct esp_session *s, const char *path)
{
	if (s->mounted)
		return espdir_delete(s, path);
	return mtool_on(s, "mdel", path, "deleting a file on the ESP");
}

/* from's bytes into the new temporary file path[cap], read through the session a chunk at a
 * time (a whole kernel, never whole in memory). Returns 0 or an exit code. */
static int save_file(struct esp_session *s, const char *from, char *path, size_t cap)
{
	uint64_t size, off = 0;
	int fd = -1, rc = esp_file_size(s, from, &size);

	if (!rc && temp_create("ren", path, cap, &fd))
		rc = AS_EIO;
	uint8_t *buf = xmalloc(1u << 20);
	while (!rc && off < size) {
		size_t n = size - off < (1u << 20) ? (size_t)(size - off) : 1u << 20;
		if (!(rc = esp_read_at(s, from, off, buf, n)))
			rc = pwrite_full(fd, buf, n, off) ? AS_EIO : 0;
		off += n;
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	if (rc) {
		t_error("esp.rename", "%s on the boot partition cannot be copied for its new name "
			"(%s)", from, as_strerror(rc));
		if (fd >= 0)
			temp_remove(path);
		return EXIT_ERRORS;
	}
	return 0;
}

int esp_rename(struct esp_session *s, const char *from, const char *to)
{
	char tmp[4200];
	int rc;

	if (s->mounted)
		return espdir_rename(s, from, to);
	/* mren keeps the old short entry's case bits: "new.efi" would become NEW.EFI, another
	 * name for the menu (an entry's name is its file's); mcopy stores the case given */
	if ((rc = save_file(s, from, tmp, sizeof tmp)))
		return rc;
	rc = esp_put(s, tmp, to);
	temp_remove(tmp);
	return rc ? rc : esp_delete(s, from);
}

int esp_rmdir(struct esp_session *s, const char *path)
{
	if (s->mounted)
		return espdir_rmdir(s, path);
	return mtool_on(s, "mrd", path, "removing a directory on the ESP");
}

/* Replacing a file goes through a temporary name: the new copy is written beside the old one
 * (so its clusters come from free space and the old chain stays whole), then the old file is
 * deleted and the new one renamed over it. esp_diff turns the result into writes that keep
 * every prefix a valid filesystem holding the old file or the new one. */
int esp_stage(struct esp_session *s, const char *src, const char *dst, char *tmp, size_t cap)
{
	char source[4200], dir[1024];

	/* a file name starting with '-' must not read as an option */
	snprintf(source, sizeof source, "%s%.4000s", src[0] == '-' ? "./" : "", src);
	snprintf(dir, sizeof dir, "%s", dst);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	for (unsigned i = 0;; i++) {
		if (i == 1000) {
			t_error("esp.temp_name", "no free temporary name in %s on the ESP", dir);
			return EXIT_ERRORS;
		}
		snprintf(tmp, cap, "%s/ASNEW%03u.TMP", dir, i);
		if (!esp_exists(s, tmp, NULL))
			break;
	}
	char tmp_target[1110];
	snprintf(tmp_target, sizeof tmp_target, "::%s", tmp);
	const char *copy[] = { "mcopy", "-i", s->path, source, tmp_target, NULL };
	return mtool(s, "copying a file to the ESP", copy);
}

int esp_unstage(struct esp_session *s, const char *tmp, const char *dst)
{
	char target[1100], tmp_target[1110];
	int rc;

	snprintf(target, sizeof target, "::%s", dst);
	snprintf(tmp_target, sizeof tmp_target, "::%s", tmp);
	const char *del[] = { "mdel", "-i", s->path, target, NULL };
	const char *ren[] = { "mren", "-i", s->path, tmp_target, target, NULL };
	if ((rc = mtool(s, "deleting the file it replaces on the ESP", del)) ||
	    (rc = mtool(s, "renaming the new file on the ESP", ren)))
		return rc;
	return 0;
}

int esp_put(struct esp_session *s, const char *src, const char *dst)
{
	char target[1100], source[4200], tmp[1100];
	bool is_dir = false;
	int rc;

	if (s->mounted)
		return espdir_put(s, src, dst);
	snprintf(target, sizeof target, "::%s", dst);
	/* a file name starting with '-' must not read as an option */
	snprintf(source, sizeof source, "%s%.4000s", src[0] == '-' ? "./" : "", src);
	if (!esp_exists(s, dst, &is_dir) || is_dir) {
		const char *argv[] = { "mcopy", "-o", "-i", s->path, source, target, NULL };
		return mtool(s, "copying a file to the ESP", argv);
	}
	if ((rc = esp_stage(s, src, dst, tmp, sizeof tmp)))
		return rc;
	return esp_unstage(s, tmp, dst);
}

int esp_put_text(struct esp_session *s, const char *text, const char *dst)
{
	char path[4200];
	int fd = -1;

	/* made by temp_create: locked, so a run beside this one does not sweep it away */
	if (temp_create("cfg", path, sizeof path, &fd) || pwrite_full(fd, text, strlen(text), 0)) {
		t_error("add.temp", "cannot write a temporary file in %s: %s", temp_dir(),
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			temp_remove(path);
		}
		return EXIT_ERRORS;
	}
	close(fd);
	int rc = esp_put(s, path, dst);
	temp_remove(path);
	return rc;
}

static int esp_check_chains(struct esp_session *s)
{
	char problem[1200];
	/* fat0 is the copy's active FAT as copied: nothing changed it yet */
	int rc = esp_chain_problem(s->fs, &s->img.dev, s->fat0, problem, sizeof problem);

	if (rc == AS_EIO) {
		t_error("io.read", "reading the FAT of partition %u failed", s->number);
		return EXIT_ERRORS;
	}
	if (rc) {
		t_error("esp.fat_chains",
			"partition %u (the boot partition) has FAT errors: %s; new files would be "
			"cross-linked with it, so nothing is written (repair it with fsck.fat)",
			s->number, problem);
		return EXIT_ERRORS;
	}
	return 0;
}

/* The FATs of the disk (S0) and of the copy (S2), every copy of each, and the intermediate
 * states between them. FAT16/32: mid0 and mid are computed only in the sectors where S0 and S2
 * differ (a bit in done each); in the others all four states are the same bytes, old's. */
struct fat_states {
	uint8_t *old, *mid0, *mid;
	const uint8_t *new;       /* in the copy's mapping, or new_buf */
	uint8_t *new_buf;
	uint8_t *done;            /* NULL: mid0 and mid are whole (FAT12) */
	uint32_t lss;
};

static void fat_states_free(struct fat_states *f)
{
	free(f->old);
	free(f->new_buf);
	free(f->mid0);
	free(f->mid);
	free(f->done);
}

/* The state the writes start from: the partition on the disk, or another session's copy
 * (esp_diff_from). */
struct old_side {
	struct blockdev *dev;
	int fd;
	uint64_t base;            /* the partition's first byte on dev */
};

/* mid0 and mid of sector x (an offset into the FATs): their own bytes, or old's. */
static const uint8_t *fat_state(const struct fat_states *f, const uint8_t *mid, uint64_t x)
{
	if (!f->done || f->done[x / f->lss / 8] >> (x / f->lss % 8) & 1)
		return mid + x;
	return f->old + x;
}

/* Reads both sides' FATs (the copy's from its mapping when there is one) and computes the
 * states between them. mid0 and mid are allocated whole but, for FAT16/32, written only where
 * S0 and S2 differ: a 4 GiB ESP's FATs are 8 MiB, an add changes a few sectors of them. Returns
 * 0 or an exit code. */
static int fat_states_read(struct esp_session *s, const struct old_side *o,
			   const struct esp_geom *g, struct fat_states *f)
{
	size_t len = (size_t)(g->fats_end - g->fats);
	uint32_t lss = s->h->topo.lss;

	f->lss = lss;
	f->old = xmalloc_huge(len);
	f->mid0 = xmalloc(len);
	f->mid = xmalloc(len);
	if (s->map) {
		f->new = s->map + g->fats;
	} else {
		f->new = f->new_buf = xmalloc_huge(len);
		if (bdev_read_bytes(&s->img.dev, g->fats, f->new_buf, len))
			goto fail;
	}
	if (bdev_read_bytes(o->dev, o->base + g->fats, f->old, len))
		goto fail;
	if (g->type == FAT_TYPE_12) {
		esp_fat_states(g, f->old, f->new, f->mid0, f->mid);
		return 0;
	}
	f->done = xcalloc(len / lss / 8 + 1, 1);
	for (size_t x = 0; x + lss <= len; x += lss) {
		if (!memcmp(f->old + x, f->new + x, lss))
			continue;
		esp_fat_states_range(g, f->old, f->new, f->mid0, f->mid, x, lss);
		f->done[x / lss / 8] |= (uint8_t)(1u << (x / lss % 8));
	}
	return 0;
fail:
	t_error("io.read", "reading the FATs of partition %u for comparison failed", s->number);
	return EXIT_ERRORS;
}

/* The copy mapped read-only (s->map), so the diff reads it in place and the plan's new
 * contents are its bytes, not copies of them (the copy stays unchanged until the session
 * closes, after the plan). Where it cannot be mapped, the diff reads it into a buffer. */
static void map_copy(struct esp_session *s)
{
	uint64_t len = s->sectors * s->h->topo.lss;
	void *m;

	if (s->map || s->view || s->mounted || !len || len > SIZE_MAX)
		return;
	m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, s->img.fd, 0);
	if (m == MAP_FAILED)
		return;
	s->map = m;
	s->map_len = len;
}

/* Compares n bytes at off (whole sectors) of the partition on the disk (into a) with the copy
 * (mapped, else into b) and collects the writes each changed sector needs. Returns 0 or an exit
 * code. */
static int diff_range(struct esp_session *s, const struct old_side *o, const struct esp_geom *g,
		      const struct fat_states *f, struct esp_writes *ws, uint64_t off, size_t n,
		      uint8_t *a, uint8_t *b)
{
	uint32_t lss = s->h->topo.lss;
	const uint8_t *fat_active = f->old + (uint64_t)g->active * g->fat_bytes;
	const uint8_t *nb = s->map ? s->map + off : b;

	if (bdev_read_bytes(o->dev, o->base + off, a, n) ||
	    (!s->map && bdev_read_bytes(&s->img.dev, off, b, n))) {
		t_error("io.read", "reading the ESP for comparison failed at byte %llu",
			(unsigned long long)off);
		return EXIT_ERRORS;
	}
	for (size_t i = 0; i < n; i += lss) {
		uint64_t at = off + i;
		bool in_fat = at >= g->fats && at + lss <= g->fats_end;
		const uint8_t *mid0 = in_fat ? fat_state(f, f->mid0, at - g->fats) : NULL;
		const uint8_t *mid = in_fat ? fat_state(f, f->mid, at - g->fats) : NULL;
		struct sector_writes sw;
		if (esp_classify_sector(g, fat_active, at, lss, a + i, nb + i, mid0, mid, &sw)) {
			sw.kept = s->map != NULL;
			esp_writes_add(ws, s->first_lba + at / lss, &sw);
		}
	}
	return 0;
}

/* diff_range over [off, off + len), a chunk at a time. */
static int diff_span(struct esp_session *s, const struct old_side *o, const struct esp_geom *g,
		     const struct fat_states *f, struct esp_writes *ws, uint64_t off, uint64_t len,
		     uint8_t *a, uint8_t *b)
{
	int rc = 0;

	for (uint64_t at = off; !rc && at < off + len; at += CHUNK) {
		size_t n = (size_t)(off + len - at < CHUNK ? off + len - at : CHUNK);
		rc = diff_range(s, o, g, f, ws, at, n, a, b);
	}
	return rc;
}

/* New contents over [off, off + len): every sector a write, the disk's old bytes not read (the
 * journal reads them, once, for its backup). Returns 0 or an exit code. */
static int new_span(struct esp_session *s, struct esp_writes *ws, uint64_t off, uint64_t len,
		    uint8_t *b)
{
	uint32_t lss = s->h->topo.lss;

	for (uint64_t at = off; at < off + len; at += CHUNK) {
		size_t n = (size_t)(off + len - at < CHUNK ? off + len - at : CHUNK);
		if (!s->map && bdev_read_bytes(&s->img.dev, at, b, n)) {
			t_error("io.read", "reading the ESP copy failed at byte %llu",
				(unsigned long long)at);
			return EXIT_ERRORS;
		}
		esp_writes_add_new(ws, s->first_lba + at / lss, s->map ? s->map + at : b, n / lss,
				   s->map != NULL);
	}
	return 0;
}

/* Compares the partition on the disk with the copy a chunk at a time. A sparse copy compares
 * only the runs esp_sparse_run keeps, found a cluster at a time, so file contents that stay on
 * the disk are neither read nor written, and writes the clusters it puts in use whole. Returns 0
 * or an exit code. */
static int collect_writes(struct esp_session *s, const struct old_side *o,
			  const struct esp_geom *g, const struct fat_states *f,
			  struct esp_writes *ws)
{
	uint64_t total = s->sectors * s->h->topo.lss, base = o->base;
	const uint8_t *new_active = f->new + (uint64_t)g->active * g->fat_bytes;
	uint8_t *a = xmalloc(CHUNK), *b = s->map ? NULL : xmalloc(CHUNK);
	int rc = 0;

	for (uint64_t off = 0; !s->sparse && off < total && !rc; off += CHUNK) {
		size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
		if (fd_has_data(o->fd, base + off, n) || fd_has_data(s->img.fd, off, n))
			rc = diff_range(s, o, g, f, ws, off, n, a, b);
		/* else a hole on both sides */
	}
	for (uint64_t at = 0; s->sparse && at < total && !rc;) {
		enum esp_run_kind kind;
		uint64_t to = esp_sparse_run(s->sparse, new_active, at, total, &kind);
		if (kind == ESP_RUN_COMPARE)
			rc = diff_span(s, o, g, f, ws, at, to - at, a, b);
		else if (kind == ESP_RUN_NEW)
			rc = new_span(s, ws, at, to - at, b);
		at = to;
	}
	free(a);
	free(b);
	return rc;
}

/* A sparse copy left the file contents on the disk: its diff is only true while the disk's
 * FAT is still the one copied (the ESP's lock keeps other writers out; this checks it). */
static int sparse_unchanged(struct esp_session *s, const struct esp_geom *g,
			    const struct fat_states *f)
{
	if (!s->sparse || (g->fat_bytes == s->sparse->g.fat_bytes &&
			   !memcmp(f->old + (uint64_t)g->active * g->fat_bytes, s->sparse->fat,
				   (size_t)g->fat_bytes)))
		return 0;
	t_error("esp.changed", "the FAT of partition %u changed on the disk since it was copied; "
		"nothing is written (run the command again)", s->number);
	return EXIT_ERRORS;
}

/* anysector.cfg's entry in a root directory: its short name as stored, its first cluster. */
struct last_found {
	bool found;
	uint8_t name[11];
	uint32_t cluster;
};

static int last_one(void *ctx, const struct fat_dirent *ent)
{
	struct last_found *f = ctx;
	const char *dot = strchr(ent->short_name, '.');
	size_t base = dot ? (size_t)(dot - ent->short_name) : strlen(ent->short_name);

	if (ent->file.is_dir || strcasecmp(ent->name, CFG_FILE_NAME) || base > 8 ||
	    (dot && strlen(dot + 1) > 3))
		return 0;
	memset(f->name, ' ', sizeof f->name);
	memcpy(f->name, ent->short_name, base);
	if (dot)
		memcpy(f->name + 8, dot + 1, strlen(dot + 1));
	f->cluster = ent->file.first_cluster;
	f->found = true;
	return ESP_LIST_STOP;
}

/* anysector.cfg names the files the others add (kernels, initrds): when the change replaces it,
 * its entry in the root is the one the plan switches last, and the entries the change deletes
 * wait for it (tools/esp/esp_order.h step 3b). The old side is mounted read-only for the old
 * entry's cluster; where it cannot be, the change is taken to replace it. */
static void last_entry(struct esp_session *s, const struct old_side *o, struct esp_geom *g)
{
	struct last_found now = { 0 }, before = { 0 };
	struct blockdev part;
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	uint32_t lss = s->h->topo.lss;

	if (fat_list(s->fs, NULL, last_one, &now, NULL) < 0 || !now.found)
		goto out;
	if (!bdev_slice(o->dev, o->base / lss, s->sectors, &part) &&
	    !fat_mount(&part, fs, NULL) && fat_list(fs, NULL, last_one, &before, NULL) >= 0 &&
	    before.found && before.cluster == now.cluster)
		goto out;   /* anysector.cfg stays as it is: nothing waits for it */
	memcpy(g->last_name, now.name, sizeof g->last_name);
	g->last_cluster = now.cluster;
	g->has_last = true;
out:
	free(fs);
}

/* The ops from first on that point into the copy's mapping read their bytes from the copy
 * instead (plan_op_from_file): the new files' contents are then never touched through the
 * mapping, which costs a fault a page (an initrd: thousands), and more on some virtual
 * machines, where reading them through a buffer costs a copy. */
static void ops_from_copy(const struct esp_session *s, struct plan *p, unsigned first)
{
	for (unsigned i = first; s->map && i < p->n; i++) {
		const uint8_t *d = p->ops[i].data;
		if (p->ops[i].borrowed && d >= s->map && d < s->map + s->map_len)
			plan_op_from_file(p, i, s->img.fd, (uint64_t)(d - s->map));
	}
}

/* esp_diff with the writes starting from o. */
static int diff_from(struct esp_session *s, const struct old_side *o, struct plan *p,
		     const char *what)
{
	struct fat_states f = { 0 };
	struct esp_writes ws;
	struct esp_geom g;
	int rc;

	if (s->mounted) /* no sector: the mounted filesystem takes the changes (espdir.c) */
		return 0;
	/* The geometry of the final state (mtools never changes the boot sector's layout). */
	if ((rc = esp_remount(s))) {
		t_error("esp.fat", "the ESP copy no longer mounts after mtools: %s", as_strerror(rc));
		return EXIT_ERRORS;
	}
	esp_geom_of(s->fs, &g);
	last_entry(s, o, &g);
	if (g.data_end > s->sectors * s->h->topo.lss || g.fats_end - g.fats > (1ull << 30)) {
		t_error("esp.fat", "the FAT on partition %u does not fit the partition", s->number);
		return EXIT_ERRORS;
	}
	esp_writes_init(&ws, s->h->topo.lss);
	map_copy(s);
	if (!(rc = fat_states_read(s, o, &g, &f)) && !(rc = sparse_unchanged(s, &g, &f)) &&
	    !(rc = collect_writes(s, o, &g, &f, &ws))) {
		unsigned first = p->n;
		esp_writes_plan(&ws, what, p);
		ops_from_copy(s, p, first);
	}
	esp_writes_free(&ws);
	fat_states_free(&f);
	return rc;
}

int esp_diff(struct esp_session *s, struct plan *p, const char *what)
{
	struct old_side o = { &s->h->dev, s->h->fd, s->first_lba * s->h->topo.lss };
	return diff_from(s, &o, p, what);
}

int esp_diff_from(struct esp_session *s, struct esp_session *from, struct plan *p,
		  const char *what)
{
	struct old_side o = { &from->img.dev, from->img.fd, 0 };
	if (s->mounted || from->mounted)
		return 0;
	/* a sparse copy's diff is against the disk it left the file contents on */
	if (s->sparse || from->sparse) {
		t_error("esp.fork", "partition %u: a change in two steps needs whole copies of the "
			"boot partition", s->number);
		return EXIT_ERRORS;
	}
	return diff_from(s, &o, p, what);
}
