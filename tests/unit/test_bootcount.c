/* SPDX-License-Identifier: BSD-2-Clause */
/* One-shot boots as both loaders apply them (common/bootcount.c) over a memory disk holding a
 * state block: the one-shot becomes the menu's default, the boot uses it up in the copy that did
 * not hold the state (the other stays as it was) and records the entry booted; a one-shot that
 * names no entry changes nothing but is used up too; no one-shot, no write; a write that fails
 * leaves the state where it was. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/bls.h"
#include "common/bootcount.h"
#include "common/errors.h"
#include "common/str.h"

#define OFF (64u * 4096u)
static const char text[] = "timeout 3\nentry a\n kernel /a\nentry b\n kernel /b\n";

static struct test_disk *disk_with(uint32_t lss, const char *oneshot)
{
	struct test_disk *d = test_disk_new(1u << 20, lss, 4096, 0, 0);
	uint8_t *c0 = d->md.data + OFF, *c1 = c0 + BSTATE_COPY_BYTES;
	bstate_init(c0, 5);
	if (oneshot)
		assert_int_equal(bstate_set(c0, BSTATE_ONESHOT, oneshot, 0, 0), 0);
	bstate_seal(c0, 5);
	bstate_init(c1, 4);
	return d;
}

static void test_oneshot_used_once(void **state)
{
	(void)state;
	static const uint32_t sizes[] = { 512, 4096 };
	for (unsigned k = 0; k < 2; k++) {
		struct test_disk *d = disk_with(sizes[k], "B");
		struct cfg *c = calloc(1, sizeof *c);
		struct bstate_io *s = calloc(1, sizeof *s);
		uint8_t before[BSTATE_COPY_BYTES];
		memcpy(before, d->md.data + OFF, sizeof before);
		assert_int_equal(cfg_parse(text, sizeof text - 1, c, NULL), 0);
		assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
		assert_int_equal(s->live, 0);
		assert_int_equal(bootcount_apply(c, s, BSTATE_FW_BIOS), 1);
		assert_int_equal(cfg_default_index(c), 1);
		/* entry a is chosen in the menu: the one-shot is used up all the same */
		assert_int_equal(bootcount_before(c, 0, s, BSTATE_FW_BIOS), 0);
		assert_int_equal(s->live, 1);
		uint8_t *c1 = d->md.data + OFF + BSTATE_COPY_BYTES;
		assert_true(bstate_valid(c1));
		assert_int_equal(bstate_seq(c1), 6);
		assert_null(bstate_find(c1, BSTATE_ONESHOT, NULL));
		uint8_t *r = bstate_find(c1, BSTATE_BOOTED, "a");
		assert_non_null(r);
		assert_int_equal(r[2], BSTATE_FW_BIOS);
		assert_int_equal(r[3], BSTATE_BOOTED_ONESHOT);
		assert_memory_equal(d->md.data + OFF, before, sizeof before);
		/* read again: the new copy holds the state, and there is nothing left to do */
		assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
		assert_int_equal(s->live, 1);
		uint64_t written = d->md.sectors_written;
		assert_int_equal(bootcount_apply(c, s, BSTATE_FW_BIOS), -1);
		assert_int_equal(bootcount_before(c, 1, s, BSTATE_FW_UEFI), 0);
		assert_int_equal(d->md.sectors_written, written);
		free(s);
		free(c);
		test_disk_free(d);
	}
}

static void test_oneshot_naming_nothing(void **state)
{
	(void)state;
	struct test_disk *d = disk_with(512, "gone");
	struct cfg *c = calloc(1, sizeof *c);
	struct bstate_io *s = calloc(1, sizeof *s);
	assert_int_equal(cfg_parse(text, sizeof text - 1, c, NULL), 0);
	assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
	assert_int_equal(bootcount_apply(c, s, BSTATE_FW_BIOS), -1);
	assert_int_equal(cfg_default_index(c), 0);
	assert_int_equal(bootcount_before(c, 0, s, BSTATE_FW_BIOS), 0);
	assert_null(bstate_find(s->copy[s->live], BSTATE_ONESHOT, NULL));
	free(s);
	free(c);
	test_disk_free(d);
}

