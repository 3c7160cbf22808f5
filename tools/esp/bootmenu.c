/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/bootmenu.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/uki.h"
#include "tools/base/util.h"

struct scan {
	struct esp_session *s;
	struct boot_menu *m;
	struct report *r;
	struct bls_scratch *bls;
	int err;
	unsigned uki_seen;                  /* directory entries of /EFI/Linux looked at */
	const char *path;                   /* the unified kernel image being read */
	char *buf;                          /* UKI_ENTRY_BUF bytes */
};

static int esp_reader(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct scan *sc = ctx;
	return esp_read_at(sc->s, sc->path, off, buf, len);
}

/* One file of /EFI/Linux, judged and added as uki_load_fat does at boot. */
static int scan_uki(void *ctx, const char *name, bool is_dir, uint64_t size)
{
	struct scan *sc = ctx;
	char path[FAT_PATH_MAX + 32];

	if (++sc->uki_seen > BLS_FILES_MAX) {
		report_printf(sc->r, DIAG_WARN, "uki.too_many_files",
			      UKI_DIR " has more than %u entries; the loaders read no more",
			      BLS_FILES_MAX);
		return ESP_LIST_STOP;
	}
	snprintf(path, sizeof path, UKI_DIR "/%s", name);
	sc->path = path;
	uki_dir_entry(&sc->m->cfg, &sc->bls->e, name, is_dir, size, esp_reader, sc, sc->buf,
		      &sc->r->diag);
	return 0;
}

/* anysector.cfg's uki entries take their command line and title from their files, as at
 * boot (uki_cfg_fat): before the /loader/entries ones join the menu. */
static void fill_cfg_ukis(struct scan *sc)
{
	struct cfg *c = &sc->m->cfg;

	for (unsigned i = 0; i < c->nentries; i++) {
		struct cfg_entry *ce = &c->entries[i];
		uint64_t size;
		if (ce->kind != CFG_KIND_UKI || esp_file_size(sc->s, ce->kernel, &size))
			continue;   /* check says what is wrong with it */
		sc->path = ce->kernel;
		uki_cfg_entry(c, ce, size, esp_reader, sc, sc->buf, &sc->bls->e, &sc->r->diag);
	}
}

/* Reads path through s; a failure other than absence or size is reported once, as the FAT
 * reader says it (it names the clusters) with whose file it is. */
static int menu_read(struct esp_session *s, const char *path, char **text, size_t *len,
		     struct report *r)
{
	struct report q;

	report_init(&q, false);
	int rc = esp_read_file(s, path, text, len, &q.diag);
	if (rc && rc != AS_ENOENT && rc != AS_ETOOBIG) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		report_printf(r, DIAG_ERROR, it ? it->code : "io.read",
			      "%s on partition %u cannot be read: %.900s", path + (path[0] == '/'),
			      s->number, it ? it->msg : as_strerror(rc));
	}
	report_free(&q);
	return rc;
}

/* One directory entry of /loader/entries, judged and added as the loaders do at boot
 * (common/bls_fat.c): the same functions decide. */
static int scan_one(void *ctx, const char *name, bool is_dir, uint64_t size)
{
	struct scan *sc = ctx;
	char path[FAT_PATH_MAX + 32];
	char *text = NULL;
	size_t len;

	/* (a FAT file is smaller than 4 GiB; a larger one is too big all the same) */
	switch (bls_dir_entry(sc->bls, name, is_dir, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
			      &sc->r->diag)) {
	case BLS_STOP:
		return ESP_LIST_STOP;
	case BLS_READ:
		break;
	default:
		return 0;
	}
	snprintf(path, sizeof path, BLS_ENTRIES_DIR "/%s", name);
	int rc = menu_read(sc->s, path, &text, &len, sc->r);
	if (rc == AS_ENOENT)
		report_printf(sc->r, DIAG_ERROR, "io.read", "%s is listed in %s but cannot be opened",
			      path, BLS_ENTRIES_DIR);
	if (rc) {
		sc->err = rc;
		return ESP_LIST_STOP;
	}
	bls_menu_file(&sc->m->cfg, sc->bls, text, len, &sc->r->diag);
	free(text);
	return 0;
}

/* The menu with the Boot Loader Specification's files (bls) and unified kernel images (uki:
 * /EFI/Linux, and anysector.cfg's uki entries read) or without. */
