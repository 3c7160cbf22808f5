/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/hostdev.h"

#define _GNU_SOURCE /* SEEK_DATA */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/crc32.h"
#include "common/errors.h"
#include "common/gpt.h"
#include "common/label.h"
#include "common/le.h"
#include "common/mbr.h"
#include "tools/disk/dual.h"
#include "tools/dev/mounts.h"
#include "tools/dev/probe.h"
#include "tools/base/util.h"

/* Most bytes one driver call moves: big enough to be quick, small enough for any buffer. */
#define HOSTDEV_MAX_IO_BYTES (8u << 20)

/* pread or pwrite until all len bytes have moved: an interrupted or short transfer goes on
 * where it stopped. Returns 0 or AS_EIO (errno says why: EIO when the file ends first). */
static int transfer_full(int fd, uint8_t *p, size_t len, uint64_t off, bool write)
{
	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) : pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return AS_EIO;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	return transfer_full(fd, buf, len, off, false);
}

int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	return transfer_full(fd, (uint8_t *)buf, len, off, true); /* pwrite only reads it */
}

static int host_read(struct blockdev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct hostdev *h = dev->priv;
	return pread_full(h->fd, buf, (size_t)count * dev->sector_size, lba * dev->sector_size);
}

static int host_write(struct blockdev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	struct hostdev *h = dev->priv;
	return pwrite_full(h->fd, buf, (size_t)count * dev->sector_size, lba * dev->sector_size);
}

/* "/sys/dev/block/M:m/<leaf>" for a device number. */
static void sysfs_path(char *out, size_t cap, dev_t rdev, const char *leaf)
{
	snprintf(out, cap, "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev), leaf);
}

static bool sysfs_read_u64(dev_t rdev, const char *leaf, uint64_t *v)
{
	char path[256], buf[64];
	FILE *f;
	bool ok = false;

	sysfs_path(path, sizeof path, rdev, leaf);
	if (!(f = fopen(path, "r")))
		return false;
	if (fgets(buf, sizeof buf, f)) {
		char *end;
		errno = 0;
		unsigned long long x = strtoull(buf, &end, 10);
		ok = !errno && end != buf;
		*v = x;
	}
	fclose(f);
	return ok;
}

static int open_as(struct hostdev *h, const char *path, bool writable, bool live);

int hostdev_open(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, false);
}

int hostdev_open_live(struct hostdev *h, const char *path, bool writable)
{
	return open_as(h, path, writable, true);
}

/* Whether O_EXCL on the disk failed for more than its partitions in use: the disk itself
 * mounted, swap or held, or nothing of it in use that the system shows (then a program holds
 * it open exclusively). */
static bool whole_disk_in_use(const struct hostdev *h)
{
	struct usage u;
	char what[64];
	bool whole = false, part = false;

	usage_scan(h, &u);
	for (unsigned i = 0; i < u.n; i++) {
		bool used = kdev_in_use(&u.dev[i], what, sizeof what);
		whole |= used && u.dev[i].whole;
		part |= used && !u.dev[i].whole;
	}
	usage_free(&u);
	return whole || !part;
}

