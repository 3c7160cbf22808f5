/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/cmd/entry_options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/base/util.h"
#include "tools/cmd/cli.h"
#include "tools/esp/cfgedit.h"

enum opt_result entry_option(int opt, const char *arg, struct entry_list *l, const char *cmd)
{
	struct add_entry *e;

	if (opt == OPT_KERNEL || opt == OPT_EFI || opt == OPT_CHAINLOAD || opt == OPT_UKI) {
		if (l->n == CFG_MAX_ENTRIES) {
			usage_error(cmd, "at most %u entries", CFG_MAX_ENTRIES);
			return OPTION_BAD;
		}
		/* options given before the first --kernel already sit in e[0] */
		e = &l->e[l->n++];
		if (e->kernel) {
			usage_error(cmd, "--kernel, --efi, --chainload or --uki given twice for one "
				    "entry");
			return OPTION_BAD;
		}
		e->kernel = arg;
		e->kind = opt == OPT_KERNEL ? CFG_KIND_LINUX : opt == OPT_EFI ? CFG_KIND_EFI
			  : opt == OPT_UKI ? CFG_KIND_UKI : CFG_KIND_CHAIN;
		return OPTION_TAKEN;
	}
	e = &l->e[l->n ? l->n - 1 : 0];
	switch (opt) {
	case OPT_INITRD:
		if (e->ninitrd == CFG_MAX_INITRDS) {
			usage_error(cmd, "at most %u --initrd files per kernel", CFG_MAX_INITRDS);
			return OPTION_BAD;
		}
		e->initrd[e->ninitrd++] = arg;
		return OPTION_TAKEN;
	case OPT_CMDLINE:
	case OPT_TITLE:
	case OPT_NAME: {
		const char **slot = opt == OPT_CMDLINE ? &e->cmdline : opt == OPT_TITLE ? &e->title
											 : &e->name;
		if (*slot) {
			usage_error(cmd, "--%s given twice for one kernel",
				    opt == OPT_CMDLINE ? "cmdline" : opt == OPT_TITLE ? "title" : "name");
			return OPTION_BAD;
		}
		*slot = arg;
		return OPTION_TAKEN;
	}
	case OPT_DEFAULT:
		e->make_default = true;
		return OPTION_TAKEN;
	case OPT_PIN:
		e->pin = true;
		return OPTION_TAKEN;
	case OPT_TRIES: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (e->tries) {
			usage_error(cmd, "--tries given twice for one entry");
			return OPTION_BAD;
		}
		if (*end || end == arg || *arg == '-' || n < 1 || n > 255) {
			usage_error(cmd, "--tries %s: give a number of tries from 1 to 255", arg);
			return OPTION_BAD;
		}
		e->tries = (unsigned)n;
		return OPTION_TAKEN;
	}
	case OPT_PARTITION: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (e->partition) {
			usage_error(cmd, "--partition given twice for one entry");
			return OPTION_BAD;
		}
		if (*end || end == arg || *arg == '-' || n < 1 || n > CFG_PART_MAX) {
			usage_error(cmd, "--partition %s: give a partition number from 1 to %u", arg,
				    CFG_PART_MAX);
			return OPTION_BAD;
		}
		e->partition = (unsigned)n;
		return OPTION_TAKEN;
	}
	default:
		return OPTION_OTHER;
	}
}

/* A byte of a refused value, as a sentence shows it. */
static const char *byte_text(char c, char *buf, size_t cap)
{
	unsigned char u = (unsigned char)c;
	if (u > 0x20 && u < 0x7F)
		snprintf(buf, cap, "'%c'", c);
	else
		snprintf(buf, cap, "0x%02X", u);
	return buf;
}

/* The longest value + 1 (common/config.h's field sizes). */
static unsigned field_max(enum cfg_field field)
{
	switch (field) {
	case CFG_FIELD_NAME: return CFG_NAME_MAX;
	case CFG_FIELD_TITLE: return CFG_TITLE_MAX;
	case CFG_FIELD_PATH: return CFG_PATH_MAX;
	default: return CFG_CMDLINE_MAX;
	}
}

