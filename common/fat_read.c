/* SPDX-License-Identifier: BSD-2-Clause */
/* FAT file data: the chain check and reads in runs of consecutive clusters.
 *
 * Before the first read of a file its whole chain is walked once (bounded by the cluster
 * count): it must hold exactly the clusters the size needs, then end. Any loop shows up there,
 * because a looping chain never ends, even when the loop lies inside the part the file uses.
 * Reads then go by runs: consecutive clusters are one device request, which is what makes a
 * 6 MiB initrd fast through int13. A file whose clusters the check found consecutive is read
 * without walking its chain again (on a 64 MiB initrd in 1 KiB clusters that walk was 8 of
 * stage2's FAT window reads). */
#include "common/errors.h"
#include "common/fat_internal.h"
#include "common/features.h"
#include "common/le.h"

/* Cluster sizes are powers of two: shifts, not 64-bit divisions (which stage2 would need
 * libgcc for). */
static unsigned cluster_shift(const struct fat_fs *fs)
{
	return (unsigned)__builtin_ctz(fs->cluster_size);
}

static uint64_t clusters_for(const struct fat_fs *fs, uint32_t size)
{
	return ((uint64_t)size + fs->cluster_size - 1) >> cluster_shift(fs);
}

/* After Brent's walk has seen the chain revisit a cluster, finds the link that closes the loop,
 * so the sentence names the cluster whose FAT entry is wrong: with lam the loop's length, a
 * pointer lam clusters ahead of another meets it at the loop's first cluster, and the one
 * behind the leading pointer at that moment links back to it. At most 2 * clusters steps. */
static void report_loop(struct fat_fs *fs, uint32_t first, uint32_t lam, struct diag *d)
{
	uint32_t a = first, b = first, prev = first, next;
	uint64_t pos = 0;

	for (uint32_t i = 0; i < lam; i++) {
		prev = b;
		if (fat_next(fs, first, b, &b, NULL) || b == FAT_CHAIN_END)
			goto vague;
	}
	while (a != b) {
		if (pos++ > fs->clusters || fat_next(fs, first, a, &a, NULL) || a == FAT_CHAIN_END)
			goto vague;
		prev = b;
		if (fat_next(fs, first, b, &next, NULL) || next == FAT_CHAIN_END)
			goto vague;
		b = next;
	}
	diag_error(d, "fat.chain.loop",
		   "FAT: chain from cluster %u loops: cluster %u (the chain's cluster %llu) links "
		   "back to cluster %u (its cluster %llu)",
		   first, prev, (unsigned long long)pos + lam, a, (unsigned long long)pos + 1);
	return;
vague:  /* the FAT changed under us or could not be read again */
	diag_error(d, "fat.chain.loop", "FAT: chain from cluster %u loops back on itself", first);
}

/* The cluster after c straight from the FAT window when it is there and names a valid
 * cluster: the chain walk's common case, without fat_next's calls (a FAT32 walk of a 64 MiB
 * initrd in 1 KiB clusters is 65,536 of them, a FAT16 one in 4 KiB clusters 16,384). FAT12's
 * links straddle bytes and its whole table is a few KiB: fat_next serves it. Anything else
 * (another window, the chain's end, a bad link) is fat_next's, with its sentences. */
static inline bool next_in_window(const struct fat_fs *fs, uint32_t c, uint32_t *next)
{
	if (!FEATURE_FAST_CHAIN || fs->type == FAT_TYPE_12)
		return false;
	unsigned width = fs->type == FAT_TYPE_32 ? 4 : 2;
	uint64_t pos = fs->fat_offset + (uint64_t)c * width;
	if (pos < fs->cache_off || pos - fs->cache_off + width > fs->cache_len)
		return false;
	const uint8_t *p = fs->cache + (pos - fs->cache_off);
	uint32_t v = width == 4 ? le32_load(p) & FAT32_MASK : le16_load(p);
	if (!fat_cluster_ok(fs, v))
		return false;
	*next = v;
	return true;
}

/* A multiple of RUN_BLOCK_BYTES of next-cluster links from c on (p holds c's link), at most lim,
 * compared 64 bits at a time: 16 FAT16 or 8 FAT32 links per step, where one at a time costs the
 * chain walk of a 64 MiB initrd in 1 KiB clusters 65,536 steps (under QEMU -icount, the walks and
 * the rest of BOOTX64.EFI's own work for the bench's kernel and initrd fell from 1.20 M to
 * 0.54 M instructions with this and aa8dfcb's other changes). ascending_run finds the exact end.
 * No lane overflows: every expected link is at most c + lim, which the callers keep below the
 * width's largest cluster number. */
