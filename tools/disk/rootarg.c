/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/rootarg.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "common/guid.h"

bool cmdline_has_root(const char *cmdline)
{
	static const char key[] = "root=";

	for (const char *p = cmdline ? cmdline : ""; *p;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, key, sizeof key - 1))
			return true;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return false;
}

int root_part_index(const struct disk_info *di)
{
	for (unsigned i = 0; i < di->nparts; i++) {
		const struct part_info *p = &di->parts[i];
		if ((int)i == di->esp || p->container)
			continue;
		if (di->label == LABEL_GPT ? guid_eq(&p->type_guid, &GUID_LINUX_FS)
					   : p->mbr_type == MBR_TYPE_LINUX)
			return (int)i;
	}
	return -1;
}

void root_partuuid_arg(const struct disk_info *di, const struct part_info *p, char *out,
		       size_t cap)
{
	if (di->label == LABEL_GPT) {
		char g[GUID_STR_LEN + 1];
		guid_format(&p->unique, g);
		for (char *c = g; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		snprintf(out, cap, "root=PARTUUID=%s", g);
	} else {
		snprintf(out, cap, "root=PARTUUID=%08x-%02x", (unsigned)di->mbr.disk_sig,
			 p->number);
	}
}

size_t root_partuuid_arg_len(enum label_kind label)
{
	/* "%08x-%02x": an MBR's partitions are numbered 1..4 (root_part_index takes no logical
	 * partition) */
	return strlen("root=PARTUUID=") + (label == LABEL_GPT ? GUID_STR_LEN : 8 + 1 + 2);
}

int cmdline_append(const char *cmdline, const char *arg, char *out, size_t cap)
{
	int n = cmdline && *cmdline ? snprintf(out, cap, "%s %s", cmdline, arg)
				    : snprintf(out, cap, "%s", arg);
	return n < 0 || (size_t)n >= cap ? AS_ERANGE : 0;
}
