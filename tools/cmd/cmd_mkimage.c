/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector mkimage: a bootable sparse disk image in one step: partition, format, install, add. */
#include "tools/cmd/cmd_mkimage.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/boot/efisig.h"
#include "tools/boot/stages.h"
#include "tools/cmd/cli.h"
#include "tools/cmd/entry_options.h"
#include "tools/cmd/sign_options.h"
#include "tools/dev/hostdev_open.h"
#include "tools/dev/lock.h"
#include "tools/dev/mounts.h"
#include "tools/disk/dual.h"
#include "tools/disk/foreign.h"
#include "tools/disk/rootarg.h"
#include "tools/esp/ext4fmt.h"
#include "tools/ops/install.h"
#include "tools/ops/partition.h"

/* --root-dir: every entry whose command line has no root= gets the Linux partition's
 * root=PARTUUID= (into cmdlines[k]), then the partition becomes ext4 made from dir. *root_arg
 * receives the argument. Returns 0 or an exit code. */
static int fill_root(struct txn *t, const char *dir, struct entry_list *l,
		     char cmdlines[][CFG_CMDLINE_MAX], char *root_arg, size_t cap)
{
	int i = root_part_index(&t->di);
	if (i < 0) {
		t_error("mkimage.no_root", "%s has no Linux partition for --root-dir", t->h->path);
		return EXIT_ERRORS;
	}
	const struct part_info *p = &t->di.parts[i];
	root_partuuid_arg(&t->di, p, root_arg, cap);
	for (unsigned k = 0; k < l->n; k++) {
		/* a boot record takes no command line */
		if (l->e[k].kind == CFG_KIND_CHAIN || cmdline_has_root(l->e[k].cmdline))
			continue;
		if (cmdline_append(l->e[k].cmdline, root_arg, cmdlines[k], CFG_CMDLINE_MAX)) {
			t_error("mkimage.cmdline",
				"the command line of --kernel %s with %s added is longer than the %u "
				"bytes anysector.cfg allows",
				l->e[k].kernel, root_arg, CFG_CMDLINE_MAX - 1);
			return EXIT_USAGE;
		}
		l->e[k].cmdline = cmdlines[k];
	}
	return ext4_format_from_dir(t->h, p->first, p->sectors, dir);
}

/* --root-dir's root= must fit each command line it goes into: checked before the image is
 * made (fill_root adds it). Returns 0 or EXIT_USAGE. */
static int root_arg_fits(const struct entry_list *l, enum label_kind label)
{
	for (unsigned k = 0; k < l->n; k++) {
		const char *c = l->e[k].cmdline;
		if (l->e[k].kind == CFG_KIND_CHAIN || cmdline_has_root(c))
			continue;
		size_t len = (c && *c ? strlen(c) + 1 : 0) + root_partuuid_arg_len(label);
		if (len >= CFG_CMDLINE_MAX)
			return usage_error("mkimage", "the command line of %s %s with --root-dir's "
					   "root=PARTUUID=... added is %zu bytes; anysector.cfg holds at "
					   "most %u", l->e[k].kind == CFG_KIND_EFI ? "--efi" : "--kernel",
					   l->e[k].kernel, len, CFG_CMDLINE_MAX - 1);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: anysector mkimage OUT --size SIZE [options]\n"
		"\n"
		"Creates the sparse image OUT, partitions it (as 'partition'), installs the boot\n"
		"stages (as 'install', without a backup: the image is new) and adds the kernels\n"
		"(as 'add'). SIZE takes K/M/G/T (powers of 1024) or KB/MB/GB/TB (powers of 1000).\n"
		"\n"
		"options:\n"
		"  --size SIZE          image size (a whole number of sectors)\n" LAYOUT_HELP
		"  --stages DIR         where stage1.bin, stage2.bin and BOOTX64.EFI are\n"
		"  --force              replace OUT if it holds anything (an empty OUT is replaced\n"
		"                       without it)\n"
		"  --root-dir DIR       make the Linux partition ext4 holding the tree DIR\n"
		"                       (mkfs.ext4 -d, 4096-byte blocks) and add its\n"
		"                       root=PARTUUID=... to every --cmdline without a root=\n"
		"  --timeout SECONDS    the boot menu's timeout in the new anysector.cfg (default %u;\n"
		"                       0 boots the default entry at once; needs a --kernel)\n" ENTRY_HELP
		SIGNING_HELP TOPO_HELP LOCK_HELP, CFG_DEFAULT_TIMEOUT);
}

/* What the command line asked for. */
struct mkimage_args {
	struct layout_opts lo;
	struct common_opts o;
	struct efi_signing sg;
	struct entry_list l;
	const char *out, *stages_opt, *root_dir;
	uint64_t size;
	uint32_t lss;
	unsigned timeout;
	bool has_timeout;
	bool help;                  /* --help: the usage is printed, nothing else to do */
};