#define RUN_BLOCK_BYTES 32u

/* width a constant at each call, so the lane arithmetic folds */
static inline __attribute__((always_inline)) uint32_t block_run(const uint8_t *p, unsigned width,
								uint32_t c, uint64_t lim)
{
	const unsigned per = RUN_BLOCK_BYTES / width, lane = 8 / width;
	const uint64_t mask = width == 4 ? (uint64_t)FAT32_MASK << 32 | FAT32_MASK : UINT64_MAX;
	uint64_t step = 0, first = 0;   /* each lane: lane; the first word's links */
	uint32_t k = 0;

	for (unsigned i = 0; i < lane; i++) {
		step |= (uint64_t)lane << (8 * width * i);
		first |= (uint64_t)(c + 1 + i) << (8 * width * i);
	}
	for (uint64_t want = first; k + per <= lim; k += per, p += RUN_BLOCK_BYTES, want += 4 * step) {
		uint64_t diff = (le64_load_inline(p) & mask) ^ want;
		diff |= (le64_load_inline(p + 8) & mask) ^ (want + step);
		diff |= (le64_load_inline(p + 16) & mask) ^ (want + 2 * step);
		diff |= (le64_load_inline(p + 24) & mask) ^ (want + 3 * step);
		if (diff)
			break;
	}
	return k;
}

/* How many links from c on, at most lim, each name the next cluster (c -> c + 1 -> ...), read
 * straight from the FAT window: a file written in one piece is mostly such links, and
 * comparing them in bulk is several times cheaper per link than stepping through the checks
 * below one by one (a FAT32 walk of 64 MiB in 1 KiB clusters: 65,536 links). Each counted
 * link names a valid cluster, so none of them ends the chain or is a bad link. */
static uint32_t ascending_run(const struct fat_fs *fs, uint32_t c, uint64_t lim)
{
	if (!FEATURE_FAST_CHAIN || fs->type == FAT_TYPE_12)
		return 0;
	unsigned width = fs->type == FAT_TYPE_32 ? 4 : 2;
	uint64_t pos = fs->fat_offset + (uint64_t)c * width;
	if (pos < fs->cache_off || pos - fs->cache_off >= fs->cache_len)
		return 0;
	uint64_t room = (fs->cache_len - (pos - fs->cache_off)) / width;
	uint64_t valid = (uint64_t)fs->clusters + 1 - c;   /* links up to cluster clusters + 1 */
	lim = lim < room ? lim : room;
	lim = lim < valid ? lim : valid;
	const uint8_t *p = fs->cache + (pos - fs->cache_off);
	uint32_t k = width == 4 ? block_run(p, 4, c, lim) : block_run(p, 2, c, lim);
	if (width == 4)
		while (k < lim && (le32_load(p + 4 * k) & FAT32_MASK) == c + k + 1)
			k++;
	else
		while (k < lim && le16_load(p + 2 * k) == c + k + 1)
			k++;
	return k;
}

