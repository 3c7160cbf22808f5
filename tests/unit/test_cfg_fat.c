/* SPDX-License-Identifier: BSD-2-Clause */
/* The one sequence both loaders read their menu in (common/cfg_fat.h cfg_load_fat), on a FAT
 * image made by mkfs.fat and mtools: the configuration file (none is an empty one), then the
 * Boot Loader Specification's entries, then the menu checks; and each way the file can fail.
 * Also stage2's locked configuration: the lock read from the UEFI loader on the ESP
 * (cfg_lock_read_fat) and the locked reader (cfg_load_fat_locked). */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg_fat.h"
#include "common/errors.h"
#include "common/le.h"
#include "common/pe.h"

static char workdir[512];

/* assert_reported wants a pointer it cannot prove non-NULL. */
static const char *text(const char *s)
{
	return s;
}
static char buf[CFG_FILE_MAX_BYTES];
static struct bls_scratch bls;
static struct cfg cfg;

static int put(const char *img, const char *path, const char *text, size_t len)
{
	char src[700];
	snprintf(src, sizeof src, "%s/src", workdir);
	FILE *f = fopen(src, "wb");
	if (!f)
		return -1;
	fwrite(text, 1, len, f);
	fclose(f);
	return run_cmd("mcopy -o -i '%s' '%s' '::%s'", img, src, path);
}

static int put_text(const char *img, const char *path, const char *text)
{
	return put(img, path, text, strlen(text));
}

/* A 4 MiB FAT12 with 512-byte sectors; with_bls: /loader/entries/deb.conf too. */
static struct test_disk *fat_disk(const char *tag, bool with_bls,
				  int (*fill)(const char *img))
{
	char img[600];
	snprintf(img, sizeof img, "%s/%s.img", workdir, tag);
	assert_int_equal(run_cmd("truncate -s 4M '%s' && mkfs.fat -S 512 '%s' >/dev/null", img,
				 img), 0);
	if (with_bls) {
		assert_int_equal(run_cmd("mmd -i '%s' ::/loader ::/loader/entries", img), 0);
		assert_int_equal(put_text(img, "/loader/entries/deb.conf",
					  "title Debian\nlinux /deb/vmlinuz\noptions ro\n"), 0);
	}
	assert_int_equal(fill(img), 0);
	size_t len;
	uint8_t *data = read_file(img, &len);
	assert_non_null(data);
	struct test_disk *d = test_disk_new(len, 512, 512, 0, 0);
	memcpy(d->md.data, data, len);
	free(data);
	return d;
}

static int fill_files(const char *img)
{
	static char big[CFG_FILE_MAX_BYTES + 1];
	int rc = put_text(img, "/anysector.cfg", "entry mine\nkernel /vmlinuz\n");
	rc = rc ? rc : put_text(img, "/other.cfg", "entry other\nkernel /other\n");
	rc = rc ? rc : put_text(img, "/bad.cfg", "entry x\nkernal /vmlinuz\n");
	rc = rc ? rc : run_cmd("mmd -i '%s' ::/dir.cfg", img);
	/* The largest file read, and one byte more: comment lines, then an entry. */
	memset(big, '#', sizeof big);
	for (size_t i = 99; i < sizeof big; i += 100)
		big[i] = '\n';
	static const char entry[] = "\nentry big\nkernel /big\n";
	memcpy(big + CFG_FILE_MAX_BYTES - (sizeof entry - 1), entry, sizeof entry - 1);
	rc = rc ? rc : put(img, "/max.cfg", big, CFG_FILE_MAX_BYTES);
	big[CFG_FILE_MAX_BYTES] = '\n';
	return rc ? rc : put(img, "/over.cfg", big, CFG_FILE_MAX_BYTES + 1);
}

static int fill_nothing(const char *img)
{
	(void)img;
	return 0;
}

/* cfg_load_fat of path on d; the diagnostics into cap. */
static int load(struct test_disk *d, const char *path, struct capture *cap)
{
	static struct fat_fs fs;
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	capture_init(cap);
	memset(&cfg, 0, sizeof cfg);
	return cfg_load_fat(&fs, path, &cfg, buf, &bls, NULL, &cap->diag);
}

