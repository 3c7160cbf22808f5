/* SPDX-License-Identifier: BSD-2-Clause */
/* FAT: the boot sector (BPB) check and the file allocation table itself.
 *
 * Facts from Microsoft's "FAT: General Overview of On-Disk Format" (fatgen103): the FAT type is
 * decided by the count of data clusters alone (< 4085: FAT12, < 65525: FAT16, else FAT32);
 * cluster numbers run from 2 to count + 1; FAT32 entries use 28 bits. Everything is addressed in
 * bytes through bdev_read_bytes, so the BPB's sector size need not be the device's. */
#include "common/bits.h"
#include "common/fat.h"

#include "common/errors.h"
#include "common/fat_internal.h"
#include "common/le.h"
#include "common/mem.h"

#define FAT_MIN_SECTOR 512             /* the smallest BytsPerSec the spec allows */
#define FAT_MAX_SECTOR 4096u           /* the largest the spec allows */
#define FAT_MAX_SPC 128u
#define FAT32_MAX_CLUSTERS 0x0FFFFFF5u /* highest cluster number 0x0FFFFFF6 */

/* BPB field offsets (fatgen103 "Boot Sector and BPB"). */
#define BPB_BYTS_PER_SEC 11
#define BPB_SEC_PER_CLUS 13
#define BPB_RSVD_SEC_CNT 14
#define BPB_NUM_FATS 16
#define BPB_ROOT_ENT_CNT 17
#define BPB_TOT_SEC16 19
#define BPB_MEDIA 21
#define BPB_FAT_SZ16 22
#define BPB_HIDD_SEC 28
#define BPB_TOT_SEC32 32
#define BPB16_BOOT_SIG 38
#define BPB32_FAT_SZ32 36
#define BPB32_EXT_FLAGS 40
#define BPB32_FS_VER 42
#define BPB32_ROOT_CLUS 44
#define BPB32_BOOT_SIG 66
#define BPB_EXT_BOOT_SIG 0x29          /* volume id and label follow the signature byte */
#define BPB_EXT_FLAGS_NO_MIRROR 0x80
#define BPB_EXT_FLAGS_ACTIVE 0x0F

int fat_dev_read(struct fat_fs *fs, uint64_t off, void *buf, size_t len, const char *what,
		 struct diag *d)
{
	int rc = bdev_read_bytes(fs->dev, off, buf, len);
	if (rc == AS_ERANGE)
		diag_error(d, "fat.range", "FAT: %s at byte %llu (%zu bytes) lies past the device end",
			   what, (unsigned long long)off, len);
	else if (rc)
		diag_error(d, "fat.io", "FAT: reading %s at byte %llu failed at disk LBA %llu: %s",
			   what, (unsigned long long)off,
			   (unsigned long long)bdev_disk_err_lba(fs->dev), as_strerror(rc));
	return rc;
}

static void copy_label(char *dst, const uint8_t *src)
{
	int n = 11;
	while (n > 0 && src[n - 1] == ' ')
		n--;
	for (int i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7F) ? (char)src[i] : '?';
	dst[n] = 0;
}

/* The boot sector's BPB as it stores it (fatgen103 "Boot Sector and BPB"), decoded before any of
 * it is trusted. The extended boot record is the one of the layout the BPB has: FAT32's when the
 * 16-bit FAT size is 0 (fat_check_bpb refuses a BPB whose layout and cluster count disagree). */
struct fat_bpb {
	uint32_t jump;
	uint32_t bytes_per_sector;
	uint32_t sectors_per_cluster;
	uint32_t reserved_sectors;
	uint32_t num_fats;
	uint32_t root_entries;
	uint32_t media;
	uint32_t total16, total32;
	uint32_t fat_size16, fat_size32;
	uint32_t hidden_sectors;
	uint32_t ext_flags;           /* FAT32 layout */
	uint32_t fs_version;          /* FAT32 layout */
	uint32_t root_cluster;        /* FAT32 layout */
	uint32_t boot_sig;            /* BPB_EXT_BOOT_SIG: volume_id and label hold something */
	uint32_t volume_id;
	const uint8_t *label;         /* 11 bytes of the boot sector, space-padded text */
};

