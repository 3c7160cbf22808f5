/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading the Boot Loader Specification's files from a FAT boot partition with the common/
 * reader (stage2, BOOTX64.EFI, and the installer on a copy of the partition). */
#include "common/bls.h"

#include "common/errors.h"
#include "common/fat.h"
#include "common/fmt.h"
#include "common/measure.h"
#include "common/str.h"

struct bls_walk {
	struct fat_fs *fs;
	struct cfg *c;
	char *buf;
	size_t cap;
	struct bls_scratch *s;
	struct measure *m;
	struct diag *d;
	unsigned seen, added;
};

/* Reads a whole file of at most BLS_FILE_MAX bytes into w->buf and measures it (what: its kind);
 * its length, or -1 (reported). */
static long read_small(struct bls_walk *w, const char *what, const char *path,
		       const struct fat_file *f)
{
	size_t cap = w->cap < BLS_FILE_MAX ? w->cap : BLS_FILE_MAX;
	int rc;

	if (f->size > cap) {
		diag_error(w->d, "bls.too_big", "%s is %u bytes; anysector reads loader files of up "
			   "to %zu bytes: left out", path, f->size, cap);
		return -1;
	}
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
	char path[sizeof BLS_ENTRIES_DIR + FAT_NAME_MAX + 1];
	size_t n = str_len(ent->name), sl = sizeof BLS_SUFFIX - 1;
	long len;

	if (++w->seen > BLS_FILES_MAX) {
		diag_warn(w->d, "bls.too_many_files", BLS_ENTRIES_DIR " has more than %u entries; "
			  "the rest are not read", BLS_FILES_MAX);
		return 1;
	}
	if (ent->file.is_dir || n <= sl || str_casecmp(ent->name + n - sl, BLS_SUFFIX))
		return 0;
	fmt_snprintf(path, sizeof path, BLS_ENTRIES_DIR "/%s", ent->name);
	if ((len = read_small(w, "BLS entry", path, &ent->file)) < 0)
		return 0;
	if (bls_parse(w->buf, (size_t)len, path, &w->s->e, w->d))
		return 0;
	bls_menu_add(&w->s->m, w->c, &w->s->e, w->d);
	w->added++;
	return 0;
}

unsigned bls_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, size_t cap,
		      struct bls_scratch *s, struct measure *m, struct diag *d)
{
	struct bls_walk w = { fs, c, buf, cap, s, m, d, 0, 0 };
	struct fat_file f;
	long len;

	bls_menu_begin(&s->m, c);
	if (!fat_open(fs, BLS_ENTRIES_DIR, &f, 0) && f.is_dir)
		fat_list(fs, &f, one_entry, &w, d);
	bool conf = !fat_open(fs, BLS_LOADER_CONF, &f, 0) && !f.is_dir &&
		    (len = read_small(&w, "BLS loader.conf", BLS_LOADER_CONF, &f)) >= 0;
	if (conf)
		bls_loader_parse(buf, (size_t)len, &s->l, d);
	bls_menu_finish(&s->m, c, conf ? &s->l : 0);
	return w.added;
}
