/* SPDX-License-Identifier: BSD-2-Clause */
/* FAT directories: the bounded entry walk, 8.3 and long names, listing and path lookup.
 *
 * A long name is a run of fragments (attribute 0x0F) stored last-first before its short entry,
 * each carrying the checksum of the short name. A run is used only when it is complete, in order
 * and its checksum matches the short entry that follows; anything else (an orphan left by a
 * tool that knew no long names) is ignored and the short name stands. */
#include "common/errors.h"
#include "common/fat_internal.h"
#include "common/fat_path.h"
#include "common/le.h"
#include "common/mem.h"
#include "common/str.h"

#define LFN_CHARS_PER_ENTRY 13u
#define LFN_MAX_ENTRIES 20u           /* 20 * 13 = 260 >= 255 characters */
#define LFN_LAST 0x40                 /* ordinal flag of the fragment stored first */
#define LFN_ORD_MASK 0x3F
#define DIR_FREE 0xE5                 /* first name byte of a deleted entry */
#define DIR_KANJI_E5 0x05             /* stored for a real first byte 0xE5 */
#define DIR_NT_LOWER_BASE 0x08        /* NTRes: show the 8-char base in lower case */
#define DIR_NT_LOWER_EXT 0x10
#define DIR_NTRES 12
#define DIR_FST_CLUS_HI 20
#define DIR_FST_CLUS_LO 26
#define DIR_FILE_SIZE 28
#define LFN_CHKSUM 13

/* UCS-2 positions of the 13 characters inside a fragment. */
static const uint8_t lfn_char_off[LFN_CHARS_PER_ENTRY] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22,
							   24, 28, 30 };

struct lfn_state {
	char name[LFN_MAX_ENTRIES * LFN_CHARS_PER_ENTRY + 1];
	unsigned len;        /* characters in name (known from the fragment stored first) */
	uint8_t expect;      /* ordinal of the next fragment; 0: none pending */
	uint8_t sum;
	bool lossy;          /* a character had to be replaced by '?' */
	bool complete;       /* fragment 1 was seen: a short entry may now claim the name */
};

struct dir_iter {
	uint32_t first;      /* first cluster (0: the FAT12/16 fixed root) */
	uint32_t cluster;    /* current cluster */
	uint64_t pos;        /* device byte offset of the next entry */
	uint64_t end;        /* end of the current cluster or of the fixed root */
	uint32_t nclusters;  /* clusters visited */
	uint32_t nentries;   /* entries read */
};

static uint8_t lfn_checksum(const uint8_t *short_name)
{
	uint8_t sum = 0;
	for (unsigned i = 0; i < 11; i++)
		sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + short_name[i]);
	return sum;
}

static void lfn_reset(struct lfn_state *l)
{
	l->expect = 0;
	l->complete = false;
}

static void lfn_add(struct lfn_state *l, const uint8_t *e)
{
	unsigned ord = e[0] & LFN_ORD_MASK;

	if (e[0] & LFN_LAST) {
		if (!ord || ord > LFN_MAX_ENTRIES) {
			lfn_reset(l);
			return;
		}
		l->sum = e[LFN_CHKSUM];
		l->len = ord * LFN_CHARS_PER_ENTRY;
		l->lossy = false;
	} else if (!l->expect || ord != l->expect || e[LFN_CHKSUM] != l->sum) {
		lfn_reset(l);  /* out of order, or a fragment of another name: an orphan */
		return;
	}
	unsigned base = (ord - 1) * LFN_CHARS_PER_ENTRY;
	for (unsigned i = 0; i < LFN_CHARS_PER_ENTRY; i++) {
		uint16_t ch = le16_load(e + lfn_char_off[i]);
		if (e[0] & LFN_LAST) {
			/* The fragment stored first holds the end: a NUL, then 0xFFFF padding. */
			if (ch == 0 && base + i < l->len)
				l->len = base + i;
			if (base + i >= l->len)
				continue;
		}
		char c;
		if (ch >= 0x20 && ch < 0x7F && ch != '/' && ch != '\\') {
			c = (char)ch;
		} else {
			c = '?';
			l->lossy = true;
		}
		l->name[base + i] = c;
	}
	l->expect = (uint8_t)(ord - 1);
	l->complete = ord == 1;
	if ((e[0] & LFN_LAST) && (!l->len || l->len > FAT_NAME_MAX))
		lfn_reset(l);
}

/* "NAME.EXT" from the 11-byte short name; lower selects the NT lower-case display bits. */
static void short_name_format(const uint8_t *e, char *out, bool apply_case)
{
	unsigned n = 0;
	int base_len = 8, ext_len = 3;
	bool lower_base = apply_case && (e[DIR_NTRES] & DIR_NT_LOWER_BASE);
	bool lower_ext = apply_case && (e[DIR_NTRES] & DIR_NT_LOWER_EXT);

	while (base_len > 0 && e[base_len - 1] == ' ')
		base_len--;
	while (ext_len > 0 && e[8 + ext_len - 1] == ' ')
		ext_len--;
	for (int i = 0; i < base_len; i++) {
		uint8_t c = (i == 0 && e[0] == DIR_KANJI_E5) ? DIR_FREE : e[i];
		char ch = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
		out[n++] = lower_base ? chr_lower(ch) : ch;
	}
	if (ext_len) {
		out[n++] = '.';
		for (int i = 0; i < ext_len; i++) {
			uint8_t c = e[8 + i];
			char ch = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
			out[n++] = lower_ext ? chr_lower(ch) : ch;
		}
	}
	out[n] = 0;
}

