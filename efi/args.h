/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line of a shell invocation. The UEFI shell hands it over twice: as
 * EFI_SHELL_PARAMETERS_PROTOCOL (argv already split, argv[0] the program) and as LoadOptions
 * (the typed line, UCS-2, argv[0] included). Firmware boot options may carry binary data in
 * LoadOptions instead; only clean text counts as a command line. */
#ifndef ANYSECTOR_EFI_ARGS_H
#define ANYSECTOR_EFI_ARGS_H

#include "efi/app.h"

#define ARGS_MAX 8
#define ARG_BYTES 256

struct args {
	unsigned argc;                 /* without the program name */
	char argv[ARGS_MAX][ARG_BYTES];
	bool truncated;                /* more words, or a longer word, than fit */
};

/* Splits text[0..units) (UCS-2; stops at a NUL) into words: blanks separate, double quotes group.
 * Returns false when the text is not printable ASCII (binary load options). */
bool args_split(const CHAR16 *text, size_t units, struct args *a);

/* The arguments this image was started with; is_command(word) tells a command name from a
 * program name when only LoadOptions are available. */
void args_get(struct args *a, bool (*is_command)(const char *word));

#endif
