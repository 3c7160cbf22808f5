/* SPDX-License-Identifier: BSD-2-Clause */
/* Unified kernel images in the menu (common/uki.h): the Type #2 entries of /EFI/Linux and the
 * files anysector.cfg's uki entries name, judged alike by the loaders (through the FAT reader,
 * uki_cfg_fat and uki_load_fat) and the installer (through its session on the boot partition). */
#include "common/bls.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/fat_path.h"
#include "common/fmt.h"
#include "common/mem.h"
#include "common/str.h"
#include "common/uki.h"

/* uki_cfg_entry adds at most a command line and a title to each anysector.cfg entry, after the
 * parser's longest values: the arena always has room for them. */
_Static_assert(CFG_MAX_ENTRIES * (CFG_NAME_MAX + CFG_TITLE_MAX + (1 + CFG_MAX_INITRDS) *
				  (CFG_PATH_MAX + SHA256_BYTES) + 2 * CFG_CMDLINE_MAX +
				  BLS_TEXT_MAX) <= CFG_TEXT_MAX,
	       "anysector.cfg's uki entries' command lines and titles fit the arena too");

/* Whether an anysector.cfg entry (those before the first BLS one) is path's uki entry. */
static bool claimed(const struct cfg *c, const char *path)
{
	for (unsigned i = 0; i < c->first_bls; i++)
		if (c->entries[i].kind == CFG_KIND_UKI && fat_path_eq(c->entries[i].kernel, path))
			return true;
	return false;
}

int uki_dir_entry(struct cfg *c, struct bls_entry *e, const char *name, bool is_dir,
		  uint64_t size, uki_read_fn read, void *ctx, char *buf, struct diag *d)
{
	size_t n = str_len(name), sl = sizeof UKI_SUFFIX - 1;

	if (is_dir || n <= sl || str_casecmp(name + n - sl, UKI_SUFFIX))
		return 0;
	bool named = bls_file_id(name, UKI_SUFFIX, e);   /* clears e */
	fmt_snprintf(e->kernel, sizeof e->kernel, UKI_DIR "/%s", name);
	if (claimed(c, e->kernel))
		return 0;
	if (!named) {
		diag_error(d, "uki.name", "%s: not NAME.efi of at most %u characters A-Z a-z 0-9 + - "
			   "_ .; left out", e->kernel, BLS_NAME_MAX);
		return -1;
	}
	if (uki_entry(e->kernel, size, read, ctx, buf, e, d))
		return -1;
	bls_menu_add(c, e, d);
	return 1;
}

void uki_cfg_entry(struct cfg *c, struct cfg_entry *ce, uint64_t size, uki_read_fn read,
		   void *ctx, char *buf, struct bls_entry *scratch, struct diag *d)
{
	memset(scratch, 0, sizeof *scratch);
	if (uki_entry(ce->kernel, size, read, ctx, buf, scratch, d))
		return;
	ce->cmdline = cfg_text_add(c, scratch->cmdline, str_len(scratch->cmdline));
	if (!ce->title[0])
		ce->title = cfg_text_add(c, scratch->title, str_len(scratch->title));
}

struct uki_walk {
	struct fat_fs *fs;
	const struct fat_file *f;
	struct cfg *c;
	char *buf;
	struct bls_scratch *s;
	struct diag *d;
	unsigned seen;
};

static int fat_reader(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct uki_walk *w = ctx;
	return fat_read(w->fs, w->f, off, buf, len, w->d);
}

static int one_file(void *ctx, const struct fat_dirent *ent)
{
	struct uki_walk *w = ctx;

	if (++w->seen > BLS_FILES_MAX) {
		diag_warn(w->d, "uki.too_many_files", UKI_DIR " has more than %u entries; the rest "
			  "are not read", BLS_FILES_MAX);
		return 1;
	}
	w->f = &ent->file;
	uki_dir_entry(w->c, &w->s->e, ent->name, ent->file.is_dir, ent->file.size, fat_reader, w,
		      w->buf, w->d);
	return 0;
}

void uki_cfg_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		 struct diag *d)
{
	struct uki_walk w = { fs, 0, c, buf, s, d, 0 };
	struct fat_file f;

	for (unsigned i = 0; i < c->nentries; i++) {
		struct cfg_entry *ce = &c->entries[i];
		if (ce->kind != CFG_KIND_UKI || fat_open(fs, ce->kernel, &f, 0) || f.is_dir)
			continue;   /* booting it says why */
		w.f = &f;
		uki_cfg_entry(c, ce, f.size, fat_reader, &w, buf, &s->e, d);
	}
}

void uki_load_fat(struct fat_fs *fs, struct cfg *c, char *buf, struct bls_scratch *s,
		  struct diag *d)
{
	struct uki_walk w = { fs, 0, c, buf, s, d, 0 };
	struct fat_file dir;

	if (!fat_open(fs, UKI_DIR, &dir, 0) && dir.is_dir)
		fat_list(fs, &dir, one_file, &w, d);
}
