/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/ops/owned.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/config.h"
#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/report.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "common/fat_path.h"
#include "tools/esp/espfs.h"

/* An EFI program larger than this is no boot loader; it is not read to be named. */
#define OWNED_EFI_MAX (64u << 20)

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

const struct owned_file *owned_find(const struct owned *o, const char *path)
{
	for (unsigned i = 0; i < o->n; i++)
		if (fat_path_eq(o->f[i].path, path))
			return &o->f[i];
	return NULL;
}

/* Adds the line (path, sha) unless it is there. */
static void put_line(struct owned *o, const char *path, const uint8_t sha[SHA256_BYTES])
{
	for (unsigned i = 0; i < o->n; i++)
		if (fat_path_eq(o->f[i].path, path) && !memcmp(o->f[i].sha, sha, SHA256_BYTES))
			return;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->f = xrealloc(o->f, o->cap * sizeof *o->f);
	}
	struct owned_file *f = &o->f[o->n++];
	snprintf(f->path, sizeof f->path, "%s", path);
	memcpy(f->sha, sha, SHA256_BYTES);
}

/* One line "HEX  /PATH": the hash, white space, an absolute path without control characters.
 * Returns 0 or AS_ECORRUPT. */
static int parse_line(const char *p, size_t n, struct owned *o)
{
	uint8_t sha[SHA256_BYTES];
	char path[FAT_PATH_MAX + 32];

	if (n < 2 * SHA256_BYTES + 2)
		return AS_ECORRUPT;
	for (unsigned i = 0; i < SHA256_BYTES; i++) {
		int hi = hexval(p[2 * i]), lo = hexval(p[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return AS_ECORRUPT;
		sha[i] = (uint8_t)(hi << 4 | lo);
	}
	size_t at = 2 * SHA256_BYTES;
	if (p[at] != ' ' && p[at] != '\t')
		return AS_ECORRUPT;
	while (at < n && (p[at] == ' ' || p[at] == '\t'))
		at++;
	size_t len = n - at;
	if (!len || p[at] != '/' || len >= sizeof path)
		return AS_ECORRUPT;
	for (size_t i = at; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7F)
			return AS_ECORRUPT;
	memcpy(path, p + at, len);
	path[len] = 0;
	if (o->n >= OWNED_MAX_FILES)
		return AS_ECORRUPT;
	put_line(o, path, sha);
	return 0;
}

bool owned_parse(const char *text, size_t len, struct owned *o, char *why, size_t cap)
{
	unsigned line = 0;

	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		const char *p = text + at;
		at += n + (nl ? 1 : 0);
		line++;
		if (n && p[n - 1] == '\r')
			n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n || p[0] == '#')
			continue;
		if (parse_line(p, n, o)) {
			snprintf(why, cap, "%s line %u is not 'SHA256 /PATH'%s", OWNED_FILE_NAME, line,
				 o->n >= OWNED_MAX_FILES ? " (or one file too many)" : "");
			return false;
		}
	}
	return true;
}

static int by_path(const void *a, const void *b)
{
	const struct owned_file *x = a, *y = b;
	int c = strcasecmp(x->path, y->path);
	return c ? c : memcmp(x->sha, y->sha, SHA256_BYTES);
}

char *owned_text(const struct owned *o)
{
	struct owned_file *sorted = xcalloc(o->n + 1, sizeof *sorted);
	static const char head[] =
		"# " OWNED_FILE_NAME ": the files anysector wrote on this partition, with their\n"
		"# SHA-256. anysector replaces and deletes only these (see anysector(8)).\n";
	size_t cap = sizeof head + (size_t)o->n * (2 * SHA256_BYTES + sizeof sorted->path + 4);
	char *out = xmalloc(cap);
	size_t at = (size_t)snprintf(out, cap, "%s", head);

	memcpy(sorted, o->f, o->n * sizeof *sorted);
	qsort(sorted, o->n, sizeof *sorted, by_path);
	for (unsigned i = 0; i < o->n; i++) {
		for (unsigned k = 0; k < SHA256_BYTES; k++)
			at += (size_t)snprintf(out + at, cap - at, "%02x", sorted[i].sha[k]);
		at += (size_t)snprintf(out + at, cap - at, "  %s\n", sorted[i].path);
	}
	free(sorted);
	return out;
}

bool owned_by_name(const char *path)
{
	return fat_path_eq(path, "/" CFG_FILE_NAME) || fat_path_eq(path, "/" OWNED_FILE_NAME);
}

enum own_state owned_state(const struct owned *o, struct esp_session *s, const char *path)
{
	uint8_t now[SHA256_BYTES];
	bool is_dir = false;

	if (!esp_exists(s, path, &is_dir))
		return OWN_ABSENT;
	if (owned_by_name(path))
		return OWN_YES;
	if (!owned_find(o, path) || is_dir)
		return OWN_FOREIGN;
	if (esp_sha256(s, path, now))
		return OWN_CHANGED;
	for (unsigned i = 0; i < o->n; i++)
		if (fat_path_eq(o->f[i].path, path) && !memcmp(now, o->f[i].sha, SHA256_BYTES))
			return OWN_YES;
	return OWN_CHANGED;
}

const char *owned_why_not(enum own_state st)
{
	return st == OWN_CHANGED ? "it changed since anysector wrote it"
				 : "anysector did not write it";
}

int owned_record(struct owned *o, struct esp_session *s, const char *path,
		 const uint8_t *before)
{
	uint8_t sha[SHA256_BYTES];
	int err;

	if (owned_by_name(path))
		return 0;
	if ((err = esp_sha256(s, path, sha))) {
		t_error("esp.read", "%s on partition %u cannot be read back: %s", path, s->number,
			as_strerror(err));
		return EXIT_ERRORS;
	}
	return owned_note(o, path, sha, before);
}

