/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: boot partitions of anysector.cfg, /loader/loader.conf and /loader/entries
 * files made from arbitrary bytes. `list`'s reader (tools/esp/bootmenu.c boot_menu_load, over
 * the files written to a directory, as a mounted boot partition is read) and the loaders' shared
 * code (common/bls_fat.c and bls_menu.c, as bls_load_fat runs them, here over the files in the
 * input's order and again in the reverse order) must build the same menu: the same entries in
 * the same order with the same strings, titles, default and timeout; and one the loaders can
 * use: at most CFG_MENU_MAX entries, the /loader/entries ones sorted, every string inside the
 * arena.
 *
 * Input: records split at NUL bytes: anysector.cfg's text (empty: no file), loader.conf's
 * (empty: none), then entry files, each its name up to the first newline and its text after. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bls.h"
#include "common/menu.h"
#include "tests/fuzz/fuzz_diag.h"
#include "tools/base/report.h"
#include "tools/dev/hostdev.h"
#include "tools/esp/bootmenu.h"
#include "tools/esp/espfs.h"

#define MAX_FILES 16

struct file {
	char name[BLS_NAME_MAX + 1];
	const char *text;
	size_t len;
};

struct input {
	const char *cfg, *loader;
	size_t cfg_len, loader_len;
	struct file f[MAX_FILES];
	unsigned n;
};

static char root[256];

/* The next record of [*p, end): its start and length. */
static const char *record(const uint8_t **p, const uint8_t *end, size_t *len)
{
	const uint8_t *s = *p, *e = s;
	while (e < end && *e)
		e++;
	*len = (size_t)(e - s);
	*p = e < end ? e + 1 : e;
	return (const char *)s;
}

/* A file name Linux takes ('/' and control bytes left out, at most 255 bytes), once. */
static bool take_name(struct input *in, const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o < BLS_NAME_MAX; i++)
		if (s[i] != '/' && (unsigned char)s[i] >= 0x20)
			out[o++] = s[i];
	out[o] = 0;
	if (!o || !strcmp(out, ".") || !strcmp(out, ".."))
		return false;
	for (unsigned i = 0; i < in->n; i++)
		if (!strcmp(in->f[i].name, out))
			return false;
	return true;
}

static void decode(const uint8_t *data, size_t size, struct input *in)
{
	const uint8_t *p = data, *end = data + size;
	memset(in, 0, sizeof *in);
	in->cfg = record(&p, end, &in->cfg_len);
	in->loader = record(&p, end, &in->loader_len);
	while (p < end && in->n < MAX_FILES) {
		size_t len, nl = 0;
		const char *r = record(&p, end, &len);
		while (nl < len && r[nl] != '\n')
			nl++;
		struct file *f = &in->f[in->n];
		if (!take_name(in, r, nl, f->name))
			continue;
		f->text = r + (nl < len ? nl + 1 : len);
		f->len = len - (size_t)(f->text - r);
		in->n++;
	}
}

static void write_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[600];
	snprintf(path, sizeof path, "%s%s/%s", root, dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(text, 1, len, f) != len) || fclose(f))
		__builtin_trap();
}

static void clear_dir(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s%s", root, dir);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char fp[900];
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(fp, sizeof fp, "%s/%s", path, e->d_name);
		unlink(fp);
	}
	if (d)
		closedir(d);
}

static void remove_tree(void)
{
	char d[300];
	clear_dir("/loader/entries");
	clear_dir("/loader");
	clear_dir("");
	snprintf(d, sizeof d, "%s/loader/entries", root);
	rmdir(d);
	snprintf(d, sizeof d, "%s/loader", root);
	rmdir(d);
	rmdir(root);
}

/* The boot partition as a directory: root/anysector.cfg, root/loader/{loader.conf,entries/},
 * under $TMPDIR, removed at exit. */
static void write_tree(const struct input *in)
{
	if (!root[0]) {
		atexit(remove_tree);
		const char *t = getenv("TMPDIR");
		snprintf(root, sizeof root, "%s/fuzz-menu.XXXXXX", t && t[0] ? t : "/tmp");
		if (!mkdtemp(root))
			__builtin_trap();
		char d[300];
		snprintf(d, sizeof d, "%s/loader", root);
		mkdir(d, 0755);
		snprintf(d, sizeof d, "%s/loader/entries", root);
		mkdir(d, 0755);
	}
	clear_dir("/loader/entries");
	clear_dir("/loader");
	clear_dir("");
	if (in->cfg_len)
		write_file("", CFG_FILE_NAME, in->cfg, in->cfg_len);
	if (in->loader_len)
		write_file("/loader", "loader.conf", in->loader, in->loader_len);
	for (unsigned i = 0; i < in->n; i++)
		write_file("/loader/entries", in->f[i].name, in->f[i].text, in->f[i].len);
}

