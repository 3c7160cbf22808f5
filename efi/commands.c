/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/commands.h"

#include "efi/bli.h"

#include "efi/boot.h"
#include "efi/bootvol.h"
#include "efi/disks.h"
#include "efi/measure.h"
#include "efi/menu.h"

#include "common/bits.h"
#include "common/bootcount.h"
#include "common/bootinfo.h"
#include "common/errors.h"
#include "common/fat_sha256.h"
#include "common/pin.h"
#include "common/str.h"

#define CAT_CHUNK 4096u
#define PIN_CHUNK (64u * 1024u) /* pinned files are hashed this much at a time */
#define ENTRY_FAILURE_PAUSE 300 /* tenths of a second before a failed firmware boot returns */

static const char usage_text[] =
	"usage: anysector.efi [COMMAND [ARGUMENT]]\n"
	"  (none)        boot: the menu of anysector.cfg on the partition this program is on\n"
	"  info          every BlockIo device: geometry as the firmware reports it, and for\n"
	"                whole disks each partition's start and alignment\n"
	"  check         partition-table and alignment problems, and this partition's\n"
	"                anysector.cfg; status (%lasterror%) 0 clean, 1 warnings, 2 errors\n"
	"  boot [ENTRY]  boot ENTRY (its name or number) or show the menu\n"
	"  ls [PATH]     list a directory of this partition\n"
	"  cat FILE      print a file of this partition\n"
	"  help          this text\n";

static EFI_STATUS cmd_help(void)
{
	con_puts(usage_text);
	return EFI_SUCCESS;
}

static EFI_STATUS status_of(int rc)
{
	switch (rc) {
	case 0: return EFI_SUCCESS;
	case AS_ENOENT: return EFI_NOT_FOUND;
	case AS_EIO: return EFI_DEVICE_ERROR;
	case AS_ENOMEM: return EFI_OUT_OF_RESOURCES;
	case AS_EUNSUPP: return EFI_UNSUPPORTED;
	case AS_EABORT: return EFI_ABORTED;
	case AS_EINVAL: return EFI_INVALID_PARAMETER;
	default: return EFI_VOLUME_CORRUPTED;
	}
}

/* The file of pin slot of e on fs hashed and compared as the loaders do (common/pin.c): a
 * mismatch is their sentence, an error. A missing file is said by entry_files_check. */
static void entry_pin_check(struct fat_fs *fs, const struct cfg_entry *e, unsigned slot,
			    struct diag *d)
{
	struct fat_file f;
	uint8_t got[SHA256_BYTES];
	uint8_t *buf;

	if (!pin_has(e, slot) || fat_open(fs, pin_path(e, slot), &f, NULL) || f.is_dir)
		return;
	if (!(buf = efi_alloc(PIN_CHUNK))) {
		diag_error(d, "efi.nomem", "entry %s: no memory to hash %s", e->name,
			   pin_path(e, slot));
		return;
	}
	if (!fat_sha256(fs, &f, buf, PIN_CHUNK, got, d))
		pin_compare(e, slot, got, d);
	efi_free(buf);
}

static void entry_files_check(struct boot_volume *v, const struct cfg *c, struct diag *d)
{
	for (unsigned i = 0; i < c->nentries; i++) {
		const struct cfg_entry *e = &c->entries[i];
		struct fat_file f;
		struct boot_volume other;
		if (e->partition) {
			/* an efi file on another partition: is it there? */
			if (!bootvol_open_partition(v, e->partition, &other, d)) {
				if (fat_open(other.fs, e->kernel, &f, NULL) || f.is_dir)
					diag_error(d, "efi.entry_kernel", "entry %s: EFI application %s "
						   "is not a file on partition %u", e->name, e->kernel,
						   e->partition);
				else
					entry_pin_check(other.fs, e, PIN_KERNEL, d);
				bootvol_close(&other);
			}
		} else if (e->kind != CFG_KIND_CHAIN &&
			   (fat_open(v->fs, e->kernel, &f, NULL) || f.is_dir)) {
			diag_error(d, "efi.entry_kernel", "entry %s: %s %s is not a file on this "
				   "partition", e->name, e->kind == CFG_KIND_EFI ? "EFI application" :
				   "kernel", e->kernel);
		} else if (e->kind != CFG_KIND_CHAIN) {
			entry_pin_check(v->fs, e, PIN_KERNEL, d);
		}
		for (unsigned k = 0; k < e->ninitrd; k++)
			if (fat_open(v->fs, e->initrd[k], &f, NULL) || f.is_dir)
				diag_error(d, "efi.entry_initrd", "entry %s: initrd %s is not a file on "
					   "this partition", e->name, e->initrd[k]);
			else
				entry_pin_check(v->fs, e, PIN_INITRD + k, d);
	}
}