static void root_file(const struct fat_fs *fs, struct fat_file *f)
{
	*f = (struct fat_file){
		.first_cluster = fs->type == FAT_TYPE_32 ? fs->root_cluster : 0,
		.attr = FAT_ATTR_DIRECTORY,
		.is_dir = true,
		.is_root = true,
	};
}

static int dir_iter_start(struct fat_fs *fs, const struct fat_file *dir, struct dir_iter *it,
			  struct diag *d)
{
	*it = (struct dir_iter){ 0 };
	if (!dir->is_dir) {
		diag_error(d, "fat.not_dir", "FAT: listing something that is not a directory");
		return AS_ENOTDIR;
	}
	if (dir->is_root && fs->type != FAT_TYPE_32) {
		it->pos = fs->root_offset;
		it->end = fs->root_offset + (uint64_t)fs->root_entries * FAT_DIRENT_SIZE;
		return 0;
	}
	if (!fat_cluster_ok(fs, dir->first_cluster)) {
		diag_error(d, "fat.dir.cluster",
			   "FAT: directory starts at cluster %u, outside 2..%u", dir->first_cluster,
			   fs->clusters + 1);
		return AS_ECORRUPT;
	}
	it->first = it->cluster = dir->first_cluster;
	it->pos = fat_cluster_offset(fs, it->cluster);
	it->end = it->pos + fs->cluster_size;
	it->nclusters = 1;
	return 0;
}

/* The directory window holding the entry at byte pos of the device, or FEATURE_DIR_WINDOWS. */
static unsigned dir_window(const struct fat_fs *fs, uint64_t pos)
{
	for (unsigned w = 0; w < FEATURE_DIR_WINDOWS; w++)
		if (fs->dir_len[w] && pos >= fs->dir_off[w] && pos - fs->dir_off[w] < fs->dir_len[w])
			return w;
	return FEATURE_DIR_WINDOWS;
}

/* Copies the next 32-byte entry to e: 1 when there is one, 0 at the end of the directory's
 * storage, or an error. The walk is bounded by the cluster count and FAT_DIR_MAX_ENTRIES. */
static int dir_iter_next(struct fat_fs *fs, struct dir_iter *it, uint8_t *e, struct diag *d)
{
	int rc;

	if (it->pos >= it->end) {
		if (!it->first)
			return 0;
		uint32_t next;
		if ((rc = fat_next(fs, it->first, it->cluster, &next, d)))
			return rc;
		if (next == FAT_CHAIN_END)
			return 0;
		if (++it->nclusters > fs->clusters) {
			diag_error(d, "fat.dir.loop",
				   "FAT: directory chain from cluster %u loops (more than %u clusters)",
				   it->first, fs->clusters);
			return AS_ELOOP;
		}
		it->cluster = next;
		it->pos = fat_cluster_offset(fs, next);
		it->end = it->pos + fs->cluster_size;
	}
	if (++it->nentries > FAT_DIR_MAX_ENTRIES) {
		diag_error(d, "fat.dir.too_long",
			   "FAT: directory at cluster %u has more than %u entries", it->first,
			   FAT_DIR_MAX_ENTRIES);
		return AS_ELOOP;
	}
	unsigned w = dir_window(fs, it->pos);
	if (w == FEATURE_DIR_WINDOWS) {
		/* A window on a 4 KiB boundary of the device, clipped to the directory's current
		 * cluster or fixed root (entries never straddle it: both are multiples of 32). */
		uint64_t start = it->pos - it->pos % FAT_DIR_CACHE_BYTES;
		uint64_t wend = start + FAT_DIR_CACHE_BYTES;
		uint64_t region = it->first ? fat_cluster_offset(fs, it->cluster) : fs->root_offset;
		if (start < region)
			start = region;
		if (wend > it->end)
			wend = it->end;
		w = FEATURE_DIR_WINDOWS > 1 ? (fs->dir_last + 1) % FEATURE_DIR_WINDOWS : 0;
		fs->dir_len[w] = 0;
		if ((rc = fat_dev_read(fs, start, fs->dir[w], (size_t)(wend - start), "a directory",
				       d)))
			return rc;
		fs->dir_off[w] = start;
		fs->dir_len[w] = (uint32_t)(wend - start);
	}
	if (FEATURE_DIR_WINDOWS > 1)
		fs->dir_last = w;
	memcpy(e, fs->dir[w] + (it->pos - fs->dir_off[w]), FAT_DIRENT_SIZE);
	it->pos += FAT_DIRENT_SIZE;
	return 1;
}