static void test_failed_write_keeps_state(void **state)
{
	(void)state;
	struct test_disk *d = disk_with(512, "a");
	struct cfg *c = calloc(1, sizeof *c);
	struct bstate_io *s = calloc(1, sizeof *s);
	assert_int_equal(cfg_parse(text, sizeof text - 1, c, NULL), 0);
	assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
	d->md.fail_writes = true;
	d->md.fail_lba = OFF / 512 + 8;
	d->md.fail_span = 8;
	assert_int_equal(bootcount_before(c, 0, s, BSTATE_FW_BIOS), AS_EIO);
	assert_int_equal(s->live, 0);
	assert_int_equal(bootcount_apply(c, s, BSTATE_FW_BIOS), 0);
	/* no block at all (a disk in the legacy gap): nothing is read, nothing happens */
	s->live = -1;
	assert_int_equal(bootcount_apply(c, s, BSTATE_FW_BIOS), -1);
	assert_int_equal(bootcount_before(c, 0, s, BSTATE_FW_BIOS), 0);
	free(s);
	free(c);
	test_disk_free(d);
}

/* The menu a loader builds from anysector.cfg's "good" and the /loader/entries files names[]
 * (version from the name's digit after "v"), as a fresh boot does. */
static struct cfg *bls_menu(const char *const *names, unsigned n)
{
	static const char cfgtext[] = "timeout 3\nentry good\n kernel /g\n";
	static struct bls_scratch sc;
	struct cfg *c = calloc(1, sizeof *c);
	char text[200];

	assert_int_equal(cfg_parse_text(cfgtext, sizeof cfgtext - 1, c, NULL), 0);
	bls_menu_begin(c);
	for (unsigned k = 0; k < n; k++) {
		snprintf(text, sizeof text, "title T\nsort-key t\nversion %c\nlinux /k\n",
			 strchr(names[k], 'v')[1]);
		sc.seen = 0;
		assert_int_equal(bls_dir_entry(&sc, names[k], false, (uint32_t)strlen(text), NULL),
				 BLS_READ);
		assert_int_equal(bls_menu_file(c, &sc, text, strlen(text), NULL), 0);
	}
	bls_menu_finish(c, NULL);
	return c;
}

/* One boot under BIOS: the menu, the block read, its tries applied; the default (or `pick`
 * when >= 0) starts. Returns the name of the file or entry booted. */
static const char *bios_boot(struct test_disk *d, const char *const *names, unsigned n,
			     struct cfg **cp)
{
	struct cfg *c = bls_menu(names, n);
	struct bstate_io *s = calloc(1, sizeof *s);

	assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
	bootcount_apply(c, s, BSTATE_FW_BIOS);
	int i = cfg_default_index(c);
	assert_int_equal(bootcount_before(c, (unsigned)i, s, BSTATE_FW_BIOS), 0);
	free(s);
	free(*cp);
	*cp = c;
	return c->entries[i].bls ? c->entries[i].file : c->entries[i].name;
}

static uint8_t *live_copy(struct test_disk *d)
{
	uint8_t *c0 = d->md.data + OFF, *c1 = c0 + BSTATE_COPY_BYTES;
	int k = bstate_pick(c0, c1);
	assert_true(k >= 0);
	return k ? c1 : c0;
}

/* BIOS boot counting in the state block: new+2.conf (newest) boots twice, its tries in the
 * block (1/1, then 0/2), then sorts last and old.conf boots; that boot takes the counted
 * record out, so bless cannot take new for good; a file the menu no longer has loses its
 * record at the next write; under UEFI nothing is counted in the block. */
