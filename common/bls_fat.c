/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading the Boot Loader Specification's files: what to make of each directory entry of
 * /loader/entries (the loaders and the tool alike), and the walk over a FAT boot partition with
 * the common/ reader (stage2, BOOTX64.EFI). */
#include "common/bls.h"

#include "common/errors.h"
#include "common/fat.h"
#include "common/features.h"
#include "common/fmt.h"
#include "common/measure.h"
#include "common/str.h"
#include "common/uki.h"

/* Whether a file of size bytes is too big to read (said, naming it). */
static bool too_big(struct diag *d, const char *path, uint32_t size)
{
	if (size <= BLS_FILE_MAX)
		return false;
	diag_error(d, "bls.too_big", "%s is more than the %u bytes anysector reads of a loader "
		   "file: left out", path, BLS_FILE_MAX);
	return true;
}

int bls_dir_entry(struct bls_scratch *s, const char *name, bool is_dir, uint32_t size,
		  struct diag *d)
{
	size_t n = str_len(name), sl = sizeof BLS_SUFFIX - 1;

	if (++s->seen > BLS_FILES_MAX) {
#if FEATURE_NOTICES
		diag_warn(d, "bls.too_many_files", BLS_ENTRIES_DIR " has more than %u entries; the "
			  "rest are not read", BLS_FILES_MAX);
#endif
		return BLS_STOP;
	}
	if (is_dir || n < sl || str_casecmp(name + n - sl, BLS_SUFFIX))
		return BLS_SKIP;
	fmt_snprintf(s->path, sizeof s->path, BLS_ENTRIES_DIR "/%s", name);
	return !bls_name_check(s->path, &s->e, d) || too_big(d, s->path, size) ? BLS_SKIP : BLS_READ;
}

struct bls_walk {
	struct fat_fs *fs;
	struct cfg *c;
	char *buf;                  /* BLS_FILE_MAX bytes */
	struct bls_scratch *s;
	struct measure *m;
	struct diag *d;
	unsigned added;
};

/* Reads a whole file into w->buf and measures it (what: its kind); its length, or -1
 * (reported). */
static long read_small(struct bls_walk *w, const char *what, const char *path,
		       const struct fat_file *f)
{
	int rc;

	if (too_big(w->d, path, f->size))
		return -1;
	if ((rc = fat_read(w->fs, f, 0, w->buf, f->size, w->d))) {
		diag_error(w->d, "bls.read", "cannot read %s: %s", path, as_strerror(rc));
		return -1;
	}
	measure_file(w->m, MEASURE_PCR_CONFIG, what, path, w->buf, f->size, 0, 0);
	return (long)f->size;
}

static int one_entry(void *ctx, const struct fat_dirent *ent)
{
	struct bls_walk *w = ctx;
	long len;

	switch (bls_dir_entry(w->s, ent->name, ent->file.is_dir, ent->file.size, w->d)) {
	case BLS_STOP:
		return 1;
	case BLS_READ:
		if ((len = read_small(w, "BLS entry", w->s->path, &ent->file)) >= 0 &&
		    !bls_menu_file(w->c, w->s, w->buf, (size_t)len, w->d))
			w->added++;
		break;
	}
	return 0;
}

unsigned bls_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		      struct measure *m, struct diag *d)
{
	struct bls_walk w = { fs, c, buf, s, m, d, 0 };
	struct fat_file f;
	long len;

	s->seen = 0;
	if (FEATURE_UKI)   /* the legacy-gap stage2 has no room for them (common/features.h) */
		uki_cfg_fat(fs, c, buf, s, d);
	bls_menu_begin(c);
	if (!fat_open(fs, BLS_ENTRIES_DIR, &f, 0) && f.is_dir)
		fat_list(fs, &f, one_entry, &w, d);
	if (FEATURE_UKI)
		uki_load_fat(fs, c, buf, s, d);
	bool conf = !fat_open(fs, BLS_LOADER_CONF, &f, 0) && !f.is_dir &&
		    (len = read_small(&w, "BLS loader.conf", BLS_LOADER_CONF, &f)) >= 0;
	if (conf)
		bls_loader_parse(buf, (size_t)len, &s->l, d);
	bls_menu_finish(c, conf ? &s->l : 0);
	return w.added;
}
