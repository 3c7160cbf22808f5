#include "tools/espfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/inspect.h"
#include "tools/run.h"
#include "tools/util.h"

#define CHUNK (1u << 20)

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
		t_error("refuse.esp_fat",
			"partition %u (the boot partition) holds no valid FAT filesystem: %s; format it "
			"(anysector partition does)",
			number, it ? it->msg : as_strerror(err));
		report_free(&q);
		return EXIT_REFUSED;
	}
	report_free(&q);
	return 0;
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

int esp_put(struct esp_session *s, const char *src, const char *dst)
{
	char target[1100], source[4200];
	snprintf(target, sizeof target, "::%s", dst);
	/* a file name starting with '-' must not read as an option */
	snprintf(source, sizeof source, "%s%.4000s", src[0] == '-' ? "./" : "", src);
	const char *argv[] = { "mcopy", "-o", "-i", s->path, source, target, NULL };
	return mtool("copying a file to the ESP", argv);
}

int esp_diff(struct esp_session *s, struct plan *p, const char *what)
{
	uint32_t lss = s->h->topo.lss;
	uint64_t total = s->sectors * lss;
	uint8_t *a = xmalloc(CHUNK), *b = xmalloc(CHUNK);
	uint8_t *run = NULL;
	uint64_t run_lba = 0, run_n = 0, run_cap = 0;
	int rc = 0;

	for (uint64_t off = 0; !rc && off < total; off += CHUNK) {
		size_t n = (size_t)(total - off < CHUNK ? total - off : CHUNK);
		if (!fd_has_data(s->h->fd, s->first_lba * lss + off, n) &&
		    !fd_has_data(s->img.fd, off, n))
			continue; /* a hole on both sides */
		int err = bdev_read_bytes(&s->h->dev, s->first_lba * lss + off, a, n);
		if (err || bdev_read_bytes(&s->img.dev, off, b, n)) {
			t_error("io.read", "reading the ESP for comparison failed at byte %llu",
				(unsigned long long)off);
			rc = EXIT_ERRORS;
			break;
		}
		for (size_t i = 0; i < n; i += lss) {
			uint64_t lba = s->first_lba + (off + i) / lss;
			bool differs = memcmp(a + i, b + i, lss) != 0;
			if (differs) {
				if (run_n && run_lba + run_n != lba) {
					plan_add(p, run_lba, run_n, run, what);
					run_n = 0;
				}
				if (!run_n)
					run_lba = lba;
				if (run_n == run_cap) {
					run_cap = run_cap ? run_cap * 2 : 64;
					uint8_t *r = realloc(run, (size_t)(run_cap * lss));
					if (!r) {
						fprintf(stderr, "anysector: out of memory\n");
						exit(EXIT_ERRORS);
					}
					run = r;
				}
				memcpy(run + run_n * lss, b + i, lss);
				run_n++;
			}
		}
	}
	if (!rc && run_n)
		plan_add(p, run_lba, run_n, run, what);
	free(run);
	free(a);
	free(b);
	return rc;
}