/* The options into *m. Returns 0 or an exit code (EXIT_OK with m->help after --help). */
static int parse_options(int argc, char **argv, struct mkimage_args *m)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		LOCK_LONG_OPTIONS,
		ENTRY_LONG_OPTIONS,
		LAYOUT_LONG_OPTIONS,
		SIGNING_LONG_OPTIONS,
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "stages", required_argument, NULL, OPT_STAGES },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "root-dir", required_argument, NULL, OPT_ROOT_DIR },
		{ "help", no_argument, NULL, OPT_HELP },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = next_option(argc, argv, opts, &m->o)) != -1) {
		enum opt_result r = layout_option(c, optarg, &m->lo, "mkimage");
		if (r == OPTION_OTHER)
			r = entry_option(c, optarg, &m->l, "mkimage");
		if (r == OPTION_OTHER)
			r = signing_option(c, optarg, &m->sg, "mkimage");
		if (r == OPTION_BAD)
			return EXIT_USAGE;
		if (r == OPTION_TAKEN)
			continue;
		switch (c) {
		case OPT_SIZE:
			if (!parse_size(optarg, &m->size) || !m->size)
				return usage_error("mkimage", "--size %s: not a size", optarg);
			break;
		case OPT_STAGES: m->stages_opt = optarg; break;
		case OPT_ROOT_DIR: m->root_dir = optarg; break;
		case OPT_TIMEOUT:
			if (!parse_seconds(optarg, &m->timeout))
				return usage_error("mkimage", "--timeout %s: not a number of seconds from 0 "
						   "to %u", optarg, CFG_TIMEOUT_MAX);
			m->has_timeout = true;
			break;
		case OPT_HELP: usage(stdout); m->help = true; return EXIT_OK;
		case OPT_FAILED: return EXIT_USAGE;
		default: return bad_option("mkimage");
		}
	}
	if (optind + 1 != argc)
		return usage_error("mkimage", "mkimage needs exactly one OUT file");
	m->out = argv[optind];
	return 0;
}

/* The options that go together, and the sector size (m->lss; --sector-size is set to it when
 * not given). Returns 0 or an exit code. */
static int check_options(struct mkimage_args *m)
{
	struct stat st;
	int rc;

	if (!m->size)
		return usage_error("mkimage", "--size is required");
	if ((rc = entry_finish(&m->l, "mkimage", false)) || (rc = signing_finish(&m->sg, "mkimage")))
		return rc;
	if (m->has_timeout && !m->l.n)
		return usage_error("mkimage", "--timeout needs a --kernel: without an entry no "
				   "anysector.cfg is written");
	if (m->root_dir && stat(m->root_dir, &st))
		return usage_error("mkimage", "--root-dir %s: %s", m->root_dir, strerror(errno));
	if (m->root_dir && !S_ISDIR(st.st_mode))
		return usage_error("mkimage", "--root-dir %s: not a directory", m->root_dir);
	if (m->root_dir && m->lo.no_rest)
		return usage_error("mkimage", "--root-dir fills the Linux partition, which --no-rest "
				   "leaves out");
	if (m->root_dir && (rc = root_arg_fits(&m->l, m->lo.label)))
		return rc;
	m->lo.dual = m->o.topo.any_lss;
	m->lo.stages = m->stages_opt; /* the stage2 --dos-compat measures is the one installed */
	m->lss = m->lo.dual ? DUAL_BLOCK : m->o.topo.has_lss ? m->o.topo.lss : 512;
	if (!m->o.topo.has_lss && !m->lo.dual)
		m->o.topo.lss = m->lss, m->o.topo.has_lss = true;
	if (!is_pow2(m->lss) || m->lss < 512 || m->size % m->lss)
		return usage_error("mkimage", "--size %llu is not a whole number of %u-byte sectors",
				   (unsigned long long)m->size, (unsigned)m->lss);
	return 0;
}

/* Takes OUT's lock, making OUT (empty) when it is new, so that nothing else writes it until the
 * image is made; *made says OUT was missing. A device is refused. Returns 0 or an exit code. */
static int claim_out(const struct mkimage_args *m, int *lock, bool *made)
{
	struct stat st;

	*made = stat(m->out, &st) != 0;
	if (!*made && !S_ISREG(st.st_mode)) {
		t_error("refuse.not_file",
			"%s is not a regular file: mkimage only makes image files (use partition "
			"and install for a device)",
			m->out);
		return EXIT_REFUSED;
	}
	return lock_take(m->out, true, true, lock);
}

/* Drops OUT's lock after a failure before anything was written to it; an OUT that was missing
 * and is still empty (claim_out made it to lock it) goes first. */
static void drop_out(const struct mkimage_args *m, bool made, int lock)
{
	struct stat st;
	if (made && !stat(m->out, &st) && !st.st_size)
		unlink(m->out);
	lock_release(lock);
}

/* An OUT that exists: never a file a loop device has mounted, and one that holds anything only
 * with --force (found: what it holds). Returns 0 or an exit code. */
