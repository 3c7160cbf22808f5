/* SPDX-License-Identifier: BSD-2-Clause */
/* anysector.cfg: valid files parse to exactly what they say; every mistake is reported with the
 * line it is on. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/config.h"
#include "common/errors.h"

static struct cfg cfg;

static int parse(const char *text, struct capture *cap)
{
	return parse_cfg(text, &cfg, cap);
}

static void test_design_example(void **state)
{
	(void)state;
	static const char text[] =
		"timeout 3            # seconds; 0 boots at once\n"
		"default debian\n"
		"serial 115200        # COM1 mirror of the console\n"
		"\n"
		"entry debian\n"
		"  title   Debian GNU/Linux\n"
		"  kernel  /vmlinuz\n"
		"  initrd  /initrd.img\n"
		"  cmdline root=LABEL=root console=ttyS0\n";
	struct capture cap;
	assert_int_equal(parse(text, &cap), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(cfg.timeout, 3);
	assert_string_equal(cfg.default_name, "debian");
	assert_int_equal(cfg.serial_baud, 115200);
	assert_int_equal(cfg.nentries, 1);
	assert_string_equal(cfg.entries[0].name, "debian");
	assert_string_equal(cfg.entries[0].title, "Debian GNU/Linux");
	assert_string_equal(cfg.entries[0].kernel, "/vmlinuz");
	assert_int_equal(cfg.entries[0].ninitrd, 1);
	assert_string_equal(cfg.entries[0].initrd[0], "/initrd.img");
	assert_string_equal(cfg.entries[0].cmdline, "root=LABEL=root console=ttyS0");
	assert_int_equal(cfg.entries[0].line, 5);
	assert_int_equal(cfg_default_index(&cfg), 0);
	assert_int_equal(cfg_find(&cfg, "debian"), 0);
	assert_int_equal(cfg_find(&cfg, "DEBIAN"), 0);
	assert_int_equal(cfg_find(&cfg, "arch"), -1);
}

static void test_defaults_and_many_entries(void **state)
{
	(void)state;
	static const char text[] =
		"# only entries: defaults apply\n"
		"entry a\n kernel /a\n"
		"entry b\n kernel /b\n initrd /i1\n initrd /i2\n initrd /i3\n initrd /i4\n"
		"entry c\n\tkernel\t/c  # tab separated, trailing comment\n"
		"\tcmdline quiet # the kernel gets this too\n";
	struct capture cap;
	assert_int_equal(parse(text, &cap), 0);
	assert_int_equal(cfg.timeout, CFG_DEFAULT_TIMEOUT);
	assert_int_equal(cfg.serial_baud, CFG_DEFAULT_SERIAL);
	assert_int_equal(cfg.nentries, 3);
	assert_int_equal(cfg_default_index(&cfg), 0);
	assert_int_equal(cfg.entries[1].ninitrd, 4);
	assert_string_equal(cfg.entries[1].initrd[3], "/i4");
	assert_string_equal(cfg.entries[2].kernel, "/c");
	/* '#' inside a command line belongs to the kernel */
	assert_string_equal(cfg.entries[2].cmdline, "quiet # the kernel gets this too");
	assert_string_equal(cfg.entries[0].title, "");
	assert_int_equal(cfg_find(&cfg, "c"), 2);
}

static void test_default_picks_entry_and_serial_off(void **state)
{
	(void)state;
	struct capture cap;
	assert_int_equal(parse("serial off\ntimeout 0\ndefault second\n"
			       "entry first\nkernel /k1\nentry second\nkernel /k2\n", &cap), 0);
	assert_int_equal(cfg.serial_baud, 0);
	assert_int_equal(cfg.timeout, 0);
	assert_int_equal(cfg_default_index(&cfg), 1);
	assert_int_equal(parse("timeout 3600\nserial 9600\nentry x\nkernel /k\n", &cap), 0);
	assert_int_equal(cfg.timeout, 3600);
	assert_int_equal(cfg.serial_baud, 9600);
}

