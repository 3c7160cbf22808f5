/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/cfgedit.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/bits.h"
#include "tools/base/util.h"

void entry_name_from_file(const char *file, char *out, size_t cap)
{
	static const char *const prefixes[] = { "vmlinuz-", "vmlinux-", "bzImage-", "linux-" };
	char tmp[4096];
	size_t n = 0;

	snprintf(tmp, sizeof tmp, "%s", file);
	const char *b = basename(tmp);
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(b, prefixes[i], strlen(prefixes[i])) && b[strlen(prefixes[i])])
			b += strlen(prefixes[i]);
	if (!strcmp(b, "vmlinuz") || !strcmp(b, "vmlinux") || !strcmp(b, "bzImage"))
		b = "linux";
	for (const char *p = b; *p && n + 1 < cap; p++) {
		char c = (char)tolower((unsigned char)*p);
		out[n++] = isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' ? c : '-';
	}
	out[n] = 0;
	if (!n)
		snprintf(out, cap, "linux");
}

bool entry_name_pick(const char *text, const char *given, const char *kernel,
		     char name[CFG_NAME_MAX])
{
	struct cfg *now = xcalloc(1, sizeof *now);
	bool ok = true;

	if (given)
		snprintf(name, CFG_NAME_MAX, "%s", given);
	else
		entry_name_from_file(kernel, name, CFG_NAME_MAX - 4); /* room for "-NN" */
	cfg_parse(text, strlen(text), now, NULL);
	if (cfg_find(now, name) >= 0) {
		if (given) {
			ok = false;
		} else {
			char base[CFG_NAME_MAX];
			snprintf(base, sizeof base, "%s", name);
			for (unsigned k = 2; cfg_find(now, name) >= 0 && k < 100; k++)
				snprintf(name, CFG_NAME_MAX, "%.*s-%u", CFG_NAME_MAX - 6, base, k);
		}
	}
	free(now);
	return ok;
}

void cfg_file_name(const char *file, char *out, size_t cap)
{
	char tmp[4096];
	size_t n = 0;

	snprintf(tmp, sizeof tmp, "%s", file);
	for (const char *p = basename(tmp); *p && n + 1 < cap; p++)
		out[n++] = strchr("\"*/:<>?\\| ", *p) || (unsigned char)*p < 0x20 ? '_' : *p;
	out[n] = 0;
}

void entry_file_path(const char *name, const char *file, char *out, size_t cap)
{
	char fn[96];

	cfg_file_name(file, fn, sizeof fn);
	snprintf(out, cap, "/%s/%s", name, fn);
}

char *cfg_text_add_entry(const char *text, const char *name, const char *title,
			 enum cfg_kind kind, const char *kernel, unsigned partition,
			 const char *const *initrd, unsigned ninitrd, const char *cmdline,
			 unsigned pinned, const uint8_t (*pin)[SHA256_BYTES])
{
	char hex[SHA256_HEX_LEN + 1];
	size_t len = strlen(text);
	/* a unified kernel image without a title shows its .osrel's PRETTY_NAME */
	if (!title && kind != CFG_KIND_UKI)
		title = name;
	/* the fixed text of every line below, with room to spare */
	size_t cap = len + strlen(name) + (title ? strlen(title) : 0) + strlen(kernel) + 96 +
		     ninitrd * 16 +
		     (1 + ninitrd) * (SHA256_HEX_LEN + 16) +
		     (cmdline ? strlen(cmdline) + 16 : 0);
	for (unsigned i = 0; i < ninitrd; i++)
		cap += strlen(initrd[i]);
	char *out = xmalloc(cap);
	int k = sprintf(out, "%s%s\nentry %s\n", text, len && text[len - 1] != '\n' ? "\n" : "",
			name);
	if (title)
		k += sprintf(out + k, "  title   %s\n", title);
	k += sprintf(out + k, "  %-7s %s\n", kind == CFG_KIND_EFI ? "efi" : kind == CFG_KIND_CHAIN ?
		     "chainload" : kind == CFG_KIND_UKI ? "uki" : "kernel", kernel);
	if (pinned & 1u)
		k += sprintf(out + k, "  sha256  %s\n", (sha256_hex(pin[0], hex), hex));
	if (partition)
		k += sprintf(out + k, "  partition %u\n", partition);
	for (unsigned i = 0; i < ninitrd; i++) {
		k += sprintf(out + k, "  initrd  %s\n", initrd[i]);
		if ((pinned >> (1 + i)) & 1u)
			k += sprintf(out + k, "  sha256  %s\n", (sha256_hex(pin[1 + i], hex), hex));
	}
	if (cmdline && *cmdline)
		sprintf(out + k, "  cmdline %s\n", cmdline);
	return out;
}