static int check_existing(const struct mkimage_args *m, struct probe_result *found)
{
	const char *out = m->out;
	struct stat st;
	int rc;

	if (stat(out, &st))
		return 0;
	/* never a file a loop device has mounted, --force or not */
	struct hostdev old;
	if ((rc = hostdev_open(&old, out, false)) || (rc = refuse_if_in_use(&old))) {
		hostdev_close(&old);
		return rc;
	}
	hostdev_set_sector_size(&old, m->lss, TOPO_GIVEN, "mkimage's sector size");
	if ((rc = foreign_scan_disk(&old, found))) {
		hostdev_close(&old);
		return rc;
	}
	/* An empty file (or one that is all hole) has nothing to lose. */
	bool empty = !found->n && !fd_has_data(old.fd, 0, old.size_bytes);
	hostdev_close(&old);
	if (!empty && !m->o.force) {
		char what[200];
		for (unsigned i = 0; i < found->n; i++)
			t_error("refuse.exists", "%s exists already and holds %s", out,
				probe_hit_text(&found->hit[i], what, sizeof what));
		if (!found->n)
			t_error("refuse.exists",
				"%s exists already and holds data (no signature libblkid knows)",
				out);
		t_error("refuse.exists", "use --force to replace it");
		return EXIT_REFUSED;
	}
	return 0;
}

/* OUT as a new sparse file of the size asked. Returns 0 or an exit code. */
static int create_out(const struct mkimage_args *m)
{
	int fd = open(m->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)m->size)) {
		t_error("mkimage.create", "%s: %s", m->out, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_ERRORS;
	}
	close(fd);
	return 0;
}

/* partition, install and add on the new file, one plan after the other (--root-dir's
 * root=PARTUUID= into root_arg). Returns 0 or an exit code. */
static int make_image(struct mkimage_args *m, const struct stages *s, char *root_arg, size_t cap)
{
	static char cmdlines[CFG_MAX_ENTRIES][CFG_CMDLINE_MAX];
	struct hostdev h;
	struct txn t;
	int rc;

	memset(&t, 0, sizeof t);
	if (!(rc = open_target_layout(&h, m->out, true, &m->o.topo)) &&
	    !(rc = partition_disk(&h, &m->lo, false)) &&
	    !(rc = txn_begin(&t, &h))) {
		t.journal = false; /* a new image has nothing to restore */
		t.no_nvram = true; /* nor a firmware that boots it yet */
		t.cfg_timeout = m->timeout;
		t.sign = m->sg;
		t.lock_config = m->sg.lock;
		if ((!m->root_dir || !(rc = fill_root(&t, m->root_dir, &m->l, cmdlines, root_arg,
						      cap))) &&
		    !(rc = txn_install(&t, s)) && (!m->l.n || !(rc = txn_add(&t, m->l.e, m->l.n))))
			rc = txn_commit(&t);
	}
	txn_end(&t);
	hostdev_close(&h);
	return rc;
}

/* What was made, and what --force replaced. */
static void print_made(const struct mkimage_args *m, const struct probe_result *found,
		       const char *root_arg)
{
	/* --force replaced the file whole: name what it held, as partition names what it erased */
	for (unsigned i = 0; i < found->n; i++) {
		char what[200];
		printf("replaced %s, which held %s\n", m->out,
		       probe_hit_text(&found->hit[i], what, sizeof what));
	}
	char hs[32];
	if (m->lo.dual)
		printf("%s: bootable dual-GPT image, %s, for 512- and 4096-byte sectors\n", m->out,
		       human_size(m->size, hs, sizeof hs));
	else
		printf("%s: bootable %s image, %s, %u-byte sectors\n", m->out,
		       m->lo.label == LABEL_GPT ? "GPT" : "MBR", human_size(m->size, hs, sizeof hs),
		       (unsigned)m->lss);
	if (m->root_dir)
		printf("%s: root filesystem ext4 from %s, %s\n", m->out, m->root_dir, root_arg);
}

int cmd_mkimage(int argc, char **argv)
{
	struct mkimage_args m = { .lo = { .label = LABEL_GPT }, .timeout = CFG_DEFAULT_TIMEOUT };
	struct probe_result found = { .n = 0 };
	char root_arg[80] = "";
	struct stages s;
	int rc, lock = 0;
	bool made = false;

	if ((rc = parse_options(argc, argv, &m)) || m.help || (rc = check_options(&m)) ||
	    (rc = claim_out(&m, &lock, &made)))
		return rc;
	if ((rc = check_existing(&m, &found))) {
		drop_out(&m, made, lock);
		return rc;
	}
	if ((rc = stages_load(m.stages_opt, &s)) || (rc = create_out(&m))) {
		stages_free(&s);
		drop_out(&m, made, lock);
		return rc;
	}
	rc = make_image(&m, &s, root_arg, sizeof root_arg);
	stages_free(&s);
	if (rc)
		unlink(m.out); /* still under its lock: what it holds now is ours */
	lock_release(lock);
	if (rc) {
		t_error("mkimage.failed", "%s was not made", m.out);
		return rc;
	}
	print_made(&m, &found, root_arg);
	return EXIT_OK;
}