/* Refuses (a usage error) a --name, --title, --cmdline or --efi path that add would not write
 * as given (common/config.h cfg_value_fault). Returns 0 or EXIT_USAGE. */
static int value_check(const char *cmd, const char *opt, enum cfg_field field, const char *v)
{
	size_t at, n = strlen(v);
	char b[16];

	switch (cfg_value_fault(field, v, n, &at)) {
	case CFG_FAULT_NONE:
		return 0;
	case CFG_FAULT_EMPTY:
		return usage_error(cmd, "%s is empty%s", opt, field == CFG_FIELD_TITLE ?
				   " (leave it out and the menu shows the name)" : "");
	case CFG_FAULT_TOO_LONG:
		return usage_error(cmd, "%s is %zu bytes long; anysector.cfg holds at most %u%s", opt,
				   n, field_max(field) - 1,
				   field == CFG_FIELD_NAME ? " (a name is never cut)" : "");
	case CFG_FAULT_CONTROL:
		return usage_error(cmd, "%s has the control character 0x%02X at byte %zu: anysector.cfg "
				   "holds one line per value", opt, (unsigned char)v[at], at + 1);
	case CFG_FAULT_NOT_UTF8:
		return usage_error(cmd, "%s %s: byte %zu (0x%02X) is not UTF-8, which the loaders "
				   "read it as", opt, v, at + 1, (unsigned char)v[at]);
	case CFG_FAULT_EDGE_SPACE:
		return usage_error(cmd, "%s '%s' %s with white space, which the loaders drop; give it "
				   "without", opt, v, at ? "ends" : "starts");
	case CFG_FAULT_COMMENT:
		while (at && (v[at - 1] == ' ' || v[at - 1] == '\t'))
			at--;
		return usage_error(cmd, "%s '%s': the loaders read '#' at the start or after white "
				   "space as the start of a comment, and would see '%.*s'", opt, v,
				   (int)at, v);
	case CFG_FAULT_CHAR:
		return usage_error(cmd, "%s %s: %s (byte %zu) is not allowed: a name is one file name "
				   "on the ESP, of the letters A-Z and a-z, digits and . _ - +", opt,
				   v, byte_text(v[at], b, sizeof b), at + 1);
	case CFG_FAULT_DOTS:
		return usage_error(cmd, "%s %s: a name may not be '.' or '..' nor end in '.', which "
				   "FAT drops", opt, v);
	case CFG_FAULT_RESERVED:
		return usage_error(cmd, "%s %s: FAT keeps CON, PRN, AUX, NUL, COM1-9 and LPT1-9 for "
				   "devices, also before a '.'", opt, v);
	}
	return usage_error(cmd, "%s %s: not allowed", opt, v);
}

/* A host file add copies: it must be a regular file it can read. Opened without blocking, so a
 * FIFO cannot hang the command; never read here. Returns 0 or EXIT_USAGE. */
static int host_file_check(const char *cmd, const char *opt, const char *path)
{
	struct stat st;
	const char *kind = NULL;
	int fd = -1;

	if (stat(path, &st) ||
	    (S_ISREG(st.st_mode) &&
	     ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 || fstat(fd, &st))))
		kind = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		kind = "a directory, not a regular file";
	else if (S_ISFIFO(st.st_mode))
		kind = "a FIFO, not a regular file";
	else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		kind = "a device, not a regular file";
	else if (!S_ISREG(st.st_mode))
		kind = "not a regular file";
	if (fd >= 0)
		close(fd);
	if (kind)
		return usage_error(cmd, "%s %s: %s", opt, path, kind);
	/* mtools refuses these names without a word (and Windows cannot open them) */
	char fn[96];
	cfg_file_name(path, fn, sizeof fn);
	if (cfg_value_fault(CFG_FIELD_NAME, fn, strlen(fn), NULL) == CFG_FAULT_RESERVED)
		return usage_error(cmd, "%s %s: its copy on the ESP would be called %s, and FAT keeps "
				   "CON, PRN, AUX, NUL, COM1-9 and LPT1-9 for devices; copy it under "
				   "another name", opt, path, fn);
	return 0;
}

