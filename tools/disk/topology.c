/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bits.h"
#include "common/crc32.h"
#include "common/label.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/dev/hostdev_topo.h"
#include "tools/dev/probe.h"
#include "tools/disk/dual.h"
#include "tools/disk/mbr_size.h"

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

/* True when the image holds a valid GPT (a header and its entry array) at 512 and at 4096-byte
 * sectors with the same disk GUID: one disk with a dual GPT (tools/disk/dual.h), whole or in
 * part. */
static bool dual_gpt_found(int fd, uint64_t size_bytes)
{
	struct guid a, b;

	return valid_disk_guid(fd, size_bytes, DUAL_SMALL_LSS, &a) &&
	       valid_disk_guid(fd, size_bytes, DUAL_LARGE_LSS, &b) && guid_eq(&a, &b);
}

unsigned topology_gpt_sizes(int fd, uint64_t size_bytes)
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

/* "512", "512 or 4096", "512, 1024, 2048 or 4096": the sizes of a bit set of sector sizes. */
static const char *sizes_text(unsigned set, char *buf, size_t cap)
{
	unsigned n = 0, total = (unsigned)__builtin_popcount(set);
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t s = 512; s <= 4096; s <<= 1) {
		if (!(set & s))
			continue;
		n++;
		len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%u",
					n == 1 ? "" : n == total ? " or " : ", ", (unsigned)s);
	}
	return buf;
}

/* An image with only an MBR: its sector size from what it holds (tools/disk/mbr_size.h), or
 * a usage error naming the sizes that fit. Returns 0 or an exit code. */
static int mbr_topology(struct hostdev *h, uint32_t *lss)
{
	uint8_t rec[MBR_RECORD_SIZE];
	struct mbr m;
	unsigned fits;
	char how[200], sizes[64];

	if (pread_full(h->fd, rec, sizeof rec, 0))
		memset(rec, 0, sizeof rec);
	mbr_decode(rec, &m);
	mbr_image_sector_size(h->fd, h->size_bytes, rec, &m, lss, &fits, how, sizeof how);
	if (*lss) {
		h->origin = TOPO_DETECTED;
		snprintf(h->origin_text, sizeof h->origin_text, "%s", how);
		return 0;
	}
	if (!fits)
		t_error("topology.mbr_only",
			"%s holds an MBR partition table that fits no sector size from 512 to 4096 "
			"(a partition ends past the end of the image at every size: is it cut short?); "
			"give --sector-size to examine it", h->path);
	else
		t_error("topology.mbr_only",
			"%s holds an MBR partition table whose sector size the image does not tell: its "
			"partitions fit %s-byte sectors, and neither a FAT boot sector on its boot "
			"partition nor anysector's boot code tells which; give --sector-size", h->path,
			sizes_text(fits, sizes, sizeof sizes));
	return EXIT_USAGE;
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
		unsigned found = topology_gpt_sizes(h->fd, h->size_bytes);
		if (dual_gpt_found(h->fd, h->size_bytes)) {
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
				int rc = mbr_topology(h, &lss);
				if (rc)
					return rc;
			} else {
				default_origin(h, &sigs);
			}
		}
	}
	return hostdev_image_topology(h, lss, f);
}

int topology_find(struct hostdev *h, const struct topo_flags *f)
{
	int rc = flags_check(f);
	if (rc)
		return rc;
	rc = h->is_block ? hostdev_device_topology(h, f) : image_topology(h, f);
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