static void fat_bpb_decode(const uint8_t *b, struct fat_bpb *p)
{
	p->jump = b[0];
	p->bytes_per_sector = le16_load(b + BPB_BYTS_PER_SEC);
	p->sectors_per_cluster = b[BPB_SEC_PER_CLUS];
	p->reserved_sectors = le16_load(b + BPB_RSVD_SEC_CNT);
	p->num_fats = b[BPB_NUM_FATS];
	p->root_entries = le16_load(b + BPB_ROOT_ENT_CNT);
	p->media = b[BPB_MEDIA];
	p->total16 = le16_load(b + BPB_TOT_SEC16);
	p->total32 = le32_load(b + BPB_TOT_SEC32);
	p->fat_size16 = le16_load(b + BPB_FAT_SZ16);
	p->fat_size32 = le32_load(b + BPB32_FAT_SZ32);
	p->hidden_sectors = le32_load(b + BPB_HIDD_SEC);
	p->ext_flags = le16_load(b + BPB32_EXT_FLAGS);
	p->fs_version = le16_load(b + BPB32_FS_VER);
	p->root_cluster = le32_load(b + BPB32_ROOT_CLUS);
	const uint8_t *ext = b + (p->fat_size16 ? BPB16_BOOT_SIG : BPB32_BOOT_SIG);
	p->boot_sig = ext[0];
	p->volume_id = le32_load(ext + 1);
	p->label = ext + 5;
}

/* The fields that must hold each on its own. */
static int fat_bpb_check_fields(const struct fat_bpb *p, struct diag *d)
{
	if (!(p->jump == 0xEB || p->jump == 0xE9)) {
		diag_error(d, "fat.bpb.jump",
			   "FAT: boot sector starts with 0x%02X, not a jump (0xEB or 0xE9): no FAT "
			   "filesystem here", p->jump);
		return AS_ECORRUPT;
	}
	uint32_t bps = p->bytes_per_sector;
	if (!is_pow2(bps) || bps < FAT_MIN_SECTOR || bps > FAT_MAX_SECTOR) {
		diag_error(d, "fat.bpb.sector_size",
			   "FAT: bytes per sector %u is not a power of two in %u..%u", bps,
			   FAT_MIN_SECTOR, FAT_MAX_SECTOR);
		return AS_ECORRUPT;
	}
	uint32_t spc = p->sectors_per_cluster;
	if (!is_pow2(spc) || spc > FAT_MAX_SPC) {
		diag_error(d, "fat.bpb.cluster_size",
			   "FAT: sectors per cluster %u is not a power of two in 1..128", spc);
		return AS_ECORRUPT;
	}
	if (!p->reserved_sectors) {
		diag_error(d, "fat.bpb.reserved",
			   "FAT: reserved sector count is 0, but the boot sector itself is reserved");
		return AS_ECORRUPT;
	}
	if (!p->num_fats) {
		diag_error(d, "fat.bpb.num_fats", "FAT: the number of FATs is 0");
		return AS_ECORRUPT;
	}
	if (p->media != 0xF0 && p->media < 0xF8) {
		diag_error(d, "fat.bpb.media",
			   "FAT: media descriptor 0x%02X is not 0xF0 or 0xF8..0xFF", p->media);
		return AS_ECORRUPT;
	}
	if (!p->total16 && !p->total32) {
		diag_error(d, "fat.bpb.total", "FAT: total sector count is 0");
		return AS_ECORRUPT;
	}
	if (!p->fat_size16 && !p->fat_size32) {
		diag_error(d, "fat.bpb.fat_size", "FAT: sectors per FAT is 0");
		return AS_ECORRUPT;
	}
	return 0;
}

/* The areas and the cluster count, and the rules that tie them together: data room, the FAT
 * type the count gives against the BPB's layout, the root directory, the FATs' size, the
 * device's end. Fills in fs what they decide. */
