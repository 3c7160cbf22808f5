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
	assert_string_equal(ent.key.id, "6a9857a393724b7a981ebb5b8495b9ea-3.8.0-2.fc19.x86_64");
	assert_string_equal(ent.e.title, "Fedora 19 (Rawhide)");
	assert_string_equal(ent.key.sort_key, "fedora");
	assert_string_equal(ent.key.machine_id, "6a9857a393724b7a981ebb5b8495b9ea");
	assert_string_equal(ent.key.version, "3.8.0-2.fc19.x86_64");
	assert_string_equal(ent.e.cmdline, "root=UUID=6d3376e4-fc93-4509-95ec-a21d68011da2 quiet");
	assert_string_equal(ent.e.kernel, "/6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/linux");
	assert_int_equal(ent.e.ninitrd, 1);
	assert_string_equal(ent.e.initrd[0],
			    "/6a9857a393724b7a981ebb5b8495b9ea/3.8.0-2.fc19.x86_64/initrd");
	assert_int_equal(ent.key.tries_left, -1);
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
	assert_string_equal(ent.key.id, "0123456789abcdef0123456789abcdef-6.1.0-18-amd64");
	assert_string_equal(ent.e.initrd[0], "/0123456789abcdef0123456789abcdef/6.1.0-18-amd64/"
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
	assert_string_equal(ent.e.title, "second one");
	assert_string_equal(ent.e.kernel, "/vmlinuz");
	assert_int_equal(ent.e.ninitrd, 2);
	assert_string_equal(ent.e.initrd[0], "/a/one.img");
	assert_string_equal(ent.e.initrd[1], "/b/two.img");
	assert_string_equal(ent.e.cmdline, "root=/dev/sda1 quiet   splash");
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
	char big[CFG_CMDLINE_MAX + 64], line[CFG_PATH_MAX + 32];

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

	/* never cut: one character over a field's limit is an error naming the key */
	memset(line, 0, sizeof line);
	strcpy(line, "linux /");
	memset(line + 7, 'k', CFG_PATH_MAX - 1);
	strcat(line, "\n");
	expect("a.conf", line, AS_ECORRUPT, "bls.bad_line", "a.conf line 1: linux is too long");
	line[7 + CFG_PATH_MAX - 2] = '\n';
	line[7 + CFG_PATH_MAX - 1] = 0;
	expect("a.conf", line, 0, "", NULL);
	snprintf(big, sizeof big, "linux /k\noptions %0*d\noptions x\n", CFG_CMDLINE_MAX - 2, 0);
	expect("a.conf", big, AS_ECORRUPT, "bls.bad_line", "a.conf line 3: options is too long");
	big[strlen(big) - 3] = 0; /* no "x": 1022 characters fit */
	expect("a.conf", big, 0, "", NULL);
	snprintf(big, sizeof big, "linux /k\nversion %0*d\n", BLS_VERSION_MAX, 0);
	expect("a.conf", big, AS_ECORRUPT, "bls.bad_line", "a.conf line 2: version is too long");
	snprintf(big, sizeof big, "linux /k\nversion %0*d\n", BLS_VERSION_MAX - 1, 0);
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

	/* names */
	expect("/loader/entries/.conf", "linux /k\n", AS_EINVAL, "bls.name",
	       "/loader/entries/.conf: not NAME.conf");
	expect("readme.txt", "linux /k\n", AS_EINVAL, "bls.name", "NAME.conf");
	memset(big, 'n', CFG_NAME_MAX);
	strcpy(big + CFG_NAME_MAX, ".conf");
	expect(big, "linux /k\n", AS_EINVAL, "bls.name", "of up to 63 characters");
	strcpy(big + CFG_NAME_MAX - 1, ".conf");
	expect(big, "linux /k\n", 0, "", NULL);
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
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct capture cap;
		int rc = parse(cases[i].file, "linux /k\n", &cap);
		if (rc || strcmp(ent.key.id, cases[i].id) || ent.key.tries_left != cases[i].left ||
		    ent.key.tries_done != cases[i].done)
			fail_msg("%s: rc %d id '%s' %d/%d", cases[i].file, rc, ent.key.id,
				 ent.key.tries_left, ent.key.tries_done);
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

static void key(struct bls_key *k, const char *id, const char *sort_key, const char *mid,
		const char *version, int left, int done)
{
	memset(k, 0, sizeof *k);
	strcpy(k->id, id);
	strcpy(k->sort_key, sort_key);
	strcpy(k->machine_id, mid);
	strcpy(k->version, version);
	k->tries_left = left;
	k->tries_done = done;
}

static int cmp_keys(const void *a, const void *b)
{
	return bls_compare(a, b);
}

/* systemd's own sort test (src/test/test-bootspec.c): sort-key first, newest version first,
 * then ids by version, newest first. */
static void test_entry_order(void **state)
{
	(void)state;
	struct bls_key k[9];
	key(&k[0], "a-10", "", "dd235d00696545768f6f693bfd23b15f", "10", -1, -1);
	key(&k[1], "a-5", "", "dd235d00696545768f6f693bfd23b15f", "5", -1, -1);
	key(&k[2], "b", "", "b75451ad92f94feeab50b0b442768dbd", "3", -1, -1);
	key(&k[3], "c", "xxxx", "309de666fd5044268a9a26541ac93176", "5", -1, -1);
	key(&k[4], "cx", "xxxx", "309de666fd5044268a9a26541ac93176", "10", -1, -1);
	key(&k[5], "d", "kkkk", "81c6e3147cf544c19006af023e22b292", "100", -1, -1);
	/* boot counting: bad entries last; more tries left first, then fewer done */
	key(&k[6], "z+0-3", "aaaa", "", "999", 0, 3);
	key(&k[7], "e", "xxxx", "309de666fd5044268a9a26541ac93176", "10", 2, 1);
	key(&k[8], "e", "xxxx", "309de666fd5044268a9a26541ac93176", "10", 2, 0);
	qsort(k, 9, sizeof k[0], cmp_keys);
	static const char *const want[] = { "d", "e", "e", "cx", "c", "b", "a-10", "a-5", "z+0-3" };
	for (int i = 0; i < 9; i++)
		assert_string_equal(k[i].id, want[i]);
	assert_int_equal(k[1].tries_done, 0);
	/* machine-id orders entries of one sort-key; an unset one first */
	key(&k[0], "x", "s", "bbbb", "1", -1, -1);
	key(&k[1], "y", "s", "aaaa", "1", -1, -1);
	key(&k[2], "z", "s", "", "1", -1, -1);
	qsort(k, 3, sizeof k[0], cmp_keys);
	assert_string_equal(k[0].id, "z");
	assert_string_equal(k[1].id, "y");
	assert_string_equal(k[2].id, "x");
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
		{ "default @saved\n", false, 0, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		capture_init(&cap);
		bls_loader_parse(t[i].text, strlen(t[i].text), &l, &cap.diag);
		assert_int_equal(l.has_timeout, t[i].has);
		assert_int_equal(l.timeout, t[i].timeout);
		assert_string_equal(l.default_pattern, "");
		if (t[i].code)
			assert_reported(&cap, t[i].code, "/loader/loader.conf: timeout '");
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
		cmocka_unit_test(test_boot_counter),
		cmocka_unit_test(test_version_order),
		cmocka_unit_test(test_version_order_against_systemd),
		cmocka_unit_test(test_entry_order),
		cmocka_unit_test(test_loader_conf),
		cmocka_unit_test(test_glob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
