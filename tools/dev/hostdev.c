/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/hostdev.h"

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
#include "common/errors.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/dev/lock.h"

/* Most bytes one driver call moves: big enough to be quick, small enough for any buffer. */
#define HOSTDEV_MAX_IO_BYTES (8u << 20)

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
void hostdev_sysfs_path(char *out, size_t cap, dev_t rdev, const char *leaf)
{
	snprintf(out, cap, "/sys/dev/block/%u:%u/%s", major(rdev), minor(rdev), leaf);
}

void hostdev_geometry_apply(struct hostdev *h)
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

void hostdev_set_sector_size(struct hostdev *h, uint32_t lss, enum topo_origin origin,
			     const char *why)
{
	h->topo = (struct topology){ .lss = lss, .pss = lss };
	h->origin = origin;
	snprintf(h->origin_text, sizeof h->origin_text, "%s", why);
	hostdev_geometry_apply(h);
}

void hostdev_close(struct hostdev *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	lock_release(h->lock);
	h->lock = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(h->alias_locks); i++) {
		lock_release(h->alias_locks[i]);
		h->alias_locks[i] = 0;
	}
	free(h->scratch);
	h->scratch = NULL;
}
