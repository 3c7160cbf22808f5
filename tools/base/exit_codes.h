/* SPDX-License-Identifier: BSD-2-Clause */
/* The installer's return convention and its exit codes. */
#ifndef ANYSECTOR_TOOLS_EXIT_CODES_H
#define ANYSECTOR_TOOLS_EXIT_CODES_H

/* How every function in tools/ returns. There are three kinds; a header comment says which
 * one a function is ("Returns 0 or an exit code", "Returns 0 or an AS_* code", or what it
 * answers). The functions of one header that return a code all return the same kind: the steps
 * (kind 1) and the helpers (kind 2) of one job live in separate headers.
 *
 * 1. A step of a command (opening the target, reading its table, planning, writing, cmd_*):
 *    returns an exit code, 0 (EXIT_OK) when it did its job, else the EXIT_* below that the
 *    command ends with. It reports the failure itself before returning, as one sentence with
 *    a code (t_error, or into the struct report it was given), because it is the one that
 *    knows what failed and where. Its callers pass the code on unchanged
 *    (`if ((rc = step(...))) return rc;`) and report nothing more about it; the one addition
 *    is a sentence about a different fact (mkimage's "OUT was not made").
 * 2. A helper that does not know which command runs it (block and file I/O, lookups on the ESP
 *    copy, parsers, checks, arithmetic that can fail): reports nothing and returns 0 or a
 *    negative AS_* code from common/errors.h, as common/ does (a problem it found goes into a
 *    buffer or struct report the caller gave it; for file I/O errno still says why). Its caller
 *    says the sentence and chooses the exit code. Never -1, 1 or -errno.
 * 3. A question returns bool; a count, a size, a position or a kind returns that (a kind is an
 *    enum); option handlers return enum opt_result (cli.h). An index that may not exist is -1
 *    for none (boot_menu_find, root_part_index, dual_half_index).
 * Four functions keep the answer of the system interface they wrap, and say so where they are
 * declared: next_option (getopt_long's), kdev_claim (open's: a descriptor, or -1 with errno),
 * run_capture (the program's exit status, as a shell gives it) and an esp_list callback
 * (0, ESP_LIST_STOP or an AS_* code).
 *
 * Choosing the exit code for a failure (the caller of a kind-2 helper, or a step itself):
 *   EXIT_ERRORS   AS_EIO and every other failure of the host (temporary file, mtools, mkfs.fat);
 *                 damaged or unparseable input (AS_ECORRUPT, AS_ELOOP, a truncated image, a
 *                 table valid only at another sector size); a request the disk cannot satisfy
 *                 (AS_ENOSPC, AS_ERANGE: too small, past the MBR's 32-bit limit);
 *   EXIT_REFUSED  a safety rule on a valid, readable disk: in use, existing data or foreign
 *                 bytes without --force, no table or no ESP yet, a backup file that exists;
 *                 nothing was written;
 *   EXIT_USAGE    the command line: a bad option or value, or one the target contradicts
 *                 (--sector-size of a block device, a partition instead of a disk).
 * Only running out of memory (x*alloc) and a failing getrandom end the process on the spot
 * (EXIT_ERRORS). */

/* Exit codes (anysector.8 "EXIT STATUS"). */
enum {
	EXIT_OK = 0,
	EXIT_WARNINGS = 1,  /* check: only warnings */
	EXIT_ERRORS = 2,    /* check: errors; other commands: the operation failed, the input is
			       damaged or unparseable (table, FAT, config, truncated image, wrong
			       sector size), or the disk cannot satisfy the request */
	EXIT_REFUSED = 3,   /* a safety rule refused an operation on a valid, readable disk (in
			       use, existing data without --force, backup exists...); nothing
			       was written */
	EXIT_USAGE = 64,    /* bad command line */
};

#endif