static void expect_menu(const char *const *names, unsigned n)
{
	assert_int_equal(cfg.nentries, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(cfg.entries[i].name, names[i]);
}

static bool have_tools(void)
{
	if (have_program("mkfs.fat") && have_program("mcopy"))
		return true;
	printf("SKIP: mkfs.fat or mtools not installed\n");
	return false;
}

static int setup(void **state)
{
	(void)state;
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	return test_workdir(workdir, sizeof workdir, "test-data", "cfg_fat");
}

static int teardown(void **state)
{
	(void)state;
	return workdir[0] ? run_cmd("rm -rf '%s'", workdir) : 0;
}

/* The file's entries first, then the BLS entries; the path is the caller's (stage2's header). */
static void test_sequence(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	struct test_disk *d = fat_disk("seq", true, fill_files);
	struct capture cap;

	assert_int_equal(load(d, "/anysector.cfg", &cap), 0);
	expect_menu((const char *const[]){ "mine", "deb" }, 2);
	assert_int_equal(cap.diag.errors + cap.diag.warnings, 0);
	assert_int_equal(load(d, "\\other.cfg", &cap), 0);
	expect_menu((const char *const[]){ "other", "deb" }, 2);
	/* No file at the path: the menu is the BLS entries alone, and nothing is reported. */
	assert_int_equal(load(d, "/none.cfg", &cap), 0);
	expect_menu((const char *const[]){ "deb" }, 1);
	assert_int_equal(cap.diag.errors + cap.diag.warnings, 0);
	/* A file of exactly CFG_FILE_MAX_BYTES is read whole: its last line counts. */
	assert_int_equal(load(d, "/max.cfg", &cap), 0);
	expect_menu((const char *const[]){ "big", "deb" }, 2);
	test_disk_free(d);
}

/* No file and no BLS entry: the menu check's own sentence. */
static void test_empty(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	struct test_disk *d = fat_disk("empty", false, fill_nothing);
	struct capture cap;

	assert_int_equal(load(d, "/anysector.cfg", &cap), AS_ENOENT);
	assert_int_equal(cfg.nentries, 0);
	assert_int_equal(cap.diag.errors, 1);
	test_disk_free(d);
}

/* Each way the file fails stops the sequence with its code and sentence, before any BLS
 * entry is read. */
static void test_failures(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	struct test_disk *d = fat_disk("fail", true, fill_files);
	struct capture cap;
	char want[128];

	assert_int_equal(load(d, "/dir.cfg", &cap), AS_EISDIR);
	assert_reported(&cap, "cfg.is_dir", "/dir.cfg on the boot partition is a directory");
	assert_int_equal(load(d, "/over.cfg", &cap), AS_ETOOBIG);
	snprintf(want, sizeof want, "/over.cfg is %u bytes; the loaders read configuration files "
		 "of up to %u bytes", CFG_FILE_MAX_BYTES + 1, CFG_FILE_MAX_BYTES);
	assert_reported(&cap, "cfg.too_big", text(want));
	assert_int_equal(load(d, "/anysector.cfg/x", &cap), AS_ENOTDIR);
	assert_reported(&cap, "fat.not_dir", NULL);
	assert_reported(&cap, "cfg.open", "cannot open /anysector.cfg/x on the boot partition");
	assert_int_equal(load(d, "/bad.cfg", &cap), AS_ECORRUPT);
	assert_reported(&cap, "cfg.unknown_key", "kernal");
	for (unsigned i = 0; i < cfg.nentries; i++)
		assert_string_not_equal(cfg.entries[i].name, "deb");

	/* The file's data cannot be read: the FAT layer names the LBA, then the file. */
	static struct fat_fs fs;
	struct fat_file f;
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_int_equal(fat_open(&fs, "/anysector.cfg", &f, NULL), 0);
	d->md.fail_reads = true;
	d->md.fail_lba = (fs.data_offset + (uint64_t)(f.first_cluster - 2) * fs.cluster_size) / 512;
	assert_int_equal(load(d, "/anysector.cfg", &cap), AS_EIO);
	snprintf(want, sizeof want, "at disk LBA %llu", (unsigned long long)d->md.fail_lba);
	assert_reported(&cap, "fat.io", text(want));
	assert_reported(&cap, "cfg.read", "cannot read /anysector.cfg: ");
	for (unsigned i = 0; i < cfg.nentries; i++)
		assert_string_not_equal(cfg.entries[i].name, "deb");
	test_disk_free(d);
}

/* What a loader's measurer is told (common/measure.h): each file as read, in reading order. */
struct recorder {
	struct measure m;
	unsigned n;
	unsigned pcr[8];
	char event[8][MEASURE_DESC_MAX];
	size_t len[8];
	uint8_t data[8][128];
};

static void record(struct measure *m, unsigned pcr, const void *a, size_t alen, const void *b,
		   size_t blen, const void *event, size_t event_len)
{
	struct recorder *r = (struct recorder *)m;
	assert_true(r->n < 8 && alen <= sizeof r->data[0] && blen == 0 && !b);
	assert_true(event_len > 0 && event_len <= MEASURE_DESC_MAX);
	assert_int_equal(((const char *)event)[event_len - 1], 0);   /* logged with its NUL */
	r->pcr[r->n] = pcr;
	memcpy(r->event[r->n], event, event_len);
	memcpy(r->data[r->n], a, alen);
	r->len[r->n++] = alen;
}

static void expect_event(const struct recorder *r, unsigned i, const char *event,
			 const char *data)
{
	assert_int_equal(r->pcr[i], MEASURE_PCR_CONFIG);
	assert_string_equal(r->event[i], event);
	assert_int_equal(r->len[i], strlen(data));
	assert_memory_equal(r->data[i], data, strlen(data));
}

/* The configuration file, then each BLS file, each measured into the config PCR with its bytes
 * as read and a description naming it; an absent file is no event; a loader that passes no
 * measurer (the installer, the shell's check) measures nothing. */
static void test_measured(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	struct test_disk *d = fat_disk("measure", true, fill_files);
	static struct fat_fs fs;
	struct recorder r = { .m.extend = record };
	struct capture cap;

	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	capture_init(&cap);
	assert_int_equal(cfg_load_fat(&fs, "/anysector.cfg", &cfg, buf, &bls, &r.m, &cap.diag), 0);
	assert_int_equal(r.n, 2);
	expect_event(&r, 0, "anysector config /anysector.cfg", "entry mine\nkernel /vmlinuz\n");
	expect_event(&r, 1, "anysector BLS entry /loader/entries/deb.conf",
		     "title Debian\nlinux /deb/vmlinuz\noptions ro\n");
	r.n = 0;
	assert_int_equal(cfg_load_fat(&fs, "/none.cfg", &cfg, buf, &bls, &r.m, &cap.diag), 0);
	assert_int_equal(r.n, 1);
	expect_event(&r, 0, "anysector BLS entry /loader/entries/deb.conf",
		     "title Debian\nlinux /deb/vmlinuz\noptions ro\n");
	test_disk_free(d);
}

/* The command line in the form LoadOptions holds and systemd-boot measures: one UTF-16LE unit
 * per byte and a NUL unit; a short buffer cuts it. */
static void test_utf16(void **state)
{
	(void)state;
	uint8_t out[16];
	static const uint8_t want[] = { 'r', 0, 'o', 0, ' ', 0, 0xE9, 0, 0, 0 };

	memset(out, 0xAA, sizeof out);
	assert_int_equal(measure_utf16("ro \xE9", out, sizeof out), sizeof want);
	assert_memory_equal(out, want, sizeof want);
	assert_int_equal(out[sizeof want], 0xAA);
	assert_int_equal(measure_utf16("", out, sizeof out), 2);
	assert_int_equal(out[0] | out[1], 0);
	assert_int_equal(measure_utf16("abc", out, 5), 4);
}

/* A minimal unsigned PE32+ loader whose one section is called name and holds block (128 bytes)
 * at 0x200, as the installer's and stage2's section-table readers find it. */
#define PE_LFANEW 0x40
#define PE_OPT (PE_LFANEW + 24)
static int put_loader(const char *img, const char *path, const char *name, const uint8_t *block)
{
	uint8_t pe[0x200 + CFG_LOCK_BYTES] = { 0 };
	pe[0] = 'M';
	pe[1] = 'Z';
	le32_store(pe + PE_DOS_LFANEW_OFF, PE_LFANEW);
	memcpy(pe + PE_LFANEW, "PE\0\0", 4);
	le16_store(pe + PE_LFANEW + 4, 0x8664);
	le16_store(pe + PE_LFANEW + 6, 1);
	le16_store(pe + PE_LFANEW + 20, 240);
	le16_store(pe + PE_OPT, 0x20B);
	le32_store(pe + PE_OPT + 108, 16);
	uint8_t *sec = pe + PE_OPT + 240;
	memcpy(sec, name, strlen(name));
	le32_store(sec + 8, CFG_LOCK_BYTES);
	le32_store(sec + 16, CFG_LOCK_BYTES);
	le32_store(sec + 20, 0x200);
	memcpy(pe + 0x200, block, CFG_LOCK_BYTES);
	return put(img, path, (const char *)pe, sizeof pe);
}

static uint8_t lock_hash[SHA256_BYTES];

/* shim at the fallback path (no .cfglock), the locked loader behind it, a BLS entry, and the
 * file the lock takes (lock_hash is its SHA-256). */
static int fill_locked(const char *img)
{
	static const char text[] = "entry mine\nkernel /vmlinuz\nsha256 "
				   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n";
	struct cfg_lock l = { .locked = true, .nhashes = 1 };
	uint8_t block[CFG_LOCK_BYTES];

	sha256(text, sizeof text - 1, lock_hash);
	memcpy(l.hash[0], lock_hash, SHA256_BYTES);
	cfg_lock_encode(&l, block);
	int rc = run_cmd("mmd -i '%s' ::/EFI ::/EFI/BOOT", img);
	rc = rc ? rc : put_loader(img, "/EFI/BOOT/BOOTX64.EFI", ".text", block);
	rc = rc ? rc : put_loader(img, "/EFI/BOOT/grubx64.efi", CFG_LOCK_SECTION, block);
	rc = rc ? rc : put_text(img, "/anysector.cfg", text);
	return rc ? rc : put_text(img, "/other.cfg", "entry other\nkernel /other\n");
}

/* stage2's lock: found behind shim; the locked reader takes the file it is locked to (and no BLS
 * entry) and refuses another with the sentence; no loader, or a block that does not parse. */
static void test_locked(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	static struct fat_fs fs;
	struct test_disk *d = fat_disk("locked", true, fill_locked);
	struct cfg_lock l;
	struct capture cap;

	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_true(cfg_lock_read_fat(&fs, (uint8_t *)buf, &l));
	assert_true(l.locked);
	assert_int_equal(l.nhashes, 1);
	assert_memory_equal(l.hash[0], lock_hash, SHA256_BYTES);
	capture_init(&cap);
	memset(&cfg, 0, sizeof cfg);
	assert_int_equal(cfg_load_fat_locked(&fs, "/anysector.cfg", &l, &cfg, buf, NULL,
					     &cap.diag), 0);
	expect_menu((const char *const[]){ "mine" }, 1);   /* no deb.conf */
	memset(&cfg, 0, sizeof cfg);
	assert_int_equal(cfg_load_fat_locked(&fs, "/other.cfg", &l, &cfg, buf, NULL, &cap.diag),
			 AS_EDENIED);
	assert_true(capture_has(&cap, "cfg.locked_mismatch", "is not the configuration "
				"BOOTX64.EFI is locked to"));
	assert_int_equal(cfg.nentries, 0);
	test_disk_free(d);

	d = fat_disk("unlocked", false, fill_nothing);
	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_false(cfg_lock_read_fat(&fs, (uint8_t *)buf, &l));
	assert_false(l.locked);
	test_disk_free(d);
}

static int fill_bad_block(const char *img)
{
	uint8_t block[CFG_LOCK_BYTES] = "anysector cfglck";   /* version 0 */
	int rc = run_cmd("mmd -i '%s' ::/EFI ::/EFI/BOOT", img);
	return rc ? rc : put_loader(img, "/EFI/BOOT/BOOTX64.EFI", CFG_LOCK_SECTION, block);
}

/* A block that does not parse is a lock to nothing, as BOOTX64.EFI takes its own. */
static void test_locked_bad_block(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	static struct fat_fs fs;
	struct test_disk *d = fat_disk("badlock", false, fill_bad_block);
	struct cfg_lock l;

	assert_int_equal(fat_mount(&d->dev, &fs, NULL), 0);
	assert_true(cfg_lock_read_fat(&fs, (uint8_t *)buf, &l));
	assert_true(l.locked);
	assert_int_equal(l.nhashes, 0);
	test_disk_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_measured),
		cmocka_unit_test(test_utf16),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_locked_bad_block),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