static void test_bios_counting(void **state)
{
	(void)state;
	struct test_disk *d = disk_with(4096, NULL);
	static const char *const files[] = { "new-v2+2.conf", "old-v1.conf" };
	struct cfg *c = NULL;
	uint8_t *r;

	assert_string_equal(bios_boot(d, files, 2, &c), "new-v2+2.conf");
	r = bstate_find(live_copy(d), BSTATE_TRIES, "new-v2+2.conf");
	assert_non_null(r);
	assert_int_equal(r[2], 1);
	assert_int_equal(r[3], 1);
	r = bstate_find(live_copy(d), BSTATE_BOOTED, NULL);
	assert_non_null(r);
	assert_int_equal(r[3], BSTATE_BOOTED_COUNTED);
	assert_string_equal(bios_boot(d, files, 2, &c), "new-v2+2.conf");
	r = bstate_find(live_copy(d), BSTATE_TRIES, "new-v2+2.conf");
	assert_int_equal(r[2], 0);
	assert_int_equal(r[3], 2);
	/* no tries left: last in the menu, and the default is the next entry */
	assert_string_equal(bios_boot(d, files, 2, &c), "old-v1.conf");
	assert_string_equal(c->entries[c->nentries - 1].file, "new-v2+2.conf");
	assert_int_equal(c->entries[c->nentries - 1].tries_left, 0);
	assert_null(bstate_find(live_copy(d), BSTATE_BOOTED, NULL));
	assert_non_null(bstate_find(live_copy(d), BSTATE_TRIES, "new-v2+2.conf"));
	/* the next boot writes nothing: nothing changed */
	uint64_t written = d->md.sectors_written;
	assert_string_equal(bios_boot(d, files, 2, &c), "old-v1.conf");
	assert_int_equal(d->md.sectors_written, written);
	/* new blessed (renamed new-v2.conf), another counted file: the stale record goes */
	static const char *const files2[] = { "new-v3+1.conf", "new-v2.conf" };
	assert_string_equal(bios_boot(d, files2, 2, &c), "new-v3+1.conf");
	assert_null(bstate_find(live_copy(d), BSTATE_TRIES, "new-v2+2.conf"));
	assert_non_null(bstate_find(live_copy(d), BSTATE_TRIES, "new-v3+1.conf"));
	/* under UEFI the file is renamed instead: the block is left alone */
	written = d->md.sectors_written;
	struct cfg *u = bls_menu(files, 2);
	struct bstate_io *s = calloc(1, sizeof *s);
	assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
	s->live = -1;      /* as if the block held nothing: a counted UEFI boot still writes none */
	bootcount_apply(u, s, BSTATE_FW_UEFI);
	assert_int_equal(bootcount_before(u, 1, s, BSTATE_FW_UEFI), 0);
	assert_int_equal(d->md.sectors_written, written);
	free(s);
	free(u);
	free(c);
	test_disk_free(d);
}

/* anysector.cfg's "tries N": counted in the block under both firmwares; the failed entry moves
 * after the file's others and is no longer the default, even the owner's. */
