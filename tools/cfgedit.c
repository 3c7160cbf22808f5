#include "tools/cfgedit.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "tools/util.h"

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

void fat_file_name(const char *file, char *out, size_t cap)
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

	fat_file_name(file, fn, sizeof fn);
	snprintf(out, cap, "/%s/%s", name, fn);
}

char *cfg_text_add_entry(const char *text, const char *name, const char *title,
			 enum cfg_kind kind, const char *kernel, unsigned partition,
			 const char *const *initrd, unsigned ninitrd, const char *cmdline)
{
	size_t len = strlen(text);
	if (!title)
		title = name;
	/* the fixed text of every line below, with room to spare */
	size_t cap = len + strlen(name) + strlen(title) + strlen(kernel) + 96 + ninitrd * 16 +
		     (cmdline ? strlen(cmdline) + 16 : 0);
	for (unsigned i = 0; i < ninitrd; i++)
		cap += strlen(initrd[i]);
	char *out = xmalloc(cap);
	int k = sprintf(out, "%s%s\nentry %s\n  title   %s\n", text,
			len && text[len - 1] != '\n' ? "\n" : "", name, title);
	k += sprintf(out + k, "  %-7s %s\n", kind == CFG_KIND_EFI ? "efi" : kind == CFG_KIND_CHAIN ?
		     "chainload" : "kernel", kernel);
	if (partition)
		k += sprintf(out + k, "  partition %u\n", partition);
	for (unsigned i = 0; i < ninitrd; i++)
		k += sprintf(out + k, "  initrd  %s\n", initrd[i]);
	if (cmdline && *cmdline)
		sprintf(out + k, "  cmdline %s\n", cmdline);
	return out;
}

char *cfg_text_set_default(const char *text, const char *name)
{
	size_t len = strlen(text);
	char *out = xmalloc(len + strlen(name) + 32);
	const char *p = text, *ins = NULL, *rep_end = NULL;

	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *next = eol ? eol + 1 : p + strlen(p);
		const char *w = p;
		while (*w == ' ' || *w == '\t')
			w++;
		if (!strncmp(w, "entry", 5) && (w[5] == ' ' || w[5] == '\t' || w[5] == '\n')) {
			if (!ins)
				ins = p;
			break;
		}
		if (!strncmp(w, "default", 7) && (w[7] == ' ' || w[7] == '\t')) {
			ins = p;
			rep_end = next;
			break;
		}
		p = next;
	}
	if (!ins)
		ins = text + len;
	size_t head = (size_t)(ins - text);
	memcpy(out, text, head);
	int k = sprintf(out + head, "default %s\n%s", name, rep_end || !*ins ? "" : "\n");
	strcpy(out + head + k, rep_end ? rep_end : ins);
	return out;
}