static void test_crlf_bom_and_no_final_newline(void **state)
{
	(void)state;
	struct capture cap;
	assert_int_equal(parse("\xEF\xBB\xBFtimeout 5\r\nentry win\r\n  title Edited on Windows\r\n"
			       "  kernel /vmlinuz\r\n  cmdline a=b c\r\n  initrd /x", &cap), 0);
	assert_int_equal(cfg.timeout, 5);
	assert_string_equal(cfg.entries[0].title, "Edited on Windows");
	assert_string_equal(cfg.entries[0].cmdline, "a=b c");
	assert_string_equal(cfg.entries[0].initrd[0], "/x");
}

static void test_not_nul_terminated(void **state)
{
	(void)state;
	/* The parser must stop at len even with more text after it. */
	static const char text[] = "entry a\nkernel /k\nbogus line";
	struct capture cap;
	capture_init(&cap);
	assert_int_equal(cfg_parse(text, strlen("entry a\nkernel /k\n"), &cfg, &cap.diag), 0);
	assert_int_equal(cfg.nentries, 1);
}

static void test_each_error_has_its_line(void **state)
{
	(void)state;
	cfg_rejected("timeout 3\nentry a\n kernel /k\n\n\n\nkernal /x\n", "cfg.unknown_key",
		     "anysector.cfg line 7: unknown key 'kernal'");
	cfg_rejected("timeout abc\nentry a\nkernel /k\n", "cfg.bad_value",
		     "anysector.cfg line 1: timeout 'abc'");
	cfg_rejected("timeout 3601\nentry a\nkernel /k\n", "cfg.bad_value", "line 1: timeout");
	cfg_rejected("timeout -1\nentry a\nkernel /k\n", "cfg.bad_value", "line 1: timeout");
	cfg_rejected("timeout 99999999999999999999999\nentry a\nkernel /k\n", "cfg.bad_value",
		     "line 1");
	cfg_rejected("\nserial 12345\nentry a\nkernel /k\n", "cfg.bad_value",
		     "line 2: serial '12345'");
	cfg_rejected("serial fast\nentry a\nkernel /k\n", "cfg.bad_value", "line 1: serial");
	cfg_rejected("entry a\nkernel /k\ndefault b\n", "cfg.default",
		     "line 3: default 'b' names no entry");
	cfg_rejected("entry a\nkernel /k\nentry a\nkernel /k2\n", "cfg.duplicate",
		     "line 3: entry 'a' already defined on line 1");
	cfg_rejected("entry a\ntitle x\n\nentry b\nkernel /k\n", "cfg.no_kernel",
		     "line 1: entry 'a' has no kernel");
	cfg_rejected("entry a\nkernel /k\nkernel /k2\n", "cfg.duplicate",
		     "line 3: kernel already given on line 2");
	cfg_rejected("timeout 1\ntimeout 2\nentry a\nkernel /k\n", "cfg.duplicate",
		     "line 2: timeout already given on line 1");
	cfg_rejected("kernel /k\nentry a\nkernel /k\n", "cfg.outside_entry",
		     "line 1: kernel outside an entry");
	cfg_rejected("entry a\nkernel\n", "cfg.missing_value", "line 2: kernel needs a value");
	cfg_rejected("entry a\nkernel /k\ncmdline\n", "cfg.missing_value",
		     "line 3: cmdline needs a value");
	cfg_rejected("entry two words\nkernel /k\nentry b\nkernel /k\n", "cfg.bad_value",
		     "line 1: entry name 'two words' must be one word");
	cfg_rejected("entry a\nkernel /k\ninitrd /1\ninitrd /2\ninitrd /3\ninitrd /4\ninitrd /5\n",
		     "cfg.too_many", "line 7: more than 4 initrd lines");
	cfg_rejected("entry a\nkernel /k\x01\n", "cfg.control_char",
		     "line 2: control character 0x01");
	cfg_rejected("editor maybe\nentry a\nkernel /k\n", "cfg.bad_value",
		     "line 1: editor 'maybe' is not 'on' or 'off'");
	cfg_rejected("editor on\nentry a\nkernel /k\neditor off\n", "cfg.duplicate",
		     "line 4: editor already given on line 1");
	cfg_rejected("entry a\nkernel /k\neditor\n", "cfg.missing_value",
		     "line 3: editor needs a value");
	cfg_rejected("# nothing here\n\n", "cfg.no_entry", "no entry");
	cfg_rejected("", "cfg.no_entry", "line 1: no entry");
}