/* Walks a directory, calling cb for every file and subdirectory; include_dots adds "." and "..".
 * A nonzero cb result stops the walk and is returned. */
typedef int (*dir_walk_cb)(void *ctx, const struct fat_dirent *ent, bool lossy);

static int dir_walk(struct fat_fs *fs, const struct fat_file *dir, bool include_dots,
		    dir_walk_cb cb, void *ctx, struct diag *d)
{
	struct dir_iter it;
	struct lfn_state lfn;
	struct fat_dirent ent;
	uint8_t e[FAT_DIRENT_SIZE];
	int rc;

	lfn_reset(&lfn);
	if ((rc = dir_iter_start(fs, dir, &it, d)))
		return rc;
	while ((rc = dir_iter_next(fs, &it, e, d)) == 1) {
		if (e[0] == 0)
			break;                  /* the end-of-directory marker */
		if (e[0] == DIR_FREE) {
			lfn_reset(&lfn);
			continue;
		}
		uint8_t attr = e[11];
		if ((attr & FAT_ATTR_LONG_MASK) == FAT_ATTR_LONG_NAME) {
			lfn_add(&lfn, e);
			continue;
		}
		bool named = lfn.complete && lfn.sum == lfn_checksum(e);
		lfn_reset(&lfn);
		if (attr & FAT_ATTR_VOLUME_ID)
			continue;
		bool dot = e[0] == '.';
		if (dot && !include_dots)
			continue;

		ent.file = (struct fat_file){
			.first_cluster = le16_load(e + DIR_FST_CLUS_LO),
			.attr = attr,
			.is_dir = (attr & FAT_ATTR_DIRECTORY) != 0,
		};
		if (fs->type == FAT_TYPE_32)
			ent.file.first_cluster |= (uint32_t)le16_load(e + DIR_FST_CLUS_HI) << 16;
		if (ent.file.is_dir) {
			/* ".." of a first-level directory names the root as cluster 0. */
			if (dot && ent.file.first_cluster == 0)
				root_file(fs, &ent.file);
		} else {
			ent.file.size = le32_load(e + DIR_FILE_SIZE);
		}
		short_name_format(e, ent.short_name, false);
		if (named && !dot) {
			memcpy(ent.name, lfn.name, lfn.len);
			ent.name[lfn.len] = 0;
		} else {
			short_name_format(e, ent.name, true);
		}
		if ((rc = cb(ctx, &ent, named && !dot && lfn.lossy)))
			return rc;
	}
	return rc < 0 ? rc : 0;
}

struct list_ctx {
	fat_dir_cb cb;
	void *ctx;
};

static int list_one(void *ctx, const struct fat_dirent *ent, bool lossy)
{
	struct list_ctx *l = ctx;
	(void)lossy;
	return l->cb(l->ctx, ent);
}

int fat_list(struct fat_fs *fs, const struct fat_file *dir, fat_dir_cb cb, void *ctx,
	     struct diag *d)
{
	struct fat_file root;
	struct list_ctx l = { cb, ctx };

	if (!dir) {
		root_file(fs, &root);
		dir = &root;
	}
	return dir_walk(fs, dir, false, list_one, &l, d);
}

struct lookup_ctx {
	const char *name;
	size_t len;
	struct fat_file *out;
};

static bool name_eq(const char *a, size_t alen, const char *b)
{
	return str_nlen(b, alen + 1) == alen && str_ncasecmp(a, b, alen) == 0;
}

static int lookup_one(void *ctx, const struct fat_dirent *ent, bool lossy)
{
	struct lookup_ctx *l = ctx;
	/* A long name with replaced characters cannot be typed; its short name still can. */
	if ((!lossy && name_eq(l->name, l->len, ent->name)) ||
	    name_eq(l->name, l->len, ent->short_name)) {
		*l->out = ent->file;
		return 1;
	}
	return 0;
}

int fat_open(struct fat_fs *fs, const char *path, struct fat_file *out, struct diag *d)
{
	struct fat_file cur, next;
	const char *p = path, *name;
	size_t len;

	root_file(fs, &cur);
	while ((len = fat_path_next(&p, &name))) {
		if (!cur.is_dir) {
			diag_error(d, "fat.not_dir", "FAT: '%.*s' in path '%s' is not a directory",
				   (int)(name - path), path, path);
			return AS_ENOTDIR;
		}
		if (len == 2 && name[0] == '.' && name[1] == '.' && cur.is_root)
			continue;
		if (len > FAT_NAME_MAX) {
			diag_error(d, "fat.not_found", "FAT: a name in path '%.40s...' is longer than "
				   "%u characters", path, FAT_NAME_MAX);
			return AS_ENOENT;
		}
		struct lookup_ctx l = { name, len, &next };
		int rc = dir_walk(fs, &cur, true, lookup_one, &l, d);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			diag_error(d, "fat.not_found", "FAT: no '%.*s' in '%.*s' (path '%s')", (int)len,
				   name, (int)(name - path), path, path);
			return AS_ENOENT;
		}
		cur = next;
	}
	*out = cur;
	return 0;
}
