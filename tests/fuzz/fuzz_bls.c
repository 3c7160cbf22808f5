/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: Boot Loader Specification entry files and loader.conf on arbitrary bytes,
 * the menu they make, and the version order and globs on pieces of the input. A parsed entry
 * must be one a loader can boot without further checks; the order must be antisymmetric; no
 * input may hang the glob. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/bls.h"
#include "common/utf8.h"
#include "tests/fuzz/fuzz_diag.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bls_entry e;
	static struct cfg c;
	static char a[256], b[256];
	struct diag diag = { .emit = fuzz_emit };
	struct bls_loader l;
	const char *text = (const char *)data;

	int rc = bls_parse(text, size, "/loader/entries/f+1-2.conf", &e, &diag);
	if (rc == 0) {
		if (diag.errors || e.kernel[0] != '/' || e.ninitrd > CFG_MAX_INITRDS ||
		    strcmp(e.id, "f") || e.tries_left != 1 || e.tries_done != 2)
			__builtin_trap();
		fuzz_check_str(e.title, sizeof e.title);
		fuzz_check_str(e.kernel, sizeof e.kernel);
		fuzz_check_str(e.cmdline, sizeof e.cmdline);
		fuzz_check_str(e.version, sizeof e.version);
		fuzz_check_str(e.sort_key, sizeof e.sort_key);
		fuzz_check_str(e.machine_id, sizeof e.machine_id);
		/* what is shown is UTF-8 */
		for (size_t i = 0, n = strlen(e.title); i < n;) {
			size_t k = utf8_seq_len(e.title + i, n - i);
			if (!k)
				__builtin_trap();
			i += k;
		}
		for (unsigned i = 0; i < e.ninitrd; i++)
			if (e.initrd[i][0] != '/')
				__builtin_trap();
		cfg_parse_text("", 0, &c, &diag);
		bls_menu_begin(&c);
		bls_menu_add(&c, &e, &diag);
		bls_loader_parse(text, size, &l, &diag);
		if (l.has_timeout && l.timeout > CFG_TIMEOUT_MAX)
			__builtin_trap();
		fuzz_check_str(l.default_pattern, sizeof l.default_pattern);
		bls_menu_finish(&c, &l);
		if (c.nentries != 1 || strcmp(c.entries[0].kernel, e.kernel) ||
		    strcmp(c.entries[0].cmdline, e.cmdline) || cfg_menu_check(&c, &diag) ||
		    cfg_default_index(&c) != 0)
			__builtin_trap();
	} else if (!diag.errors && !diag.warnings) {
		__builtin_trap(); /* every refusal says why */
	}

	/* two strings from the input: up to the first newline, and the rest */
	size_t cut = 0;
	while (cut < size && data[cut] != '\n')
		cut++;
	size_t na = cut < sizeof a - 1 ? cut : sizeof a - 1;
	size_t rest = cut < size ? size - cut - 1 : 0;
	size_t nb = rest < sizeof b - 1 ? rest : sizeof b - 1;
	memcpy(a, data, na);
	a[na] = 0;
	memcpy(b, data + size - rest, nb);
	b[nb] = 0;
	if (bls_vercmp(a, a) || sign(bls_vercmp(a, b)) != -sign(bls_vercmp(b, a)))
		__builtin_trap();
	(void)bls_glob(a, b);
	if (!strchr(a, '[') && !strchr(a, '*') && !strchr(a, '?') && !bls_glob(a, a))
		__builtin_trap();
	return 0;
}
