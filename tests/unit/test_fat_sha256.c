/* SPDX-License-Identifier: BSD-2-Clause */
/* The one way a pinned file on a FAT is hashed in pieces (common/fat_sha256.h), as both checks
 * (`anysector check`, `anysector.efi check`) do: every chunk size gives the hash of the whole
 * file, and a read error gives no hash. The host's own loop (tools/esp/hashfile.h, libcrypto's
 * SHA-256) gives the same hashes and fails the same way. Files made by mkfs.fat and mtools. */
#include "tests/unit/helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/fat_sha256.h"
#include "tools/esp/hashfile.h"

static char workdir[512];
static struct test_disk *disk;
static struct fat_fs fs;

/* Sizes around the 4096-byte cluster, and a file of many clusters. */
static const uint32_t sizes[] = { 0, 1, 4095, 4096, 4097, 300001 };

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (uint32_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

static int setup(void **state)
{
	(void)state;
	if (!have_program("mkfs.fat") || !have_program("mcopy"))
		return 0;
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	if (test_workdir(workdir, sizeof workdir, "test-data", "fat_sha256"))
		return -1;
	char img[600], src[600];
	snprintf(img, sizeof img, "%s/fat.img", workdir);
	snprintf(src, sizeof src, "%s/src", workdir);
	if (run_cmd("truncate -s 16M '%s' && mkfs.fat -F 16 -S 4096 -s 1 '%s' >/dev/null", img,
		    img))
		return -1;
	static uint8_t data[300001];
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		fill(data, sizes[i], i);
		FILE *f = fopen(src, "wb");
		if (!f)
			return -1;
		fwrite(data, 1, sizes[i], f);
		fclose(f);
		if (run_cmd("mcopy -i '%s' '%s' '::f%u'", img, src, i))
			return -1;
	}
	size_t len;
	uint8_t *raw = read_file(img, &len);
	if (!raw)
		return -1;
	disk = test_disk_new(len, 4096, 4096, 0, 0);
	memcpy(disk->md.data, raw, len);
	free(raw);
	return fat_mount(&disk->dev, &fs, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	if (disk)
		test_disk_free(disk);
	return workdir[0] ? run_cmd("rm -rf '%s'", workdir) : 0;
}

static void open_file(unsigned i, struct fat_file *f)
{
	char name[16];
	snprintf(name, sizeof name, "/f%u", i);
	assert_int_equal(fat_open(&fs, name, f, NULL), 0);
	assert_int_equal(f->size, sizes[i]);
}

static void test_any_chunk_is_the_whole_file(void **state)
{
	(void)state;
	if (!disk)
		skip();
	static const uint32_t chunks[] = { 1, 7, 512, 4095, 4096, 65536, 1u << 20 };
	static uint8_t data[300001], buf[1u << 20];
	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct fat_file f;
		uint8_t want[SHA256_BYTES], got[SHA256_BYTES];
		open_file(i, &f);
		fill(data, sizes[i], i);
		sha256(data, sizes[i], want);
		for (unsigned c = 0; c < ARRAY_SIZE(chunks); c++) {
			if (chunks[c] == 1 && sizes[i] > 4097)
				continue;    /* byte by byte: the small files show it */
			memset(got, 0, sizeof got);
			assert_int_equal(fat_sha256(&fs, &f, buf, chunks[c], got, NULL), 0);
			if (memcmp(got, want, sizeof want))
				fail_msg("file of %u bytes in chunks of %u: not its SHA-256", sizes[i],
					 chunks[c]);
		}
		memset(got, 0, sizeof got);
		assert_int_equal(hash_fat_file(&fs, &f, got, NULL), 0);
		if (memcmp(got, want, sizeof want))
			fail_msg("file of %u bytes through hash_fat_file: not its SHA-256", sizes[i]);
	}
}

static void test_read_error_gives_no_hash(void **state)
{
	(void)state;
	if (!disk)
		skip();
	struct fat_file f;
	struct capture cap;
	uint8_t got[SHA256_BYTES], before[SHA256_BYTES];
	static uint8_t buf[65536];
	char want[64];
	const char *wanted = want;    /* assert_reported wants a pointer it cannot prove non-NULL */

	open_file(5, &f);
	memset(got, 0xA5, sizeof got);
	memcpy(before, got, sizeof got);
	assert_int_equal(fat_sha256(&fs, &f, buf, 0, got, NULL), AS_EINVAL);
	/* The file's 40th cluster cannot be read (its clusters are contiguous on a fresh FAT). */
	disk->md.fail_reads = true;
	disk->md.fail_lba = (fs.data_offset + (uint64_t)(f.first_cluster - 2 + 40) * fs.cluster_size)
			    / 4096;
	capture_init(&cap);
	assert_int_equal(fat_sha256(&fs, &f, buf, sizeof buf, got, &cap.diag), AS_EIO);
	snprintf(want, sizeof want, "at disk LBA %llu", (unsigned long long)disk->md.fail_lba);
	assert_reported(&cap, "fat.io", wanted);
	assert_memory_equal(got, before, sizeof got);
	capture_init(&cap);
	assert_int_equal(hash_fat_file(&fs, &f, got, &cap.diag), AS_EIO);
	disk->md.fail_reads = false;
	assert_reported(&cap, "fat.io", wanted);
	assert_memory_equal(got, before, sizeof got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_chunk_is_the_whole_file),
		cmocka_unit_test(test_read_error_gives_no_hash),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
