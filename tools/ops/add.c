/* SPDX-License-Identifier: BSD-2-Clause */
/* add as a write plan: kernels and initrds onto the ESP, entries into anysector.cfg. */
#include "tools/ops/add.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/bls.h"
#include "common/errors.h"
#include "common/linux.h"
#include "common/pin.h"
#include "common/uki.h"
#include "tools/ops/lockcfg.h"
#include "tools/base/exit_codes.h"
#include "tools/base/util.h"
#include "tools/boot/bstate_disk.h"
#include "tools/disk/part_file.h"
#include "tools/esp/cfgedit.h"
#include "common/fat_path.h"
#include "tools/esp/hashfile.h"
#include "tools/ops/menu_edit.h"
#include "tools/ops/state_edit.h"

static bool has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t')
			return true;
	return false;
}

/* Warns about a kernel that one of the firmware paths will refuse. */
static void check_kernel(const char *path)
{
	uint8_t buf[4096];
	FILE *f = fopen(path, "rb");
	size_t n;
	struct report q;

	if (!f)
		return;
	n = fread(buf, 1, sizeof buf, f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	report_init(&q, false);
	struct linux_header lh;
	if (linux_header_parse(buf, n, (uint64_t)(size > 0 ? size : 0), &lh, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_WARN);
		t_warn("add.kernel_bios", "%s is not a kernel the BIOS loader can start: %s", path,
		       it ? it->msg : "not a bzImage");
	}
	report_free(&q);
	if (n < 2 || buf[0] != 'M' || buf[1] != 'Z')
		t_warn("add.kernel_efi", "%s has no PE header: UEFI firmware cannot start it", path);
}

static int host_reader(void *ctx, uint64_t off, void *buf, size_t len)
{
	FILE *f = ctx;
	if (fseeko(f, (off_t)off, SEEK_SET) || fread(buf, 1, len, f) != len)
		return AS_EIO;
	return 0;
}

/* add --uki: the file must be a unified kernel image the loaders take, judged as they judge it
 * (common/uki.h uki_entry). Returns 0 or an exit code. */
static int check_uki(const char *path)
{
	struct bls_entry *e = xcalloc(1, sizeof *e);
	char *buf = xmalloc(UKI_ENTRY_BUF);
	struct report q;
	int rc = EXIT_ERRORS;
	FILE *f = fopen(path, "rb");

	report_init(&q, false);
	if (!f) {
		t_error("add.file", "%s: %s", path, strerror(errno));
	} else if (fseeko(f, 0, SEEK_END) ||
		   uki_entry(path, (uint64_t)ftello(f), host_reader, f, buf, e, &q.diag)) {
		const struct report_item *it = report_first(&q, DIAG_ERROR);
		if (!it)
			it = report_first(&q, DIAG_WARN);
		t_error("add.uki", "--uki %s: %s", path, it ? it->msg : "cannot be read");
	} else {
		rc = 0;
	}
	if (f)
		fclose(f);
	report_free(&q);
	free(buf);
	free(e);
	return rc;
}

/* The anysector.cfg add starts from: the one on the ESP, which must be valid, or a new one.
 * Returns 0 or an exit code. */
static int config_load(struct txn *t, char **text)
{
	int rc = txn_load_menu(t);
	if (rc)
		return rc;
	if (t->menu->cfg_text) {
		*text = xstrdup(t->menu->cfg_text);
		return 0;
	}
	char head[160];
	snprintf(head, sizeof head,
		 "# anysector.cfg: the boot menu (see anysector(8)); written by 'anysector add'\n"
		 "timeout %u\n", t->cfg_timeout);
	*text = xstrdup(head);
	return 0;
}

/* An entry's text is one line each and its files can be read. Returns 0 or an exit code. */
static int entry_check(const struct add_entry *e)
{
	if (has_control(e->title) || has_control(e->cmdline) ||
	    (e->name && (strpbrk(e->name, " \t#") || has_control(e->name)))) {
		t_error("usage.value", "titles and command lines are one line; names one word");
		return EXIT_USAGE;
	}
	if (e->kind == CFG_KIND_CHAIN || e->partition)
		return 0;   /* the target is checked against the disk in add_entry */
	if (access(e->kernel, R_OK)) {
		t_error("add.file", "%s: %s", e->kernel, strerror(errno));
		return EXIT_ERRORS;
	}
	for (unsigned k = 0; k < e->ninitrd; k++) {
		if (access(e->initrd[k], R_OK)) {
			t_error("add.file", "%s: %s", e->initrd[k], strerror(errno));
			return EXIT_ERRORS;
		}
	}
	if (e->kind == CFG_KIND_LINUX)
		check_kernel(e->kernel);
	return e->kind == CFG_KIND_UKI ? check_uki(e->kernel) : 0;
}

/* Where an entry's files go on the ESP. */
struct entry_files {
	char kernel[CFG_NAME_MAX + 128];
	char initrd[CFG_MAX_INITRDS][CFG_NAME_MAX + 128];
	const char *initrd_list[CFG_MAX_INITRDS];
};

/* Whether dst is a file of the anysector.cfg entry add --replace takes out (name): the one
 * exception to "add replaces only anysector's files". */
static bool replaced_entry_file(const struct txn *t, const char *name, const char *dst)
{
	int i = t->replace && t->menu ? boot_menu_find(t->menu, name) : -1;
	if (i < 0 || t->menu->src[i].bls)
		return false;
	const char *files[1 + CFG_MAX_INITRDS];
	unsigned n = entry_boot_files(&t->menu->cfg.entries[i], files);
	for (unsigned k = 0; k < n; k++)
		if (fat_path_eq(files[k], dst))
			return true;
	return false;
}

/* add never replaces a file it does not own. Returns 0 or an exit code. */
static int refuse_foreign_file(struct txn *t, const char *name, const char *dst)
{
	enum own_state st;
	if (!txn_foreign(t, dst, &st) || replaced_entry_file(t, name, dst))
		return 0;
	t_error("refuse.foreign_file",
		"%s on partition %u would be replaced, but %s; nothing was written (choose "
		"another --name)", dst, t->esp.number, owned_why_not(st));
	return EXIT_REFUSED;
}

/* Copies an entry's kernel and initrds into /NAME on the ESP copy (the entry's files being
 * replaced, the menu is t->menu before the change). Returns 0 or an exit code. */
static int entry_copy_files(struct txn *t, const struct add_entry *e, const char *name,
			    struct entry_files *f)
{
	char dir[CFG_NAME_MAX + 2];
	int rc;

	if (e->kind == CFG_KIND_UKI) {
		/* the Boot Loader Specification's place: /EFI/Linux/NAME.efi */
		snprintf(f->kernel, sizeof f->kernel, UKI_DIR "/%s" UKI_SUFFIX, name);
		if ((rc = refuse_foreign_file(t, name, f->kernel)) ||
		    (rc = esp_mkdir_p(&t->esp, UKI_DIR)))
			return rc;
		return txn_put_owned(t, e->kernel, f->kernel);
	}
	entry_file_path(name, e->kernel, f->kernel, sizeof f->kernel);
	for (unsigned j = 0; j < e->ninitrd; j++) {
		entry_file_path(name, e->initrd[j], f->initrd[j], sizeof f->initrd[j]);
		f->initrd_list[j] = f->initrd[j];
	}
	if ((rc = refuse_foreign_file(t, name, f->kernel)))
		return rc;
	for (unsigned j = 0; j < e->ninitrd; j++)
		if ((rc = refuse_foreign_file(t, name, f->initrd[j])))
			return rc;
	snprintf(dir, sizeof dir, "/%s", name);
	if ((rc = esp_mkdir_p(&t->esp, dir)))
		return rc;
	if ((rc = txn_put_owned(t, e->kernel, f->kernel)))
		return rc;
	for (unsigned j = 0; j < e->ninitrd; j++)
		if ((rc = txn_put_owned(t, e->initrd[j], f->initrd[j])))
			return rc;
	return 0;
}


/* add --pin: the SHA-256 of the host files add copies (the bytes that land on the ESP), bit s of
 * *pinned for pin slot s. Returns 0 or an exit code. */
static int entry_pins(const struct txn *t, const struct add_entry *e, unsigned *pinned,
		      uint8_t pin[1 + CFG_MAX_INITRDS][SHA256_BYTES])
{
	*pinned = 0;
	/* a locked menu pins every file it boots (tools/ops/lockcfg.h): add pins what it copies */
	bool locked = t->relock || t->lock_config;
	if (!e->pin && !(locked && e->kind != CFG_KIND_CHAIN && !e->partition))
		return 0;
	for (unsigned s = 0; s <= e->ninitrd; s++) {
		const char *file = s == PIN_KERNEL ? e->kernel : e->initrd[s - PIN_INITRD];
		if (hash_host_file(file, pin[s])) {
			t_error("add.file", "%s: cannot read it to pin its SHA-256: %s", file,
				strerror(errno));
			return EXIT_ERRORS;
		}
		*pinned |= 1u << s;
	}
	return 0;
}

/* A chainload target: "hdN" (N < CFG_BIOS_DISKS) or a partition of this disk that exists. */
static int chain_target_check(struct txn *t, const char *target)
{
	char *end;
	bool disk = (target[0] == 'h' || target[0] == 'H') && (target[1] == 'd' || target[1] == 'D');
	unsigned long n = strtoul(target + (disk ? 2 : 0), &end, 10);

	if (*end || end == target + (disk ? 2 : 0) || (disk && n >= CFG_BIOS_DISKS) ||
	    (!disk && (n < 1 || n > CFG_PART_MAX))) {
		t_error("usage.chainload", "--chainload %s: give a partition number of this disk "
			"(1 to %u) or a BIOS disk hd0 to hd%u", target, CFG_PART_MAX,
			CFG_BIOS_DISKS - 1);
		return EXIT_USAGE;
	}
	if (disk)
		return 0;
	for (unsigned i = 0; i < t->di.nparts; i++)
		if (t->di.parts[i].number == n && !t->di.parts[i].container)
			return 0;
	t_error("refuse.chainload", "--chainload %s: %s has no partition %lu", target, t->h->path,
		n);
	return EXIT_REFUSED;
}

/* An efi entry's file on another partition: the partition exists and holds a FAT with that
 * file, an absolute path the config can hold. Nothing is copied. Returns 0 or an exit code. */
static int efi_on_partition_check(struct txn *t, const struct add_entry *e)
{
	if (e->kernel[0] != '/' || strlen(e->kernel) >= CFG_PATH_MAX || has_control(e->kernel)) {
		t_error("usage.efi_path", "--efi %s --partition %u: give the application's absolute "
			"path on that partition (/EFI/...), shorter than %u bytes", e->kernel,
			e->partition, CFG_PATH_MAX);
		return EXIT_USAGE;
	}
	char why[REPORT_MSG_MAX];
	if (!part_file_check(t->h, &t->di, e->partition, e->kernel, why, sizeof why))
		return 0;
	t_error("refuse.efi_partition", "--efi %s --partition %u: %s", e->kernel, e->partition,
		why);
	return EXIT_REFUSED;
}

/* Whether name is an entry of the boot menu that came from /loader/entries. */
static bool bls_name(const struct txn *t, const char *name)
{
	int i = boot_menu_find(t->menu, name);
	return i >= 0 && t->menu->src[i].bls;
}

/* The entry name for e: given or made from base (the kernel's file name); with --replace the
 * name of an anysector.cfg entry may be taken (that entry goes); a Boot Loader Specification
 * entry's never is. Returns 0 or an exit code. */
static int entry_name(struct txn *t, const struct add_entry *e, const char *base,
		      const char *text, char name[CFG_NAME_MAX])
{
	bool free_name = entry_name_pick(text, e->name, base, name);

	if (t->replace && e->name) {
		free_name = true;
		snprintf(name, CFG_NAME_MAX, "%s", e->name);
	} else if (t->replace) {
		entry_name_from_file(base, name, CFG_NAME_MAX - 4);
	}
	if (bls_name(t, name) && (e->name || t->replace)) {
		t_error("refuse.entry_exists",
			"'%s' is the Boot Loader Specification entry %s; remove it ('anysector remove') "
			"or choose another --name", name,
			t->menu->src[boot_menu_find(t->menu, name)].path);
		return EXIT_REFUSED;
	}
	/* a derived name steps past the BLS entries' names too */
	char stem[CFG_NAME_MAX];
	snprintf(stem, sizeof stem, "%s", name);
	for (unsigned k = 2; bls_name(t, name) && k < 100; k++)
		snprintf(name, CFG_NAME_MAX, "%.*s-%u", CFG_NAME_MAX - 6, stem, k);
	if (!free_name) {
		t_error("refuse.entry_exists",
			"%s already has an entry named '%s'; choose another --name, or --replace it",
			CFG_FILE_NAME, name);
		return EXIT_REFUSED;
	}
	return 0;
}

/* Adds one entry: its files onto the ESP copy, its lines to *text. With --replace an entry of
 * that name goes first; its files that nothing uses any more are deleted at the end
 * (txn_add). Returns 0 or an exit code. */
static int add_entry(struct txn *t, const struct add_entry *e, char **text)
{
	char name[CFG_NAME_MAX];
	struct entry_files f;
	int rc;

	if ((rc = entry_check(e)))
		return rc;
	if (e->kind == CFG_KIND_CHAIN && (rc = chain_target_check(t, e->kernel)))
		return rc;
	if (e->partition && (rc = efi_on_partition_check(t, e)))
		return rc;
	char base[CFG_PATH_MAX];
	snprintf(base, sizeof base, "%s%s", e->kind == CFG_KIND_CHAIN ? "chainload-" : "",
		 e->kernel);
	size_t bn = strlen(base), sl = strlen(UKI_SUFFIX);
	if (e->kind == CFG_KIND_UKI && bn > sl && !strcasecmp(base + bn - sl, UKI_SUFFIX))
		base[bn - sl] = 0;   /* named as the specification names it: the file's name */
	if ((rc = entry_name(t, e, base, *text, name)))
		return rc;
	char *cur = cfg_text_remove_entry(*text, name);
	bool replaced = cur != NULL;
	if (cur) {
		free(*text);
		*text = cur;
		if (t->nreplaced < CFG_MAX_ENTRIES)
			snprintf(t->replaced[t->nreplaced++], CFG_NAME_MAX, "%s", name);
	}
	if (e->kind == CFG_KIND_CHAIN || e->partition)
		snprintf(f.kernel, sizeof f.kernel, "%s", e->kernel);
	else if ((rc = entry_copy_files(t, e, name, &f)))
		return rc;
	uint8_t pin[1 + CFG_MAX_INITRDS][SHA256_BYTES];
	unsigned pinned;
	if ((rc = entry_pins(t, e, &pinned, pin)))
		return rc;
	cur = cfg_text_add_entry(*text, name, e->title, e->kind, f.kernel, e->partition,
				 f.initrd_list, e->ninitrd, e->cmdline, pinned, pin);
	free(*text);
	*text = cur;
	if (e->tries) {      /* the entry just added ends the text: its last line */
		cur = xmalloc(strlen(*text) + 32);
		sprintf(cur, "%s  tries   %u\n", *text, e->tries);
		free(*text);
		*text = cur;
	}
	if (e->make_default) {
		cur = cfg_text_set_default(*text, name);
		free(*text);
		*text = cur;
	}
	if (t->nadded < CFG_MAX_ENTRIES)
		snprintf(t->added[t->nadded++], CFG_NAME_MAX, "%s", name);
	char where[32] = "";
	if (e->partition)
		snprintf(where, sizeof where, " on partition %u", e->partition);
	txn_summary(t, "entry '%s' (%s %s%s%s%s) %s %s on partition %u", name,
		    e->kind == CFG_KIND_EFI ? "EFI application" : e->kind == CFG_KIND_CHAIN ?
		    "chainload" : e->kind == CFG_KIND_UKI ? "unified kernel image" : "kernel",
		    e->kernel, where, e->ninitrd ? " and initrd" : "",
		    pinned ? ", pinned by SHA-256" : "",
		    replaced ? "replaced in" : "in", CFG_FILE_NAME, t->esp.number);
	return 0;
}

struct add_args {
	const struct add_entry *entries;
	unsigned n;
};

/* One pass of add (a locked menu takes two: tools/ops/lockcfg.h txn_lock_run). */
/* An entry with --tries is counted in the boot state block (common/bootcount.h): a disk
 * without one (the legacy gap, an install for UEFI alone) is refused. */
static int tries_need_state(struct txn *t, const struct add_entry *entries, unsigned n)
{
	struct bstate_disk *d;
	const char *why;
	bool want = false;

	for (unsigned i = 0; i < n; i++)
		want |= entries[i].tries != 0;
	if (!want)
		return 0;
	d = xcalloc(1, sizeof *d);
	int rc = t->installed ? 0 : bstate_disk_read(&t->h->dev, d, &why);
	bool none = rc || !(t->installed ? t->state_planned : d->offset);
	free(d);
	if (none)
		t_error("refuse.no_state", "%s has no boot state block (see 'anysector check'), where "
			"the loaders count an entry's tries: --tries is refused; nothing was changed",
			t->h->path);
	return none ? EXIT_REFUSED : 0;
}

static int add_pass(struct txn *t, const void *arg)
{
	const struct add_entry *entries = ((const struct add_args *)arg)->entries;
	unsigned n = ((const struct add_args *)arg)->n;
	char *text = NULL;
	int rc;

	for (unsigned i = 0; i < n && !t->esp.open; i++) { /* once, before the ESP is open */
		if (entries[i].kind == CFG_KIND_CHAIN || entries[i].partition)
			continue; /* nothing copied */
		txn_expect(t, entries[i].kernel);
		for (unsigned j = 0; j < entries[i].ninitrd; j++)
			txn_expect(t, entries[i].initrd[j]);
	}
	if ((rc = tries_need_state(t, entries, n)) || (rc = txn_open_esp(t)) ||
	    (!t->lock_config && (rc = txn_lock_for_change(t))) ||
	    (rc = config_load(t, &text)))
		goto out;
	for (unsigned i = 0; i < n; i++)
		if ((rc = add_entry(t, &entries[i], &text)))
			goto out;
	if (t->set_timeout) {
		char v[16], *cur;
		snprintf(v, sizeof v, "%u", t->cfg_timeout);
		cur = cfg_text_set_key(text, "timeout", v);
		free(text);
		text = cur;
		txn_summary(t, "timeout %u s in %s", t->cfg_timeout, CFG_FILE_NAME);
	}
	if ((rc = txn_store_config(t, text)))
		goto out;
	/* the files of replaced entries that no entry uses now */
	const char *old[CFG_MAX_ENTRIES * (1 + CFG_MAX_INITRDS)];
	unsigned nold = 0;
	for (unsigned i = 0; i < t->menu->cfg.nentries; i++) {
		const struct cfg_entry *e = &t->menu->cfg.entries[i];
		bool gone = false;
		for (unsigned k = 0; k < t->nreplaced && !t->menu->src[i].bls; k++)
			gone |= !strcasecmp(t->replaced[k], e->name);
		if (!gone)
			continue;
		nold += entry_boot_files(e, old + nold);
	}
	if (!(rc = txn_drop_unused(t, old, nold)))
		rc = txn_relock(t);
out:
	free(text);
	return rc;
}

int txn_add(struct txn *t, const struct add_entry *entries, unsigned n)
{
	struct add_args a = { entries, n };
	int rc = txn_lock_run(t, add_pass, &a);

	/* an entry made again (--replace, or after remove) starts from its own tries, not from
	 * what the block still counts for the name; a new image (mkimage) has no counts */
	return rc || t->installed ? rc : txn_state_forget(t, t->added, t->nadded);
}