static void test_nul_byte_rejected(void **state)
{
	(void)state;
	static const char text[] = "entry a\nkernel /k\0x\n";
	struct capture cap;
	capture_init(&cap);
	assert_int_equal(cfg_parse(text, sizeof text - 1, &cfg, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "cfg.nul", "anysector.cfg line 2: NUL byte");

	/* a comment line is ignored whatever it holds: NUL, control bytes, escape sequences */
	static const char comments[] = "# a\0b\x01\x7f\x1b[2J\r\n  \t#\0\n"
				       "entry a\nkernel /k\n#\x02\n";
	capture_init(&cap);
	assert_int_equal(cfg_parse(comments, sizeof comments - 1, &cfg, &cap.diag), 0);
	assert_int_equal(cap.n, 0);
	assert_int_equal(cfg.nentries, 1);
}

static void build(char *text, size_t cap, const char *key, const char *v)
{
	if (!strcmp(key, "kernel"))
		snprintf(text, cap, "entry a\nkernel %s\n", v);
	else
		snprintf(text, cap, "entry a\nkernel /k\n%s %s\n", key, v);
}

/* A value one byte over its field is an error naming the limit, never a silent truncation. */
static void test_too_long_values(void **state)
{
	(void)state;
	static const struct {
		const char *key;
		size_t cap;
	} f[] = { { "title", CFG_TITLE_MAX }, { "kernel", CFG_PATH_MAX }, { "initrd", CFG_PATH_MAX },
		  { "cmdline", CFG_CMDLINE_MAX } };
	char *text = malloc(4 * CFG_CMDLINE_MAX);
	char *v = malloc(CFG_CMDLINE_MAX + 2);
	char want[96];
	assert_non_null(text);
	assert_non_null(v);
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		struct capture cap;
		/* exactly fits */
		memset(v, 'x', f[i].cap - 1);
		v[f[i].cap - 1] = 0;
		build(text, 4 * CFG_CMDLINE_MAX, f[i].key, v);
		assert_int_equal(parse(text, &cap), 0);
		/* one over */
		memset(v, 'x', f[i].cap);
		v[f[i].cap] = 0;
		build(text, 4 * CFG_CMDLINE_MAX, f[i].key, v);
		snprintf(want, sizeof want, "value is %zu characters, the limit is %zu", f[i].cap,
			 f[i].cap - 1);
		assert_int_equal(parse(text, &cap), AS_ECORRUPT);
		const char *w = want;
		assert_reported(&cap, "cfg.too_long", w);
		assert_reported(&cap, "cfg.too_long", f[i].key);
	}
	/* entry names and default */
	memset(v, 'n', CFG_NAME_MAX);
	v[CFG_NAME_MAX] = 0;
	snprintf(text, 4 * CFG_CMDLINE_MAX, "entry %s\nkernel /k\n", v);
	cfg_rejected(text, "cfg.too_long", "line 1: entry name value is 64 characters, the limit is 63");
	v[CFG_NAME_MAX - 1] = 0;
	snprintf(text, 4 * CFG_CMDLINE_MAX, "default %s\nentry %s\nkernel /k\n", v, v);
	struct capture cap;
	assert_int_equal(parse(text, &cap), 0);
	assert_int_equal(cfg_default_index(&cfg), 0);
	free(text);
	free(v);
}