static EFI_STATUS cmd_check(void)
{
	struct con_diag cd;
	struct boot_volume v;
	struct cfg *c = efi_alloc(sizeof *c);

	con_diag_init(&cd, false);
	disks_check(&cd.d);
	con_puts("this partition:\n");
	if (c && bootvol_open(&v, &cd.d) == 0) {
		if (bootvol_load_config(&v, c, NULL, &cd.d) == 0) {
			int def = cfg_default_index(c);
			con_printf("  the menu is valid: entries %u, default %s, timeout %u s\n",
				   c->nentries, def >= 0 ? c->entries[def].name : "(none)", c->timeout);
			entry_files_check(&v, c, &cd.d);
		}
		bootvol_close(&v);
	}
	efi_free(c);
	con_printf("check: %u errors, %u warnings\n", cd.d.errors, cd.d.warnings);
	if (cd.d.errors)
		return CHECK_STATUS_ERRORS;
	return cd.d.warnings ? CHECK_STATUS_WARNINGS : EFI_SUCCESS;
}

struct ls_ctx {
	unsigned n;
};

static int ls_print(void *ctx, const struct fat_dirent *ent)
{
	struct ls_ctx *l = ctx;
	l->n++;
	if (ent->file.is_dir)
		con_printf("  <DIR>       %s\n", ent->name);
	else
		con_printf("  %10u  %s\n", ent->file.size, ent->name);
	return 0;
}

static EFI_STATUS cmd_ls(const char *path)
{
	struct con_diag cd;
	struct boot_volume v;
	struct fat_file f;
	int rc;

	con_diag_init(&cd, false);
	if ((rc = bootvol_open(&v, &cd.d)))
		return status_of(rc);
	rc = fat_open(v.fs, path, &f, &cd.d);
	if (rc == 0 && !f.is_dir) {
		con_printf("  %10u  %s\n", f.size, path);
	} else if (rc == 0) {
		struct ls_ctx l = { 0 };
		con_printf("%s:\n", path[0] ? path : "/");
		rc = fat_list(v.fs, &f, ls_print, &l, &cd.d);
		if (!l.n)
			con_puts("  (empty)\n");
	}
	bootvol_close(&v);
	return status_of(rc);
}

static EFI_STATUS cmd_cat(const char *path)
{
	struct con_diag cd;
	struct boot_volume v;
	struct fat_file f;
	char *buf = efi_alloc(CAT_CHUNK);
	int rc;

	con_diag_init(&cd, false);
	if (!buf)
		return EFI_OUT_OF_RESOURCES;
	if ((rc = bootvol_open(&v, &cd.d))) {
		efi_free(buf);
		return status_of(rc);
	}
	rc = fat_open(v.fs, path, &f, &cd.d);
	if (rc == 0 && f.is_dir) {
		diag_error(&cd.d, "efi.is_dir", "%s is a directory (try ls)", path);
		rc = AS_EISDIR;
	}
	for (uint32_t off = 0; rc == 0 && off < f.size; off += CAT_CHUNK) {
		uint32_t n = f.size - off < CAT_CHUNK ? f.size - off : CAT_CHUNK;
		if ((rc = fat_read(v.fs, &f, off, buf, n, &cd.d)))
			break;
		/* Text as text; CR is dropped (the console adds its own), other bytes show as '.'. */
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++) {
			char ch = buf[i];
			if (ch == '\r')
				continue;
			buf[k++] = (ch == '\n' || ch == '\t' || (ch >= 0x20 && ch < 0x7F)) ? ch : '.';
		}
		con_write(buf, k);
	}
	bootvol_close(&v);
	efi_free(buf);
	return status_of(rc);
}

/* Opens the volume and its config, measured (it chooses what boots); the caller closes v and
 * frees *c. */
static int open_config(struct boot_volume *v, struct cfg **c, struct diag *d)
{
	int rc;
	if (!(*c = efi_alloc(sizeof **c)))
		return AS_ENOMEM;
	if ((rc = bootvol_open(v, d)))
		return rc;
	if ((rc = bootvol_load_config(v, *c, efi_measure(d), d)))
		bootvol_close(v);
	return rc;
}