static int fat_bpb_layout(const struct fat_bpb *p, struct fat_fs *fs, struct diag *d)
{
	uint32_t bps = p->bytes_per_sector, spc = p->sectors_per_cluster;
	uint32_t root_ent = p->root_entries;
	uint32_t total = p->total16 ? p->total16 : p->total32;
	uint32_t fat_size = p->fat_size16 ? p->fat_size16 : p->fat_size32;

	/* 32-bit arithmetic where it fits: stage2 then needs no 64-bit division helpers */
	uint32_t root_secs = DIV_ROUND_UP(root_ent * FAT_DIRENT_SIZE, bps);
	uint64_t meta = p->reserved_sectors + (uint64_t)p->num_fats * fat_size + root_secs;
	if (meta >= total) {
		diag_error(d, "fat.bpb.no_data",
			   "FAT: reserved sectors, FATs and root directory (%llu sectors) fill the "
			   "whole %llu-sector filesystem: no room for data",
			   (unsigned long long)meta, (unsigned long long)total);
		return AS_ECORRUPT;
	}
	uint32_t clusters = (total - (uint32_t)meta) / spc;
	if (!clusters) {
		diag_error(d, "fat.bpb.no_data",
			   "FAT: the %llu data sectors are less than one %u-sector cluster",
			   (unsigned long long)(total - meta), spc);
		return AS_ECORRUPT;
	}
	if (clusters > FAT32_MAX_CLUSTERS) {
		diag_error(d, "fat.bpb.too_many_clusters",
			   "FAT: %llu clusters are more than FAT32 can number (%u)",
			   (unsigned long long)clusters, FAT32_MAX_CLUSTERS);
		return AS_ECORRUPT;
	}
	enum fat_type type = clusters <= FAT12_MAX_CLUSTERS   ? FAT_TYPE_12
			     : clusters <= FAT16_MAX_CLUSTERS ? FAT_TYPE_16
							      : FAT_TYPE_32;
	if (type == FAT_TYPE_32 && p->fat_size16) {
		diag_error(d, "fat.bpb.type",
			   "FAT: %llu clusters make this FAT32 per the spec, but the BPB has the "
			   "FAT12/16 layout (16-bit FAT size %u)",
			   (unsigned long long)clusters, p->fat_size16);
		return AS_ECORRUPT;
	}
	if (type != FAT_TYPE_32 && !p->fat_size16) {
		diag_error(d, "fat.bpb.type",
			   "FAT: the BPB has the FAT32 layout but its %llu clusters make it FAT%d per "
			   "the spec (FAT32 needs at least 65525)",
			   (unsigned long long)clusters, (int)type);
		return AS_ECORRUPT;
	}
	if (type == FAT_TYPE_32 && root_ent) {
		diag_error(d, "fat.bpb.root_entries",
			   "FAT: FAT32 with %u fixed root directory entries (must be 0)", root_ent);
		return AS_ECORRUPT;
	}
	if (type != FAT_TYPE_32 && !root_ent) {
		diag_error(d, "fat.bpb.root_entries", "FAT: FAT%d with no root directory entries",
			   (int)type);
		return AS_ECORRUPT;
	}
	uint64_t n = (uint64_t)clusters + 2;
	uint64_t need = type == FAT_TYPE_12 ? ALIGN_UP(n * 3, 2) / 2 : type == FAT_TYPE_16 ? n * 2 : n * 4;
	uint64_t fat_bytes = (uint64_t)fat_size * bps;
	if (fat_bytes < need) {
		diag_error(d, "fat.bpb.fat_small",
			   "FAT: each FAT has %llu bytes, too few for %llu clusters of FAT%d (%llu "
			   "needed)",
			   (unsigned long long)fat_bytes, (unsigned long long)clusters, (int)type,
			   (unsigned long long)need);
		return AS_ECORRUPT;
	}
	uint64_t total_bytes = (uint64_t)total * bps;
	if (total_bytes > fs->dev_bytes) {
		diag_error(d, "fat.bpb.beyond_device",
			   "FAT: the filesystem's %llu sectors of %u bytes (%llu bytes) pass the end "
			   "of the %llu-byte device",
			   (unsigned long long)total, bps, (unsigned long long)total_bytes,
			   (unsigned long long)fs->dev_bytes);
		return AS_ECORRUPT;
	}
	fs->type = type;
	fs->clusters = clusters;
	fs->fat_bytes = fat_bytes;
	fs->total_bytes = total_bytes;
	fs->data_offset = meta * bps;
	return 0;
}

/* FAT32's own fields: its version, the FAT in use, the root directory's cluster. Fills in fs
 * (zeroed by fat_mount) the FAT in use and the root cluster; FAT12/16 keep the first FAT,
 * mirrored, and cluster 0. */
