/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/foreign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/mbr.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/disk/topology.h"

/* Hits of our own readers: named as blkid names them where it has a name. */
static void add_own(struct probe_result *r, const char *type, const char *usage, bool table,
		    uint64_t off, uint64_t len)
{
	struct probe_hit h;

	for (unsigned i = 0; i < r->n; i++)
		if (probe_hit_in(&r->hit[i], off, len))
			return; /* blkid named these bytes already */
	if (r->n >= PROBE_MAX_HITS)
		return;
	memset(&h, 0, sizeof h);
	snprintf(h.type, sizeof h.type, "%s", type);
	snprintf(h.usage, sizeof h.usage, "%s", usage);
	h.table = table;
	h.offset = off;
	h.len = len;
	r->hit[r->n++] = h;
}

static bool bytes_at(struct hostdev *h, uint64_t off, const void *m, size_t n)
{
	uint8_t buf[16];
	if (n > sizeof buf || off > h->size_bytes || h->size_bytes - off < n ||
	    pread_full(h->fd, buf, n, off))
		return false;
	return !memcmp(buf, m, n);
}

int foreign_scan_disk(struct hostdev *h, struct probe_result *r)
{
	static const uint8_t boot_sig[2] = { 0x55, 0xAA };
	char why[200];

	if (probe_range(h->fd, 0, h->size_bytes, h->topo.lss, r, why, sizeof why)) {
		t_error("probe.failed", "%s: %s", h->path, why);
		return EXIT_ERRORS;
	}
	/* blkid looks for a GPT at the one sector size it is given; anysector's reader at all. */
	for (unsigned gpt = topology_gpt_sizes(h->fd, h->size_bytes); gpt; gpt &= gpt - 1) {
		uint32_t lss = gpt & (~gpt + 1); /* each size the bit set holds */
		uint64_t at[2] = { lss, (h->size_bytes / lss - 1) * lss };
		for (unsigned k = 0; k < 2; k++)
			if (bytes_at(h, at[k], "EFI PART", 8))
				add_own(r, "gpt", "", true, at[k], 8);
	}
	/* An MBR blkid does not take for one (a boot flag that is neither 0 nor 0x80, say) is
	 * still a boot sector somebody wrote. */
	if (bytes_at(h, MBR_SIGNATURE_OFF, boot_sig, sizeof boot_sig))
		add_own(r, "boot sector", "other", false, MBR_SIGNATURE_OFF, sizeof boot_sig);
	return 0;
}

/* blkid on [first, first + count) LBAs of the disk as if it were a device of its own (finds a
 * filesystem that starts there), hits added to r unless r has them already. Returns 0 or
 * EXIT_ERRORS (reported). */
static int foreign_scan_range(struct hostdev *h, uint64_t first, uint64_t count,
			      struct probe_result *r)
{
	struct probe_result more;
	uint32_t lss = h->topo.lss;
	char why[200];

	if (!count)
		return 0;
	if (probe_range(h->fd, first * lss, count * lss, lss, &more, why, sizeof why)) {
		t_error("probe.failed", "%s: %s", h->path, why);
		return EXIT_ERRORS;
	}
	for (unsigned i = 0; i < more.n && r->n < PROBE_MAX_HITS; i++)
		if (!probe_has(r, &more.hit[i]))
			r->hit[r->n++] = more.hit[i];
	return 0;
}

static bool in_ours(const struct probe_hit *h, uint32_t lss, const struct lba_range *ours,
		    unsigned nours)
{
	for (unsigned i = 0; i < nours; i++)
		if (h->offset >= ours[i].first * lss &&
		    h->offset + h->len <= (ours[i].first + ours[i].count) * lss)
			return true;
	return false;
}

int foreign_install_scan(struct hostdev *h, const struct probe_result *disk, uint64_t first,
			 uint64_t end, const struct lba_range *ours, unsigned nours,
			 struct probe_result *out)
{
	uint32_t lss = h->topo.lss;
	uint64_t at = first * lss, len = end > first ? (end - first) * lss : 0;
	struct probe_result found;
	int rc;

