/* SPDX-License-Identifier: BSD-2-Clause */
/* The FAT reader against images made by mkfs.fat and filled by mtools at test time: FAT12/16/32
 * at BPB sector sizes 512 and 4096, mounted through memory disks whose sector size matches the
 * BPB's or not. Every file read back must equal the bytes that were copied in. Then corrupted
 * copies of those images must give the right error, never a hang or a wrong answer.
 *
 * The images live in a temporary directory under $BUILD/test-data and are mapped privately, so
 * a test may scribble on its mapping without touching the file. */
#include "tests/unit/helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/le.h"

#define BIG_SIZE 1300000u
#define NFILL 40
#define FILL_SIZE 16384u

struct file_spec {
	const char *path;     /* on the image */
	uint32_t size;
};

static char long200[201];

/* Written in this order, after the fillers and big.bin. */
static struct file_spec files[] = {
	{ "/empty.bin", 0 },
	{ "/one.bin", 1 },
	{ "/f4095.bin", 4095 },
	{ "/f4096.bin", 4096 },
	{ "/f4097.bin", 4097 },
	{ "/A long file name with spaces.txt", 5000 },
	{ "/thirteenchars", 100 },
	{ "/twenty-six-characters-name", 200 },
	{ "/MixedCase.Txt", 321 },
	{ "/EFI/BOOT/BOOTX64.EFI", 12345 },
	{ "/boot/sub dir/deeper/file.dat", 7777 },
	{ long200, 3333 },  /* "/boot/long-abcdefghij..." (200-character name) */
};
#define NFILES ARRAY_SIZE(files)

struct image_spec {
	const char *name;
	int type;
	uint32_t bps;
	const char *size;
	bool initrd;          /* also holds a stage2-sized /initrd.img */
};

static const struct image_spec images[] = {
	{ "fat12-512", 12, 512, "2M", false },
	{ "fat12-4096", 12, 4096, "12M", false },
	{ "fat16-512", 16, 512, "8M", false },
	{ "fat16-4096", 16, 4096, "64M", true },
	{ "fat32-512", 32, 512, "40M", true },
	{ "fat32-4096", 32, 4096, "260M", true },
};
#define INITRD_SIZE (6u * 1024 * 1024 + 12345)
#define NIMAGES ARRAY_SIZE(images)

static char workdir[512];
static bool have_images;
static const char *skip_reason = "";

/* Deterministic contents: every file's bytes follow from its path and size. */
static void fill_bytes(uint8_t *p, size_t n, const char *key)
{
	uint32_t s = 2166136261u;
	for (const char *k = key; *k; k++)
		s = (s ^ (uint8_t)*k) * 16777619u;
	for (size_t i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		p[i] = (uint8_t)(s >> 8);
	}
}

static uint8_t *expected(const char *path, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	fill_bytes(p, n, path);
	return p;
}

static int write_src(const char *path, size_t n, char *src, size_t cap)
{
	static unsigned counter;
	snprintf(src, cap, "%s/src%u", workdir, counter++);
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		return -1;
	fill_bytes(p, n, path);
	FILE *f = fopen(src, "wb");
	if (!f) {
		free(p);
		return -1;
	}
	size_t w = fwrite(p, 1, n, f);
	fclose(f);
	free(p);
	return w == n ? 0 : -1;
}

static int mcopy(const char *img, const char *path, size_t n)
{
	char src[600];
	if (write_src(path, n, src, sizeof src))
		return -1;
	return run_cmd("mcopy -i '%s' '%s' '::%s'", img, src, path);
}

static int forget_next_free(const char *img, uint32_t bps)
{
	uint8_t b[2];
	int fd = open(img, O_RDWR);
	if (fd < 0)
		return -1;
	int ok = pread(fd, b, 2, 48) == 2;   /* BPB_FSInfo */
	uint8_t unknown[4] = { 0xFF, 0xFF, 0xFF, 0xFF };
	ok = ok && pwrite(fd, unknown, 4, (off_t)le16_load(b) * bps + 492) == 4;  /* FSI_Nxt_Free */
	close(fd);
	return ok ? 0 : -1;
}

static int build_image(const struct image_spec *s)
{
	char img[600], cmd[4096];
	snprintf(img, sizeof img, "%s/%s.img", workdir, s->name);
	if (run_cmd("rm -f '%s' && truncate -s %s '%s' && mkfs.fat -F %d -S %u -s 1 -n ANYSECTOR "
		    "'%s' >/dev/null", img, s->size, img, s->type, s->bps, img))
		return -1;
	if (run_cmd("mmd -i '%s' ::/EFI ::/EFI/BOOT ::/boot '::/boot/sub dir' "
		    "'::/boot/sub dir/deeper'", img))
		return -1;
	/* Fragmentation: fill, free every other filler, then write big.bin into the holes (mtools
	 * allocates the first free clusters). */
	size_t n = 0;
	n += (size_t)snprintf(cmd + n, sizeof cmd - n, "mcopy -i '%s'", img);
	for (int i = 0; i < NFILL; i++) {
		char path[32], src[600];
		snprintf(path, sizeof path, "/fill%02d", i);
		if (write_src(path, FILL_SIZE, src, sizeof src))
			return -1;
		char dst[600];
		snprintf(dst, sizeof dst, "%s/fill%02d", workdir, i);
		if (rename(src, dst))
			return -1;
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, " '%s'", dst);
	}
	snprintf(cmd + n, sizeof cmd - n, " ::/");
	if (run_cmd("%s", cmd))
		return -1;
	n = (size_t)snprintf(cmd, sizeof cmd, "mdel -i '%s'", img);
	for (int i = 1; i < NFILL; i += 2)
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, " ::/fill%02d", i);
	if (run_cmd("%s", cmd))
		return -1;
	/* FAT32 keeps a next-free hint (FSInfo) that mtools follows past the holes: forget it. */
	if (s->type == 32 && forget_next_free(img, s->bps))
		return -1;
	if (mcopy(img, "/big.bin", BIG_SIZE))
		return -1;
	for (size_t i = 0; i < NFILES; i++)
		if (mcopy(img, files[i].path, files[i].size))
			return -1;
	if (s->initrd && mcopy(img, "/initrd.img", INITRD_SIZE))
		return -1;
	return 0;
}