/* The first word of a line (after blanks), its length in *n; NULL for a blank or comment line. */
static const char *line_key(const char *p, size_t *n)
{
	while (*p == ' ' || *p == '\t')
		p++;
	*n = strcspn(p, " \t\r\n");
	return *n && *p != '#' ? p : NULL;
}

static bool key_is(const char *k, size_t n, const char *want)
{
	return k && n == strlen(want) && !strncasecmp(k, want, n);
}

static const char *next_line(const char *p)
{
	const char *eol = strchr(p, '\n');
	return eol ? eol + 1 : p + strlen(p);
}

/* text with [from, to) replaced by mid, malloc'd. */
static char *splice(const char *text, const char *from, const char *to, const char *mid)
{
	size_t head = (size_t)(from - text), midn = strlen(mid);
	char *out = xmalloc(head + midn + strlen(to) + 1);
	memcpy(out, text, head);
	memcpy(out + head, mid, midn);
	strcpy(out + head + midn, to);
	return out;
}

char *cfg_text_set_key(const char *text, const char *key, const char *value)
{
	const char *first_entry = NULL;
	size_t n;
	char line[CFG_CMDLINE_MAX + 64];

	/* a global key may stand anywhere, but once: replace it where it is */
	for (const char *p = text; *p; p = next_line(p)) {
		const char *k = line_key(p, &n);
		if (key_is(k, n, "entry") && !first_entry)
			first_entry = p;
		if (!key_is(k, n, key))
			continue;
		snprintf(line, sizeof line, value ? "%s %s\n" : "", key, value);
		return splice(text, p, next_line(p), line);
	}
	if (!value)
		return xstrdup(text);
	/* else among the global lines, before the first entry (a blank line between) */
	const char *at = first_entry ? first_entry : text + strlen(text);
	snprintf(line, sizeof line, "%s%s %s\n%s",
		 at > text && at[-1] != '\n' ? "\n" : "", key, value, first_entry ? "\n" : "");
	return splice(text, at, at, line);
}

char *cfg_text_set_default(const char *text, const char *name)
{
	return cfg_text_set_key(text, "default", name);
}

/* The "entry" line of the entry called name (matched without case), or NULL. */
static const char *entry_line(const char *text, const char *name)
{
	size_t n;

	for (const char *p = text; *p; p = next_line(p)) {
		const char *k = line_key(p, &n);
		if (!key_is(k, n, "entry"))
			continue;
		const char *v = k + n;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t nv = strcspn(v, " \t\r\n#");
		if (nv == strlen(name) && !strncasecmp(v, name, nv))
			return p;
	}
	return NULL;
}

char *cfg_text_remove_entry_key(const char *text, const char *name, const char *key)
{
	const char *p = entry_line(text, name);
	size_t n;

	for (const char *q = p ? next_line(p) : ""; *q; q = next_line(q)) {
		const char *kk = line_key(q, &n);
		if (!kk)
			continue;
		if (!cfg_is_entry_key(kk, n))
			break;
		if (key_is(kk, n, key))
			return splice(text, q, next_line(q), "");
	}
	return NULL;
}

char *cfg_text_remove_entry(const char *text, const char *name)
{
	size_t n;

	for (const char *p = text; *p; p = next_line(p)) {
		const char *k = line_key(p, &n);
		if (!key_is(k, n, "entry"))
			continue;
		const char *v = k + n;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t nv = strcspn(v, " \t\r\n#");
		if (nv != strlen(name) || strncasecmp(v, name, nv))
			continue;
		/* the entry line and its keys; blank and comment lines only when more of its keys
		 * follow (those after its last key belong to what comes next) */
		const char *end = next_line(p);
		for (const char *q = end; *q; q = next_line(q)) {
			const char *kk = line_key(q, &n);
			if (!kk)
				continue;
			if (!cfg_is_entry_key(kk, n))
				break;
			end = next_line(q);
		}
		/* and the blank line add wrote before it */
		const char *from = p;
		if (from >= text + 2 && from[-1] == '\n' && from[-2] == '\n')
			from--;
		else if (from == text + 1 && from[-1] == '\n')
			from--;
		return splice(text, from, end, "");
	}
	return NULL;
}
