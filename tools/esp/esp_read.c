/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/esp_read.h"

#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/errors.h"
#include "tools/base/util.h"
#include "tools/esp/espdir.h"
#include "tools/esp/hashfile.h"

int esp_remount(struct esp_session *s)
{
	if (s->view)
		return 0;
	if (!s->fs)
		s->fs = xcalloc(1, sizeof *s->fs);
	return fat_mount(&s->img.dev, s->fs, NULL);
}

void esp_session_init(struct esp_session *s, struct hostdev *h, uint64_t first_lba,
		      uint64_t sectors, unsigned number)
{
	memset(s, 0, sizeof *s);
	s->h = h;
	s->first_lba = first_lba;
	s->sectors = sectors;
	s->number = number;
	s->img.fd = -1;
}

int esp_view(struct esp_session *s, struct hostdev *h, uint64_t first_lba, uint64_t sectors,
	     unsigned number, struct fat_fs *fs)
{
	esp_session_init(s, h, first_lba, sectors, number);
	s->view = true;
	s->fs = fs;
	if (!fs) {
		int rc = bdev_slice(&h->dev, first_lba, sectors, &s->part);
		s->fs = xcalloc(1, sizeof *s->fs);
		s->own_fs = true;
		if (!rc && fat_mount(&s->part, s->fs, NULL))
			rc = AS_ECORRUPT;
		if (rc) {
			free(s->fs);
			s->fs = NULL;
			return rc;
		}
	}
	s->open = true;
	return 0;
}

struct list_ctx {
	esp_list_cb cb;
	void *ctx;
};

static int list_one(void *ctx, const struct fat_dirent *e)
{
	struct list_ctx *l = ctx;
	return l->cb(l->ctx, e->name, e->file.is_dir, e->file.size);
}

int esp_list(struct esp_session *s, const char *dir, esp_list_cb cb, void *ctx)
{
	struct fat_file f;
	struct list_ctx l = { cb, ctx };
	int rc;

	if (s->mounted)
		return espdir_list(s, dir, cb, ctx);
	if ((rc = esp_remount(s)) || (rc = fat_open(s->fs, dir, &f, NULL)))
		return rc;
	if (!f.is_dir)
		return AS_ENOTDIR;
	return fat_list(s->fs, &f, list_one, &l, NULL);
}

bool esp_exists(struct esp_session *s, const char *path, bool *is_dir)
{
	struct fat_file f;
	if (s->mounted)
		return espdir_exists(s, path, is_dir);
	if (esp_remount(s) || fat_open(s->fs, path, &f, NULL))
		return false;
	if (is_dir)
		*is_dir = f.is_dir;
	return true;
}

int esp_read_file(struct esp_session *s, const char *path, char **buf, size_t *len,
		  struct diag *d)
{
	return esp_read_max(s, path, CFG_FILE_MAX_BYTES, buf, len, d);
}

int esp_read_max(struct esp_session *s, const char *path, size_t max, char **buf, size_t *len,
		 struct diag *d)
{
	struct fat_file f;
	int rc;

	if (s->mounted)
		return espdir_read_file(s, path, max, buf, len);
	if ((rc = esp_remount(s)))
		return rc;
	if ((rc = fat_open(s->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	if (f.size > max)
		return AS_ETOOBIG;
	*buf = xmalloc((size_t)f.size + 1);
	if ((rc = fat_read(s->fs, &f, 0, *buf, f.size, d))) {
		free(*buf);
		*buf = NULL;
		return rc;
	}
	(*buf)[f.size] = 0;
	*len = f.size;
	return 0;
}

int esp_file_size(struct esp_session *s, const char *path, uint64_t *size)
{
	struct fat_file f;
	int rc;

	if (s->mounted)
		return espdir_file_size(s, path, size);
	if ((rc = esp_remount(s)) || (rc = fat_open(s->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	*size = f.size;
	return 0;
}

int esp_read_at(struct esp_session *s, const char *path, uint64_t off, void *buf, size_t len)
{
	struct fat_file f;
	int rc;

	if (s->mounted)
		return espdir_read_at(s, path, off, buf, len);
	if ((rc = esp_remount(s)) || (rc = fat_open(s->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	return fat_read(s->fs, &f, off, buf, len, NULL);
}

int esp_sha256(struct esp_session *s, const char *path, uint8_t out[SHA256_BYTES])
{
	struct fat_file f;
	int rc;

	if (s->mounted)
		return espdir_sha256(s, path, out);
	if ((rc = esp_remount(s)) || (rc = fat_open(s->fs, path, &f, NULL)))
		return rc;
	if (f.is_dir)
		return AS_EISDIR;
	return hash_fat_file(s->fs, &f, out, NULL);
}