/* What the loaders do (common/bls_fat.c bls_load_fat), over the files in the given order.
 * Returns cfg_parse_text's code. */
static int loaders(const struct input *in, bool reverse, struct cfg *c)
{
	static struct bls_scratch s;
	struct diag d = { .emit = fuzz_emit };
	int rc = cfg_parse_text(in->cfg, in->cfg_len, c, &d);

	if (rc)
		return rc;
	memset(&s, 0, sizeof s);
	bls_menu_begin(c);
	for (unsigned k = 0; k < in->n; k++) {
		const struct file *f = &in->f[reverse ? in->n - 1 - k : k];
		int j = bls_dir_entry(&s, f->name, false, (uint32_t)f->len, &d);
		if (j == BLS_STOP)
			break;
		if (j == BLS_READ)
			bls_menu_file(c, &s, f->text, f->len, &d);
	}
	bool conf = in->loader_len && in->loader_len <= BLS_FILE_MAX;
	if (conf)
		bls_loader_parse(in->loader, in->loader_len, &s.l, &d);
	bls_menu_finish(c, conf ? &s.l : NULL);
	cfg_menu_check(c, &d);
	return 0;
}

static void same_menu(const struct cfg *a, const struct cfg *b)
{
	char ta[1024], tb[1024];

	if (a->nentries != b->nentries || a->timeout != b->timeout ||
	    cfg_default_index(a) != cfg_default_index(b) ||
	    cfg_default_missing(a) != cfg_default_missing(b))
		__builtin_trap();
	for (unsigned i = 0; i < a->nentries; i++) {
		const struct cfg_entry *x = &a->entries[i], *y = &b->entries[i];
		for (unsigned k = 0; k < 12; k++)
			if (strcmp(x->str[k], y->str[k]))
				__builtin_trap();
		menu_title(x, ta, sizeof ta - 1);
		menu_title(y, tb, sizeof tb - 1);
		if (strcmp(ta, tb) || x->ninitrd != y->ninitrd || x->kind != y->kind ||
		    x->tries_left != y->tries_left || x->tries_done != y->tries_done ||
		    x->bls != y->bls || x->show_file != y->show_file)
			__builtin_trap();
	}
}

/* What a loader may rely on. */
static void usable(const struct cfg *c)
{
	uintptr_t lo = (uintptr_t)c->text, hi = lo + c->text_used;

	if (c->nentries > CFG_MENU_MAX || c->text_used > CFG_TEXT_MAX)
		__builtin_trap();
	for (unsigned i = c->first_bls; i < c->nentries; i++) {
		const struct cfg_entry *e = &c->entries[i];
		for (unsigned k = 0; k < 12; k++)
			if ((uintptr_t)e->str[k] < lo || (uintptr_t)e->str[k] >= hi)
				__builtin_trap();
		if (!e->bls || e->kernel[0] != '/' || e->ninitrd > CFG_MAX_INITRDS ||
		    (i > c->first_bls && bls_compare(&c->entries[i - 1], e) >= 0))
			__builtin_trap();
	}
	int d = cfg_default_index(c);
	if (c->nentries ? d < 0 || (unsigned)d >= c->nentries : d != -1)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct input in;
	static struct cfg fwd, rev;
	static struct boot_menu m;
	static struct hostdev h;                 /* read-only: no lock to take */
	struct esp_session s;
	struct report r;

	decode(data, size, &in);
	write_tree(&in);
	int rc = loaders(&in, false, &fwd);
	if (loaders(&in, true, &rev) != rc)
		__builtin_trap();

	memset(&s, 0, sizeof s);
	report_init(&r, false);
	if (esp_open_mounted(&s, &h, 0, 0, 1, root))
		__builtin_trap();
	int lrc = boot_menu_load(&s, &m, &r);
	if ((lrc != 0) != (rc != 0))
		__builtin_trap();
	if (!rc) {
		usable(&fwd);
		same_menu(&fwd, &rev);
		same_menu(&fwd, &m.cfg);
	}
	boot_menu_free(&m);
	esp_close(&s);
	report_free(&r);
	return 0;
}
