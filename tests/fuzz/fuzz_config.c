/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the anysector.cfg parser on arbitrary bytes. A success must leave a
 * configuration a loader can use without further checks. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/config.h"
#include "tests/fuzz/fuzz_diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cfg c;
	struct diag diag = { .emit = fuzz_emit };

	int rc = cfg_parse((const char *)data, size, &c, &diag);
	if ((rc == 0) != (diag.errors == 0))
		__builtin_trap();
	if (c.nentries > CFG_MAX_ENTRIES)
		__builtin_trap();
	fuzz_check_str(c.default_name, sizeof c.default_name);
	if (c.text_used > CFG_TEXT_MAX)
		__builtin_trap();
	for (unsigned i = 0; i < c.nentries; i++) {
		const struct cfg_entry *e = &c.entries[i];
		/* every string is set, and fits its field */
		for (unsigned k = 0; k < 12; k++)
			if (!e->str[k])
				__builtin_trap();
		fuzz_check_str(e->name, CFG_NAME_MAX);
		fuzz_check_str(e->title, CFG_TITLE_MAX);
		fuzz_check_str(e->kernel, CFG_PATH_MAX);
		fuzz_check_str(e->cmdline, CFG_CMDLINE_MAX);
		if (e->ninitrd > CFG_MAX_INITRDS || (e->pinned && !e->pin) || e->bls)
			__builtin_trap();
		for (unsigned k = 0; k < e->ninitrd; k++)
			fuzz_check_str(e->initrd[k], CFG_PATH_MAX);
	}
	if (rc == 0) {
		int d = cfg_default_index(&c);
		if (d < 0 || (unsigned)d >= c.nentries || !c.entries[d].name[0])
			__builtin_trap();
		for (unsigned i = 0; i < c.nentries; i++) {
			const struct cfg_entry *e = &c.entries[i];
			if (cfg_find(&c, e->name) != (int)i)
				__builtin_trap();
			/* an entry starts one thing: a file, or a boot record it can name */
			if (e->kind == CFG_KIND_CHAIN
				    ? e->kernel[0] || e->ninitrd || e->cmdline[0] ||
				      e->partition > CFG_PART_MAX || e->bios_disk >= CFG_BIOS_DISKS ||
				      (e->partition && e->bios_disk)
				    : !e->kernel[0] || (e->partition && e->kind != CFG_KIND_EFI) ||
				      (e->ninitrd && e->kind != CFG_KIND_LINUX))
				__builtin_trap();
			/* a pin belongs to a file the entry names: its kernel or one of its initrds */
			if ((e->pinned >> (1 + e->ninitrd)) || (e->kind == CFG_KIND_CHAIN && e->pinned))
				__builtin_trap();
		}
		if (c.timeout > CFG_TIMEOUT_MAX)
			__builtin_trap();
	}
	return 0;
}
