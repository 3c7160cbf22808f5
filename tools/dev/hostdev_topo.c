/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/hostdev_topo.h"

#include <errno.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "tools/base/exit_codes.h"

static bool sysfs_read_u64(dev_t rdev, const char *leaf, uint64_t *v)
{
	char path[256], buf[64];
	FILE *f;
	bool ok = false;

	hostdev_sysfs_path(path, sizeof path, rdev, leaf);
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

int hostdev_device_topology(struct hostdev *h, const struct topo_flags *f)
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
	hostdev_geometry_apply(h);
	return 0;
}

int hostdev_image_topology(struct hostdev *h, uint32_t lss, const struct topo_flags *f)
{
	h->topo = (struct topology){ .lss = lss, .pss = lss };
	int rc = apply_overrides(h, f);
	if (rc)
		return rc;
	hostdev_geometry_apply(h);
	return 0;
}
