/* SPDX-License-Identifier: BSD-2-Clause */
/* Command-line plumbing shared by the commands: the options several take (topology, --force,
 * --dry-run, the layout options), opening a target, and the command table. Every command returns
 * an exit code (the convention in tools/base/exit_codes.h). */
#ifndef ANYSECTOR_TOOLS_CLI_H
#define ANYSECTOR_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "tools/dev/hostdev.h"
#include "tools/disk/layout.h"

enum {
	OPT_SECTOR_SIZE = 1000,
	OPT_PHYSICAL_SIZE,
	OPT_ALIGN_OFFSET,
	OPT_IO_MIN,
	OPT_IO_OPT,
	OPT_JSON,
	OPT_LABEL,
	OPT_ESP_SIZE,
	OPT_NO_REST,
	OPT_DOS_COMPAT,
	OPT_FORCE,
	OPT_DRY_RUN,
	OPT_BACKUP,
	OPT_STAGES,
	OPT_KERNEL,
	OPT_EFI,
	OPT_CHAINLOAD,
	OPT_PARTITION,
	OPT_INITRD,
	OPT_CMDLINE,
	OPT_TITLE,
	OPT_NAME,
	OPT_DEFAULT,
	OPT_SIZE,
	OPT_TIMEOUT,
	OPT_ROOT_DIR,
	OPT_SIGN_KEY,
	OPT_SIGN_CERT,
	OPT_SHIM,
	OPT_FROM,
	OPT_HELP,
	OPT_REPLACE,
	OPT_PIN,
	OPT_WAIT,
	OPT_NO_LOCK,
	OPT_ONCE,
	OPT_TRIES,
	OPT_UEFI_ONLY,
	OPT_NO_NVRAM,
	OPT_LOCK_CONFIG,
	OPT_UKI,
	OPT_FAILED,         /* next_option: a shared option had a bad value (already reported) */
};

#define TOPO_LONG_OPTIONS                                                   \
	{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },        \
	{ "physical-size", required_argument, NULL, OPT_PHYSICAL_SIZE },    \
	{ "align-offset", required_argument, NULL, OPT_ALIGN_OFFSET },      \
	{ "io-min", required_argument, NULL, OPT_IO_MIN },                  \
	{ "io-opt", required_argument, NULL, OPT_IO_OPT }

#define TOPO_HELP                                                                          \
	"  --sector-size N      logical sector size of an image file (default: detected from\n" \
	"                       its GPT, 512 for a blank image); partition and mkimage also\n" \
	"                       take 'any': one layout for 512 and 4096 (a dual GPT)\n"          \
	"  --physical-size N    physical sector size (default: the logical size)\n"             \
	"  --align-offset B     bytes from LBA 0 to the first physically aligned sector\n"      \
	"  --io-min N           minimum I/O size in bytes\n"                                     \
	"  --io-opt N           optimal I/O size in bytes (33553920 and values that are not a\n" \
	"                       multiple of the physical size are ignored)\n"

/* --wait and --no-lock: every command that opens a target (tools/dev/lock.h). */
#define LOCK_LONG_OPTIONS                                                   \
	{ "wait", required_argument, NULL, OPT_WAIT },                      \
	{ "no-lock", no_argument, NULL, OPT_NO_LOCK }

#define LOCK_HELP                                                                          \
	"  --wait S             wait up to S seconds (default 10; 'infinity': no limit) for\n"  \
	"                       another program's lock on TARGET, then exit 3\n"               \
	"  --no-lock            take no lock and honour none (only when nothing else can use\n" \
	"                       TARGET meanwhile: concurrent changes can then be lost)\n"

/* --label, --esp-size and --no-rest of partition and mkimage. */
#define LAYOUT_LONG_OPTIONS                                                 \
	{ "label", required_argument, NULL, OPT_LABEL },                    \
	{ "esp-size", required_argument, NULL, OPT_ESP_SIZE },              \
	{ "no-rest", no_argument, NULL, OPT_NO_REST },                      \
	{ "dos-compat", no_argument, NULL, OPT_DOS_COMPAT }

#define LAYOUT_HELP                                                                        \
	"  --label gpt|mbr      partition table type (default gpt)\n"                          \
	"  --esp-size SIZE      ESP size (default 260 MiB, or all that fits on a small disk)\n" \
	"  --no-rest            leave the space after the ESP unpartitioned\n"                 \
	"  --dos-compat         MBR only: legacy layout, first partition at LBA 63 and the\n"  \
	"                       others on cylinder boundaries (warns about misalignment)\n"

/* What an option handler did with one option: it was not one of its options, it took it, or the
 * value was bad (reported as a usage error: the command exits EXIT_USAGE). */
enum opt_result {
	OPTION_OTHER = 0,
	OPTION_TAKEN,
	OPTION_BAD,
};


/* Handles one of the layout options; cmd names the command in a usage error. */
enum opt_result layout_option(int opt, const char *arg, struct layout_opts *lo, const char *cmd);

/* The options every command that takes them treats alike. */
struct common_opts {
	struct topo_flags topo;
	bool force;          /* --force */
	bool dry_run;        /* --dry-run */
};

/* getopt_long(argc, argv, "", opts) that takes care of the common options itself (the topology,
 * --force, --dry-run, and --wait and --no-lock, which set the process's lock policy): returns the
 * next option that is the command's own (or getopt's '?'), -1 after the last, OPT_FAILED when a
 * common option had a bad value (reported): getopt's convention, not one of exit_codes.h's. Set
 * optind = 1 before the first call. */
int next_option(int argc, char **argv, const struct option *opts, struct common_opts *o);

/* Reports a usage error, prints the command's usage line to stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long's own complaints go to stderr; this turns '?' / ':' into a usage error and returns
 * EXIT_USAGE. */
int bad_option(const char *cmd);

/* --timeout's value: decimal seconds 0..CFG_TIMEOUT_MAX. */
bool parse_seconds(const char *s, unsigned *out);

/* Opens the target and sets its topology. Returns 0 or an exit code. */
int open_target(struct hostdev *h, const char *path, bool writable, const struct topo_flags *f);
/* The same for install, add, remove and set-default, which may change a running system's disk
 * whose other partitions are in use (hostdev_open_live). */
int open_target_live(struct hostdev *h, const char *path, bool writable,
		     const struct topo_flags *f);
/* The same for partition and mkimage, which also take --sector-size any (a dual GPT, written
 * through the 4096-byte view of an image file or at a device's own sector size). */
int open_target_layout(struct hostdev *h, const char *path, bool writable,
		       const struct topo_flags *f);

#endif