static void test_too_many_entries(void **state)
{
	(void)state;
	char text[4096];
	size_t n = 0;
	for (int i = 0; i <= CFG_MAX_ENTRIES; i++)
		n += (size_t)snprintf(text + n, sizeof text - n, "entry e%d\nkernel /k%d\n", i, i);
	const struct cfg *c = cfg_rejected(text, "cfg.too_many",
					   "line 33: entry 'e16' is one more than the 16 allowed");
	assert_int_equal(c->nentries, CFG_MAX_ENTRIES);
}

static void test_reports_every_error(void **state)
{
	(void)state;
	struct capture cap;
	assert_int_equal(parse("bogus 1\ntimeout x\nentry a\nfoo bar\ndefault zz\n", &cap),
			 AS_ECORRUPT);
	assert_reported(&cap, "cfg.unknown_key", "line 1: unknown key 'bogus'");
	assert_reported(&cap, "cfg.bad_value", "line 2:");
	assert_reported(&cap, "cfg.unknown_key", "line 4: unknown key 'foo'");
	assert_reported(&cap, "cfg.no_kernel", "line 3: entry 'a' has no kernel");
	assert_reported(&cap, "cfg.default", "line 5: default 'zz' names no entry");
	assert_int_equal(cap.diag.errors, 5);
}