static int chain_check(struct fat_fs *fs, const struct fat_file *f, struct diag *d)
{
	uint32_t first = f->first_cluster;
	uint64_t need = clusters_for(fs, f->size);
	uint32_t c, next;
	int rc;

	if (fs->chk_valid && fs->chk_first == first && fs->chk_size == f->size)
		return 0;
	if (!first) {
		diag_error(d, "fat.file.no_cluster",
			   "FAT: a %u-byte file has no first cluster", f->size);
		return AS_ECORRUPT;
	}
	if (!fat_cluster_ok(fs, first)) {
		diag_error(d, "fat.file.cluster",
			   "FAT: file starts at cluster %u, outside 2..%u", first, fs->clusters + 1);
		return AS_ECORRUPT;
	}
	if (need > fs->clusters) {
		diag_error(d, "fat.file.too_big",
			   "FAT: a %u-byte file needs %llu clusters, more than the filesystem's %u",
			   f->size, (unsigned long long)need, fs->clusters);
		return AS_ECORRUPT;
	}
	/* Walk to the end. A loop is caught by Brent's method (a tortoise that jumps to the hare
	 * at each power of two) within about twice the loop's length and start, and the cluster
	 * count stays the hard bound. */
	uint64_t n = 1;
	uint32_t tortoise = first, power = 1, lam = 0;
	bool contiguous = true;
	c = first;
	for (;;) {
		/* Runs of next-cluster links in bulk, stepped exactly as one at a time would be:
		 * stopping short of the tortoise, of its next jump and of the cluster count (an
		 * ascending run cannot close a loop, it can only reach the tortoise). */
		uint64_t lim = power - lam - 1;
		if (tortoise > c && tortoise - c - 1 < lim)
			lim = tortoise - c - 1;
		if (fs->clusters - n < lim)
			lim = fs->clusters - n;
		uint32_t k = ascending_run(fs, c, lim);
		n += k;
		lam += k;
		c += k;
		if (!next_in_window(fs, c, &next) && (rc = fat_next(fs, first, c, &next, d)))
			return rc;
		if (next == FAT_CHAIN_END)
			break;
		if (n < need && next != c + 1)
			contiguous = false;
		if (next == tortoise) {
			report_loop(fs, first, lam + 1, d);
			return AS_ELOOP;
		}
		if (++n > fs->clusters) {
			diag_error(d, "fat.chain.loop",
				   "FAT: chain from cluster %u is longer than the file system's %u "
				   "clusters, so it loops", first, fs->clusters);
			return AS_ELOOP;
		}
		c = next;
		if (++lam == power) {
			tortoise = c;
			power <<= 1;
			lam = 0;
		}
	}
	if (n < need) {
		diag_error(d, "fat.file.short_chain",
			   "FAT: chain from cluster %u ends at cluster %u after %llu clusters, but "
			   "the %u-byte file needs %llu",
			   first, c, (unsigned long long)n, f->size, (unsigned long long)need);
		return AS_ECORRUPT;
	}
	if (n > need)
		diag_warn(d, "fat.file.long_chain",
			  "FAT: chain from cluster %u has %llu clusters, the %u-byte file uses %llu",
			  first, (unsigned long long)n, f->size, (unsigned long long)need);
	fs->chk_valid = true;
	fs->chk_contiguous = contiguous;
	fs->chk_first = first;
	fs->chk_size = f->size;
	return 0;
}

int fat_read(struct fat_fs *fs, const struct fat_file *f, uint64_t off, void *buf, size_t len,
	     struct diag *d)
{
	uint8_t *p = buf;
	uint32_t c, next;
	uint64_t idx;
	int rc;

	if (f->is_dir) {
		diag_error(d, "fat.is_dir", "FAT: reading a directory as a file");
		return AS_EISDIR;
	}
	if (off > f->size || len > f->size - off) {
		diag_error(d, "fat.read.range",
			   "FAT: read of %zu bytes at offset %llu passes the end of the %u-byte file",
			   len, (unsigned long long)off, f->size);
		return AS_ERANGE;
	}
	if (!len)
		return 0;
	if ((rc = chain_check(fs, f, d)))
		return rc;

	uint64_t target = off >> cluster_shift(fs);
	uint64_t inner = off & (fs->cluster_size - 1);
	if (fs->chk_contiguous) {
		/* chain_check just verified this file's chain (chk_* name it) */
		return fat_dev_read(fs, fat_cluster_offset(fs, f->first_cluster + (uint32_t)target) +
					inner, p, len, "file data", d);
	}

	/* Find the cluster holding off, from the remembered position when it is on the way. */
	if (fs->pos_valid && fs->pos_first == f->first_cluster && fs->pos_index <= target) {
		idx = fs->pos_index;
		c = fs->pos_cluster;
	} else {
		idx = 0;
		c = f->first_cluster;
	}
	for (; idx < target; idx++) {
		if ((rc = fat_next(fs, f->first_cluster, c, &c, d)))
			return rc;
		if (c == FAT_CHAIN_END)
			return AS_ECORRUPT;  /* chain_check saw it whole: cannot happen */
	}

	for (;;) {
		/* Grow a run of consecutive clusters until it covers what is left to read. */
		uint32_t last = c;
		uint64_t avail = fs->cluster_size - inner;
		next = FAT_CHAIN_END;
		while (avail < len) {
			if ((rc = fat_next(fs, f->first_cluster, last, &next, d)))
				return rc;
			if (next != last + 1)
				break;
			last = next;
			idx++;
			avail += fs->cluster_size;
			next = FAT_CHAIN_END;
		}
		size_t n = avail < len ? (size_t)avail : len;
		if ((rc = fat_dev_read(fs, fat_cluster_offset(fs, c) + inner, p, n, "file data", d)))
			return rc;
		p += n;
		len -= n;
		fs->pos_valid = true;
		fs->pos_first = f->first_cluster;
		fs->pos_index = (uint32_t)idx;
		fs->pos_cluster = last;
		if (!len)
			return 0;
		if (next == FAT_CHAIN_END)
			return AS_ECORRUPT;  /* chain_check guarantees the clusters exist */
		c = next;
		idx++;
		inner = 0;
	}
}
