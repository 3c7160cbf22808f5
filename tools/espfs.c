#include "tools/espfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/inspect.h"
#include "tools/run.h"
#include "tools/util.h"

#define CHUNK (1u << 20)

static int esp_check_chains(struct esp_session *s);

/* Mounts the copy again after mtools changed it. Returns 0 or an AS_* code. */
static int remount(struct esp_session *s)
{
	if (!s->fs)
		s->fs = xcalloc(1, sizeof *s->fs);
	return fat_mount(&s->img.dev, s->fs, NULL);
}

int esp_open(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number)
{
	const char *tmp = getenv("TMPDIR");
	uint32_t lss = h->topo.lss;
	uint8_t *buf = xmalloc(CHUNK);
	int fd, rc = 0;

	memset(s, 0, sizeof *s);
	s->h = h;
	s->first_lba = first_lba;
	s->sectors = sectors;
	s->number = number;
	s->img.fd = -1;
	snprintf(s->path, sizeof s->path, "%s/anysector-esp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(s->path);
	if (fd < 0) {
		t_error("esp.temp", "cannot create a temporary file in %s: %s", tmp ? tmp : "/tmp",
			strerror(errno));
		free(buf);
		return EXIT_ERRORS;
	}
	s->open = true;
	uint64_t total = sectors * lss;
	if (ftruncate(fd, (off_t)total)) {
		t_error("esp.temp", "%s: %s", s->path, strerror(errno));
		rc = EXIT_ERRORS;
	}
	for (uint64_t off = 0; !rc && off < total; off += CHUNK) {
		size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
		if (!fd_has_data(h->fd, first_lba * lss + off, n))
			continue;
		int err = bdev_read_bytes(&h->dev, first_lba * lss + off, buf, n);
		if (err) {
			t_error("io.read", "%s: reading the ESP at byte %llu failed: %s", h->path,
				(unsigned long long)(first_lba * lss + off), as_strerror(err));
			rc = EXIT_ERRORS;
		} else if (!all_zero(buf, n) && pwrite_full(fd, buf, n, off)) {
			t_error("esp.temp", "%s: write failed: %s", s->path, strerror(errno));
			rc = EXIT_ERRORS;
		}
	}
	close(fd);
	free(buf);
	if (rc)
		return rc;
	if ((rc = hostdev_open(&s->img, s->path, false)))
		return rc;
	hostdev_set_sector_size(&s->img, lss, TOPO_GIVEN, "the ESP copy");
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
	return esp_check_chains(s);
}

void esp_close(struct esp_session *s)
{
	if (!s->open)
		return;
	hostdev_close(&s->img);
	unlink(s->path);
	free(s->fs);
	s->fs = NULL;
	s->open = false;
}

bool esp_exists(struct esp_session *s, const char *path, bool *is_dir)
{
	struct fat_file f;
	if (remount(s) || fat_open(s->fs, path, &f, NULL))
		return false;
	if (is_dir)
		*is_dir = f.is_dir;
	return true;
}

int esp_read_file(struct esp_session *s, const char *path, char **buf, size_t *len)
{
	struct fat_file f;
	int rc;

	if ((rc = remount(s)))
		return rc;
	if ((rc = fat_open(s->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	if (f.size > CFG_FILE_MAX_BYTES)
		return AS_ETOOBIG;
	*buf = xmalloc((size_t)f.size + 1);
	if ((rc = fat_read(s->fs, &f, 0, *buf, f.size, NULL))) {
		free(*buf);
		*buf = NULL;
		return rc;
	}
	(*buf)[f.size] = 0;
	*len = f.size;
	return 0;
}

static int mtool(const char *what, const char *const argv[])
{
	char out[2048];
	int rc = run_capture(argv, out, sizeof out);
	if (rc) {
		t_error("esp.mtools", "%s failed (%s exit %d): %s", what, argv[0], rc, out);
		return EXIT_ERRORS;
	}
	return 0;
}

int esp_mkdir_p(struct esp_session *s, const char *dir)
{
	char path[1024], target[1100];
	bool is_dir;

	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char saved = *p;
		*p = 0;
		if (!esp_exists(s, path, &is_dir)) {
			snprintf(target, sizeof target, "::%s", path);
			const char *argv[] = { "mmd", "-i", s->path, target, NULL };
			int rc = mtool("creating a directory on the ESP", argv);
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

/* Replacing a file goes through a temporary name: the new copy is written beside the old one
 * (so its clusters come from free space and the old chain stays whole), then the old file is
 * deleted and the new one renamed over it. esp_diff turns the result into writes that keep
 * every prefix a valid filesystem holding the old file or the new one. */
int esp_put(struct esp_session *s, const char *src, const char *dst)
{
	char target[1100], source[4200], tmp[1100], dir[1024];
	bool is_dir = false;
	int rc;

	snprintf(target, sizeof target, "::%s", dst);
	/* a file name starting with '-' must not read as an option */
	snprintf(source, sizeof source, "%s%.4000s", src[0] == '-' ? "./" : "", src);
	if (!esp_exists(s, dst, &is_dir) || is_dir) {
		const char *argv[] = { "mcopy", "-o", "-i", s->path, source, target, NULL };
		return mtool("copying a file to the ESP", argv);
	}
	snprintf(dir, sizeof dir, "%s", dst);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	for (unsigned i = 0;; i++) {
		if (i == 1000) {
			t_error("esp.temp_name", "no free temporary name in %s on the ESP", dir);
			return EXIT_ERRORS;
		}
		snprintf(tmp, sizeof tmp, "%s/ASNEW%03u.TMP", dir, i);
		if (!esp_exists(s, tmp, NULL))
			break;
	}
	char tmp_target[1110];
	snprintf(tmp_target, sizeof tmp_target, "::%s", tmp);
	const char *copy[] = { "mcopy", "-i", s->path, source, tmp_target, NULL };
	const char *del[] = { "mdel", "-i", s->path, target, NULL };
	const char *ren[] = { "mren", "-i", s->path, tmp_target, target, NULL };
	if ((rc = mtool("copying a file to the ESP", copy)) ||
	    (rc = mtool("deleting the file it replaces on the ESP", del)) ||
	    (rc = mtool("renaming the new file on the ESP", ren)))
		return rc;
	return 0;
}

/* --- the order of the writes ---
 *
 * The copy now holds the final state S2; the disk holds S0. Written in LBA order, a crash could
 * leave a directory entry pointing at clusters not yet written, or a FAT chain half linked. The
 * writes are grouped by the role of each sector and ordered so that every prefix is a valid
 * filesystem in which each changed file reads whole, old or new:
 *
 *   1. data sectors in clusters that are free in S0 (new file contents, new directory clusters):
 *      nothing refers to them yet, so the filesystem still reads as S0;
 *   2. FAT sectors in an intermediate state SI0: the entries of clusters free in S0 and in use
 *      in S2 take their S2 values, all others keep S0's. The new chains exist whole, nothing
 *      refers to them: at worst allocated clusters that belong to no file yet (lost clusters,
 *      not a wrong byte);
 *   2b. FAT sectors in state SI: also the entries in use in both states that S2 changes, such
 *      as the last cluster of a directory that grew, now linked to its new cluster (whole since
 *      1 and 2). Each such entry is one link switched from one whole chain to another. The old
 *      chains are all still there;
 *   3. directory sectors (the FAT12/16 root, and sectors of clusters in use in S0): each is one
 *      sector, written whole. Those that add or change a live entry go first, in LBA order, so a
 *      long name's entries are in place before the short entry that ends them; then those that
 *      only delete entries, in reverse order, so a short entry goes before its long-name
 *      entries. A replaced file (esp_put: new copy under a temporary name, old one deleted, new
 *      one renamed) switches in the sector of its new entry; if the old entry lives in another
 *      sector, both names briefly exist, each pointing at a whole chain;
 *   4. FAT sectors from SI to S2: the old chains are freed; nothing refers to them any more;
 *   5. the rest (the reserved area: FSInfo's free-cluster hints, which readers do not trust).
 *
 * Assumed: a one-sector write lands whole or not at all (what drives promise per physical
 * sector; a 512e drive's read-modify-write of its 4 KiB sector is the drive's to make safe).
 * Not covered: a cluster in use in S0 that is not a directory but changed in place (esp_put
 * never does that; such sectors would go with step 3, unordered).
 *
 * A FAT sector may be written up to three times (SI0, SI, S2); the journal accepts any of
 * those contents for it.
 * Each directory sector is its own op, so tests/crash stops after each of them; other
 * neighbouring sectors of one step share an op (any part of such a step is as safe as all). */

enum esp_role { ROLE_NEW_DATA, ROLE_FAT_NEW, ROLE_FAT_RELINK, ROLE_DIR_ADD, ROLE_DIR_DEL,
		ROLE_FAT_FREE, ROLE_OTHER, ROLE_COUNT };

static const char *const role_what[ROLE_COUNT] = {
	"new contents in free clusters", "FAT with the new chains",
	"FAT linking new clusters to chains in use",
	"directory sector adding or changing entries", "directory sector deleting entries",
	"FAT with the replaced chains freed", "filesystem metadata",
};

struct esp_geom {
	enum fat_type type;
	uint64_t fats, fats_end;     /* bytes of the partition: every FAT copy */
	uint64_t root, data, data_end;
	uint64_t cluster;
	uint32_t active;             /* the FAT copy readers use */
	uint64_t fat_bytes;
};

static void geom_of(const struct fat_fs *fs, struct esp_geom *g)
{
	g->type = fs->type;
	g->fat_bytes = fs->fat_bytes;
	g->active = fs->active_fat;
	g->fats = fs->fat_offset - (uint64_t)fs->active_fat * fs->fat_bytes;
	g->fats_end = g->fats + (uint64_t)fs->num_fats * fs->fat_bytes;
	g->root = fs->root_offset;
	g->data = fs->data_offset;
	g->cluster = fs->cluster_size;
	g->data_end = g->data + (uint64_t)fs->clusters * g->cluster;
}

/* Entry i of a FAT (FAT32's four reserved top bits left out); 0 past its end. */
static uint32_t fat_get(const struct esp_geom *g, const uint8_t *fat, uint32_t i)
{
	uint64_t o;
	switch (g->type) {
	case FAT_TYPE_12:
		o = (uint64_t)i + i / 2;
		if (o + 2 > g->fat_bytes)
			return 0;
		return i & 1 ? le16_load(fat + o) >> 4 : le16_load(fat + o) & 0xFFFu;
	case FAT_TYPE_16:
		o = (uint64_t)i * 2;
		return o + 2 > g->fat_bytes ? 0 : le16_load(fat + o);
	default:
		o = (uint64_t)i * 4;
		return o + 4 > g->fat_bytes ? 0 : le32_load(fat + o) & 0x0FFFFFFFu;
	}
}

/* Copies the bits of entry i from src to dst. */
static void fat_take(const struct esp_geom *g, uint8_t *dst, const uint8_t *src, uint32_t i)
{
	uint64_t o;
	switch (g->type) {
	case FAT_TYPE_12:
		o = (uint64_t)i + i / 2;
		if (o + 2 > g->fat_bytes)
			return;
		if (i & 1) {
			dst[o] = (uint8_t)((dst[o] & 0x0F) | (src[o] & 0xF0));
			dst[o + 1] = src[o + 1];
		} else {
			dst[o] = src[o];
			dst[o + 1] = (uint8_t)((dst[o + 1] & 0xF0) | (src[o + 1] & 0x0F));
		}
		return;
	case FAT_TYPE_16:
		o = (uint64_t)i * 2;
		if (o + 2 <= g->fat_bytes)
			memcpy(dst + o, src + o, 2);
		return;
	default:
		o = (uint64_t)i * 4;
		if (o + 4 <= g->fat_bytes)
			memcpy(dst + o, src + o, 4);
		return;
	}
}

/* Whether a sector, read as directory entries, adds or changes a live one. */
static bool adds_entry(const uint8_t *old, const uint8_t *new, uint32_t len)
{
	for (uint32_t i = 0; i + 32 <= len; i += 32)
		if (new[i] != 0 && new[i] != 0xE5 && memcmp(old + i, new + i, 32))
			return true;
	return false;
}

/* --- the chains mtools will build on ---
 *
 * mtools trusts the FAT it is handed: where a file's chain runs into a free cluster, or into
 * another file's, it hands those clusters out again and cross-links the new files with the
 * old. So before anything is planned, every chain reachable from the root must end properly,
 * use only clusters no other chain uses, and be long enough for its file's size. Clusters in
 * use that no file reaches (lost clusters, as an interrupted install leaves them) and a stale
 * FSInfo count are harmless and not reported. */

#define ESP_CHECK_MAX_DEPTH 32

struct chain_check {
	struct fat_fs *fs;
	struct esp_geom g;
	uint8_t *fat;            /* the active FAT */
	uint8_t *used;           /* a bit per cluster reached so far */
	char path[FAT_PATH_MAX * 2];
	unsigned depth;
	char problem[1200];
};

/* Walks one chain: whether it is whole (else c->problem says why). */
static bool chain_whole(struct chain_check *c, uint32_t first, uint64_t size, bool is_dir)
{
	uint32_t bad = c->g.type == FAT_TYPE_12 ? 0xFF7 : c->g.type == FAT_TYPE_16 ? 0xFFF7
										      : 0x0FFFFFF7;
	uint64_t n = 0;
	uint32_t cl = first;

	for (;;) {
		if (cl < 2 || cl - 2 >= c->fs->clusters) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: its chain reaches cluster %u, outside 2..%u", c->path, cl,
				 c->fs->clusters + 1);
			return false;
		}
		if (c->used[cl / 8] & (1u << (cl % 8))) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: cluster %u of its chain belongs to another file or directory "
				 "(cross-linked)", c->path, cl);
			return false;
		}
		c->used[cl / 8] |= (uint8_t)(1u << (cl % 8));
		n++;
		uint32_t v = fat_get(&c->g, c->fat, cl);
		if (v > bad)
			break;
		if (v == 0 || v == bad) {
			snprintf(c->problem, sizeof c->problem,
				 "%s: cluster %u of its chain points to %s", c->path, cl,
				 v ? "a bad-cluster mark" : "a free cluster");
			return false;
		}
		cl = v;
	}
	if (!is_dir && n * c->g.cluster < size) {
		snprintf(c->problem, sizeof c->problem,
			 "%s: %llu bytes long, but its chain of %llu clusters holds %llu",
			 c->path, (unsigned long long)size, (unsigned long long)n,
			 (unsigned long long)(n * c->g.cluster));
		return false;
	}
	return true;
}

static int check_entry(void *ctx, const struct fat_dirent *e)
{
	struct chain_check *c = ctx;
	size_t len = strlen(c->path);
	int rc = 0;

	snprintf(c->path + len, sizeof c->path - len, "%s%s", len > 1 ? "/" : "", e->name);
	if (e->file.first_cluster &&
	    !chain_whole(c, e->file.first_cluster, e->file.size, e->file.is_dir))
		rc = AS_ECORRUPT;
	else if (e->file.is_dir && e->file.first_cluster) {
		if (++c->depth > ESP_CHECK_MAX_DEPTH) {
			snprintf(c->problem, sizeof c->problem, "%s: directories nest deeper than %u",
				 c->path, ESP_CHECK_MAX_DEPTH);
			rc = AS_ECORRUPT;
		} else {
			int err = fat_list(c->fs, &e->file, check_entry, c, NULL);
			if (err && !c->problem[0])
				snprintf(c->problem, sizeof c->problem,
					 "%s: the directory cannot be read (%s)", c->path,
					 as_strerror(err));
			rc = err ? AS_ECORRUPT : 0;
		}
		c->depth--;
	}
	c->path[len] = 0;
	return rc;
}

int esp_chain_problem(struct fat_fs *fs, struct blockdev *dev, char *problem, size_t cap)
{
	struct chain_check c;
	int rc = 0;

	memset(&c, 0, sizeof c);
	c.fs = fs;
	geom_of(fs, &c.g);
	c.fat = xmalloc((size_t)c.g.fat_bytes);
	c.used = xcalloc(1, (size_t)(fs->clusters + 2) / 8 + 1);
	snprintf(c.path, sizeof c.path, "/");
	if (bdev_read_bytes(dev, fs->fat_offset, c.fat, (size_t)c.g.fat_bytes)) {
		rc = AS_EIO;
		goto out;
	}
	struct fat_file root;
	if (fat_open(fs, "/", &root, NULL)) {
		snprintf(c.problem, sizeof c.problem, "the root directory cannot be opened");
	} else if (fs->type == FAT_TYPE_32 && !chain_whole(&c, fs->root_cluster, 0, true)) {
		/* problem set */
	} else {
		struct report q;
		report_init(&q, false);
		int err = fat_list(fs, &root, check_entry, &c, &q.diag);
		if (err && !c.problem[0]) {
			const struct report_item *it = report_first(&q, DIAG_ERROR);
			snprintf(c.problem, sizeof c.problem, "%.500s",
				 it ? it->msg : "a directory cannot be read");
		}
		report_free(&q);
	}
	if (c.problem[0]) {
		snprintf(problem, cap, "%s", c.problem);
		rc = AS_ECORRUPT;
	}
out:
	free(c.fat);
	free(c.used);
	return rc;
}

static int esp_check_chains(struct esp_session *s)
{
	char problem[1200];
	int rc = esp_chain_problem(s->fs, &s->img.dev, problem, sizeof problem);

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

struct esp_op {
	uint64_t lba;       /* device LBA */
	uint8_t *data;      /* one sector, owned */
	enum esp_role role;
	unsigned steps;     /* FAT sectors: a bit for each FAT step that writes this sector */
};

static int esp_op_cmp(const void *a, const void *b)
{
	const struct esp_op *x = a, *y = b;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	/* deletions from the end backwards, everything else forwards */
	bool rev = x->role == ROLE_DIR_DEL;
	if (x->lba == y->lba)
		return 0;
	return (x->lba < y->lba) != rev ? -1 : 1;
}

/* Whether two sectors may share one op: neighbours of one role, but directory sectors each
 * alone, and FAT sectors only with those written by the same FAT steps, so that every step
 * covers such a range with the same op (the journal checks a range as a whole). */
static bool same_op(const struct esp_op *a, const struct esp_op *b)
{
	return a->role == b->role && a->lba + 1 == b->lba && a->steps == b->steps &&
	       a->role != ROLE_DIR_ADD && a->role != ROLE_DIR_DEL;
}

int esp_diff(struct esp_session *s, struct plan *p, const char *what)
{
	uint32_t lss = s->h->topo.lss;
	uint64_t total = s->sectors * lss, base = s->first_lba * lss;
	struct esp_geom g;
	uint8_t *fat_old = NULL, *fat_new = NULL, *fat_mid = NULL, *fat_mid0 = NULL;
	uint8_t *a = xmalloc(CHUNK), *b = xmalloc(CHUNK);
	struct esp_op *ops = NULL;
	size_t nops = 0, cap = 0;
	int rc;

	/* The geometry of the final state (mtools never changes the boot sector's layout). */
	if ((rc = remount(s))) {
		t_error("esp.fat", "the ESP copy no longer mounts after mtools: %s", as_strerror(rc));
		free(a);
		free(b);
		return EXIT_ERRORS;
	}
	const struct fat_fs *fs = s->fs;
	geom_of(fs, &g);
	uint64_t fats_len = g.fats_end - g.fats;
	if (g.data_end > total || fats_len > (1ull << 30)) {
		t_error("esp.fat", "the FAT on partition %u does not fit the partition", s->number);
		rc = EXIT_ERRORS;
		goto out;
	}
	fat_old = xmalloc((size_t)fats_len);
	fat_new = xmalloc((size_t)fats_len);
	if (bdev_read_bytes(&s->h->dev, base + g.fats, fat_old, (size_t)fats_len) ||
	    bdev_read_bytes(&s->img.dev, g.fats, fat_new, (size_t)fats_len)) {
		t_error("io.read", "reading the FATs of partition %u for comparison failed", s->number);
		rc = EXIT_ERRORS;
		goto out;
	}
	/* SI0: the FATs with the entries of clusters free in S0 and in use in S2 taken from S2
	 * (the new chains, whole); SI: also the entries in use in both that S2 changes (an
	 * existing chain, such as a directory that grew, linked to its new clusters). */
	fat_mid0 = xmalloc((size_t)fats_len);
	fat_mid = xmalloc((size_t)fats_len);
	memcpy(fat_mid0, fat_old, (size_t)fats_len);
	for (uint32_t k = 0; k < fs->num_fats; k++) {
		uint64_t o = (uint64_t)k * g.fat_bytes;
		for (uint32_t i = 0; i < fs->clusters + 2; i++)
			if (i < 2 || (fat_get(&g, fat_new + o, i) && !fat_get(&g, fat_old + o, i)))
				fat_take(&g, fat_mid0 + o, fat_new + o, i);
	}
	memcpy(fat_mid, fat_mid0, (size_t)fats_len);
	for (uint32_t k = 0; k < fs->num_fats; k++) {
		uint64_t o = (uint64_t)k * g.fat_bytes;
		for (uint32_t i = 2; i < fs->clusters + 2; i++)
			if (fat_get(&g, fat_new + o, i))
				fat_take(&g, fat_mid + o, fat_new + o, i);
	}
	const uint8_t *fat_active = fat_old + (uint64_t)g.active * g.fat_bytes;

	for (uint64_t off = 0; off < total; off += CHUNK) {
		size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
		if (!fd_has_data(s->h->fd, base + off, n) && !fd_has_data(s->img.fd, off, n))
			continue; /* a hole on both sides */
		if (bdev_read_bytes(&s->h->dev, base + off, a, n) ||
		    bdev_read_bytes(&s->img.dev, off, b, n)) {
			t_error("io.read", "reading the ESP for comparison failed at byte %llu",
				(unsigned long long)off);
			rc = EXIT_ERRORS;
			goto out;
		}
		for (size_t i = 0; i < n; i += lss) {
			uint64_t at = off + i, lba = s->first_lba + at / lss;
			const uint8_t *olds = a + i, *news = b + i;
			const uint8_t *mid0s = NULL, *mids = NULL;
			bool in_fat = at >= g.fats && at + lss <= g.fats_end;
			if (in_fat) {
				mid0s = fat_mid0 + (at - g.fats);
				mids = fat_mid + (at - g.fats);
			}
			if (!memcmp(olds, news, lss) &&
			    (!in_fat || (!memcmp(olds, mid0s, lss) && !memcmp(olds, mids, lss))))
				continue;
			enum esp_role role[3] = { ROLE_COUNT, ROLE_COUNT, ROLE_COUNT };
			const uint8_t *data[3] = { news, NULL, NULL };
			if (in_fat) {
				const uint8_t *from[3] = { olds, mid0s, mids }, *to[3] = { mid0s, mids, news };
				static const enum esp_role step[3] = { ROLE_FAT_NEW, ROLE_FAT_RELINK,
								       ROLE_FAT_FREE };
				for (unsigned k = 0; k < 3; k++) {
					if (memcmp(from[k], to[k], lss)) {
						role[k] = step[k];
						data[k] = to[k];
					}
				}
			} else if (g.type != FAT_TYPE_32 && at >= g.root && at + lss <= g.data) {
				role[0] = adds_entry(olds, news, lss) ? ROLE_DIR_ADD : ROLE_DIR_DEL;
			} else if (at >= g.data && at + lss <= g.data_end) {
				uint32_t c0 = (uint32_t)(2 + (at - g.data) / g.cluster);
				uint32_t c1 = (uint32_t)(2 + (at + lss - 1 - g.data) / g.cluster);
				unsigned used = 0;
				for (uint32_t c = c0; c <= c1; c++)
					used += fat_get(&g, fat_active, c) != 0;
				if (!used)
					role[0] = ROLE_NEW_DATA;
				else if (used == c1 - c0 + 1)
					role[0] = adds_entry(olds, news, lss) ? ROLE_DIR_ADD : ROLE_DIR_DEL;
				else
					role[0] = ROLE_OTHER;
			} else {
				role[0] = ROLE_OTHER;
			}
			unsigned steps = 0;
			for (unsigned k = 0; k < 3; k++)
				steps |= role[k] != ROLE_COUNT ? 1u << k : 0;
			for (unsigned k = 0; k < 3; k++) {
				if (role[k] == ROLE_COUNT)
					continue;
				if (nops == cap) {
					cap = cap ? cap * 2 : 64;
					struct esp_op *o = realloc(ops, cap * sizeof *o);
					if (!o) {
						fprintf(stderr, "anysector: out of memory\n");
						exit(EXIT_ERRORS);
					}
					ops = o;
				}
				ops[nops].lba = lba;
				ops[nops].role = role[k];
				ops[nops].steps = in_fat ? steps : 0;
				ops[nops].data = xmalloc(lss);
				memcpy(ops[nops].data, data[k], lss);
				nops++;
			}
		}
	}
	qsort(ops, nops, sizeof *ops, esp_op_cmp);
	for (size_t i = 0; i < nops;) {
		size_t j = i + 1;
		while (j < nops && same_op(&ops[j - 1], &ops[j]))
			j++;
		uint8_t *run = xmalloc((j - i) * lss);
		for (size_t k = i; k < j; k++)
			memcpy(run + (k - i) * lss, ops[k].data, lss);
		char w[400];
		snprintf(w, sizeof w, "%s: %s", what, role_what[ops[i].role]);
		plan_add(p, ops[i].lba, j - i, run, w);
		free(run);
		i = j;
	}
	rc = 0;
out:
	for (size_t i = 0; i < nops; i++)
		free(ops[i].data);
	free(ops);
	free(fat_old);
	free(fat_new);
	free(fat_mid);
	free(fat_mid0);
	free(a);
	free(b);
	return rc;
}