static int load(struct esp_session *s, bool bls, bool uki, struct boot_menu *m, struct report *r)
{
	struct scan sc = { s, m, r, xcalloc(1, sizeof *sc.bls), 0, 0, NULL,
			   xmalloc(UKI_ENTRY_BUF) };
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof *m);
	m->timeout_from = "built-in";
	rc = menu_read(s, "/" CFG_FILE_NAME, &text, &len, r);
	if (rc == AS_ETOOBIG) {
		report_printf(r, DIAG_ERROR, "boot.config_size",
			      "%s is more than the %u bytes the loaders read", CFG_FILE_NAME,
			      CFG_FILE_MAX_BYTES);
		goto out;
	}
	if (rc && rc != AS_ENOENT)
		goto out;
	if (!rc) {
		m->cfg_text = text;
		m->cfg_len = len;
	}
	if ((rc = cfg_parse_text(text ? text : "", len, &m->cfg, &r->diag)))
		goto out;

	if (!bls) {   /* a locked loader reads neither /loader/entries nor loader.conf */
		m->timeout_from = m->cfg.timeout_line ? CFG_FILE_NAME : "built-in";
		m->valid = !cfg_menu_check(&m->cfg, &r->diag);
		goto out;
	}
	if (uki)
		fill_cfg_ukis(&sc);   /* as bls_load_fat does it (common/uki.h) */
	bls_menu_begin(&m->cfg);
	rc = esp_list(s, BLS_ENTRIES_DIR, scan_one, &sc);
	if (rc == AS_ENOENT || rc == AS_ENOTDIR || rc == ESP_LIST_STOP)
		rc = 0;
	if (!rc)
		rc = sc.err;
	if (rc)
		goto out;
	rc = uki ? esp_list(s, UKI_DIR, scan_uki, &sc) : 0;
	if (rc == AS_ENOENT || rc == AS_ENOTDIR || rc == ESP_LIST_STOP)
		rc = 0;
	if (rc)
		goto out;
	rc = menu_read(s, BLS_LOADER_CONF, &text, &len, r);
	if (!rc && len > BLS_FILE_MAX) {
		report_printf(r, DIAG_ERROR, "bls.too_big", "%s is more than the %u bytes "
			      "anysector reads of a loader file: left out", BLS_LOADER_CONF,
			      BLS_FILE_MAX);
	} else if (!rc) {
		bls_loader_parse(text, len, &m->loader, &r->diag);
		m->has_loader = true;
	}
	if (!rc)
		free(text);
	rc = 0;
	bls_menu_finish(&m->cfg, m->has_loader ? &m->loader : NULL);
	m->timeout_from = m->cfg.timeout_line ? CFG_FILE_NAME
			  : m->has_loader && m->loader.has_timeout ? "loader.conf" : "built-in";
	m->valid = !cfg_menu_check(&m->cfg, &r->diag);
out:
	for (unsigned i = 0; i < m->cfg.nentries; i++) {
		const struct cfg_entry *e = &m->cfg.entries[i];
		m->src[i].bls = e->bls;
		snprintf(m->src[i].path, sizeof m->src[i].path, "%s%s",
			 !e->bls ? "/" CFG_FILE_NAME : e->kind == CFG_KIND_UKI ? UKI_DIR "/"
			 : BLS_ENTRIES_DIR "/", e->file);
	}
	free(sc.bls);
	free(sc.buf);
	return rc;
}

int boot_menu_load(struct esp_session *s, struct boot_menu *m, struct report *r)
{
	return load(s, true, true, m, r);
}

int boot_menu_load_as(struct esp_session *s, bool bls, struct boot_menu *m, struct report *r)
{
	return load(s, bls, true, m, r);
}

/* The entries of m that the legacy-gap stage2 cannot boot: /EFI/Linux's (left out of its menu)
 * into *type2, anysector.cfg's uki entries (shown "(UEFI only)") into *cfg. */
static void count_ukis(const struct boot_menu *m, unsigned *type2, unsigned *cfg)
{
	*type2 = *cfg = 0;
	for (unsigned i = 0; i < m->cfg.nentries; i++)
		if (m->cfg.entries[i].kind == CFG_KIND_UKI)
			++*(m->cfg.entries[i].bls ? type2 : cfg);
}

enum gap_bios boot_menu_gap(struct esp_session *s, const struct boot_menu *m, struct report *r)
{
	unsigned type2, cfg;
	char what[300] = "";

	count_ukis(m, &type2, &cfg);
	if (!type2 && !cfg)
		return GAP_BIOS_SAME;
	int n = 0;
	if (type2)
		n = snprintf(what, sizeof what, "its menu leaves out the %u entr%s of %s", type2,
			     type2 == 1 ? "y" : "ies", UKI_DIR);
	if (cfg)
		snprintf(what + n, sizeof what - (size_t)n, "%sshows %s's %u uki entr%s as UEFI only",
			 type2 ? " and " : "its menu ", CFG_FILE_NAME, cfg, cfg == 1 ? "y" : "ies");
	/* the menu stage2 builds there, for what it boots */
	struct boot_menu *g = xcalloc(1, sizeof *g);
	struct report q;
	report_init(&q, false);
	int def = !load(s, true, false, g, &q) && g->valid ? cfg_default_index(&g->cfg) : -1;
	const struct cfg_entry *d = def >= 0 ? &g->cfg.entries[def] : NULL;
	enum gap_bios how = !d ? GAP_BIOS_NOTHING : d->kind == CFG_KIND_UKI ? GAP_BIOS_WAITS
			    : GAP_BIOS_OTHERS;
	report_printf(r, how == GAP_BIOS_NOTHING ? DIAG_ERROR : DIAG_WARN, "boot.gap_uki",
		      "the legacy-gap stage2 on this disk cannot boot a unified kernel image "
		      "(they start under UEFI only): under BIOS %s, %s%s%s", what,
		      how == GAP_BIOS_NOTHING ? "so it has no entry to boot there"
		      : how == GAP_BIOS_WAITS ? "and it waits at the menu for a key, its default '"
		      : "and it boots '", d ? d->name : "",
		      how == GAP_BIOS_WAITS ? "' being one of them" : how == GAP_BIOS_OTHERS ?
		      "' by default" : "");
	report_free(&q);
	boot_menu_free(g);
	free(g);
	return how;
}

void boot_menu_free(struct boot_menu *m)
{
	free(m->cfg_text);
	m->cfg_text = NULL;
}

int boot_menu_find(const struct boot_menu *m, const char *name)
{
	return cfg_find(&m->cfg, name);
}

unsigned entry_boot_files(const struct cfg_entry *e, const char *files[1 + CFG_MAX_INITRDS])
{
	unsigned n = 0;

	if (e->kind == CFG_KIND_CHAIN || e->partition)
		return 0;
	files[n++] = e->kernel;
	for (unsigned k = 0; k < e->ninitrd; k++)
		files[n++] = e->initrd[k];
	return n;
}