static int fat_bpb_check_fat32(const struct fat_bpb *p, struct fat_fs *fs, struct diag *d)
{
	fs->mirrored = true;
	if (fs->type != FAT_TYPE_32)
		return 0;
	uint32_t ver = p->fs_version;
	if (ver) {
		diag_error(d, "fat.bpb.version", "FAT: FAT32 version %u.%u is not 0.0", ver >> 8,
			   ver & 0xFF);
		return AS_EUNSUPP;
	}
	if (p->ext_flags & BPB_EXT_FLAGS_NO_MIRROR) {
		fs->mirrored = false;
		fs->active_fat = p->ext_flags & BPB_EXT_FLAGS_ACTIVE;
		if (fs->active_fat >= p->num_fats) {
			diag_error(d, "fat.bpb.active_fat",
				   "FAT: active FAT %u named but there are only %u FATs",
				   fs->active_fat, p->num_fats);
			return AS_ECORRUPT;
		}
	}
	if (p->root_cluster < 2 || p->root_cluster - 2 >= fs->clusters) {
		diag_error(d, "fat.bpb.root_cluster",
			   "FAT: root directory cluster %u is outside 2..%llu", p->root_cluster,
			   (unsigned long long)fs->clusters + 1);
		return AS_ECORRUPT;
	}
	fs->root_cluster = p->root_cluster;
	return 0;
}

/* Decodes the boot sector (its first FAT_MIN_SECTOR bytes in b), then checks the BPB, each
 * failing check with its own sentence; fs gets what it decides (valid only when 0 is
 * returned). */
static int fat_check_bpb(struct fat_fs *fs, const uint8_t *b, struct diag *d)
{
	struct fat_bpb p;
	int rc;

	fat_bpb_decode(b, &p);
	if ((rc = fat_bpb_check_fields(&p, d)) || (rc = fat_bpb_layout(&p, fs, d)) ||
	    (rc = fat_bpb_check_fat32(&p, fs, d)))
		return rc;

	uint64_t reserved = (uint64_t)p.reserved_sectors * p.bytes_per_sector;
	fs->bytes_per_sector = p.bytes_per_sector;
	fs->sectors_per_cluster = p.sectors_per_cluster;
	fs->cluster_size = p.bytes_per_sector * p.sectors_per_cluster;
	fs->num_fats = p.num_fats;
	fs->fat_offset = reserved + (uint64_t)fs->active_fat * fs->fat_bytes;
	fs->root_offset = reserved + (uint64_t)p.num_fats * fs->fat_bytes;
	fs->root_entries = p.root_entries; /* 0 for FAT32 (fat_bpb_layout) */
	fs->hidden_sectors = p.hidden_sectors;
	if (p.boot_sig == BPB_EXT_BOOT_SIG) {
		fs->volume_id = p.volume_id;
		copy_label(fs->label, p.label);
	}
	return 0;
}

int fat_mount(struct blockdev *dev, struct fat_fs *fs, struct diag *d)
{
	memset(fs, 0, sizeof *fs);
	fs->dev = dev;
	fs->dev_bytes = bdev_size_bytes(dev);
	if (fs->dev_bytes < FAT_MIN_SECTOR) {
		diag_error(d, "fat.small", "FAT: the device has %llu bytes, less than a boot sector",
			   (unsigned long long)fs->dev_bytes);
		return AS_ECORRUPT;
	}
	/* The cache is free until the FAT is read: borrow it for the boot sector. */
	int rc = fat_dev_read(fs, 0, fs->cache, FAT_MIN_SECTOR, "the boot sector", d);
	if (!rc)
		rc = fat_check_bpb(fs, fs->cache, d);
	fs->cache_len = 0;
	return rc;
}

/* Loads the window of the active FAT holding byte rel of it. Windows sit on FAT_CACHE_BYTES
 * boundaries of the device (so a 4Kn disk reads whole sectors) and never leave the FAT. On a read error the
 * other copies are tried when they mirror the active one. */
