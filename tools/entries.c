#include "tools/entries.h"

#include <string.h>

#include "tools/cli.h"
#include "tools/util.h"

enum opt_result entry_option(int opt, const char *arg, struct entry_list *l, const char *cmd)
{
	struct add_entry *e;

	if (opt == OPT_KERNEL) {
		if (l->n == CFG_MAX_ENTRIES) {
			usage_error(cmd, "at most %u --kernel entries", CFG_MAX_ENTRIES);
			return OPTION_BAD;
		}
		/* options given before the first --kernel already sit in e[0] */
		e = &l->e[l->n++];
		if (e->kernel) {
			usage_error(cmd, "--kernel given twice for one entry");
			return OPTION_BAD;
		}
		e->kernel = arg;
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
	default:
		return OPTION_OTHER;
	}
}

int entry_finish(const struct entry_list *l, const char *cmd, bool kernel_required)
{
	const struct add_entry *e = &l->e[0];
	if (!l->n && (kernel_required || e->ninitrd || e->cmdline || e->title || e->name ||
		      e->make_default))
		return usage_error(cmd, "%s", kernel_required ? "--kernel is required"
							    : "--initrd, --cmdline, --title, --name and "
							      "--default need a --kernel");
	return 0;
}