static EFI_STATUS cmd_boot(const char *which)
{
	struct con_diag cd;
	struct boot_volume v;
	struct cfg *c = NULL;
	EFI_STATUS s;
	int rc;

	con_diag_init(&cd, false);
	if ((rc = open_config(&v, &c, &cd.d))) {
		efi_free(c);
		return status_of(rc);
	}
	if (!which) {
		s = menu_run(&v, c, NULL, &cd.d);
	} else {
		int i = cfg_find(c, which);
		unsigned long long num;
		if (i < 0 && str_to_u64(which, str_len(which), &num) && num >= 1 && num <= c->nentries)
			i = (int)num - 1;
		if (i < 0) {
			diag_error(&cd.d, "efi.no_entry", "anysector.cfg has no entry %s", which);
			s = EFI_NOT_FOUND;
		} else {
			s = status_of(boot_entry(&v, &c->entries[i], c->entries[i].cmdline, &cd.d));
		}
	}
	bootvol_close(&v);
	efi_free(c);
	return s;
}

/* The boot state block (common/bootstate.h) of the boot disk, found through LBA 0 and stage2
 * as stage2 finds it (live -1: none, or not readable: said), its one-shot applied to c. NULL
 * only when there is no memory. */
static struct bstate_io *boot_state(struct boot_volume *v, struct cfg *c, struct diag *d)
{
	struct bstate_io *s = efi_alloc(sizeof *s);
	UINTN pages = 0;
	uint8_t *buf = efi_alloc_pages(STAGE2_MAX_SIZE, &pages);
	uint64_t off = 0;
	int rc;

	if (s) {
		s->disk = NULL;
		s->live = -1;
	}
	if (!s || !buf || bstate_locate(&v->disk.dev, buf, STAGE2_MAX_SIZE, &off) || !off) {
		efi_free_pages(buf, pages);
		return s;
	}
	efi_free_pages(buf, pages);
	if ((rc = bstate_load(s, &v->disk.dev, off)))
		diag_warn(d, "efi.state", "the boot state block at byte %llu cannot be read (%s)",
			  (unsigned long long)off, as_strerror(rc));
	bootcount_apply(c, s, BSTATE_FW_UEFI);
	return s;
}

EFI_STATUS cmd_boot_default(void)
{
	struct con_diag cd;
	struct boot_volume v;
	struct cfg *c = NULL;
	int rc;

	bli_start();
	con_puts("anysector\n");
	con_diag_init(&cd, false);
	if ((rc = open_config(&v, &c, &cd.d)) == 0) {
		struct bstate_io *state = boot_state(&v, c, &cd.d);
		bli_volume(&v);
		bli_requests(c);
		bli_entries(c);
		EFI_STATUS s = state ? menu_run(&v, c, state, &cd.d) : EFI_OUT_OF_RESOURCES;
		efi_free(state);
		bootvol_close(&v);
		efi_free(c);
		return s;
	}
	efi_free(c);
	con_puts("anysector cannot show a boot menu (see above). Press any key to return to the "
		 "firmware.\n");
	con_wait_key(ENTRY_FAILURE_PAUSE);
	return status_of(rc);
}

static EFI_STATUS run_info(const char *arg)
{
	(void)arg;
	return disks_info();
}

static EFI_STATUS run_check(const char *arg)
{
	(void)arg;
	return cmd_check();
}

static EFI_STATUS run_ls(const char *arg)
{
	return cmd_ls(arg ? arg : "/");
}

static EFI_STATUS run_help(const char *arg)
{
	(void)arg;
	return cmd_help();
}

struct command {
	const char *name;
	unsigned nargs_min, nargs_max;
	EFI_STATUS (*run)(const char *arg);
};

static const struct command commands[] = {
	{ "info", 0, 0, run_info }, { "check", 0, 0, run_check }, { "boot", 0, 1, cmd_boot },
	{ "ls", 0, 1, run_ls },     { "cat", 1, 1, cmd_cat },     { "help", 0, 0, run_help },
};

static const struct command *find_command(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!str_casecmp(word, commands[i].name))
			return &commands[i];
	return NULL;
}

bool cmd_is_command(const char *word)
{
	return find_command(word) != NULL;
}

EFI_STATUS cmd_run(const struct args *a)
{
	const struct command *c = find_command(a->argv[0]);
	unsigned n = a->argc - 1;

	if (!c) {
		con_printf("anysector: unknown command \"%s\"\n", a->argv[0]);
		con_puts(usage_text);
		return EFI_INVALID_PARAMETER;
	}
	if (n < c->nargs_min || n > c->nargs_max || a->truncated) {
		con_printf("anysector: wrong arguments for %s\n", c->name);
		con_puts(usage_text);
		return EFI_INVALID_PARAMETER;
	}
	return c->run(n ? a->argv[1] : NULL);
}
