/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/bootmenu.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "tools/base/util.h"

struct scan {
	struct esp_session *s;
	struct boot_menu *m;
	struct report *r;
	struct bls_menu *menu;
	struct bls_entry *parsed;           /* every valid entry file, to find its source again */
	char (*paths)[FAT_PATH_MAX + 32];
	unsigned n, seen;
	int err;
};

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

/* One file of /loader/entries, read and judged as bls_load_fat does at boot. */
static int scan_one(void *ctx, const char *name, bool is_dir, uint64_t size)
{
	struct scan *sc = ctx;
	size_t n = strlen(name), sl = sizeof BLS_SUFFIX - 1;
	char path[FAT_PATH_MAX + 32];
	char *text = NULL;
	size_t len;

	if (++sc->seen > BLS_FILES_MAX) {
		report_printf(sc->r, DIAG_WARN, "bls.too_many_files",
			      BLS_ENTRIES_DIR " has more than %u entries; the loaders read no more",
			      BLS_FILES_MAX);
		return ESP_LIST_STOP;
	}
	if (is_dir || n <= sl || strcasecmp(name + n - sl, BLS_SUFFIX))
		return 0;
	snprintf(path, sizeof path, BLS_ENTRIES_DIR "/%s", name);
	if (size > BLS_FILE_MAX) {
		report_printf(sc->r, DIAG_ERROR, "bls.too_big",
			      "%s is %llu bytes; anysector reads loader files of up to %u bytes: left "
			      "out", path, (unsigned long long)size, BLS_FILE_MAX);
		sc->m->left_out++;
		return 0;
	}
	int rc = menu_read(sc->s, path, &text, &len, sc->r);
	if (rc) {
		sc->err = rc;
		return ESP_LIST_STOP;
	}
	struct bls_entry *e = &sc->parsed[sc->n];
	rc = bls_parse(text, len, path, e, &sc->r->diag);
	free(text);
	if (rc) {
		sc->m->left_out++;
		return 0;
	}
	unsigned before = sc->m->cfg.nentries;
	bls_menu_add(sc->menu, &sc->m->cfg, e, &sc->r->diag);
	if (sc->m->cfg.nentries == before)
		sc->m->left_out++;
	snprintf(sc->paths[sc->n++], sizeof sc->paths[0], "%s", path);
	return 0;
}

int boot_menu_load(struct esp_session *s, struct boot_menu *m, struct report *r)
{
	struct bls_menu *menu = xcalloc(1, sizeof *menu);
	struct scan sc = { s, m, r, menu, xcalloc(BLS_FILES_MAX, sizeof *sc.parsed),
			   xcalloc(BLS_FILES_MAX, sizeof *sc.paths), 0, 0, 0 };
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof *m);
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
	for (unsigned i = 0; i < m->cfg.nentries; i++)
		snprintf(m->src[i].path, sizeof m->src[i].path, "/%s", CFG_FILE_NAME);

	bls_menu_begin(menu, &m->cfg);
	rc = esp_list(s, BLS_ENTRIES_DIR, scan_one, &sc);
	if (rc == AS_ENOENT || rc == AS_ENOTDIR || rc == ESP_LIST_STOP)
		rc = 0;
	if (!rc)
		rc = sc.err;
	if (rc)
		goto out;
	rc = menu_read(s, BLS_LOADER_CONF, &text, &len, r);
	if (!rc && len > BLS_FILE_MAX) {
		report_printf(r, DIAG_ERROR, "bls.too_big",
			      "%s is %zu bytes; anysector reads loader files of up to %u bytes: left "
			      "out", BLS_LOADER_CONF, len, BLS_FILE_MAX);
	} else if (!rc) {
		bls_loader_parse(text, len, &m->loader, &r->diag);
		m->has_loader = true;
	}
	if (!rc)
		free(text);
	rc = 0;
	bls_menu_finish(menu, &m->cfg, m->has_loader ? &m->loader : NULL);
	m->timeout_from = m->cfg.timeout_line ? CFG_FILE_NAME
			  : m->has_loader && m->loader.has_timeout ? "loader.conf" : "built-in";
	for (unsigned i = menu->first; i < m->cfg.nentries; i++) {
		for (unsigned k = 0; k < sc.n; k++) {
			if (strcasecmp(sc.parsed[k].key.id, m->cfg.entries[i].name))
				continue;
			m->src[i].bls = true;
			m->src[i].b = sc.parsed[k];
			snprintf(m->src[i].path, sizeof m->src[i].path, "%s", sc.paths[k]);
			break;
		}
	}
	m->valid = !cfg_menu_check(&m->cfg, &r->diag);
out:
	free(menu);
	free(sc.parsed);
	free(sc.paths);
	return rc;
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