	/* What starts at the region, probed to the end of the disk: a member of an earlier layout
	 * reaches past the region, and blkid does not look for RAID members (md, LVM) on a device
	 * as small as a region of 1 MiB. */
	memset(out, 0, sizeof *out);
	memset(&found, 0, sizeof found);
	if (len && (rc = foreign_scan_range(h, first, h->dev.sectors - first, &found)))
		return rc;
	for (unsigned i = 0; i < disk->n && found.n < PROBE_MAX_HITS; i++)
		if (!probe_has(&found, &disk->hit[i]))
			found.hit[found.n++] = disk->hit[i];
	for (unsigned i = 0; i < found.n; i++) {
		const struct probe_hit *f = &found.hit[i];
		if ((probe_hit_in(f, 0, MBR_BOOTCODE_SIZE) || (len && probe_hit_in(f, at, len))) &&
		    !in_ours(f, lss, ours, nours))
			out->hit[out->n++] = *f;
	}
	return 0;
}

const char *foreign_erased_text(const struct probe_hit *h, char *buf, size_t cap)
{
	char name[96];
	const char *n = probe_hit_name(h, name, sizeof name);
	/* wipefs's "(dos partition table)": the name without its article */
	snprintf(buf, cap, "erased %llu byte%s at byte 0x%llx (%s)", (unsigned long long)h->len,
		 h->len == 1 ? "" : "s", (unsigned long long)h->offset, strchr(n, ' ') + 1);
	return buf;
}

bool foreign_zero_in(const struct probe_hit *h, uint64_t buf_off, uint8_t *buf, size_t len)
{
	uint64_t a = h->offset > buf_off ? h->offset : buf_off;
	uint64_t b = h->offset + h->len < buf_off + len ? h->offset + h->len : buf_off + len;
	if (a >= b)
		return false;
	memset(buf + (a - buf_off), 0, (size_t)(b - a));
	return true;
}

static bool skipped(uint64_t lba, const struct lba_range *skip, unsigned nskip)
{
	for (unsigned i = 0; i < nskip; i++)
		if (lba >= skip[i].first && lba - skip[i].first < skip[i].count)
			return true;
	return false;
}

int foreign_erase_plan(struct hostdev *h, const struct probe_result *r, struct plan *p,
		       const struct lba_range *skip, unsigned nskip)
{
	uint32_t lss = h->topo.lss;
	uint8_t *sector = xmalloc(lss);

	for (unsigned i = 0; i < r->n; i++) {
		const struct probe_hit *hit = &r->hit[i];
		char what[160];
		foreign_erased_text(hit, what, sizeof what);
		for (uint64_t lba = hit->offset / lss; lba <= (hit->offset + hit->len - 1) / lss;
		     lba++) {
			if (skipped(lba, skip, nskip))
				continue;
			struct write_op *op = NULL;
			for (unsigned k = 0; k < p->n && !op; k++)
				if (p->ops[k].lba == lba && p->ops[k].count == 1)
					op = &p->ops[k];
			if (!op) {
				int err = bdev_read(&h->dev, lba, 1, sector);
				if (err) {
					t_error("io.read", "%s: LBA %llu could not be read: %s", h->path,
						(unsigned long long)lba, as_strerror(err));
					free(sector);
					return EXIT_ERRORS;
				}
				plan_add(p, lba, 1, sector, what + strlen("erased "));
				op = &p->ops[p->n - 1];
				snprintf(op->what, sizeof op->what, "erase %s", what + strlen("erased "));
			} else {
				size_t used = strlen(op->what);
				snprintf(op->what + used, sizeof op->what - used, "; %s",
					 what + strlen("erased "));
			}
			foreign_zero_in(hit, lba * lss, op->data, lss);
		}
	}
	free(sector);
	return 0;
}