/* The values of one entry and the files it copies. Returns 0 or EXIT_USAGE. */
static int entry_values_check(const struct add_entry *e, const char *cmd)
{
	const char *what = e->kind == CFG_KIND_LINUX ? "--kernel" : e->kind == CFG_KIND_EFI ? "--efi"
			   : e->kind == CFG_KIND_UKI ? "--uki" : "--chainload";
	int rc = 0;

	if (e->name)
		rc = value_check(cmd, "--name", CFG_FIELD_NAME, e->name);
	if (!rc && e->title)
		rc = value_check(cmd, "--title", CFG_FIELD_TITLE, e->title);
	if (!rc && e->cmdline)
		rc = value_check(cmd, "--cmdline", CFG_FIELD_CMDLINE, e->cmdline);
	if (rc || e->kind == CFG_KIND_CHAIN)
		return rc;
	if (e->partition) {
		if (e->kernel[0] != '/')
			return usage_error(cmd, "--efi %s --partition %u: give the application's "
					   "absolute path on that partition (/EFI/...)", e->kernel,
					   e->partition);
		return value_check(cmd, "--efi", CFG_FIELD_PATH, e->kernel);
	}
	if ((rc = host_file_check(cmd, what, e->kernel)))
		return rc;
	for (unsigned k = 0; k < e->ninitrd && !rc; k++)
		rc = host_file_check(cmd, "--initrd", e->initrd[k]);
	return rc;
}

int entry_finish(const struct entry_list *l, const char *cmd, bool kernel_required)
{
	const struct add_entry *e = &l->e[0];
	if (!l->n && (kernel_required || e->ninitrd || e->cmdline || e->title || e->name ||
		      e->make_default || e->partition || e->pin || e->tries))
		return usage_error(cmd, "%s", kernel_required ? "--kernel is required (or --efi, "
							    "--chainload or --uki)"
							    : "--initrd, --cmdline, --title, --name, "
							      "--partition, --default, --pin and --tries "
							      "need a "
							      "--kernel");
	for (unsigned i = 0; i < l->n; i++) {
		e = &l->e[i];
		const char *kw = e->kind == CFG_KIND_EFI ? "efi" : e->kind == CFG_KIND_UKI ? "uki"
				 : e->kind == CFG_KIND_CHAIN ? "chainload" : "kernel";
		if (e->kind != CFG_KIND_LINUX && e->ninitrd)
			return usage_error(cmd, "--initrd goes with --kernel, not with --%s%s", kw,
					   e->kind == CFG_KIND_UKI ? " (its initrd is its .initrd)" : "");
		if (e->kind == CFG_KIND_UKI && e->cmdline)
			return usage_error(cmd, "--cmdline does not go with --uki (its command line is "
					   "its .cmdline, which its signature covers)");
		if (e->kind != CFG_KIND_EFI && e->partition)
			return usage_error(cmd, "--partition goes with --efi (an EFI application on "
					   "another partition), not with --%s", kw);
		if (e->pin && (e->kind == CFG_KIND_CHAIN || e->partition))
			return usage_error(cmd, "--pin pins the files add copies to the boot partition; "
					   "%s copies none", e->partition ? "--efi with --partition"
					   : "--chainload");
		if (e->kind == CFG_KIND_CHAIN && e->cmdline)
			return usage_error(cmd, "--cmdline does not go with --chainload (a boot record "
					   "takes none)");
		int rc = entry_values_check(e, cmd);
		if (rc)
			return rc;
		for (unsigned k = 0; k < i && e->name; k++)
			if (l->e[k].name && !strcasecmp(l->e[k].name, e->name))
				return usage_error(cmd, "--name %s is given to two entries", e->name);
	}
	return 0;
}