int owned_note(struct owned *o, const char *path, const uint8_t sha[SHA256_BYTES],
	       const uint8_t *before)
{
	if (owned_by_name(path))
		return 0;
	owned_forget(o, path);
	if (o->n + 2 > OWNED_MAX_FILES) {
		t_error("refuse.owned_full", "%s would list more than %u files; remove entries first",
			OWNED_FILE_NAME, OWNED_MAX_FILES);
		return EXIT_REFUSED;
	}
	if (before)
		put_line(o, path, before);
	put_line(o, path, sha);
	o->changed = true;
	return 0;
}

void owned_forget(struct owned *o, const char *path)
{
	for (unsigned i = o->n; i-- > 0;)
		if (fat_path_eq(o->f[i].path, path)) {
			memmove(&o->f[i], &o->f[i + 1], (o->n - i - 1) * sizeof *o->f);
			o->n--;
			o->changed = true;
		}
}

int owned_store(struct owned *o, struct esp_session *s)
{
	if (!o->changed)
		return 0;
	char *text = owned_text(o);
	int rc = esp_put_text(s, text, "/" OWNED_FILE_NAME);
	free(text);
	if (!rc)
		o->changed = false;
	return rc;
}

/* Reads an EFI program of s and tells what it is. Returns 0 or an AS_* code. */
static int inspect(struct esp_session *s, const char *path, struct efi_binary *b)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = esp_read_max(s, path, OWNED_EFI_MAX, &buf, &len, NULL);
	if (!rc)
		efi_binary_inspect((const uint8_t *)buf, len, b);
	free(buf);
	return rc;
}

const char *owned_describe(struct esp_session *s, const char *path, char *buf, size_t cap)
{
	struct efi_binary b;
	buf[0] = 0;
	if (inspect(s, path, &b))
		return buf;
	if (!b.pe)
		snprintf(buf, cap, "a file that is not an EFI program (no PE header)");
	else
		efi_binary_text(&b, buf, cap);
	return buf;
}

/* Takes path as anysector's with the bytes it has now (the migration rule). */
static void migrate(struct owned *o, struct esp_session *s, const char *path)
{
	uint8_t sha[SHA256_BYTES];
	bool is_dir = false;
	if (owned_find(o, path) || !esp_exists(s, path, &is_dir) || is_dir ||
	    esp_sha256(s, path, sha) || o->n >= OWNED_MAX_FILES)
		return;
	put_line(o, path, sha);
	o->migrated++;
	o->changed = true;
}

static bool is_component(const struct efi_binary *b, const char *name)
{
	return b->pe && !strcmp(b->component, name);
}

/* The loader install put at the firmware's fallback path, and shim's files with it. */
static void migrate_loader(struct owned *o, struct esp_session *s)
{
	static const char *const boot = "/EFI/BOOT/BOOTX64.EFI";
	static const char *const second = "/EFI/BOOT/" SHIM_SECOND_STAGE;
	struct efi_binary b, l;

	if (inspect(s, boot, &b))
		return;
	if (is_component(&b, "anysector")) {
		migrate(o, s, boot);
		return;
	}
	if (!is_component(&b, "shim") || inspect(s, second, &l) || !is_component(&l, "anysector"))
		return;
	migrate(o, s, boot);
	migrate(o, s, second);
	migrate(o, s, "/EFI/BOOT/mmx64.efi");
}

/* Whether file lies directly in /NAME, the directory add makes for the entry called name. */
static bool in_entry_dir(const char *name, const char *file)
{
	size_t n = strlen(name);
	if (!strcasecmp(name, "EFI") || !strcasecmp(name, "loader"))
		return false;
	if (file[0] != '/' || strncasecmp(file + 1, name, n) || file[1 + n] != '/')
		return false;
	const char *rest = file + 2 + n;
	return *rest && !strchr(rest, '/') && !strchr(rest, '\\');
}

static void migrate_entries(struct owned *o, struct esp_session *s, const struct boot_menu *m)
{
	for (unsigned i = 0; m && i < m->cfg.nentries; i++) {
		const char *files[1 + CFG_MAX_INITRDS];
		if (m->src[i].bls)
			continue;
		unsigned n = entry_boot_files(&m->cfg.entries[i], files);
		for (unsigned k = 0; k < n; k++)
			if (in_entry_dir(m->cfg.entries[i].name, files[k]))
				migrate(o, s, files[k]);
	}
}

bool owned_read(struct owned *o, struct esp_session *s, char *why, size_t cap)
{
	char *text = NULL;
	size_t len = 0;
	int rc = esp_read_file(s, "/" OWNED_FILE_NAME, &text, &len, NULL);

	if (rc == AS_ENOENT)
		return true;
	if (rc) {
		snprintf(why, cap, "%s cannot be read: %s", OWNED_FILE_NAME, as_strerror(rc));
		return false;
	}
	o->present = true;
	bool ok = owned_parse(text, len, o, why, cap);
	free(text);
	return ok;
}

int owned_load(struct owned *o, struct esp_session *s, const struct boot_menu *m)
{
	char why[300];

	memset(o, 0, sizeof *o);
	if (!owned_read(o, s, why, sizeof why)) {
		t_error("esp.owned", "partition %u: %s; fix or delete it (anysector then takes its "
			"files again by the rule of anysector(8) \"OWNERSHIP\")", s->number, why);
		return EXIT_ERRORS;
	}
	if (!o->present) {
		migrate_loader(o, s);
		migrate_entries(o, s, m);
	}
	return 0;
}

void owned_free(struct owned *o)
{
	free(o->f);
	memset(o, 0, sizeof *o);
}
