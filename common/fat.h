/* SPDX-License-Identifier: BSD-2-Clause */
/* A read-only FAT12/16/32 reader over any block device, with any BPB sector size 512..4096
 * (independent of the device's own sector size: all access is by bytes). The FAT type comes from
 * the cluster count as the Microsoft spec defines it. Every chain walk is bounded by the cluster
 * count: a loop is AS_ELOOP, never a hang. */
#ifndef ANYSECTOR_FAT_H
#define ANYSECTOR_FAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/blockdev.h"
#include "common/diag.h"
#include "common/features.h"

#define FAT_CACHE_BYTES 32768u /* window of the FAT kept in memory: 8K FAT32 entries, so a
                                * 64 MiB initrd in 1 KiB clusters costs 9 FAT reads, not 72 */
#define FAT_DIR_CACHE_BYTES 4096u /* window of directory entries kept in memory */
#define FAT_DIR_MAX_ENTRIES 65536u /* the spec's limit for one directory: a hard walk bound */
#define FAT_NAME_MAX 255       /* long names, as UTF-8 (non-ASCII read back as '?') */
#define FAT_PATH_MAX 256

/* The FAT type is the cluster count's (fatgen103), for the reader and for the installer's
 * mkfs.fat choices alike: fewer than 4085 clusters is FAT12, fewer than 65525 FAT16. */
#define FAT12_MAX_CLUSTERS 4084u
#define FAT16_MAX_CLUSTERS 65524u
#define FAT32_MIN_CLUSTERS 65525u

enum fat_type {
	FAT_TYPE_12 = 12,
	FAT_TYPE_16 = 16,
	FAT_TYPE_32 = 32,
};

struct fat_fs {
	struct blockdev *dev;
	enum fat_type type;
	uint32_t bytes_per_sector;     /* the BPB's, 512..4096 */
	uint32_t sectors_per_cluster;
	uint32_t cluster_size;         /* bytes */
	uint32_t num_fats;
	uint64_t fat_offset;           /* bytes from the start of dev */
	uint64_t fat_bytes;            /* one FAT */
	uint64_t root_offset;          /* FAT12/16 fixed root directory */
	uint32_t root_entries;
	uint32_t root_cluster;         /* FAT32 */
	uint64_t data_offset;          /* cluster 2 */
	uint32_t clusters;             /* data clusters: valid numbers are 2..clusters+1 */
	uint64_t total_bytes;          /* the filesystem's size per the BPB */
	uint32_t hidden_sectors;       /* BPB value, in the filesystem's sectors */
	uint32_t volume_id;
	char label[12];
	/* FAT window cache: [cache_off, cache_off + cache_len) of the device, always inside the
	 * active FAT (positions counted as in the active copy even when read from a mirror). */
	uint64_t cache_off;
	uint32_t cache_len;
	uint8_t cache[FAT_CACHE_BYTES];

	/* Beyond the first contract: everything below is private to common/fat*.c. */
	uint64_t dev_bytes;            /* size of dev */
	uint32_t active_fat;           /* FAT copy read first (FAT32 mirroring off: the active one) */
	bool mirrored;                 /* every copy holds the same table (others are fallbacks) */
	/* Directory window caches: bytes [dir_off[w], dir_off[w] + dir_len[w]) of the device, so
	 * listing a directory is one device read per window, not one per entry, and with two a
	 * path's parent and its subdirectory both stay (a kernel and its initrd open the same
	 * two). A miss replaces the window not used last (dir_last). */
	uint64_t dir_off[FEATURE_DIR_WINDOWS];
	uint32_t dir_len[FEATURE_DIR_WINDOWS];
	uint32_t dir_last;
	uint8_t dir[FEATURE_DIR_WINDOWS][FAT_DIR_CACHE_BYTES];
	/* The chain starting at chk_first was verified to suit a chk_size-byte file; when
	 * chk_contiguous, the clusters the file uses are chk_first, chk_first + 1, ... */
	bool chk_valid;
	bool chk_contiguous;
	uint32_t chk_first;
	uint32_t chk_size;
	/* Read position: cluster pos_cluster is number pos_index (from 0) of the chain starting at
	 * pos_first, so sequential reads do not walk the chain from its start again. */
	bool pos_valid;
	uint32_t pos_first;
	uint32_t pos_index;
	uint32_t pos_cluster;
};

struct fat_file {
	uint32_t first_cluster;        /* 0 for an empty file or the FAT12/16 root */
	uint32_t size;                 /* bytes; 0 for directories */
	uint8_t attr;
	bool is_dir;
	bool is_root;
};

struct fat_dirent {
	char name[FAT_NAME_MAX + 1];   /* the long name when there is one, else the 8.3 name */
	char short_name[13];           /* "NAME.EXT" */
	struct fat_file file;
};

/* Reads and validates the boot sector/BPB (jump, bytes per sector power of two 512..4096, sectors
 * per cluster power of two, reserved/FAT counts, media byte, sizes inside dev, FAT big enough for
 * the clusters, FAT32 root cluster, version and active FAT valid) and fills fs. The type follows
 * the cluster count; a BPB whose layout disagrees (a FAT32 BPB with fewer than 65525 clusters,
 * as `mkfs.fat -F 32` makes on small volumes and edk2 refuses) is AS_ECORRUPT. Each failed check
 * is one sentence (codes "fat.bpb.*"). The 0x55AA signature is not required. fs is large
 * (a 32 KiB FAT window, 4 KiB directory windows): keep it off small stacks. */
int fat_mount(struct blockdev *dev, struct fat_fs *fs, struct diag *d);

/* Opens a path ('/' or '\\' separated, case-insensitive, long or 8.3 names; "" or "/" is the root).
 * Empty and "." components are skipped, ".." goes up (staying at the root). Long names with
 * characters outside printable ASCII can be opened only by their 8.3 alias. A missing name is
 * AS_ENOENT and a file used as a directory AS_ENOTDIR, each with a sentence (code
 * "fat.not_found" / "fat.not_dir"): pass a NULL diag to probe quietly. */
int fat_open(struct fat_fs *fs, const char *path, struct fat_file *out, struct diag *d);

/* Reads [off, off+len) of a file; AS_ERANGE when that passes the end of the file. A chain shorter
 * than the size, a free/bad/out-of-range cluster in it, or a loop is AS_ECORRUPT/AS_ELOOP with a
 * sentence naming the cluster. Consecutive clusters are read with one device request.
 * The first read of a file checks its whole chain once (a chain longer than the file is only a
 * warning); fs remembers the position, so reading a file in sequential pieces costs no more
 * than reading it at once. A device error is AS_EIO naming the disk LBA; a FAT sector that
 * cannot be read is taken from another (mirrored) FAT copy, with a warning. */
int fat_read(struct fat_fs *fs, const struct fat_file *f, uint64_t off, void *buf, size_t len,
	     struct diag *d);

/* Calls cb for every entry of a directory (not "." or "..", not volume labels; dir NULL is the
 * root); a nonzero return from cb stops the walk and is returned. cb may itself call fat_open,
 * fat_read and fat_list on the same fs. A directory longer than FAT_DIR_MAX_ENTRIES or whose
 * chain loops is AS_ELOOP (entries before that point have been passed to cb). */
typedef int (*fat_dir_cb)(void *ctx, const struct fat_dirent *ent);
int fat_list(struct fat_fs *fs, const struct fat_file *dir, fat_dir_cb cb, void *ctx,
	     struct diag *d);

#endif
