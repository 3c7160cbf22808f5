/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/cmd/entry_options.h"

#include <stdlib.h>
#include <string.h>

#include "tools/cmd/cli.h"
#include "tools/base/util.h"

enum opt_result entry_option(int opt, const char *arg, struct entry_list *l, const char *cmd)
{
	struct add_entry *e;

	if (opt == OPT_KERNEL || opt == OPT_EFI || opt == OPT_CHAINLOAD) {
		if (l->n == CFG_MAX_ENTRIES) {
			usage_error(cmd, "at most %u entries", CFG_MAX_ENTRIES);
			return OPTION_BAD;
		}
		/* options given before the first --kernel already sit in e[0] */
		e = &l->e[l->n++];
		if (e->kernel) {
			usage_error(cmd, "--kernel, --efi or --chainload given twice for one entry");
			return OPTION_BAD;
		}
		e->kernel = arg;
		e->kind = opt == OPT_KERNEL ? CFG_KIND_LINUX : opt == OPT_EFI ? CFG_KIND_EFI
									  : CFG_KIND_CHAIN;
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

int entry_finish(const struct entry_list *l, const char *cmd, bool kernel_required)
{
	const struct add_entry *e = &l->e[0];
	if (!l->n && (kernel_required || e->ninitrd || e->cmdline || e->title || e->name ||
		      e->make_default || e->partition || e->pin))
		return usage_error(cmd, "%s", kernel_required ? "--kernel is required (or --efi, or "
							    "--chainload)"
							    : "--initrd, --cmdline, --title, --name, "
							      "--partition, --default and --pin need a "
							      "--kernel");
	for (unsigned i = 0; i < l->n; i++) {
		e = &l->e[i];
		if (e->kind != CFG_KIND_LINUX && e->ninitrd)
			return usage_error(cmd, "--initrd goes with --kernel, not with --%s",
					   e->kind == CFG_KIND_EFI ? "efi" : "chainload");
		if (e->kind != CFG_KIND_EFI && e->partition)
			return usage_error(cmd, "--partition goes with --efi (an EFI application on "
					   "another partition), not with --%s",
					   e->kind == CFG_KIND_LINUX ? "kernel" : "chainload");
		if (e->pin && (e->kind == CFG_KIND_CHAIN || e->partition))
			return usage_error(cmd, "--pin pins the files add copies to the boot partition; "
					   "%s copies none", e->partition ? "--efi with --partition"
					   : "--chainload");
		if (e->kind == CFG_KIND_CHAIN && e->cmdline)
			return usage_error(cmd, "--cmdline does not go with --chainload (a boot record "
					   "takes none)");
	}
	return 0;
}