static int group_setup(void **state)
{
	(void)state;

	memset(long200, 0, sizeof long200);
	strcpy(long200, "/boot/long-");
	while (strlen(long200) < 200)
		strncat(long200, "abcdefghij", 200 - strlen(long200));

	if (!have_program("mkfs.fat") || !have_program("mcopy") || !have_program("mmd")) {
		skip_reason = "mkfs.fat or mtools (mcopy, mmd) not installed";
		return 0;
	}
	if (test_workdir(workdir, sizeof workdir, "test-data", "fat")) {
		skip_reason = "cannot create a directory under $BUILD/test-data";
		return 0;
	}
	setenv("MTOOLS_SKIP_CHECK", "1", 1);
	for (size_t i = 0; i < NIMAGES; i++) {
		if (build_image(&images[i])) {
			fprintf(stderr, "building image %s failed\n", images[i].name);
			run_cmd("rm -rf '%s'", workdir);
			return -1;
		}
	}
	have_images = true;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (workdir[0])
		run_cmd("rm -rf '%s'", workdir);
	return 0;
}

#define NEED_IMAGES()                                               \
	do {                                                        \
		if (!have_images) {                                 \
			printf("SKIP: %s\n", skip_reason);          \
			skip();                                     \
		}                                                   \
	} while (0)

/* A memory disk over a private mapping of an image file. */
struct mapped {
	struct blockdev dev;
	struct memdisk md;
	uint8_t *map;
	size_t size;
	uint8_t scratch[8192];
};