static void test_cfg_tries(void **state)
{
	(void)state;
	static const char t[] = "default new\nentry new\n kernel /n\n tries 2\nentry good\n"
				" kernel /g\n";
	for (unsigned fw = BSTATE_FW_BIOS; fw <= BSTATE_FW_UEFI; fw++) {
		struct test_disk *d = disk_with(512, NULL);
		static const char *const want[] = { "new", "new", "good", "good" };
		for (unsigned boot = 0; boot < 4; boot++) {
			struct cfg *c = calloc(1, sizeof *c);
			struct bstate_io *s = calloc(1, sizeof *s);
			assert_int_equal(cfg_parse(t, sizeof t - 1, c, NULL), 0);
			assert_int_equal(c->entries[0].tries_left, 2);
			assert_int_equal(c->entries[0].tries_done, 0);
			assert_int_equal(bstate_load(s, &d->dev, OFF), 0);
			bootcount_apply(c, s, fw);
			int i = cfg_default_index(c);
			assert_string_equal(c->entries[i].name, want[boot]);
			if (boot >= 2) {      /* no tries left: after good, and marked so */
				assert_string_equal(c->entries[1].name, "new");
				assert_int_equal(c->entries[1].tries_left, 0);
				assert_int_equal(c->entries[1].tries_done, 2);
			}
			assert_int_equal(bootcount_before(c, (unsigned)i, s, fw), 0);
			uint8_t *r = bstate_find(live_copy(d), BSTATE_TRIES, "new");
			assert_non_null(r);
			assert_int_equal(r[2], boot < 2 ? 1 - boot : 0);
			free(s);
			free(c);
		}
		test_disk_free(d);
	}
	/* its values: 1 to 255, once */
	static const char *const bad[] = { "entry a\n kernel /a\n tries 0\n",
					   "entry a\n kernel /a\n tries 256\n",
					   "entry a\n kernel /a\n tries x\n",
					   "entry a\n kernel /a\n tries 1\n tries 2\n", "tries 2\n" };
	for (unsigned k = 0; k < ARRAY_SIZE(bad); k++) {
		struct cfg *c = calloc(1, sizeof *c);
		assert_int_equal(cfg_parse(bad[k], strlen(bad[k]), c, NULL), AS_ECORRUPT);
		free(c);
	}
}

/* One try of a boot-counted /loader/entries file: the specification's new name. */
static void test_bls_next(void **state)
{
	(void)state;
	static const struct {
		const char *id, *file;
		int32_t left, done;
		const char *next;
	} cases[] = {
		{ "new", "new+2.conf", 2, 0, "new+1-1.conf" },
		{ "new", "new+1-1.conf", 1, 1, "new+0-2.conf" },
		{ "new", "new+0-2.conf", 0, 2, "new+0-3.conf" },     /* a bad entry booted all the same */
		{ "a+b", "a+b+3-0.CONF", 3, 0, "a+b+2-1.CONF" },
		{ "x", "x+5-999999999.conf", 5, 999999999, "x+4-999999999.conf" },
		{ "old", "old.conf", -1, -1, NULL },                 /* blessed: not counted */
	};
	char out[64];
	for (unsigned k = 0; k < ARRAY_SIZE(cases); k++) {
		struct cfg_entry e;
		cfg_entry_clear(&e);
		e.name = cases[k].id;
		e.file = cases[k].file;
		e.tries_left = cases[k].left;
		e.tries_done = cases[k].done;
		e.bls = 1;
		assert_int_equal(bootcount_bls_next(&e, out, sizeof out), cases[k].next != NULL);
		if (cases[k].next)
			assert_string_equal(out, cases[k].next);
		/* no room for the name: false, never a name cut short */
		assert_false(bootcount_bls_next(&e, out, str_len(e.file)));
	}
	/* a Type #2 entry's file keeps its ".efi" */
	struct cfg_entry u;
	cfg_entry_clear(&u);
	u.name = "u";
	u.file = "u+2.EFI";
	u.tries_left = 2;
	u.tries_done = 0;
	u.bls = 1;
	u.kind = CFG_KIND_UKI;
	assert_true(bootcount_bls_next(&u, out, sizeof out));
	assert_string_equal(out, "u+1-1.EFI");
	/* an anysector.cfg entry is never renamed */
	struct cfg_entry e;
	cfg_entry_clear(&e);
	e.name = "new";
	e.file = "new+2.conf";
	e.tries_left = 2;
	e.tries_done = 0;
	assert_false(bootcount_bls_next(&e, out, sizeof out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oneshot_used_once),
		cmocka_unit_test(test_oneshot_naming_nothing),
		cmocka_unit_test(test_failed_write_keeps_state),
		cmocka_unit_test(test_bls_next),
		cmocka_unit_test(test_bios_counting),
		cmocka_unit_test(test_cfg_tries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
