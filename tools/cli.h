/* Command-line plumbing shared by the commands: the topology flags, opening a target, and the
 * command table. Every command returns an exit code (util.h). */
#ifndef ANYSECTOR_TOOLS_CLI_H
#define ANYSECTOR_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "tools/hostdev.h"

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
	OPT_INITRD,
	OPT_CMDLINE,
	OPT_TITLE,
	OPT_NAME,
	OPT_DEFAULT,
	OPT_SIZE,
	OPT_HELP,
};

#define TOPO_LONG_OPTIONS                                                   \
	{ "sector-size", required_argument, NULL, OPT_SECTOR_SIZE },        \
	{ "physical-size", required_argument, NULL, OPT_PHYSICAL_SIZE },    \
	{ "align-offset", required_argument, NULL, OPT_ALIGN_OFFSET },      \
	{ "io-min", required_argument, NULL, OPT_IO_MIN },                  \
	{ "io-opt", required_argument, NULL, OPT_IO_OPT }

#define TOPO_HELP                                                                          \
	"  --sector-size N      logical sector size of an image file (default: detected from\n" \
	"                       its GPT, 512 for a blank image)\n"                              \
	"  --physical-size N    physical sector size (default: the logical size)\n"             \
	"  --align-offset B     bytes from LBA 0 to the first physically aligned sector\n"      \
	"  --io-min N           minimum I/O size in bytes\n"                                     \
	"  --io-opt N           optimal I/O size in bytes (33553920 and values that are not a\n" \
	"                       multiple of the physical size are ignored)\n"

/* Handles one of the topology options: 1 if it was one, 0 if not, -1 (reported) on a bad value. */
int topo_option(int opt, const char *arg, struct topo_flags *f);

/* Reports a usage error, prints the command's usage line to stderr; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* getopt_long's own complaints go to stderr; this turns '?' / ':' into a usage error. */
int bad_option(const char *cmd);

/* Opens the target and sets its topology; returns 0 or an exit code. */
int open_target(struct hostdev *h, const char *path, bool writable, const struct topo_flags *f);

int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_partition(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_mkimage(int argc, char **argv);
int cmd_restore(int argc, char **argv);

#endif
