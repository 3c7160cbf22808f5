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

/* A failed run_capture (status, out) as the end of a sentence, into buf[cap], returned: "exit 1:
 * OUTPUT", "exit 1 without a word of why" when the program printed nothing, "killed by signal
 * 9 (Killed)", "not started: OUTPUT" (127: run_capture's own reason). So every failure of a
 * program the installer runs carries what is known of why. */
const char *run_failure_text(int status, const char *out, char *buf, size_t cap);

#endif