static int open_as(struct hostdev *h, const char *path, bool writable, bool live)
{
	struct stat st;

	memset(h, 0, sizeof *h);
	h->fd = -1;
	snprintf(h->path, sizeof h->path, "%s", path);
	h->writable = writable;
	if (stat(path, &st)) {
		t_error("open", "%s: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (S_ISBLK(st.st_mode)) {
		char p[256];
		h->is_block = true;
		h->rdev = st.st_rdev;
		sysfs_path(p, sizeof p, st.st_rdev, "partition");
		if (!access(p, F_OK)) {
			t_error("open.partition",
				"%s is a partition; anysector works on whole disks: give the disk it "
				"belongs to",
				path);
			return EXIT_USAGE;
		}
	} else if (!S_ISREG(st.st_mode)) {
		t_error("open.type", "%s is neither an image file nor a block device", path);
		return EXIT_USAGE;
	}
	/* O_EXCL on a block device fails while the kernel holds it (a mounted filesystem, RAID, LVM). */
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	if (writable && h->is_block)
		flags |= O_EXCL;
	h->fd = open(path, flags);
	if (h->fd < 0 && errno == EBUSY && live) {
		/* only partitions are in use: the change checks each write against them */
		if (!whole_disk_in_use(h)) {
			h->fd = open(path, flags & ~O_EXCL);
			h->live = h->fd >= 0;
		} else {
			errno = EBUSY;
		}
	}
	if (h->fd < 0) {
		if (errno == EBUSY) {
			char what[8192];
			if (target_in_use(h, what, sizeof what)) {
				t_error("refuse.mounted", "%s is in use: %s; unmount it first", path,
					what);
				return EXIT_REFUSED;
			}
			t_error("refuse.busy",
				"%s is in use (a mounted filesystem, swap, RAID or LVM holds it); "
				"refusing to write to it",
				path);
			return EXIT_REFUSED;
		}
		t_error("open", "%s: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (h->is_block) {
		uint64_t size = 0;
		if (ioctl(h->fd, BLKGETSIZE64, &size)) {
			t_error("open", "%s: BLKGETSIZE64: %s", path, strerror(errno));
			return EXIT_ERRORS;
		}
		h->size_bytes = size;
	} else {
		h->size_bytes = (uint64_t)st.st_size;
	}
	return 0;
}

static void geometry_apply(struct hostdev *h)
{
	uint32_t lss = h->topo.lss;

	free(h->scratch);
	h->scratch = xmalloc(lss);
	h->topo.sectors = h->size_bytes / lss;
	h->dev = (struct blockdev){
		.sector_size = lss,
		.phys_size = h->topo.pss,
		.align_offset = h->topo.aoff,
		.sectors = h->topo.sectors,
		.max_io = HOSTDEV_MAX_IO_BYTES / lss,
		.read = host_read,
		.write = h->writable ? host_write : NULL,
		.priv = h,
		.scratch = h->scratch,
	};
	if (h->size_bytes % lss)
		t_warn("topology.tail",
		       "%s: the last %llu bytes are not a whole %u-byte sector and are ignored",
		       h->path, (unsigned long long)(h->size_bytes % lss), (unsigned)lss);
}

int hostdev_view(struct hostdev *h, uint32_t lss, struct blockdev *out)
{
	if (h->size_bytes / lss < 2)
		return AS_ERANGE;
	*out = (struct blockdev){
		.sector_size = lss,
		.phys_size = h->topo.pss > lss ? h->topo.pss : lss,
		.sectors = h->size_bytes / lss,
		.max_io = HOSTDEV_MAX_IO_BYTES / lss,
		.read = host_read,
		.write = h->writable ? host_write : NULL,
		.priv = h,
		.scratch = xmalloc(lss),
	};
	return 0;
}

void hostdev_view_free(struct blockdev *view)
{
	free(view->scratch);
	view->scratch = NULL;
}

static bool valid_sector_size(uint32_t v)
{
	return is_pow2(v) && v >= 512 && v <= 65536;
}

static int flags_check(const struct topo_flags *f)
{
	if (f->any_lss) {
		t_error("usage.sector_size",
			"--sector-size any is for partition and mkimage (a new dual-GPT layout); the "
			"other commands find a dual GPT themselves");
		return EXIT_USAGE;
	}
	if (f->has_lss && !valid_sector_size(f->lss)) {
		t_error("usage.sector_size", "--sector-size %u: must be a power of two from 512 to 65536",
			(unsigned)f->lss);
		return EXIT_USAGE;
	}
	if (f->has_pss && !valid_sector_size(f->pss)) {
		t_error("usage.physical_size",
			"--physical-size %u: must be a power of two from 512 to 65536", (unsigned)f->pss);
		return EXIT_USAGE;
	}
	return 0;
}

/* Flags other than the sector size: they describe the drive behind an image, or correct what a
 * device reports. */
static int apply_overrides(struct hostdev *h, const struct topo_flags *f)
{
	if (f->has_pss)
		h->topo.pss = f->pss;
	if (f->has_aoff)
		h->topo.aoff = f->aoff;
	if (f->has_io_min)
		h->topo.io_min = f->io_min;
	if (f->has_io_opt)
		h->topo.io_opt = f->io_opt;
	if (h->topo.pss < h->topo.lss) {
		t_error("usage.physical_size",
			"physical sector size %u is smaller than the logical sector size %u",
			(unsigned)h->topo.pss, (unsigned)h->topo.lss);
		return EXIT_USAGE;
	}
	if (h->topo.aoff >= h->topo.pss || h->topo.aoff % h->topo.lss) {
		t_error("usage.align_offset",
			"alignment offset %u must be a multiple of the logical sector size %u and "
			"below the physical sector size %u",
			(unsigned)h->topo.aoff, (unsigned)h->topo.lss, (unsigned)h->topo.pss);
		return EXIT_USAGE;
	}
	if (h->is_block && (f->has_pss || f->has_aoff || f->has_io_min || f->has_io_opt))
		t_info("topology.override", "%s: topology flags override what the kernel reports",
		       h->path);
	return 0;
}

static int device_topology(struct hostdev *h, const struct topo_flags *f)
{
	int lss = 0, aoff = 0;
	unsigned int pss = 0, io_min = 0, io_opt = 0;
	uint64_t v;

	if (ioctl(h->fd, BLKSSZGET, &lss) || lss <= 0) {
		t_error("topology.ioctl", "%s: BLKSSZGET failed: %s", h->path, strerror(errno));
		return EXIT_ERRORS;
	}
	if (ioctl(h->fd, BLKPBSZGET, &pss) || !pss)
		pss = sysfs_read_u64(h->rdev, "queue/physical_block_size", &v) ? (unsigned)v : (unsigned)lss;
	if (ioctl(h->fd, BLKALIGNOFF, &aoff))
		aoff = sysfs_read_u64(h->rdev, "alignment_offset", &v) ? (int)v : 0;
	if (ioctl(h->fd, BLKIOMIN, &io_min))
		io_min = sysfs_read_u64(h->rdev, "queue/minimum_io_size", &v) ? (unsigned)v : 0;
	if (ioctl(h->fd, BLKIOOPT, &io_opt))
		io_opt = sysfs_read_u64(h->rdev, "queue/optimal_io_size", &v) ? (unsigned)v : 0;
	if (aoff < 0) {
		t_warn("topology.aoff",
		       "%s: the kernel says this device cannot be aligned (alignment offset -1); "
		       "using 0",
		       h->path);
		aoff = 0;
	}
	if (f->has_lss && f->lss != (uint32_t)lss) {
		t_error("usage.sector_size",
			"--sector-size %u does not match %s, whose logical sector size is %d",
			(unsigned)f->lss, h->path, lss);
		return EXIT_USAGE;
	}
	h->topo = (struct topology){
		.lss = (uint32_t)lss,
		.pss = pss,
		.aoff = (uint32_t)aoff,
		.io_min = io_min,
		.io_opt = io_opt,
	};
	h->origin = TOPO_DEVICE;
	snprintf(h->origin_text, sizeof h->origin_text, "the kernel (block device ioctls)");
	int rc = apply_overrides(h, f);
	if (rc)
		return rc;
	if (f->has_pss || f->has_aoff || f->has_io_min || f->has_io_opt)
		snprintf(h->origin_text, sizeof h->origin_text,
			 "the kernel, with command-line overrides");
	geometry_apply(h);
	return 0;
}

/* A header at lba that is valid with its entry array (CRC32 of both); fills hd. */
static bool table_valid_at(int fd, uint64_t size_bytes, uint32_t lss, uint64_t lba,
			   struct gpt_header *hd)
{
	uint8_t raw[4096];

	if (pread_full(fd, raw, lss, lba * lss) || !gpt_header_valid_raw(raw, lss, lba))
		return false;
	gpt_header_decode(raw, hd);
	uint64_t len = (uint64_t)hd->num_entries * hd->entry_size, at = hd->entries_lba * lss;
	if (len > GPT_MAX_ARRAY_BYTES || at > size_bytes || len > size_bytes - at)
		return false;
	uint8_t *arr = xmalloc(len ? (size_t)len : 1);
	bool ok = !pread_full(fd, arr, (size_t)len, at) && crc32(arr, (size_t)len) == hd->entries_crc;
	free(arr);
	return ok;
}

/* The disk GUID of the first valid table at lss (primary, else backup); false when none. */
static bool valid_disk_guid(int fd, uint64_t size_bytes, uint32_t lss, struct guid *guid)
{
	struct gpt_header hd;
	uint64_t sectors = size_bytes / lss;

	if (sectors < 3 || (!table_valid_at(fd, size_bytes, lss, 1, &hd) &&
			    !table_valid_at(fd, size_bytes, lss, sectors - 1, &hd)))
		return false;
	*guid = hd.disk_guid;
	return true;
}

bool hostdev_dual_gpt(int fd, uint64_t size_bytes)
{
	struct guid a, b;

	return valid_disk_guid(fd, size_bytes, DUAL_SMALL_LSS, &a) &&
	       valid_disk_guid(fd, size_bytes, DUAL_LARGE_LSS, &b) && guid_eq(&a, &b);
}

unsigned hostdev_detect_gpt(int fd, uint64_t size_bytes)
{
	uint8_t raw[4096];
	unsigned found = 0;

	for (uint32_t lss = 512; lss <= 4096; lss <<= 1) {
		uint64_t sectors = size_bytes / lss;
		if (sectors < 3)
			continue;
		bool ok = !pread_full(fd, raw, lss, lss) && gpt_header_valid_raw(raw, lss, 1);
		if (!ok)
			ok = !pread_full(fd, raw, lss, (sectors - 1) * lss) &&
			     gpt_header_valid_raw(raw, lss, sectors - 1);
		if (ok)
			found |= lss;
	}
	return found;
}

void hostdev_set_sector_size(struct hostdev *h, uint32_t lss, enum topo_origin origin,
			     const char *why)
{
	h->topo = (struct topology){ .lss = lss, .pss = lss };
	h->origin = origin;
	snprintf(h->origin_text, sizeof h->origin_text, "%s", why);
	geometry_apply(h);
}

/* What LBA 0 says when no GPT was found. */
enum lba0_kind {
	LBA0_OTHER,         /* no 0x55AA: blank, or something that is no MBR */
	LBA0_PROTECTIVE,    /* a protective MBR */
	LBA0_MBR,           /* another MBR */
	LBA0_FS_BOOT,       /* the boot sector of a filesystem (FAT, NTFS): 0x55AA, but no table */
};

static enum lba0_kind lba0_kind(struct hostdev *h, const struct probe_result *sigs)
{
	uint8_t rec[MBR_RECORD_SIZE];
	struct mbr m;

	if (h->size_bytes < MBR_RECORD_SIZE || pread_full(h->fd, rec, sizeof rec, 0))
		return LBA0_OTHER;
	mbr_decode(rec, &m);
	if (!m.boot_signature)
		return LBA0_OTHER;
	if (label_decide(&m, false).kind == LABEL_GPT)
		return LBA0_PROTECTIVE;
	return probe_boot_sector_is_filesystem(sigs, &m) ? LBA0_FS_BOOT : LBA0_MBR;
}

/* The sector sizes at which "EFI PART" begins LBA 1 or the last LBA, valid header or not. */
static unsigned gpt_signature_sizes(int fd, uint64_t size_bytes)
{
	static const char sig[8] = "EFI PART";
	unsigned found = 0;
	char b[8];

	for (uint32_t lss = 512; lss <= 4096; lss <<= 1) {
		uint64_t sectors = size_bytes / lss;
		if ((size_bytes >= lss + sizeof b && !pread_full(fd, b, sizeof b, lss) &&
		     !memcmp(b, sig, sizeof b)) ||
		    (sectors >= 2 && !pread_full(fd, b, sizeof b, (sectors - 1) * lss) &&
		     !memcmp(b, sig, sizeof b)))
			found |= lss;
	}
	return found;
}

/* The sector sizes at which a protective MBR's 0xEE entry covers exactly the rest of the image. */
static unsigned pmbr_fit_sizes(const struct hostdev *h)
{
	uint8_t rec[MBR_RECORD_SIZE];
	struct mbr m;
	unsigned found = 0;

	if (h->size_bytes < sizeof rec || pread_full(h->fd, rec, sizeof rec, 0))
		return 0;
	mbr_decode(rec, &m);
	for (unsigned i = 0; i < 4; i++) {
		if (m.part[i].type != MBR_TYPE_GPT_PROTECTIVE || m.part[i].sectors == UINT32_MAX)
			continue;
		for (uint32_t lss = 512; lss <= 4096; lss <<= 1)
			if (h->size_bytes / lss == (uint64_t)m.part[i].sectors + 1)
				found |= lss;
	}
	return found;
}

/* A protective MBR and no valid GPT header at any size: the GPT is damaged or the image cut
 * short. Examine it at the one size its remains point to ("EFI PART" where a header belongs,
 * else the protective MBR's size), so that check names what is broken and the writers refuse on
 * the table's own damage; with no single such size it cannot be examined. */
static int damaged_gpt_topology(struct hostdev *h, uint32_t *lss)
{
	unsigned sig = gpt_signature_sizes(h->fd, h->size_bytes), fit = pmbr_fit_sizes(h);
	unsigned pick = is_pow2(sig) ? sig : !sig && is_pow2(fit) ? fit : 0;

	if (pick) {
		*lss = pick;
		h->origin = TOPO_DETECTED;
		snprintf(h->origin_text, sizeof h->origin_text,
			 sig ? "a GPT signature (in a header that is not valid) at %u-byte sectors"
			     : "the protective MBR's size at %u-byte sectors (no GPT header found)",
			 (unsigned)pick);
		return 0;
	}
	t_error("topology.unknown",
		"%s (%llu bytes) has a protective MBR but no valid GPT header at 512, 1024, 2048 or "
		"4096-byte sectors, at LBA 1 or at the last LBA%s: the GPT is damaged or the image is "
		"cut short; give --sector-size to examine it with 'anysector check'",
		h->path, (unsigned long long)h->size_bytes,
		sig ? " (\"EFI PART\" appears at more than one sector size)" : "");
	return EXIT_ERRORS;
}

/* A blank image, or one that holds nothing to tell its sector size by: say which. */
static void default_origin(struct hostdev *h, const struct probe_result *sigs)
{
	char what[160];

	h->origin = TOPO_DEFAULT;
	if (sigs->n)
		snprintf(h->origin_text, sizeof h->origin_text,
			 "the default for an image without a GPT or MBR (no --sector-size); it holds %s",
			 probe_hit_text(&sigs->hit[0], what, sizeof what));
	else if (fd_has_data(h->fd, 0, h->size_bytes))
		snprintf(h->origin_text, sizeof h->origin_text,
			 "the default for an image without a partition table (no --sector-size)");
	else
		snprintf(h->origin_text, sizeof h->origin_text,
			 "the default for a blank image (no --sector-size)");
}

static int image_topology(struct hostdev *h, const struct topo_flags *f)
{
	uint32_t lss = 0;

	if (f->has_lss) {
		lss = f->lss;
		h->origin = TOPO_FLAGS;
		snprintf(h->origin_text, sizeof h->origin_text, "command-line flags");
	} else {
		unsigned found = hostdev_detect_gpt(h->fd, h->size_bytes);
		if (hostdev_dual_gpt(h->fd, h->size_bytes)) {
			/* One disk, two GPTs: the 4096-byte view keeps every write on the 4 KiB
			 * boundaries both sizes share (inspect.c checks the pair itself). */
			lss = DUAL_LARGE_LSS;
			h->origin = TOPO_DETECTED;
			snprintf(h->origin_text, sizeof h->origin_text,
				 "a dual GPT (valid at 512- and 4096-byte sectors), viewed at %u",
				 (unsigned)lss);
		} else if (found) {
			lss = found & (~found + 1); /* the smallest size that matched */
			h->origin = TOPO_DETECTED;
			snprintf(h->origin_text, sizeof h->origin_text,
				 "a valid GPT header at %u-byte sectors", (unsigned)lss);
			unsigned other = found & ~lss;
			if (other && h->writable) {
				/* Writing on a guess could destroy the disk the other size describes. */
				t_error("topology.ambiguous",
					"%s holds valid GPT headers at %u- and %u-byte sectors; anysector "
					"does not write to a disk whose sector size it would have to guess: "
					"give --sector-size",
					h->path, (unsigned)lss, other & (~other + 1));
				return EXIT_ERRORS;
			}
			if (found != lss)
				t_warn("topology.ambiguous",
				       "%s holds valid GPT headers for more than one sector size; using %u "
				       "(give --sector-size to choose)",
				       h->path, (unsigned)lss);
		} else {
			/* the default, and the size blkid looks at the image with */
			struct probe_result sigs;
			char why[160];
			lss = 512;
			if (probe_range(h->fd, 0, h->size_bytes, lss, &sigs, why, sizeof why))
				sigs.n = 0; /* only the note on where the size came from says less */
			enum lba0_kind k = lba0_kind(h, &sigs);
			if (k == LBA0_PROTECTIVE) {
				int rc = damaged_gpt_topology(h, &lss);
				if (rc)
					return rc;
			} else if (k == LBA0_MBR) {
				t_error("topology.mbr_only",
					"%s holds an MBR partition table, whose sector size cannot be detected "
					"from the image; give --sector-size",
					h->path);
				return EXIT_USAGE;
			} else {
				default_origin(h, &sigs);
			}
		}
	}
	h->topo = (struct topology){ .lss = lss, .pss = lss };
	int rc = apply_overrides(h, f);
	if (rc)
		return rc;
	geometry_apply(h);
	return 0;
}

int hostdev_set_topology(struct hostdev *h, const struct topo_flags *f)
{
	int rc = flags_check(f);
	if (rc)
		return rc;
	rc = h->is_block ? device_topology(h, f) : image_topology(h, f);
	if (rc)
		return rc;
	if (h->topo.sectors < 2) {
		t_error("topology.small",
			"%s is too small: %llu bytes, %llu whole %u-byte sector%s (a disk needs at "
			"least 2)",
			h->path, (unsigned long long)h->size_bytes, (unsigned long long)h->topo.sectors,
			(unsigned)h->topo.lss, h->topo.sectors == 1 ? "" : "s");
		return EXIT_ERRORS;
	}
	return 0;
}

bool fd_has_data(int fd, uint64_t off, uint64_t len)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return true;
	off_t d = lseek(fd, (off_t)off, SEEK_DATA);
	if (d < 0)
		return errno != ENXIO; /* ENXIO: only a hole from off to the end */
	return (uint64_t)d < off + len;
}

int hostdev_sync(struct hostdev *h)
{
	if (h->fd >= 0 && h->writable && fsync(h->fd)) {
		t_error("io.sync", "%s: fsync failed: %s", h->path, strerror(errno));
		return EXIT_ERRORS;
	}
	return 0;
}

void hostdev_close(struct hostdev *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	free(h->scratch);
	h->scratch = NULL;
}
