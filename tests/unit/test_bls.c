/* SPDX-License-Identifier: BSD-2-Clause */
/* Boot Loader Specification Type #1: the specification's example entry parses to what it says,
 * every unusable entry is reported with its file and line, versions and entries sort as the
 * specification and systemd (252, Debian 12) sort them, loader.conf's default globs match as
 * systemd-boot's do. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/bls.h"
#include "common/errors.h"
#include "common/name.h"

static struct bls_entry ent;

static int parse(const char *file, const char *text, struct capture *cap)
{
	capture_init(cap);
	return bls_parse(text, strlen(text), file, &ent, &cap->diag);
}

/* The complete drop-in file of the specification ("Type #1 Boot Loader Entry Keys"). */
static void test_spec_example(void **state)
{
	(void)state;
	static const char text[] =
		"# /boot/loader/entries/6a9857a393724b7a981ebb5b8495b9ea-3.8.0-2.fc19.x86_64.conf\n"
		"title        Fedora 19 (Rawhide)\n"
		"sort-key     fedora\n"
		"machine-id   6a9857a393724b7a981ebb5b8495b9ea\n"
		"version      3.8.0-2.fc19.x86_64\n"
		"options      root=UUID=6d3376e4-fc93-4509-95ec-a21d68011da2 quiet\n"
		"architecture x64\n"
		"linux        /6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/linux\n"
		"initrd       /6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/initrd\n";
	struct capture cap;
	assert_int_equal(parse("/loader/entries/6a9857a393724b7a981ebb5b8495b9ea-3.8.0-2.fc19."
			       "x86_64.conf", text, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_string_equal(ent.id, "6a9857a393724b7a981ebb5b8495b9ea-3.8.0-2.fc19.x86_64");
	assert_string_equal(ent.title, "Fedora 19 (Rawhide)");
	assert_string_equal(ent.sort_key, "fedora");
	assert_string_equal(ent.machine_id, "6a9857a393724b7a981ebb5b8495b9ea");
	assert_string_equal(ent.version, "3.8.0-2.fc19.x86_64");
	assert_string_equal(ent.cmdline, "root=UUID=6d3376e4-fc93-4509-95ec-a21d68011da2 quiet");
	assert_string_equal(ent.kernel, "/6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/linux");
	assert_int_equal(ent.ninitrd, 1);
	assert_string_equal(ent.initrd[0],
			    "/6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/initrd");
	assert_int_equal(ent.tries_left, -1);
}

/* What kernel-install (systemd 252, layout=bls) writes on Debian 12. */
static void test_kernel_install_entry(void **state)
{
	(void)state;
	static const char text[] =
		"# Boot Loader Specification type#1 entry\n"
		"# File created by /usr/lib/kernel/install.d/90-loaderentry.install (systemd 252)\n"
		"title      Debian GNU/Linux 12 (bookworm)\n"
		"version    6.1.0-18-amd64\n"
		"machine-id 0123456789abcdef0123456789abcdef\n"
		"sort-key   debian\n"
		"options    root=PARTUUID=5f1c0d2a-0b5e-4c53-9d8e-2a6c1b7e9f10 ro console=ttyS0\n"
		"linux      /0123456789abcdef0123456789abcdef/6.1.0-18-amd64/linux\n"
		"initrd     /0123456789abcdef0123456789abcdef/6.1.0-18-amd64/initrd.img-6.1.0-18-amd64\n";
	struct capture cap;
	assert_int_equal(parse("/loader/entries/0123456789abcdef0123456789abcdef-6.1.0-18-amd64.conf",
			       text, &cap), 0);
	assert_string_equal(ent.id, "0123456789abcdef0123456789abcdef-6.1.0-18-amd64");
	assert_string_equal(ent.initrd[0], "/0123456789abcdef0123456789abcdef/6.1.0-18-amd64/"
			    "initrd.img-6.1.0-18-amd64");
}

/* initrd and options repeat; paths get their optional '/'; later single keys win; unknown
 * keys, comments, blank lines, tabs and a CRLF are fine. */
static void test_repeats_and_details(void **state)
{
	(void)state;
	static const char text[] =
		"\n"
		"title first\n"
		"title\tsecond one\r\n"
		"  # an indented comment\n"
		"linux vmlinuz\n"
		"initrd a/one.img\n"
		"initrd /b/two.img\n"
		"options root=/dev/sda1\n"
		"options\n"
		"options   quiet   splash\n"
		"unknown-key whatever\n"
		"Title ignored: keys are case-sensitive\n"
		"grub_users $grub_users\n";
	struct capture cap;
	assert_int_equal(parse("x.conf", text, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_string_equal(ent.title, "second one");
	assert_string_equal(ent.kernel, "/vmlinuz");
	assert_int_equal(ent.ninitrd, 2);
	assert_string_equal(ent.initrd[0], "/a/one.img");
	assert_string_equal(ent.initrd[1], "/b/two.img");
	assert_string_equal(ent.cmdline, "root=/dev/sda1 quiet   splash");
}

static void expect(const char *file, const char *text, int rc, const char *code, const char *want)
{
	struct capture cap;
	int got = parse(file, text, &cap);
	if (got != rc || (rc && !capture_has(&cap, code, want)) || (!rc && cap.n)) {
		capture_dump(&cap);
		fail_msg("rc %d (wanted %d); wanted %s containing \"%s\" for:\n%s", got, rc, code,
			 want, text);
	}
}

static void test_unusable_entries(void **state)
{
	(void)state;
	char big[CFG_CMDLINE_MAX + 64], line[BLS_PATH_MAX + 32];

	expect("/loader/entries/a.conf", "title A\n", AS_ECORRUPT, "bls.no_linux",
	       "/loader/entries/a.conf: no linux line");
	expect("a.conf", "title A\nlinux\n", AS_ECORRUPT, "bls.bad_line",
	       "a.conf line 2: linux needs a path");
	expect("a.conf", "linux /k\ninitrd /1\ninitrd /2\ninitrd /3\ninitrd /4\ninitrd /5\n",
	       AS_ECORRUPT, "bls.bad_line", "a.conf line 6: initrd given more than 4 times");
	expect("a.conf", "linux /k\ntitle x\x01y\n", AS_ECORRUPT, "bls.bad_line",
	       "a.conf line 2: a control character or NUL byte");
	expect("a.conf", "linux /k\ntitle x\ry\n", AS_ECORRUPT, "bls.bad_line",
	       "a.conf line 2: a control character");
	expect("a.conf", "linux /k\r\ntitle x\x7f\n", AS_ECORRUPT, "bls.bad_line",
	       "a.conf line 2: a control character");
	static const char nul[] = "linux /k\ntitle a\0b\n";
	struct capture cap;
	capture_init(&cap);
	assert_int_equal(bls_parse(nul, sizeof nul - 1, "n.conf", &ent, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "bls.bad_line", "n.conf line 2: a control character or NUL byte");

	/* what boots is never cut: one character over a path's or the command line's limit is an
	 * error naming the key */
	memset(line, 0, sizeof line);
	strcpy(line, "linux /");
	memset(line + 7, 'k', BLS_PATH_MAX - 1);
	strcat(line, "\n");
	expect("a.conf", line, AS_ECORRUPT, "bls.bad_line", "a.conf line 1: linux is too long");
	line[7 + BLS_PATH_MAX - 2] = '\n';
	line[7 + BLS_PATH_MAX - 1] = 0;
	expect("a.conf", line, 0, "", NULL);
	snprintf(big, sizeof big, "linux /k\noptions %0*d\noptions x\n", CFG_CMDLINE_MAX - 2, 0);
	expect("a.conf", big, AS_ECORRUPT, "bls.bad_line", "a.conf line 3: options is too long");
	big[strlen(big) - 3] = 0; /* no "x": 1022 characters fit */
	expect("a.conf", big, 0, "", NULL);

	/* not for this loader: reported as unsupported, not as broken */
	expect("e.conf", "title EFI\nefi /EFI/tool.efi\n", AS_EUNSUPP, "bls.unsupported",
	       "e.conf line 2: anysector does not support 'efi'; left out");
	expect("d.conf", "linux /k\ndevicetree /x.dtb\n", AS_EUNSUPP, "bls.unsupported",
	       "d.conf line 2: anysector does not support 'devicetree'");
	expect("d.conf", "linux /k\ndevicetree-overlay /x.dtbo\n", AS_EUNSUPP, "bls.unsupported",
	       "d.conf line 2: anysector does not support 'devicetree-overlay'");
	expect("r.conf", "linux /k\narchitecture aa64\n", AS_EUNSUPP, "bls.unsupported",
	       "r.conf: for another architecture than x64");
	expect("r.conf", "linux /k\narchitecture X64\n", 0, "", NULL);

	/* names: the specification's rule, one sentence for every way to break it */
	static const char *const bad_names[] = { "/loader/entries/.conf", "readme.txt",
						 "/loader/entries/d\xc3\xa9" "bian.conf", "d?bian.conf",
						 "a b.conf", "a~1.conf", "x.conf.bak",
						 /* a Linux name: fuzz_menu found two such files
						  * kept as one entry named after the backslash */
						 "/loader/entries/ab\\c.conf" };
	for (size_t i = 0; i < ARRAY_SIZE(bad_names); i++)
		expect(bad_names[i], "linux /k\n", AS_EINVAL, "bls.name",
		       "not NAME.conf of at most 255 characters A-Z a-z 0-9 + - _ .; left out");
	expect("/loader/entries/.conf", "linux /k\n", AS_EINVAL, "bls.name",
	       "/loader/entries/.conf: not NAME.conf");
	memset(big, 'n', BLS_NAME_MAX);
	strcpy(big + BLS_NAME_MAX - 4, ".conf");
	expect(big, "linux /k\n", AS_EINVAL, "bls.name", "at most 255 characters");
	strcpy(big + BLS_NAME_MAX - 5, ".conf");   /* 255 with the suffix */
	expect(big, "linux /k\n", 0, "", NULL);
	assert_int_equal(strlen(ent.id), BLS_NAME_MAX - 5);
	expect("A-Z_a.z0-9+x.CONF", "linux /k\n", 0, "", NULL);
	assert_string_equal(ent.id, "A-Z_a.z0-9+x");
}

/* common/name.c's bitmap is the specification's list, for every byte */
static void test_portable_chars(void **state)
{
	(void)state;
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-_.";
	for (int c = 1; c < 256; c++) {
		char s[2] = { (char)c, 0 };
		assert_int_equal(name_portable_span(s, 1), strchr(ok, c) != NULL);
	}
	assert_int_equal(name_portable_span("ab-c.d\xc3\xa9", 8), 6);
}

/* Display and sort fields never hide an entry: the long values are kept whole, a value
 * past 255 bytes is cut with a warning; a machine-id in systemd's UUID form is fine. */
static void test_long_fields(void **state)
{
	(void)state;
	char text[2048], v[400];
	struct capture cap;

	memset(v, 0, sizeof v);
	memset(v, 't', 100);
	snprintf(text, sizeof text, "linux /k\ntitle %s\nversion %.70s\nsort-key %.64s\n"
		 "machine-id 0123ABCD-89ab-cdef-0123-456789abcdef\n", v, v, v);
	memset(v, 'n', 64);
	strcpy(v + 64, ".conf");
	assert_int_equal(parse(v, text, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(strlen(ent.title), 100);
	assert_int_equal(strlen(ent.version), 70);
	assert_int_equal(strlen(ent.sort_key), 64);
	assert_string_equal(ent.machine_id, "0123ABCD-89ab-cdef-0123-456789abcdef");
	assert_int_equal(strlen(ent.id), 64);

	/* 255 bytes whole; 256 cut to 255 with a warning, the entry kept */
	static const char *const keys[] = { "title", "version", "sort-key", "machine-id" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		for (int n = 255; n <= 300; n += 45 - (n == 255) * 44) {
			memset(v, 0, sizeof v);
			memset(v, 'x', (size_t)n);
			snprintf(text, sizeof text, "linux /k\n%s %s\n", keys[k], v);
			assert_int_equal(parse("a.conf", text, &cap), 0);
			const char *got = k == 0 ? ent.title : k == 1 ? ent.version :
					  k == 2 ? ent.sort_key : ent.machine_id;
			assert_int_equal(strlen(got), 255);
			if (n == 255)
				assert_int_equal(cap.n, 0);
			else
				assert_reported(&cap, "bls.bad_line", "is cut to 255 bytes");
		}
}

/* Comment lines are ignored whatever they hold (the specification: "shall be ignored"); a title
 * that is not UTF-8 shows U+FFFD for each bad byte, with a warning; UTF-8 is kept as written. */
static void test_comments_and_utf8(void **state)
{
	(void)state;
	static const char comments[] = "# a\x01b\x7f\r\x1b[31m\0 all ignored\n"
				       "  \t# indented \x02 too\n"
				       "linux /k\ntitle Caf\xc3\xa9 \xe2\x82\xac\n";
	struct capture cap;
	capture_init(&cap);
	assert_int_equal(bls_parse(comments, sizeof comments - 1, "c.conf", &ent, &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	assert_string_equal(ent.title, "Caf\xc3\xa9 \xe2\x82\xac");

	static const struct {
		const char *in, *out;
	} t[] = {
		{ "a\xe9" "b", "a\xef\xbf\xbd" "b" },                       /* Latin-1 */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },                /* overlong '/' */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* a surrogate */
		{ "\xf4\x90\x80\x80x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx" },
		{ "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },                /* cut short */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },                  /* U+1F600 */
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char text[64];
		snprintf(text, sizeof text, "linux /k\ntitle %s\n", t[i].in);
		assert_int_equal(parse("u.conf", text, &cap), 0);
		assert_string_equal(ent.title, t[i].out);
		if (strcmp(t[i].in, t[i].out))
			assert_reported(&cap, "bls.bad_line", "u.conf line 2: title is not UTF-8");
		else
			assert_int_equal(cap.n, 0);
	}
}

/* "+LEFT-DONE" before the suffix: the boot counter (Boot counting section). */
static void test_boot_counter(void **state)
{
	(void)state;
	static const struct {
		const char *file, *id;
		int left, done;
	} cases[] = {
		{ "a+3.conf", "a", 3, 0 },
		{ "a+3-1.conf", "a", 3, 1 },
		{ "a-6.1.0-18-amd64+0-3.conf", "a-6.1.0-18-amd64", 0, 3 },
		{ "a-6.1.0-18-amd64.conf", "a-6.1.0-18-amd64", -1, -1 },
		{ "a+.conf", "a+", -1, -1 },
		{ "a+-1.conf", "a+-1", -1, -1 },
		{ "a-1-2.conf", "a-1-2", -1, -1 },
		{ "+3.conf", "+3", -1, -1 },
		/* the last '+' (systemd-boot's rule), and nothing between the counter and .conf */
		{ "a+1+2-3.conf", "a+1", 2, 3 },
		{ "a+2-3+x.conf", "a+2-3+x", -1, -1 },
		{ "a+2-3-4.conf", "a+2-3-4", -1, -1 },
		{ "a+007-010.conf", "a", 7, 10 },
		{ "a+999999999.conf", "a", 999999999, 0 },
		{ "a+1234567890.conf", "a+1234567890", -1, -1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct capture cap;
		int rc = parse(cases[i].file, "linux /k\n", &cap);
		if (rc || strcmp(ent.id, cases[i].id) || ent.tries_left != cases[i].left ||
		    ent.tries_done != cases[i].done)
			fail_msg("%s: rc %d id '%s' %d/%d", cases[i].file, rc, ent.id,
				 ent.tries_left, ent.tries_done);
	}
}

/* Pairs as `systemd-analyze compare-versions` of systemd 252 (Debian 12) judges them, including
 * the examples of the Version Format Specification (where the specification's text and systemd
 * disagree, e.g. '' against "~", systemd's verdict stands: it is what sorts the menus). */
static const struct {
	const char *a;
	int cmp;
	const char *b;
} versions[] = {
	{ "11", 0, "11" }, { "systemd-123", 0, "systemd-123" }, { "bar-123", -1, "foo-123" },
	{ "123a", 1, "123" }, { "123.a", 1, "123" }, { "123.a", -1, "123.b" },
	{ "123a", 1, "123.a" }, { "11\xce\xb1", 0, "11\xce\xb2" }, { "A", -1, "a" },
	{ "", -1, "0" }, { "0.", 1, "0" }, { "0.0", 1, "0" }, { "0", 1, "~" }, { "", 1, "~" },
	{ "1_", 0, "1" }, { "_1", 0, "1" }, { "1_", -1, "1.2" }, { "1_2_3", 1, "1.3.3" },
	{ "1+", 0, "1" }, { "+1", 0, "1" }, { "1+", -1, "1.2" }, { "1+2+3", 1, "1.3.3" },
	{ "1.0", 1, "1.0~rc1" }, { "1.0~rc1", -1, "1.0~rc2" }, { "1.0~rc1", 1, "1.0~" },
	{ "1^2", 1, "1" }, { "1^2", -1, "1.2" }, { "1^", 1, "1" }, { "1-2", -1, "1.2" },
	{ "1-2", 1, "1" }, { "1.2", 1, "1-2" }, { "122.1", -1, "123~rc1-1" },
	{ "123", 1, "123~rc1-1" }, { "123~rc1-1", 1, "123~rc1" },
	{ "6.1.0-18-amd64", 1, "6.1.0-9-amd64" }, { "6.1.0-18-amd64", -1, "6.1.0-18-cloud-amd64" },
	{ "5.10.0-28-amd64", -1, "6.1.0-18-amd64" }, { "6.1.0-18-amd64", 0, "6.1.0-18-amd64" },
	{ "0123456789abcdef0123456789abcdef-6.1.0-18-amd64", 1,
	  "0123456789abcdef0123456789abcdef-6.1.0-9-amd64" },
	{ "abc", -1, "abcd" }, { "abc", -1, "abd" }, { "1abc", -1, "1abcd" }, { "007", 0, "7" },
	{ "007", -1, "8" }, { "1.01", 0, "1.1" },
	{ "99999999999999999999999999", 1, "99999999999999999999999998" }, { "a-10", 1, "a-5" },
	{ "b", 1, "a-10" }, { "cx", 1, "c" }, { "3.8.0-2.fc19.x86_64", 1, "3.7.2-201.fc18.x86_64" },
	{ "~1", -1, "" }, { "~1", -1, "~2" }, { "ab", 1, "~1" }, { "123~rc1", 1, "123~rc1~beta" },
	{ "1.0^", 1, "1.0" }, { "1.0^1", 1, "1.0^" }, { "1-", 1, "1" }, { "1.", 1, "1" },
	{ "1.", 1, "1-" }, { "1^", -1, "1." }, { "a1", -1, "1a" }, { "-1", -1, "1" },
	{ ".1", 1, "-1" }, { "1^", -1, "1a" }, { "1^", 1, "1-" }, { "1^", -1, "12" },
	{ "1.", -1, "1a" }, { "1^", 1, "1~" }, { "a^", -1, "a." }, { "1^^", 1, "1^" },
	{ "1.^", -1, "1.." },
};

static void test_version_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		int r = bls_vercmp(versions[i].a, versions[i].b);
		int back = bls_vercmp(versions[i].b, versions[i].a);
		r = (r > 0) - (r < 0);
		back = (back > 0) - (back < 0);
		if (r != versions[i].cmp || back != -versions[i].cmp)
			fail_msg("'%s' vs '%s': %d and back %d, systemd says %d", versions[i].a,
				 versions[i].b, r, back, versions[i].cmp);
	}
}

/* Random strings over the characters that matter, judged by systemd-analyze itself. */
static void test_version_order_against_systemd(void **state)
{
	(void)state;
	if (!have_program("systemd-analyze")) {
		printf("SKIP: systemd-analyze not installed\n");
		skip();
	}
	static const char alphabet[] = "0019aAz.-~^_+";
	char path[] = "/tmp/anysector-vercmp-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	char a[300][8], b[300][8];
	srand(12345);
	for (int i = 0; i < 300; i++) {
		/* often a shared prefix, where the interesting decisions are */
		int shared = i % 3 == 0 ? 0 : -1;
		for (int k = 0; k < 2; k++) {
			char *s = k ? b[i] : a[i];
			int n = rand() % 7, j = 0;
			if (k && shared >= 0)
				for (; a[i][j] && j < 3; j++)
					s[j] = a[i][j];
			for (; j < n; j++)
				s[j] = alphabet[rand() % (int)(sizeof alphabet - 1)];
			s[j] = 0;
		}
		fprintf(f, "%s|%s\n", a[i], b[i]);
	}
	fclose(f);
	char out[sizeof path + 8];
	snprintf(out, sizeof out, "%s.out", path);
	assert_int_equal(run_cmd("while IFS='|' read -r a b; do systemd-analyze compare-versions "
				 "-- \"$a\" \"$b\" | awk '{print $(NF-1)}'; done < %s > %s", path, out),
			 0);
	size_t len;
	char *res = (char *)read_file(out, &len);
	assert_non_null(res);
	char *line = res, *next;
	for (int i = 0; i < 300; i++, line = next) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next++ = 0;
		int want = !strcmp(line, "<") ? -1 : !strcmp(line, ">") ? 1 : 0;
		int r = bls_vercmp(a[i], b[i]);
		r = (r > 0) - (r < 0);
		if (r != want) {
			free(res);
			fail_msg("'%s' vs '%s': %d, systemd-analyze says %d", a[i], b[i], r, want);
		}
	}
	free(res);
	unlink(path);
	unlink(out);
}

/* An entry with only what orders it (its strings beside it). */
struct key {
	struct cfg_entry e;
	char id[40], sort_key[40], mid[40], version[16], file[48];
};

static const struct cfg_entry *key(struct key *k, const char *id, const char *sort_key,
				   const char *mid, const char *version, int left, int done)
{
	memset(k, 0, sizeof *k);
	cfg_entry_clear(&k->e);
	k->e.name = strcpy(k->id, id);
	k->e.sort_key = strcpy(k->sort_key, sort_key);
	k->e.machine_id = strcpy(k->mid, mid);
	k->e.version = strcpy(k->version, version);
	snprintf(k->file, sizeof k->file, left < 0 ? "%s.conf" : done ? "%s+%d-%d.conf" :
		 "%s+%d.conf", id, left, done);
	k->e.file = k->file;
	k->e.tries_left = left;
	k->e.tries_done = done;
	k->e.bls = 1;
	return &k->e;
}

static int cmp_keys(const void *a, const void *b)
{
	return bls_compare(*(const struct cfg_entry *const *)a, *(const struct cfg_entry *const *)b);
}

static void expect_sorted(const struct cfg_entry **e, unsigned n, const char *const *want)
{
	qsort(e, n, sizeof e[0], cmp_keys);
	for (unsigned i = 0; i < n; i++)
		if (strcmp(e[i]->file, want[i]))
			fail_msg("entry %u is %s, wanted %s", i, e[i]->file, want[i]);
}

/* systemd's own sort test (src/test/test-bootspec.c): sort-key first, newest version first,
 * then ids by version, newest first. */
static void test_entry_order(void **state)
{
	(void)state;
	struct key k[9];
	const struct cfg_entry *e[9] = {
		key(&k[0], "a-10", "", "dd235d00696545768f6f693bfd23b15f", "10", -1, -1),
		key(&k[1], "a-5", "", "dd235d00696545768f6f693bfd23b15f", "5", -1, -1),
		key(&k[2], "b", "", "b75451ad92f94feeab50b0b442768dbd", "3", -1, -1),
		key(&k[3], "c", "xxxx", "309de666fd5044268a9a26541ac93176", "5", -1, -1),
		key(&k[4], "cx", "xxxx", "309de666fd5044268a9a26541ac93176", "10", -1, -1),
		key(&k[5], "d", "kkkk", "81c6e3147cf544c19006af023e22b292", "100", -1, -1),
		/* boot counting: bad entries last; more tries left first, then fewer done */
		key(&k[6], "z", "aaaa", "", "999", 0, 3),
		key(&k[7], "e", "xxxx", "309de666fd5044268a9a26541ac93176", "10", 2, 1),
		key(&k[8], "e", "xxxx", "309de666fd5044268a9a26541ac93176", "10", 2, 0),
	};
	static const char *const want[] = { "d.conf", "e+2.conf", "e+2-1.conf", "cx.conf",
					    "c.conf", "b.conf", "a-10.conf", "a-5.conf",
					    "z+0-3.conf" };
	expect_sorted(e, 9, want);
	/* machine-id orders entries of one sort-key; an unset one first */
	const struct cfg_entry *m[3] = {
		key(&k[0], "x", "s", "bbbb", "1", -1, -1),
		key(&k[1], "y", "s", "aaaa", "1", -1, -1),
		key(&k[2], "z", "s", "", "1", -1, -1),
	};
	static const char *const want_m[] = { "z.conf", "y.conf", "x.conf" };
	expect_sorted(m, 3, want_m);
}

/* Variants of one entry that differ by their boot counter (the specification's "Boot counting"
 * and systemd-boot's boot_entry_compare): bad last; more tries left first, then fewer done;
 * where systemd-boot leaves them in directory order, the one without a counter first. Any
 * input order gives the same menu. */
static void test_variant_order(void **state)
{
	(void)state;
	struct key k[6];
	static const char *const want[] = { "foo.conf", "foo+3.conf", "foo+2-1.conf",
					    "foo+2-4.conf", "foo+0-2.conf", "foo+0-7.conf" };
	static const int order[][6] = { { 0, 1, 2, 3, 4, 5 }, { 5, 4, 3, 2, 1, 0 },
					{ 4, 0, 5, 2, 1, 3 } };
	for (unsigned r = 0; r < 3; r++) {
		const struct cfg_entry *all[6] = {
			key(&k[0], "foo", "", "", "", -1, -1),
			key(&k[1], "foo", "", "", "", 3, 0),
			key(&k[2], "foo", "", "", "", 2, 1),
			key(&k[3], "foo", "", "", "", 2, 4),
			key(&k[4], "foo", "", "", "", 0, 2),
			key(&k[5], "foo", "", "", "", 0, 7),
		}, *e[6];
		for (unsigned i = 0; i < 6; i++)
			e[i] = all[order[r][i]];
		expect_sorted(e, 6, want);
	}
	/* a bad entry sorts after every good one, whatever its version or sort-key */
	const struct cfg_entry *b[3] = {
		key(&k[0], "new", "a", "", "9", 0, 3),
		key(&k[1], "old", "", "", "1", -1, -1),
		key(&k[2], "mid", "z", "", "5", 1, 1),
	};
	static const char *const want_b[] = { "mid+1-1.conf", "old.conf", "new+0-3.conf" };
	expect_sorted(b, 3, want_b);
}

static void test_loader_conf(void **state)
{
	(void)state;
	struct bls_loader l;
	struct capture cap;
	static const char text[] = "# /boot/efi/loader/loader.conf\n"
				   "timeout 0\n"
				   "default 01234567890abcdef1234567890abdf0-*\n"
				   "editor no\n"
				   "console-mode max\n";
	capture_init(&cap);
	bls_loader_parse(text, strlen(text), &l, &cap.diag);
	assert_int_equal(cap.n, 0);
	assert_true(l.has_timeout);
	assert_int_equal(l.timeout, 0);
	assert_string_equal(l.default_pattern, "01234567890abcdef1234567890abdf0-*");

	static const struct {
		const char *text;
		bool has;
		unsigned timeout;
		const char *code;
	} t[] = {
		{ "timeout 5\n", true, 5, NULL },
		{ "timeout menu-force\n", true, CFG_TIMEOUT_MAX, NULL },
		{ "timeout menu-hidden\n", true, 0, NULL },
		{ "timeout 999999999999999999999\n", true, CFG_TIMEOUT_MAX, NULL },
		{ "timeout 0x10\n", false, 0, "bls.bad_line" },
		{ "timeout soon\n", false, 0, "bls.bad_line" },
		{ "default @saved\n", false, 0, "bls.saved" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		capture_init(&cap);
		bls_loader_parse(t[i].text, strlen(t[i].text), &l, &cap.diag);
		assert_int_equal(l.has_timeout, t[i].has);
		assert_int_equal(l.timeout, t[i].timeout);
		assert_string_equal(l.default_pattern, "");
		if (t[i].code)
			assert_reported(&cap, t[i].code, i == ARRAY_SIZE(t) - 1 ?
					"/loader/loader.conf: default @saved is not supported" :
					"/loader/loader.conf: timeout '");
		else
			assert_int_equal(cap.n, 0);
	}
}

static void test_glob(void **state)
{
	(void)state;
	static const struct {
		const char *p, *s;
		bool match;
	} t[] = {
		{ "*", "", true }, { "*", "anything", true }, { "", "", true }, { "", "a", false },
		{ "a", "A", true }, { "deb*", "debian-6.1", true }, { "deb*", "fedora", false },
		{ "*-6.1.0-18-*", "0123-6.1.0-18-amd64", true }, { "*-6.1.0-18-*", "0123-6.1.0-9-amd64", false },
		{ "a?c", "abc", true }, { "a?c", "ac", false }, { "[a-c]x", "bx", true },
		{ "[a-c]x", "dx", false }, { "[!a-c]x", "dx", true }, { "[^a]x", "ax", false },
		{ "[]]", "]", true }, { "[a", "[a", true }, { "*.conf", "x.conf", true },
		{ "*a*b*c", "xxaxxbxxc", true }, { "*a*b*c", "xxaxxcxxb", false },
		{ "**", "x", true }, { "a*", "a", true },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (bls_glob(t[i].p, t[i].s) != t[i].match)
			fail_msg("'%s' against '%s': wanted %d", t[i].p, t[i].s, t[i].match);
	/* the worst case for backtracking still ends */
	char s[4001], p[64];
	memset(s, 'a', 4000);
	s[4000] = 0;
	strcpy(p, "*a*a*a*a*a*a*a*a*a*a*b");
	assert_false(bls_glob(p, s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example),
		cmocka_unit_test(test_kernel_install_entry),
		cmocka_unit_test(test_repeats_and_details),
		cmocka_unit_test(test_unusable_entries),
		cmocka_unit_test(test_portable_chars),
		cmocka_unit_test(test_long_fields),
		cmocka_unit_test(test_comments_and_utf8),
		cmocka_unit_test(test_boot_counter),
		cmocka_unit_test(test_version_order),
		cmocka_unit_test(test_version_order_against_systemd),
		cmocka_unit_test(test_entry_order),
		cmocka_unit_test(test_variant_order),
		cmocka_unit_test(test_loader_conf),
		cmocka_unit_test(test_glob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
