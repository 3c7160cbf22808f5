/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer target: the FAT reader on a device made from the input. It mounts, lists the root and
 * subdirectories, opens what it listed by path, and reads files whole and in ranges — all bounded,
 * so any hang is the reader's.
 *
 * Input format (so that FAT16/32 images of many megabytes fit in a small input; seeds are made by
 * `python3 tests/fuzz/corpus/make_seeds.py fat`):
 *   byte 0      bits 0-1: device sector size 512 << n; bit 7: the rest is a raw image at 0
 *   bytes 1-4   device size in 4 KiB units (le32, capped)
 *   then segments until the input ends: le32 offset in 512-byte units, le16 length, data.
 * Bytes no segment covers read as zero. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/bits.h"
#include "common/errors.h"
#include "common/fat.h"
#include "common/le.h"
#include "tests/fuzz/fuzz_diag.h"

#define MAX_DEV_BYTES (288ull << 20)  /* room for a FAT32 with 4 KiB sectors (65525 clusters) */
#define MAX_SEGMENTS 64
#define READ_CAP 65536u
#define MAX_FILES 24
#define MAX_DIRS 12
#define MAX_DEPTH 4
#define MAX_OPENS 48
#define MAX_LISTED 256                 /* entries taken from one directory */
#define UNIT 512u                      /* segment offsets' unit in the input format */

struct segment {
	uint64_t off;
	const uint8_t *data;
	size_t len;
};

struct sparse {
	struct segment seg[MAX_SEGMENTS];
	unsigned nseg;
};

static int sparse_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct sparse *sp = dev->priv;
	uint64_t start = lba * dev->sector_size, len = (uint64_t)count * dev->sector_size;
	memset(buf, 0, len);
	for (unsigned i = 0; i < sp->nseg; i++) {
		struct segment *s = &sp->seg[i];
		uint64_t a = s->off > start ? s->off : start;
		uint64_t b = s->off + s->len < start + len ? s->off + s->len : start + len;
		if (a < b)
			memcpy((uint8_t *)buf + (a - start), s->data + (a - s->off), b - a);
	}
	return 0;
}

static struct fat_fs fs;
static uint8_t readbuf[READ_CAP];
static uint8_t scratch[4096];
static unsigned nfiles, ndirs, nopens;

static struct diag diag = { .emit = fuzz_emit };

static void read_file(const struct fat_file *f)
{
	uint32_t n = f->size < READ_CAP ? f->size : READ_CAP;
	if (fat_read(&fs, f, 0, readbuf, n, &diag))
		return;
	if (f->size > 3) {
		uint32_t off = f->size / 3, len = f->size / 3 < READ_CAP ? f->size / 3 : READ_CAP;
		fat_read(&fs, f, off, readbuf, len, &diag);
		/* the last bytes, then past the end (must be refused) */
		fat_read(&fs, f, f->size - 1, readbuf, 1, &diag);
		if (fat_read(&fs, f, f->size, readbuf, 1, &diag) != AS_ERANGE)
			__builtin_trap();
	}
}

struct walk {
	unsigned depth;
	unsigned listed;
	char path[FAT_PATH_MAX];
};

static void walk_dir(const struct fat_file *dir, struct walk *w);

static int on_entry(void *ctx, const struct fat_dirent *e)
{
	struct walk *w = ctx;
	struct fat_file f;
	char path[FAT_PATH_MAX + FAT_NAME_MAX + 2];

	if (strlen(e->name) > FAT_NAME_MAX || strlen(e->short_name) > 12)
		__builtin_trap();
	if (++w->listed > MAX_LISTED)
		return 1;
	/* Open what was listed by its path (names with '?' or '/' replaced may not resolve; a
	 * name listed twice resolves to the first), and read the entry that was listed. */
	size_t pl = strlen(w->path);
	memcpy(path, w->path, pl);
	path[pl] = '/';
	strcpy(path + pl + 1, e->name);
	if (nopens++ < MAX_OPENS)
		fat_open(&fs, path, &f, &diag);
	if (!e->file.is_dir && nfiles < MAX_FILES) {
		nfiles++;
		read_file(&e->file);
	}
	if (e->file.is_dir && w->depth < MAX_DEPTH && ndirs < MAX_DIRS &&
	    pl + 1 + strlen(e->name) < FAT_PATH_MAX) {
		struct walk sub = { .depth = w->depth + 1 };
		memcpy(sub.path, path, pl + 1 + strlen(e->name) + 1);
		walk_dir(&e->file, &sub);
	}
	return 0;
}

static void walk_dir(const struct fat_file *dir, struct walk *w)
{
	ndirs++;
	fat_list(&fs, dir, on_entry, w, &diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sparse sp;
	struct blockdev dev;

	if (size < 5)
		return 0;
	uint32_t lss = 512u << (data[0] & 3);
	uint64_t bytes = (uint64_t)le32_load(data + 1) * 4096;
	if (bytes > MAX_DEV_BYTES)
		bytes = MAX_DEV_BYTES;
	sp.nseg = 0;
	data += 5;
	size -= 5;
	if (data[-5] & 0x80) {
		sp.seg[sp.nseg++] = (struct segment){ 0, data, size };
		if (bytes < size)
			bytes = size;
	} else {
		while (size >= 6 && sp.nseg < MAX_SEGMENTS) {
			uint64_t off = (uint64_t)le32_load(data) * UNIT;
			size_t len = le16_load(data + 4);
			data += 6;
			size -= 6;
			if (len > size)
				len = size;
			sp.seg[sp.nseg++] = (struct segment){ off, data, len };
			data += len;
			size -= len;
		}
	}
	bytes = DIV_ROUND_UP(bytes, lss) * lss;
	if (bytes > MAX_DEV_BYTES + 4096)
		return 0;

	dev = (struct blockdev){
		.sector_size = lss,
		.phys_size = lss,
		.sectors = bytes / lss,
		.max_io = 64,
		.read = sparse_read,
		.priv = &sp,
		.scratch = scratch,
	};
	if (fat_mount(&dev, &fs, &diag))
		return 0;
	/* what mount promised */
	if (fs.type != FAT_TYPE_12 && fs.type != FAT_TYPE_16 && fs.type != FAT_TYPE_32)
		__builtin_trap();
	if (fs.data_offset + (uint64_t)fs.clusters * fs.cluster_size > bytes)
		__builtin_trap();

	nfiles = ndirs = nopens = 0;
	struct walk root = { 0 };
	walk_dir(NULL, &root);

	struct fat_file f;
	static const char *const paths[] = { "/anysector.cfg", "/EFI/BOOT/BOOTX64.EFI", "a/../b",
					     "\\x\\y\\z", "/./", ".." };
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (fat_open(&fs, paths[i], &f, &diag) == 0 && !f.is_dir && nfiles++ < MAX_FILES)
			read_file(&f);
	return 0;
}
