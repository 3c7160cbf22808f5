/* SPDX-License-Identifier: BSD-2-Clause */
#include "efi/args.h"

#include "common/mem.h"

static EFI_GUID shell_params_guid = EFI_SHELL_PARAMETERS_PROTOCOL_GUID;
static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;

#define LOAD_OPTIONS_MAX_UNITS 4096u /* longer option blocks are not a typed command line */

bool args_split(const CHAR16 *text, size_t units, struct args *a)
{
	bool in_word = false, quoted = false;
	size_t len = 0;

	memset(a, 0, sizeof *a);
	for (size_t i = 0; i < units && text[i]; i++)
		if (text[i] != '\t' && (text[i] < 0x20 || text[i] > 0x7E))
			return false;
	for (size_t i = 0;; i++) {
		CHAR16 c = i < units ? text[i] : 0;
		if (c == 0 || ((c == ' ' || c == '\t') && !quoted)) {
			if (in_word) {
				a->argv[a->argc++][len] = 0;
				in_word = false;
				len = 0;
			}
			if (c == 0)
				return true;
			continue;
		}
		if (!in_word && a->argc == ARGS_MAX) {
			a->truncated = true;
			return true;
		}
		in_word = true;
		if (c == '"')
			quoted = !quoted;
		else if (len + 1 < ARG_BYTES)
			a->argv[a->argc][len++] = (char)c;
		else
			a->truncated = true;
	}
}

static void drop_first(struct args *a)
{
	for (unsigned i = 1; i < a->argc; i++)
		memcpy(a->argv[i - 1], a->argv[i], ARG_BYTES);
	if (a->argc)
		a->argc--;
}

void args_get(struct args *a, bool (*is_command)(const char *word))
{
	EFI_SHELL_PARAMETERS_PROTOCOL *sp = NULL;
	EFI_LOADED_IMAGE *li = NULL;

	memset(a, 0, sizeof *a);
	if (!EFI_ERROR(g_bs->HandleProtocol(g_image, &shell_params_guid, (void **)&sp)) && sp &&
	    sp->Argv) {
		/* Each shell argument is one word, blanks and all. */
		for (UINTN i = 1; i < sp->Argc && a->argc < ARGS_MAX; i++) {
			const CHAR16 *w = sp->Argv[i];
			size_t n = 0;
			for (; w && w[n] && n + 1 < ARG_BYTES; n++)
				a->argv[a->argc][n] = w[n] >= 0x20 && w[n] <= 0x7E ? (char)w[n] : '?';
			a->truncated |= w && w[n];
			a->argc++;
		}
		a->truncated |= sp->Argc > ARGS_MAX + 1;
		return;
	}
	if (EFI_ERROR(g_bs->HandleProtocol(g_image, &loaded_image_guid, (void **)&li)) || !li ||
	    !li->LoadOptions || li->LoadOptionsSize < sizeof(CHAR16) || li->LoadOptionsSize % 2)
		return;
	size_t units = li->LoadOptionsSize / sizeof(CHAR16);
	if (units > LOAD_OPTIONS_MAX_UNITS || !args_split(li->LoadOptions, units, a)) {
		memset(a, 0, sizeof *a);
		return;
	}
	/* The shell passes the typed line with the program's own name first. */
	if (a->argc && !is_command(a->argv[0]))
		drop_first(a);
}