static struct mapped *map_image(const char *name, uint32_t lss, uint32_t max_io)
{
	char path[600];
	struct stat st;
	struct mapped *m = calloc(1, sizeof *m);
	assert_non_null(m);
	snprintf(path, sizeof path, "%s/%s.img", workdir, name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	m->size = (size_t)st.st_size;
	m->map = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(m->map != MAP_FAILED);
	m->md.data = m->map;
	m->md.size = m->size;
	assert_int_equal(memdisk_init(&m->dev, &m->md, lss, lss > 4096 ? lss : 4096, 0, max_io,
				      m->scratch), 0);
	return m;
}

static void unmap_image(struct mapped *m)
{
	munmap(m->map, m->size);
	free(m);
}

static void mount_ok(struct mapped *m, struct fat_fs *fs)
{
	struct capture cap;
	capture_init(&cap);
	int rc = fat_mount(&m->dev, fs, &cap.diag);
	if (rc) {
		capture_dump(&cap);
		fail_msg("mount failed: %d", rc);
	}
}

static void open_ok(struct fat_fs *fs, const char *path, struct fat_file *f)
{
	struct capture cap;
	capture_init(&cap);
	int rc = fat_open(fs, path, f, &cap.diag);
	if (rc) {
		capture_dump(&cap);
		fail_msg("open '%s' failed: %d", path, rc);
	}
}

/* Reads the whole file at once, in odd-sized sequential chunks, and at random ranges; every
 * byte must equal what was written. */
static void check_file(struct fat_fs *fs, const char *path, uint32_t size)
{
	struct fat_file f;
	struct capture cap;
	uint8_t *want = expected(path, size);
	uint8_t *got = malloc(size + 1);
	assert_non_null(got);

	open_ok(fs, path, &f);
	assert_false(f.is_dir);
	assert_int_equal(f.size, size);
	capture_init(&cap);
	int rc = fat_read(fs, &f, 0, got, size, &cap.diag);
	if (rc) {
		capture_dump(&cap);
		fail_msg("read '%s' failed: %d", path, rc);
	}
	assert_int_equal(cap.diag.warnings, 0);
	if (memcmp(got, want, size))
		fail_msg("'%s': bytes differ from the original", path);

	memset(got, 0, size);
	for (uint32_t off = 0; off < size;) {
		uint32_t n = size - off < 1777 ? size - off : 1777;
		assert_int_equal(fat_read(fs, &f, off, got + off, n, NULL), 0);
		off += n;
	}
	if (memcmp(got, want, size))
		fail_msg("'%s': chunked read differs", path);

	uint64_t s = 0x9E3779B97F4A7C15ull ^ size;
	for (int i = 0; i < 40 && size; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		uint32_t off = (uint32_t)(s % size);
		uint32_t n = (uint32_t)((s >> 32) % (size - off + 1));
		memset(got, 0, n + 1);
		assert_int_equal(fat_read(fs, &f, off, got, n, NULL), 0);
		if (memcmp(got, want + off, n))
			fail_msg("'%s': range [%u, +%u) differs", path, off, n);
	}
	/* one byte past the end is refused */
	capture_init(&cap);
	assert_int_equal(fat_read(fs, &f, size, got, 1, &cap.diag), AS_ERANGE);
	assert_reported(&cap, "fat.read.range", "passes the end");
	free(want);
	free(got);
}

static void check_image(const struct image_spec *s, uint32_t lss, uint32_t max_io)
{
	struct mapped *m = map_image(s->name, lss, max_io);
	struct fat_fs *fs = malloc(sizeof *fs);
	assert_non_null(fs);
	mount_ok(m, fs);
	assert_int_equal(fs->type, s->type);
	assert_int_equal(fs->bytes_per_sector, s->bps);
	assert_string_equal(fs->label, "ANYSECTOR");

	check_file(fs, "/big.bin", BIG_SIZE);
	for (size_t i = 0; i < NFILES; i++)
		check_file(fs, files[i].path, files[i].size);
	for (int i = 0; i < NFILL; i += 2) {
		char path[32];
		snprintf(path, sizeof path, "/fill%02d", i);
		check_file(fs, path, FILL_SIZE);
	}
	if (s->initrd)
		check_file(fs, "/initrd.img", INITRD_SIZE);
	free(fs);
	unmap_image(m);
}

static void test_images_native_sector_size(void **state)
{
	(void)state;
	NEED_IMAGES();
	for (size_t i = 0; i < NIMAGES; i++)
		check_image(&images[i], images[i].bps, 0);
}

/* The BPB's sector size and the device's are independent: 512-byte FATs on 4 KiB devices and
 * 4 KiB FATs on 512-byte devices, with a small max_io so requests split. */
static void test_images_other_sector_size(void **state)
{
	(void)state;
	NEED_IMAGES();
	for (size_t i = 0; i < NIMAGES; i++) {
		check_image(&images[i], images[i].bps == 512 ? 4096 : 512, 0);
		check_image(&images[i], 1024, 3);
	}
}

/* A raw FAT entry read straight from the image, independent of the reader under test. */
static uint32_t raw_fat(const struct mapped *m, const struct fat_fs *fs, uint32_t c)
{
	const uint8_t *fat = m->map + fs->fat_offset;
	if (fs->type == FAT_TYPE_12) {
		uint32_t v = le16_load(fat + c + c / 2);
		return (c & 1) ? v >> 4 : v & 0xFFF;
	}
	if (fs->type == FAT_TYPE_16)
		return le16_load(fat + 2 * c);
	return le32_load(fat + 4 * c) & 0x0FFFFFFF;
}

static void poke_fat(struct mapped *m, const struct fat_fs *fs, uint32_t c, uint32_t v)
{
	for (uint32_t i = 0; i < fs->num_fats; i++) {
		uint8_t *fat = m->map + fs->fat_offset + i * fs->fat_bytes;
		if (fs->type == FAT_TYPE_12) {
			uint8_t *p = fat + c + c / 2;
			uint16_t old = le16_load(p);
			uint16_t nv = (c & 1) ? (uint16_t)((old & 0x000F) | (v << 4))
					      : (uint16_t)((old & 0xF000) | (v & 0xFFF));
			le16_store(p, nv);
		} else if (fs->type == FAT_TYPE_16) {
			le16_store(fat + 2 * c, (uint16_t)v);
		} else {
			le32_store(fat + 4 * c, (le32_load(fat + 4 * c) & 0xF0000000u) | v);
		}
	}
}

/* The test is only worth something if big.bin really is in pieces. */
static void test_big_file_is_fragmented(void **state)
{
	(void)state;
	NEED_IMAGES();
	for (size_t i = 0; i < NIMAGES; i++) {
		struct mapped *m = map_image(images[i].name, images[i].bps, 0);
		struct fat_fs *fs = malloc(sizeof *fs);
		struct fat_file f;
		assert_non_null(fs);
		mount_ok(m, fs);
		open_ok(fs, "/big.bin", &f);
		unsigned runs = 1, n = 1;
		for (uint32_t c = f.first_cluster;; n++) {
			uint32_t next = raw_fat(m, fs, c);
			if (next >= fs->clusters + 2)
				break;
			if (next != c + 1)
				runs++;
			c = next;
		}
		assert_int_equal(n, DIV_ROUND_UP(BIG_SIZE, fs->cluster_size));
		if (runs < 5)
			fail_msg("%s: big.bin has only %u runs", images[i].name, runs);
		free(fs);
		unmap_image(m);
	}
}

/* Runs of consecutive clusters are one device request each, and the FAT comes through its window
 * cache: reading a contiguous file must not cost one request per cluster. */
static void test_reads_are_batched(void **state)
{
	(void)state;
	NEED_IMAGES();
	struct mapped *m = map_image("fat16-512", 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct fat_file f;
	assert_non_null(fs);
	mount_ok(m, fs);
	open_ok(fs, "/EFI/BOOT/BOOTX64.EFI", &f);   /* 25 clusters, written contiguously */
	uint8_t *buf = malloc(f.size);
	assert_non_null(buf);
	m->md.calls = 0;
	assert_int_equal(fat_read(fs, &f, 0, buf, f.size, NULL), 0);
	/* the data (one run + partial tail sector) and at most one FAT window */
	if (m->md.calls > 4)
		fail_msg("a 25-cluster contiguous file took %u device calls", m->md.calls);

	/* big.bin, fragmented into a few dozen runs: far fewer calls than its 2540 clusters */
	open_ok(fs, "/big.bin", &f);
	free(buf);
	buf = malloc(f.size);
	assert_non_null(buf);
	m->md.calls = 0;
	assert_int_equal(fat_read(fs, &f, 0, buf, f.size, NULL), 0);
	if (m->md.calls > 40)
		fail_msg("fragmented big.bin took %u device calls", m->md.calls);
	free(buf);
	free(fs);
	unmap_image(m);

	/* What stage2 does: a 6 MiB initrd from a 4 KiB-cluster FAT32 through int13, which moves
	 * at most 64 KiB per call. The calls must be those 64 KiB pieces and a handful more, not one
	 * (or more) per each of the 1500-odd clusters. */
	static const uint32_t lss[] = { 512, 4096 };
	for (int k = 0; k < 2; k++) {
		m = map_image("fat32-4096", lss[k], 65536 / lss[k]);
		fs = malloc(sizeof *fs);
		assert_non_null(fs);
		mount_ok(m, fs);
		open_ok(fs, "/initrd.img", &f);
		buf = malloc(f.size);
		assert_non_null(buf);
		m->md.calls = 0;
		assert_int_equal(fat_read(fs, &f, 0, buf, f.size, NULL), 0);
		unsigned pieces = DIV_ROUND_UP(INITRD_SIZE, 65536);
		if (m->md.calls > pieces + 6)
			fail_msg("6 MiB initrd at %u-byte sectors: %u device calls for %u 64 KiB pieces",
				 lss[k], m->md.calls, pieces);
		/* in 64 KiB pieces, as a loader with a low bounce buffer reads it */
		m->md.calls = 0;
		for (uint32_t off = 0; off < f.size; off += 65536) {
			uint32_t n = f.size - off < 65536 ? f.size - off : 65536;
			assert_int_equal(fat_read(fs, &f, off, buf + off, n, NULL), 0);
		}
		if (m->md.calls > pieces + 8)
			fail_msg("6 MiB initrd in pieces: %u device calls", m->md.calls);
		uint8_t *want = expected("/initrd.img", INITRD_SIZE);
		assert_memory_equal(buf, want, INITRD_SIZE);
		free(want);
		free(buf);
		free(fs);
		unmap_image(m);
	}
}

struct listing {
	unsigned n;
	char names[64][FAT_NAME_MAX + 1];
	uint32_t sizes[64];
	bool dirs[64];
};

static int collect(void *ctx, const struct fat_dirent *e)
{
	struct listing *l = ctx;
	if (l->n < 64) {
		strcpy(l->names[l->n], e->name);
		l->sizes[l->n] = e->file.size;
		l->dirs[l->n] = e->file.is_dir;
		l->n++;
	}
	return 0;
}

static int find_name(const struct listing *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return (int)i;
	return -1;
}

static void test_listing(void **state)
{
	(void)state;
	NEED_IMAGES();
	for (size_t i = 0; i < NIMAGES; i++) {
		struct mapped *m = map_image(images[i].name, images[i].bps, 0);
		struct fat_fs *fs = malloc(sizeof *fs);
		struct listing *l = calloc(1, sizeof *l);
		struct fat_file dir;
		assert_non_null(fs);
		assert_non_null(l);
		mount_ok(m, fs);
		assert_int_equal(fat_list(fs, NULL, collect, l, NULL), 0);
		/* 20 fillers, big.bin, 9 root files, EFI, boot; no label, no "." */
		assert_int_equal(l->n, 20 + 1 + 9 + 2 + images[i].initrd);
		for (size_t k = 0; k < NFILES; k++) {
			const char *p = files[k].path;
			if (strchr(p + 1, '/'))
				continue;
			int at = find_name(l, p + 1);
			if (at < 0)
				fail_msg("%s: '%s' missing from the root listing", images[i].name, p + 1);
			assert_int_equal(l->sizes[at], files[k].size);
			assert_false(l->dirs[at]);
		}
		int at = find_name(l, "EFI");
		assert_true(at >= 0);
		assert_true(l->dirs[at]);
		assert_int_equal(find_name(l, "fill01"), -1);

		open_ok(fs, "/boot", &dir);
		assert_true(dir.is_dir);
		memset(l, 0, sizeof *l);
		assert_int_equal(fat_list(fs, &dir, collect, l, NULL), 0);
		assert_int_equal(l->n, 2);
		assert_true(find_name(l, "sub dir") >= 0);
		assert_true(find_name(l, long200 + 6) >= 0);

		/* stopping early returns the callback's value */
		free(l);
		free(fs);
		unmap_image(m);
	}
}

static int stop_at_third(void *ctx, const struct fat_dirent *e)
{
	(void)e;
	return ++*(int *)ctx == 3 ? 42 : 0;
}

static void test_lookup_forms(void **state)
{
	(void)state;
	NEED_IMAGES();
	struct mapped *m = map_image("fat32-512", 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct fat_file f, g;
	struct capture cap;
	assert_non_null(fs);
	mount_ok(m, fs);

	open_ok(fs, "/EFI/BOOT/BOOTX64.EFI", &f);
	open_ok(fs, "efi/boot/bootx64.efi", &g);
	assert_int_equal(f.first_cluster, g.first_cluster);
	open_ok(fs, "\\EFI\\Boot\\BootX64.efi", &g);
	assert_int_equal(f.first_cluster, g.first_cluster);
	open_ok(fs, "//EFI/./BOOT//../BOOT/bootx64.EFI", &g);
	assert_int_equal(f.first_cluster, g.first_cluster);
	open_ok(fs, "/a LONG file NAME with spaces.TXT", &f);
	assert_int_equal(f.size, 5000);
	open_ok(fs, "/ALONGF~1.TXT", &g);   /* the short alias mtools made */
	assert_int_equal(f.first_cluster, g.first_cluster);
	open_ok(fs, "/mixedcase.txt", &f);
	assert_int_equal(f.size, 321);
	open_ok(fs, "/BOOT/SUB DIR/Deeper/FILE.DAT", &f);
	assert_int_equal(f.size, 7777);

	open_ok(fs, "", &f);
	assert_true(f.is_root && f.is_dir);
	assert_int_equal(f.first_cluster, fs->root_cluster);
	open_ok(fs, "/", &f);
	assert_true(f.is_root);
	open_ok(fs, "/boot/..", &f);
	assert_true(f.is_root);
	assert_int_equal(f.first_cluster, fs->root_cluster);

	capture_init(&cap);
	assert_int_equal(fat_open(fs, "/boot/nothere", &f, &cap.diag), AS_ENOENT);
	assert_reported(&cap, "fat.not_found", "no 'nothere' in '/boot/'");
	capture_init(&cap);
	assert_int_equal(fat_open(fs, "/one.bin/x", &f, &cap.diag), AS_ENOTDIR);
	assert_reported(&cap, "fat.not_dir", "is not a directory");
	/* a prefix of a name is not the name */
	assert_int_equal(fat_open(fs, "/one.bi", &f, NULL), AS_ENOENT);
	assert_int_equal(fat_open(fs, "/one.binx", &f, NULL), AS_ENOENT);

	open_ok(fs, "/EFI", &f);
	capture_init(&cap);
	uint8_t b;
	assert_int_equal(fat_read(fs, &f, 0, &b, 1, &cap.diag), AS_EISDIR);
	open_ok(fs, "/one.bin", &f);
	assert_int_equal(fat_list(fs, &f, collect, NULL, NULL), AS_ENOTDIR);

	int count = 0;
	assert_int_equal(fat_list(fs, NULL, stop_at_third, &count, NULL), 42);
	assert_int_equal(count, 3);
	free(fs);
	unmap_image(m);
}

/* Sets 16 bits of the boot sector and expects mount to fail with that sentence. */
static void expect_bpb_error(const char *img, unsigned off, unsigned width, uint32_t value,
			     const char *code, const char *want)
{
	struct mapped *m = map_image(img, 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct capture cap;
	assert_non_null(fs);
	if (width == 1)
		m->map[off] = (uint8_t)value;
	else if (width == 2)
		le16_store(m->map + off, (uint16_t)value);
	else
		le32_store(m->map + off, value);
	capture_init(&cap);
	int rc = fat_mount(&m->dev, fs, &cap.diag);
	assert_true(rc < 0);
	assert_reported(&cap, code, want);
	free(fs);
	unmap_image(m);
}

static void test_bad_bpb_fields(void **state)
{
	(void)state;
	NEED_IMAGES();
	expect_bpb_error("fat16-512", 11, 2, 3000, "fat.bpb.sector_size",
			 "FAT: bytes per sector 3000 is not a power of two in 512..4096");
	expect_bpb_error("fat16-512", 11, 2, 256, "fat.bpb.sector_size", "bytes per sector 256");
	expect_bpb_error("fat16-512", 11, 2, 8192, "fat.bpb.sector_size", "bytes per sector 8192");
	expect_bpb_error("fat16-512", 0, 1, 0x00, "fat.bpb.jump", "not a jump");
	expect_bpb_error("fat16-512", 13, 1, 3, "fat.bpb.cluster_size",
			 "sectors per cluster 3 is not a power of two");
	expect_bpb_error("fat16-512", 13, 1, 0, "fat.bpb.cluster_size", "sectors per cluster 0");
	expect_bpb_error("fat16-512", 14, 2, 0, "fat.bpb.reserved", "reserved sector count is 0");
	expect_bpb_error("fat16-512", 16, 1, 0, "fat.bpb.num_fats", "number of FATs is 0");
	expect_bpb_error("fat16-512", 21, 1, 0x12, "fat.bpb.media", "media descriptor 0x12");
	expect_bpb_error("fat16-512", 22, 2, 1, "fat.bpb.fat_small", "too few for");
	expect_bpb_error("fat16-512", 17, 2, 0, "fat.bpb.root_entries",
			 "FAT16 with no root directory entries");
	expect_bpb_error("fat16-512", 14, 2, 60000, "fat.bpb.no_data", "no room for data");
	/* 16-bit total 0 and 32-bit total 0 */
	expect_bpb_error("fat16-512", 19, 2, 0, "fat.bpb.total", "total sector count is 0");
	/* a filesystem larger than its device */
	expect_bpb_error("fat16-512", 19, 2, 16484, "fat.bpb.beyond_device",
			 "pass the end of the 8388608-byte device");
	expect_bpb_error("fat32-512", 44, 4, 1, "fat.bpb.root_cluster",
			 "root directory cluster 1 is outside 2..");
	expect_bpb_error("fat32-512", 44, 4, 0x0FFFFFF0, "fat.bpb.root_cluster", "is outside 2..");
	expect_bpb_error("fat32-512", 42, 2, 0x0101, "fat.bpb.version", "FAT32 version 1.1");
	expect_bpb_error("fat32-512", 17, 2, 512, "fat.bpb.root_entries", "must be 0");
	expect_bpb_error("fat32-512", 40, 2, 0x0085, "fat.bpb.active_fat", "active FAT 5");
	/* 32-bit FAT size shrunk so the table cannot hold the clusters */
	expect_bpb_error("fat32-512", 36, 4, 1, "fat.bpb.fat_small", "too few for");
	/* many clusters (spc 1 -> cluster count of FAT32) with a 16-bit FAT size */
	expect_bpb_error("fat32-512", 22, 2, 700, "fat.bpb.type",
			 "make this FAT32 per the spec, but the BPB has the FAT12/16 layout");
}

static void test_small_device(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(4096, 4096, 4096, 0, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct capture cap;
	assert_non_null(fs);
	capture_init(&cap);
	assert_int_equal(fat_mount(&d->dev, fs, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "fat.bpb.jump", NULL);
	test_disk_free(d);
	free(fs);
}

/* FAT32 made by mkfs.fat -F 32 on a small image: too few clusters for FAT32 per the spec. */
static void test_fat32_layout_with_fat16_cluster_count(void **state)
{
	(void)state;
	NEED_IMAGES();
	char img[600];
	snprintf(img, sizeof img, "%s/small32.img", workdir);
	assert_int_equal(run_cmd("truncate -s 8M '%s' && mkfs.fat -F 32 -S 512 -s 1 '%s' "
				 ">/dev/null 2>&1", img, img), 0);
	struct mapped *m = map_image("small32", 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct capture cap;
	assert_non_null(fs);
	capture_init(&cap);
	assert_int_equal(fat_mount(&m->dev, fs, &cap.diag), AS_ECORRUPT);
	assert_reported(&cap, "fat.bpb.type", "FAT32 needs at least 65525");
	free(fs);
	unmap_image(m);
}

struct chain_case {
	struct mapped *m;
	struct fat_fs *fs;
	struct fat_file f;
	uint32_t clusters[8];  /* the file's first clusters */
};

static void chain_setup(struct chain_case *cc, const char *img, const char *path)
{
	cc->m = map_image(img, 512, 0);
	cc->fs = malloc(sizeof *cc->fs);
	assert_non_null(cc->fs);
	mount_ok(cc->m, cc->fs);
	open_ok(cc->fs, path, &cc->f);
	uint32_t c = cc->f.first_cluster;
	for (int i = 0; i < 8; i++) {
		cc->clusters[i] = c;
		if (c < 2 || c >= cc->fs->clusters + 2)
			break;
		c = raw_fat(cc->m, cc->fs, c);
	}
}

static void chain_done(struct chain_case *cc)
{
	free(cc->fs);
	unmap_image(cc->m);
}

static void expect_read_error(struct chain_case *cc, int rc_want, const char *code,
			      const char *want)
{
	struct capture cap;
	uint8_t *buf = malloc(cc->f.size);
	assert_non_null(buf);
	capture_init(&cap);
	/* a mount afresh: no chain verified before */
	mount_ok(cc->m, cc->fs);
	int rc = fat_read(cc->fs, &cc->f, 0, buf, cc->f.size, &cap.diag);
	if (rc != rc_want) {
		capture_dump(&cap);
		fail_msg("read gave %d, wanted %d", rc, rc_want);
	}
	assert_reported(&cap, code, want);
	free(buf);
}

static void test_chain_corruption(void **state)
{
	(void)state;
	NEED_IMAGES();
	static const char *imgs[] = { "fat12-512", "fat16-512", "fat32-512" };
	for (size_t i = 0; i < 3; i++) {
		struct chain_case cc;
		char want[128];
		uint32_t bad = i == 0 ? 0xFF7 : i == 1 ? 0xFFF7 : 0x0FFFFFF7;
		uint32_t eoc = i == 0 ? 0xFFF : i == 1 ? 0xFFFF : 0x0FFFFFFF;

		/* a loop: the third cluster points back to the first; the sentence names that
		 * link, not just a cluster seen twice */
		chain_setup(&cc, imgs[i], "/f4097.bin");  /* 9 clusters of 512 */
		poke_fat(cc.m, cc.fs, cc.clusters[2], cc.clusters[0]);
		snprintf(want, sizeof want, "FAT: chain from cluster %u loops: cluster %u (the "
			 "chain's cluster 3) links back to cluster %u (its cluster 1)",
			 cc.clusters[0], cc.clusters[2], cc.clusters[0]);
		expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);
		/* the loop is also found by a read that stays inside its start */
		uint8_t b[16];
		assert_int_equal(fat_read(cc.fs, &cc.f, 0, b, sizeof b, NULL), AS_ELOOP);

		/* the last cluster points to the first: the chain never ends */
		poke_fat(cc.m, cc.fs, cc.clusters[2], cc.clusters[3]);
		uint32_t c = cc.clusters[0];
		for (uint32_t k = 1; k < 9; k++)
			c = raw_fat(cc.m, cc.fs, c);
		poke_fat(cc.m, cc.fs, c, cc.clusters[0]);
		snprintf(want, sizeof want, "cluster %u (the chain's cluster 9) links back to "
			 "cluster %u (its cluster 1)", c, cc.clusters[0]);
		expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);

		/* a loop that starts later and is longer than a power of two: the 8th cluster
		 * points back to the 3rd */
		poke_fat(cc.m, cc.fs, c, eoc);
		c = cc.clusters[0];
		for (uint32_t k = 1; k < 8; k++)
			c = raw_fat(cc.m, cc.fs, c);
		uint32_t third = raw_fat(cc.m, cc.fs, cc.clusters[1]);
		uint32_t ninth = raw_fat(cc.m, cc.fs, c);
		poke_fat(cc.m, cc.fs, c, third);
		snprintf(want, sizeof want, "FAT: chain from cluster %u loops: cluster %u (the "
			 "chain's cluster 8) links back to cluster %u (its cluster 3)",
			 cc.clusters[0], c, third);
		expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);
		/* a self-loop on the first cluster */
		poke_fat(cc.m, cc.fs, c, ninth);
		uint32_t second = raw_fat(cc.m, cc.fs, cc.clusters[0]);
		poke_fat(cc.m, cc.fs, cc.clusters[0], cc.clusters[0]);
		snprintf(want, sizeof want, "cluster %u (the chain's cluster 1) links back to "
			 "cluster %u (its cluster 1)", cc.clusters[0], cc.clusters[0]);
		expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);
		poke_fat(cc.m, cc.fs, cc.clusters[0], second);
		c = cc.clusters[0];
		for (uint32_t k = 1; k < 9; k++)
			c = raw_fat(cc.m, cc.fs, c);

		/* truncated: end-of-chain after two clusters */
		poke_fat(cc.m, cc.fs, c, eoc);
		poke_fat(cc.m, cc.fs, cc.clusters[1], eoc);
		snprintf(want, sizeof want, "ends at cluster %u after 2 clusters, but the 4097-byte "
			 "file needs 9", cc.clusters[1]);
		expect_read_error(&cc, AS_ECORRUPT, "fat.file.short_chain", want);

		/* a free cluster in the chain */
		poke_fat(cc.m, cc.fs, cc.clusters[1], 0);
		snprintf(want, sizeof want, "cluster %u points to a free cluster", cc.clusters[1]);
		expect_read_error(&cc, AS_ECORRUPT, "fat.chain.free", want);

		/* a bad-cluster mark */
		poke_fat(cc.m, cc.fs, cc.clusters[1], bad);
		expect_read_error(&cc, AS_ECORRUPT, "fat.chain.bad", "bad-cluster mark");

		/* a cluster number past the last */
		poke_fat(cc.m, cc.fs, cc.clusters[1], cc.fs->clusters + 2);
		snprintf(want, sizeof want, "points to cluster %u, outside 2..%u",
			 cc.fs->clusters + 2, cc.fs->clusters + 1);
		expect_read_error(&cc, AS_ECORRUPT, "fat.chain.range", want);

		/* reserved value 1 */
		poke_fat(cc.m, cc.fs, cc.clusters[1], 1);
		expect_read_error(&cc, AS_ECORRUPT, "fat.chain.range", "points to cluster 1");

		/* a chain longer than the size: readable, with a warning */
		poke_fat(cc.m, cc.fs, cc.clusters[1], cc.clusters[2]);
		chain_done(&cc);
		chain_setup(&cc, imgs[i], "/one.bin");
		uint32_t spare = cc.fs->clusters + 1;   /* the last cluster: free on these images */
		assert_int_equal(raw_fat(cc.m, cc.fs, spare), 0);
		poke_fat(cc.m, cc.fs, cc.clusters[0], spare);
		poke_fat(cc.m, cc.fs, spare, eoc);
		struct capture cap;
		capture_init(&cap);
		uint8_t one;
		assert_int_equal(fat_read(cc.fs, &cc.f, 0, &one, 1, &cap.diag), 0);
		assert_reported(&cap, "fat.file.long_chain", "has 2 clusters, the 1-byte file uses 1");
		chain_done(&cc);
	}
}

/* Loops closed far into a long chain (big.bin: 2,540 clusters of the images' 512 bytes, runs of consecutive
 * clusters between the holes the fill files left), so the walk takes runs of next-cluster links
 * in bulk (common/fat_read.c) across powers of two before it meets the loop: the sentence still
 * names the exact link, and every loop is found. */
static void test_chain_long_loops(void **state)
{
	(void)state;
	NEED_IMAGES();
	static const char *imgs[] = { "fat16-512", "fat32-512" };
	for (size_t i = 0; i < 2; i++) {
		struct chain_case cc;
		chain_setup(&cc, imgs[i], "/big.bin");
		uint32_t csize = cc.fs->cluster_size;
		uint32_t n = (cc.f.size + csize - 1) / csize, runs = 0;
		uint32_t *chain = malloc(n * sizeof *chain);
		assert_non_null(chain);
		chain[0] = cc.f.first_cluster;
		for (uint32_t k = 1; k < n; k++) {
			chain[k] = raw_fat(cc.m, cc.fs, chain[k - 1]);
			runs += chain[k] != chain[k - 1] + 1;
		}
		assert_true(runs > 1 && runs < n / 8);   /* both jumps and long runs */
		uint32_t last = chain[n - 1], eoc = raw_fat(cc.m, cc.fs, last);
		static const uint32_t back[] = { 0, 1, 2, 3, 700, 1023, 1024, 1025, 2000 };
		for (size_t b = 0; b < ARRAY_SIZE(back); b++) {
			char want[160];
			uint32_t to = back[b] < n - 1 ? back[b] : n - 2;
			poke_fat(cc.m, cc.fs, last, chain[to]);
			snprintf(want, sizeof want, "FAT: chain from cluster %u loops: cluster %u (the "
				 "chain's cluster %u) links back to cluster %u (its cluster %u)",
				 chain[0], last, n, chain[to], to + 1);
			expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);
		}
		/* a link inside a run pointed back to the run's own start */
		uint32_t mid = n / 2, start = mid;
		while (start > 0 && chain[start - 1] + 1 == chain[start])
			start--;
		poke_fat(cc.m, cc.fs, last, eoc);
		uint32_t keep = raw_fat(cc.m, cc.fs, chain[mid]);
		poke_fat(cc.m, cc.fs, chain[mid], chain[start]);
		char want[160];
		snprintf(want, sizeof want, "cluster %u (the chain's cluster %u) links back to "
			 "cluster %u (its cluster %u)", chain[mid], mid + 1, chain[start], start + 1);
		expect_read_error(&cc, AS_ELOOP, "fat.chain.loop", want);
		poke_fat(cc.m, cc.fs, chain[mid], keep);
		free(chain);
		chain_done(&cc);
	}
}

/* The chain walk compares runs of next-cluster links 32 bytes at a time (common/fat_read.c
 * block_run). big.bin's chain is rewritten to one run of consecutive clusters (its bytes are
 * then not the file's: only the walk's verdicts are checked): a wrong link anywhere in a block,
 * the first to the last, is still the one named; a FAT32 link that differs only in the top bits
 * of its 28 is wrong there too; its reserved top 4 bits are ignored. */
static void test_chain_run_blocks(void **state)
{
	(void)state;
	NEED_IMAGES();
	static const char *imgs[] = { "fat16-512", "fat32-512" };
	static const uint32_t from[] = { 0, 1500 };   /* early links, and deep into the run */
	for (size_t i = 0; i < 2; i++) {
		struct chain_case cc;
		chain_setup(&cc, imgs[i], "/big.bin");
		uint32_t n = (cc.f.size + cc.fs->cluster_size - 1) / cc.fs->cluster_size;
		uint32_t first = cc.f.first_cluster;
		uint32_t eoc = cc.fs->type == FAT_TYPE_32 ? 0x0FFFFFFF : 0xFFFF;
		assert_true(first + n - 1 <= cc.fs->clusters + 1);
		for (uint32_t k = 0; k < n; k++)
			poke_fat(cc.m, cc.fs, first + k, k + 1 < n ? first + k + 1 : eoc);
		uint8_t *buf = malloc(cc.f.size);
		assert_non_null(buf);
		mount_ok(cc.m, cc.fs);
		assert_int_equal(fat_read(cc.fs, &cc.f, 0, buf, cc.f.size, NULL), 0);
		for (size_t r = 0; r < ARRAY_SIZE(from); r++) {
			for (uint32_t c = first + from[r]; c < first + from[r] + 34; c++) {
				char want[96];
				poke_fat(cc.m, cc.fs, c, 0);
				snprintf(want, sizeof want, "cluster %u points to a free cluster", c);
				expect_read_error(&cc, AS_ECORRUPT, "fat.chain.free", want);
				if (cc.fs->type == FAT_TYPE_32) {
					uint32_t far = (c + 1) | 0x08000000u;
					poke_fat(cc.m, cc.fs, c, far);
					snprintf(want, sizeof want, "points to cluster %u, outside 2..%u",
						 far, cc.fs->clusters + 1);
					expect_read_error(&cc, AS_ECORRUPT, "fat.chain.range", want);
				}
				poke_fat(cc.m, cc.fs, c, c + 1);
			}
		}
		if (cc.fs->type == FAT_TYPE_32) {
			struct capture cap;
			for (uint32_t k = 0; k + 1 < n; k++)
				for (uint32_t f = 0; f < cc.fs->num_fats; f++) {
					uint8_t *e = cc.m->map + cc.fs->fat_offset +
						     f * cc.fs->fat_bytes + 4 * (first + k);
					le32_store(e, le32_load(e) | 0xF0000000u);
				}
			capture_init(&cap);
			mount_ok(cc.m, cc.fs);
			assert_int_equal(fat_read(cc.fs, &cc.f, 0, buf, cc.f.size, &cap.diag), 0);
			assert_int_equal(cap.n, 0);   /* not even a warning */
		}
		free(buf);
		chain_done(&cc);
	}
}

static void test_directory_loop(void **state)
{
	(void)state;
	NEED_IMAGES();
	/* FAT32 root (a chain) pointing to itself: the listing fails with AS_ELOOP */
	struct chain_case cc;
	struct capture cap;
	chain_setup(&cc, "fat32-512", "/one.bin");
	uint32_t root = cc.fs->root_cluster;
	poke_fat(cc.m, cc.fs, root, root);
	/* make the root's entries run on past its cluster: clear nothing, the end marker is what
	 * stops a walk, so move it: fill the rest of the cluster with deleted entries */
	uint8_t *dir = cc.m->map + cc.fs->data_offset + (uint64_t)(root - 2) * cc.fs->cluster_size;
	for (uint32_t o = 0; o < cc.fs->cluster_size; o += 32)
		if (dir[o] == 0)
			dir[o] = 0xE5;
	mount_ok(cc.m, cc.fs);
	capture_init(&cap);
	assert_int_equal(fat_list(cc.fs, NULL, collect, &(struct listing){ 0 }, &cap.diag),
			 AS_ELOOP);
	assert_true(capture_has(&cap, "fat.dir.loop", NULL) ||
		    capture_has(&cap, "fat.dir.too_long", NULL));
	capture_init(&cap);
	struct fat_file f;
	assert_int_equal(fat_open(cc.fs, "/nothere", &f, &cap.diag), AS_ELOOP);
	chain_done(&cc);
}

/* Finds the root directory entries of the FAT16 image's long name and breaks them. */
static void test_orphan_long_name_fragments(void **state)
{
	(void)state;
	NEED_IMAGES();
	struct mapped *m = map_image("fat16-512", 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct fat_file f;
	assert_non_null(fs);
	mount_ok(m, fs);
	uint8_t *root = m->map + fs->root_offset;
	int last = -1;   /* "A long file name with spaces.txt": 32 characters, 3 fragments */
	for (uint32_t i = 0; i < fs->root_entries; i++) {
		uint8_t *e = root + 32 * i;
		if (e[11] == 0x0F && e[0] == 0x43)
			last = (int)i;
	}
	assert_true(last >= 0);
	uint8_t *e = root + 32 * last;
	assert_int_equal(e[32 * 3], 'A');   /* the short entry ALONGF~1TXT follows */

	/* a checksum that does not match the short name: the long name is ignored */
	e[13] ^= 0x5A;
	e[32 + 13] ^= 0x5A;
	e[64 + 13] ^= 0x5A;
	mount_ok(m, fs);
	assert_int_equal(fat_open(fs, "/A long file name with spaces.txt", &f, NULL), AS_ENOENT);
	open_ok(fs, "/ALONGF~1.TXT", &f);
	assert_int_equal(f.size, 5000);
	struct listing *l = calloc(1, sizeof *l);
	assert_non_null(l);
	assert_int_equal(fat_list(fs, NULL, collect, l, NULL), 0);
	assert_true(find_name(l, "ALONGF~1.TXT") >= 0);
	e[13] ^= 0x5A;
	e[32 + 13] ^= 0x5A;
	e[64 + 13] ^= 0x5A;

	/* a missing middle fragment (deleted): orphans */
	e[32] = 0xE5;
	mount_ok(m, fs);
	assert_int_equal(fat_open(fs, "/A long file name with spaces.txt", &f, NULL), AS_ENOENT);
	open_ok(fs, "/alongf~1.txt", &f);
	e[32] = 0x02;

	/* out of order (first fragment's ordinal wrong) */
	e[0] = 0x44;
	mount_ok(m, fs);
	assert_int_equal(fat_open(fs, "/A long file name with spaces.txt", &f, NULL), AS_ENOENT);
	e[0] = 0x43;
	mount_ok(m, fs);
	open_ok(fs, "/A long file name with spaces.txt", &f);

	/* a character outside ASCII (U+00E9 for the 'A'): listed as '?', not openable by the long
	 * name (it cannot be typed), still by the short one */
	uint8_t *first = e + 2 * 32;   /* fragment 1 holds characters 0..12 */
	assert_int_equal(first[0], 0x01);
	assert_int_equal(le16_load(first + 1), 'A');
	le16_store(first + 1, 0x00E9);
	mount_ok(m, fs);
	memset(l, 0, sizeof *l);
	assert_int_equal(fat_list(fs, NULL, collect, l, NULL), 0);
	assert_true(find_name(l, "? long file name with spaces.txt") >= 0);
	assert_int_equal(fat_open(fs, "/? long file name with spaces.txt", &f, NULL), AS_ENOENT);
	open_ok(fs, "/ALONGF~1.TXT", &f);
	assert_int_equal(f.size, 5000);
	free(l);
	free(fs);
	unmap_image(m);
}

static void test_io_errors(void **state)
{
	(void)state;
	NEED_IMAGES();
	struct mapped *m = map_image("fat16-512", 512, 0);
	struct fat_fs *fs = malloc(sizeof *fs);
	struct fat_file f;
	struct capture cap;
	assert_non_null(fs);
	mount_ok(m, fs);
	open_ok(fs, "/f4096.bin", &f);
	uint8_t *buf = malloc(4096);
	assert_non_null(buf);

	/* a failing data sector: the error names its LBA */
	uint64_t lba = (fs->data_offset + (uint64_t)(f.first_cluster - 2) * fs->cluster_size) / 512 + 3;
	m->md.fail_reads = true;
	m->md.fail_lba = lba;
	capture_init(&cap);
	assert_int_equal(fat_read(fs, &f, 0, buf, 4096, &cap.diag), AS_EIO);
	char want[64];
	snprintf(want, sizeof want, "failed at disk LBA %llu", (unsigned long long)lba);
	const char *w = want;
	assert_reported(&cap, "fat.io", w);

	/* a failing sector in the first FAT: the second copy is used, with a warning */
	mount_ok(m, fs);
	m->md.fail_lba = fs->fat_offset / 512 + (2 * f.first_cluster) / 512;
	capture_init(&cap);
	assert_int_equal(fat_read(fs, &f, 0, buf, 4096, &cap.diag), 0);
	assert_reported(&cap, "fat.fat_copy", "using copy 2");
	uint8_t *want_bytes = expected("/f4096.bin", 4096);
	assert_memory_equal(buf, want_bytes, 4096);
	free(want_bytes);

	/* the boot sector unreadable */
	m->md.fail_lba = 0;
	capture_init(&cap);
	assert_int_equal(fat_mount(&m->dev, fs, &cap.diag), AS_EIO);
	assert_reported(&cap, "fat.io", "boot sector");
	free(buf);
	free(fs);
	unmap_image(m);
}

/* A FAT inside a partition, as the loaders see it: made with mkfs.fat --offset and filled with
 * mtools' "@@offset" syntax (docs/FIRMWARE.md "FAT on 4 KiB sectors"), then mounted through a
 * bdev_slice of the disk. */
static void test_partition_slice(void **state)
{
	(void)state;
	NEED_IMAGES();
	char img[600];
	snprintf(img, sizeof img, "%s/disk.img", workdir);
	/* 4 KiB BPB sectors; the partition starts at 1 MiB (256 of them) */
	assert_int_equal(run_cmd("rm -f '%s' && truncate -s 24M '%s' && mkfs.fat -F 16 -S 4096 -s 1 "
				 "--offset 256 -h 256 '%s' 20480 >/dev/null 2>&1", img, img, img), 0);
	char at[620];
	snprintf(at, sizeof at, "%s@@1M", img);
	assert_int_equal(mcopy(at, "/vmlinuz", 54321), 0);
	static const uint32_t lss[] = { 512, 4096 };
	for (int k = 0; k < 2; k++) {
		struct mapped *m = map_image("disk", lss[k], 0);
		struct blockdev part;
		struct fat_fs *fs = malloc(sizeof *fs);
		struct capture cap;
		assert_non_null(fs);
		uint64_t first = (1u << 20) / lss[k];
		assert_int_equal(bdev_slice(&m->dev, first, (20u << 20) / lss[k], &part), 0);
		capture_init(&cap);
		int rc = fat_mount(&part, fs, &cap.diag);
		if (rc) {
			capture_dump(&cap);
			fail_msg("mount of the partition failed: %d", rc);
		}
		assert_int_equal(fs->type, FAT_TYPE_16);
		assert_int_equal(fs->bytes_per_sector, 4096);
		assert_int_equal(fs->hidden_sectors, 256);
		check_file(fs, "/vmlinuz", 54321);
		/* the whole disk has no FAT at LBA 0 */
		capture_init(&cap);
		assert_int_equal(fat_mount(&m->dev, fs, &cap.diag), AS_ECORRUPT);
		free(fs);
		unmap_image(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_images_native_sector_size),
		cmocka_unit_test(test_images_other_sector_size),
		cmocka_unit_test(test_big_file_is_fragmented),
		cmocka_unit_test(test_reads_are_batched),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_lookup_forms),
		cmocka_unit_test(test_bad_bpb_fields),
		cmocka_unit_test(test_small_device),
		cmocka_unit_test(test_fat32_layout_with_fat16_cluster_count),
		cmocka_unit_test(test_chain_corruption),
		cmocka_unit_test(test_chain_long_loops),
		cmocka_unit_test(test_chain_run_blocks),
		cmocka_unit_test(test_directory_loop),
		cmocka_unit_test(test_orphan_long_name_fragments),
		cmocka_unit_test(test_io_errors),
		cmocka_unit_test(test_partition_slice),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