static void test_entry_kinds(void **state)
{
	(void)state;
	struct capture cap;
	assert_int_equal(parse("entry l\nkernel /k\ninitrd /i\n"
			       "entry w\nefi /EFI/x.efi\ncmdline a b\npartition 3\n"
			       "entry e\nEFI /e.efi\n"
			       "entry d\nchainload 2\ntitle DOS\n"
			       "entry h\nchainload HD15\n", &cap), 0);
	assert_int_equal(cfg.entries[0].kind, CFG_KIND_LINUX);
	assert_int_equal(cfg.entries[1].kind, CFG_KIND_EFI);
	assert_string_equal(cfg.entries[1].kernel, "/EFI/x.efi");
	assert_string_equal(cfg.entries[1].cmdline, "a b");
	assert_int_equal(cfg.entries[1].partition, 3);
	assert_int_equal(cfg.entries[2].kind, CFG_KIND_EFI);
	assert_int_equal(cfg.entries[2].partition, 0);
	assert_int_equal(cfg.entries[3].kind, CFG_KIND_CHAIN);
	assert_int_equal(cfg.entries[3].partition, 2);
	assert_int_equal(cfg.entries[4].kind, CFG_KIND_CHAIN);
	assert_int_equal(cfg.entries[4].partition, 0);
	assert_int_equal(cfg.entries[4].bios_disk, 15);
	/* which firmware starts what */
	assert_true(cfg_entry_runs_on(&cfg.entries[0], CFG_FW_BIOS));
	assert_true(cfg_entry_runs_on(&cfg.entries[0], CFG_FW_UEFI));
	assert_false(cfg_entry_runs_on(&cfg.entries[1], CFG_FW_BIOS));
	assert_true(cfg_entry_runs_on(&cfg.entries[1], CFG_FW_UEFI));
	assert_true(cfg_entry_runs_on(&cfg.entries[3], CFG_FW_BIOS));
	assert_false(cfg_entry_runs_on(&cfg.entries[3], CFG_FW_UEFI));

	cfg_rejected("entry a\nkernel /k\nefi /e\n", "cfg.duplicate",
		     "line 3: efi, but line 2 already has kernel");
	cfg_rejected("entry a\nchainload 1\nchainload 2\n", "cfg.duplicate",
		     "line 3: chainload already given on line 2");
	cfg_rejected("entry a\nchainload 0\n", "cfg.bad_value", "line 2: chainload '0' is not");
	cfg_rejected("entry a\nchainload hd16\n", "cfg.bad_value", "line 2: chainload 'hd16'");
	cfg_rejected("entry a\nchainload hd\n", "cfg.bad_value", "line 2: chainload 'hd'");
	cfg_rejected("entry a\nchainload 129\n", "cfg.bad_value", "line 2: chainload '129'");
	cfg_rejected("entry a\nchainload sda2\n", "cfg.bad_value", "line 2: chainload 'sda2'");
	cfg_rejected("entry a\ninitrd /i\nefi /e\n", "cfg.not_here",
		     "line 2: initrd goes with a kernel, not with efi");
	cfg_rejected("entry a\nchainload 1\ninitrd /i\n", "cfg.not_here",
		     "line 3: initrd goes with a kernel, not with chainload");
	cfg_rejected("entry a\nchainload 1\ncmdline x\n", "cfg.not_here",
		     "line 3: a boot record takes no cmdline");
	cfg_rejected("entry a\nkernel /k\npartition 2\n", "cfg.not_here",
		     "line 3: partition goes with efi, not with kernel");
	cfg_rejected("entry a\nefi /e\npartition 0\n", "cfg.bad_value",
		     "line 3: partition '0' is not a partition number from 1 to 128");
	cfg_rejected("entry a\nefi\n", "cfg.missing_value", "line 2: efi needs a value");
	cfg_rejected("entry a\ntitle x\n", "cfg.no_kernel",
		     "line 1: entry 'a' has no kernel (nor efi, chainload or uki line)");

	/* a unified kernel image: both firmwares, its own command line and initrd */
	assert_int_equal(parse("entry u\nUKI /EFI/Linux/u.efi\nsha256 "
			       "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\n",
			       &cap), 0);
	assert_int_equal(cfg.entries[0].kind, CFG_KIND_UKI);
	assert_string_equal(cfg.entries[0].kernel, "/EFI/Linux/u.efi");
	assert_int_equal(cfg.entries[0].pinned, 1);
	assert_true(cfg_entry_runs_on(&cfg.entries[0], CFG_FW_BIOS));
	assert_true(cfg_entry_runs_on(&cfg.entries[0], CFG_FW_UEFI));
	assert_true(cfg_is_entry_key("uki", 3));
	cfg_rejected("entry a\nuki /u.efi\ncmdline x\n", "cfg.not_here",
		     "line 3: a unified kernel image's command line is its .cmdline");
	cfg_rejected("entry a\nuki /u.efi\ninitrd /i\n", "cfg.not_here",
		     "line 3: initrd goes with a kernel, not with uki");
	cfg_rejected("entry a\nuki /u.efi\nkernel /k\n", "cfg.duplicate",
		     "line 3: kernel, but line 2 already has uki");
	cfg_rejected("entry a\nuki\n", "cfg.missing_value", "line 2: uki needs a value");
}

static void test_keys_are_case_insensitive(void **state)
{
	(void)state;
	struct capture cap;
	assert_int_equal(parse("TIMEOUT 1\nEntry A\nKernel /k\nEDITOR Off # no\n", &cap), 0);
	assert_int_equal(cfg.timeout, 1);
	assert_int_equal(cfg.editor, CFG_EDITOR_OFF);
	assert_string_equal(cfg.entries[0].kernel, "/k");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_design_example),
		cmocka_unit_test(test_defaults_and_many_entries),
		cmocka_unit_test(test_default_picks_entry_and_serial_off),
		cmocka_unit_test(test_crlf_bom_and_no_final_newline),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_each_error_has_its_line),
		cmocka_unit_test(test_nul_byte_rejected),
		cmocka_unit_test(test_too_long_values),
		cmocka_unit_test(test_too_many_entries),
		cmocka_unit_test(test_reports_every_error),
		cmocka_unit_test(test_keys_are_case_insensitive),
		cmocka_unit_test(test_entry_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