static int fat_load_window(struct fat_fs *fs, uint64_t rel, struct diag *d)
{
	uint64_t fat_start = fs->fat_offset, fat_end = fs->fat_offset + fs->fat_bytes;
	uint64_t abs = fat_start + rel;
	uint64_t start = abs - abs % FAT_CACHE_BYTES;
	uint64_t end = start + FAT_CACHE_BYTES;
	if (start < fat_start)
		start = fat_start;
	if (end > fat_end)
		end = fat_end;

	fs->cache_len = 0;
	int rc = bdev_read_bytes(fs->dev, start, fs->cache, (size_t)(end - start));
	if (rc && fs->mirrored) {
		for (uint32_t i = 0; i < fs->num_fats && rc; i++) {
			uint64_t shift = (uint64_t)i * fs->fat_bytes;
			uint64_t base = fs->fat_offset - (uint64_t)fs->active_fat * fs->fat_bytes;
			if (i == fs->active_fat)
				continue;
			rc = bdev_read_bytes(fs->dev, base + shift + (start - fat_start), fs->cache,
					     (size_t)(end - start));
			if (!rc)
				diag_warn(d, "fat.fat_copy",
					  "FAT: FAT %u unreadable near byte %llu, using copy %u",
					  fs->active_fat + 1, (unsigned long long)start, i + 1);
		}
	}
	if (rc && (rc = fat_dev_read(fs, start, fs->cache, (size_t)(end - start), "the FAT", d)))
		return rc;
	fs->cache_off = start;
	fs->cache_len = (uint32_t)(end - start);
	return 0;
}

static int fat_byte(struct fat_fs *fs, uint64_t rel, uint8_t *out, struct diag *d)
{
	uint64_t abs = fs->fat_offset + rel;
	if (!(fs->cache_len && abs >= fs->cache_off && abs - fs->cache_off < fs->cache_len)) {
		int rc = fat_load_window(fs, rel, d);
		if (rc)
			return rc;
	}
	*out = fs->cache[abs - fs->cache_off];
	return 0;
}

int fat_entry(struct fat_fs *fs, uint32_t c, uint32_t *val, struct diag *d)
{
	uint8_t b[4];
	uint64_t rel;
	unsigned n;
	int rc;

	switch (fs->type) {
	case FAT_TYPE_12:
		rel = (uint64_t)c + c / 2;
		n = 2;
		break;
	case FAT_TYPE_16:
		rel = (uint64_t)c * 2;
		n = 2;
		break;
	default:
		rel = (uint64_t)c * 4;
		n = 4;
		break;
	}
	/* The mount check guarantees the FAT holds entries up to clusters + 1. FAT16/32 entries are
	 * aligned so never straddle a window; a FAT12 one may, hence byte by byte. */
	for (unsigned i = 0; i < n; i++)
		if ((rc = fat_byte(fs, rel + i, &b[i], d)))
			return rc;
	if (fs->type == FAT_TYPE_12) {
		uint32_t v = le16_load(b);
		*val = (c & 1) ? v >> 4 : v & 0xFFF;
	} else if (fs->type == FAT_TYPE_16) {
		*val = le16_load(b);
	} else {
		*val = le32_load(b) & FAT32_MASK;
	}
	return 0;
}

int fat_next(struct fat_fs *fs, uint32_t first, uint32_t c, uint32_t *next, struct diag *d)
{
	uint32_t v;
	int rc = fat_entry(fs, c, &v, d);
	if (rc)
		return rc;

	uint32_t bad = fs->type == FAT_TYPE_12 ? 0xFF7 : fs->type == FAT_TYPE_16 ? 0xFFF7 : 0x0FFFFFF7;
	if (v > bad) {
		*next = FAT_CHAIN_END;
		return 0;
	}
	if (fat_cluster_ok(fs, v)) {
		*next = v;
		return 0;
	}
	if (v == 0)
		diag_error(d, "fat.chain.free",
			   "FAT: chain from cluster %u: cluster %u points to a free cluster", first, c);
	else if (v == bad)
		diag_error(d, "fat.chain.bad",
			   "FAT: chain from cluster %u: cluster %u points to a bad-cluster mark", first,
			   c);
	else
		diag_error(d, "fat.chain.range",
			   "FAT: chain from cluster %u: cluster %u points to cluster %u, outside 2..%u",
			   first, c, v, fs->clusters + 1);
	return AS_ECORRUPT;
}
