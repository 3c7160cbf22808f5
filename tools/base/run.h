/* SPDX-License-Identifier: BSD-2-Clause */
/* Running the external programs the installer relies on (mkfs.fat, mtools), without a shell. */
#ifndef ANYSECTOR_TOOLS_RUN_H
#define ANYSECTOR_TOOLS_RUN_H

#include <stddef.h>

/* Runs argv[0] (looked up in PATH) with its stdout and stderr captured into out (NUL-terminated,
 * trailing newlines removed, truncated to cap). Returns what the program answered, as a shell
 * would: its exit status, 127 when it could not be started, or 128+signal (exit_codes.h's
 * exception). Reports nothing. */
int run_capture(const char *const argv[], char *out, size_t cap);

#endif
