/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/cmd/cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/config.h"
#include "tools/base/exit_codes.h"
#include "tools/base/text.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_open.h"
#include "tools/dev/lock.h"
#include "tools/disk/dual.h"
#include "tools/disk/topology.h"

/* Handles one of the topology options. */
static enum opt_result topo_option(int opt, const char *arg, struct topo_flags *f)
{
	static const struct {
		int opt;
		const char *name;
	} names[] = {
		{ OPT_SECTOR_SIZE, "--sector-size" }, { OPT_PHYSICAL_SIZE, "--physical-size" },
		{ OPT_ALIGN_OFFSET, "--align-offset" }, { OPT_IO_MIN, "--io-min" },
		{ OPT_IO_OPT, "--io-opt" },
	};
	const char *name = NULL;
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].opt == opt)
			name = names[i].name;
	if (!name)
		return OPTION_OTHER;
	if (opt == OPT_SECTOR_SIZE && !strcmp(arg, "any")) {
		f->any_lss = true;
		f->has_lss = false;
		return OPTION_TAKEN;
	}
	if (!parse_size(arg, &v) || v > UINT32_MAX) {
		t_error("usage.number", "%s %s: not a size in bytes", name, arg);
		return OPTION_BAD;
	}
	switch (opt) {
	case OPT_SECTOR_SIZE: f->lss = (uint32_t)v; f->has_lss = true; f->any_lss = false; break;
	case OPT_PHYSICAL_SIZE: f->pss = (uint32_t)v; f->has_pss = true; break;
	case OPT_ALIGN_OFFSET: f->aoff = (uint32_t)v; f->has_aoff = true; break;
	case OPT_IO_MIN: f->io_min = (uint32_t)v; f->has_io_min = true; break;
	default: f->io_opt = (uint32_t)v; f->has_io_opt = true; break;
	}
	return OPTION_TAKEN;
}

enum opt_result layout_option(int opt, const char *arg, struct layout_opts *lo, const char *cmd)
{
	switch (opt) {
	case OPT_LABEL:
		if (!strcmp(arg, "gpt")) {
			lo->label = LABEL_GPT;
		} else if (!strcmp(arg, "mbr") || !strcmp(arg, "dos")) {
			lo->label = LABEL_MBR;
		} else {
			usage_error(cmd, "--label %s: use gpt or mbr", arg);
			return OPTION_BAD;
		}
		return OPTION_TAKEN;
	case OPT_ESP_SIZE: {
		uint64_t v;
		if (!parse_size(arg, &v) || !v) {
			usage_error(cmd, "--esp-size %s: not a size", arg);
			return OPTION_BAD;
		}
		lo->esp_bytes = v;
		return OPTION_TAKEN;
	}
	case OPT_NO_REST:
		lo->no_rest = true;
		return OPTION_TAKEN;
	case OPT_DOS_COMPAT:
		lo->dos_compat = true;
		return OPTION_TAKEN;
	default:
		return OPTION_OTHER;
	}
}

int next_option(int argc, char **argv, const struct option *opts, struct common_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		enum opt_result r = topo_option(c, optarg, &o->topo);
		if (r == OPTION_BAD)
			return OPT_FAILED;
		if (r == OPTION_TAKEN)
			continue;
		uint32_t wait;
		if (c == OPT_FORCE) {
			o->force = true;
		} else if (c == OPT_DRY_RUN) {
			o->dry_run = true;
		} else if (c == OPT_NO_LOCK) {
			lock_set_disabled(true);
		} else if (c == OPT_WAIT) {
			if (!lock_parse_wait(optarg, &wait)) {
				t_error("usage.number", "--wait %s: not a number of seconds from 0 to %u, "
					"nor 'infinity'", optarg, LOCK_WAIT_MAX);
				return OPT_FAILED;
			}
			lock_set_wait(wait);
		} else {
			return c;
		}
	}
	return -1;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *msg = text_vformat(fmt, ap);
	va_end(ap);
	report_add(g_report, DIAG_ERROR, "usage", msg);
	free(msg);
	fprintf(stderr, "Try 'anysector %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int bad_option(const char *cmd)
{
	fprintf(stderr, "Try 'anysector %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int open_target_layout(struct hostdev *h, const char *path, bool writable,
		       const struct topo_flags *f)
{
	struct topo_flags g = *f;

	g.any_lss = false;
	int rc = hostdev_open(h, path, writable);
	/* A dual GPT is written through the 4096-byte view of an image: every write lands on the
	 * 4 KiB blocks both sector sizes share. A device keeps its own sector size. */
	if (!rc && f->any_lss && !h->is_block) {
		g.lss = DUAL_LARGE_LSS;
		g.has_lss = true;
	}
	if (!rc)
		rc = topology_find(h, &g);
	return rc;
}

int open_target_live(struct hostdev *h, const char *path, bool writable,
		     const struct topo_flags *f)
{
	int rc = hostdev_open_live(h, path, writable);
	if (!rc)
		rc = topology_find(h, f);
	return rc;
}

int open_target(struct hostdev *h, const char *path, bool writable, const struct topo_flags *f)
{
	int rc = hostdev_open(h, path, writable);
	if (!rc)
		rc = topology_find(h, f);
	return rc;
}

bool parse_seconds(const char *s, unsigned *out)
{
	unsigned v = 0;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	for (; *s; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > CFG_TIMEOUT_MAX)
			return false;
	}
	*out = v;
	return true;
}
