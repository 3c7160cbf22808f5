/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/boot/bstate_disk.h"

#include <stdlib.h>
#include <string.h>

#include "common/bootinfo.h"
#include "common/errors.h"
#include "common/le.h"
#include "tools/base/util.h"

int bstate_disk_read(struct blockdev *dev, struct bstate_disk *d, const char **why)
{
	uint8_t *buf = xmalloc(STAGE2_MAX_SIZE);
	int rc = bstate_locate(dev, buf, STAGE2_MAX_SIZE, &d->offset);

	d->stage2_gap = !rc && (le32_load(buf + STAGE2_FLAGS_OFF) & STAGE2_FLAG_GAP_BUILD);
	free(buf);
	memset(&d->io, 0, sizeof d->io);
	d->io.live = -1;
	*why = rc == AS_ENOENT ? "LBA 0 holds no stage1 of anysector, or the stage2 it points at is "
				 "not whole (see 'anysector check')" : "";
	if (rc || !d->offset)
		return rc;
	uint64_t lba = d->offset / dev->sector_size, n = 2ull * BSTATE_COPY_BYTES / dev->sector_size;
	if (d->offset % dev->sector_size || lba > dev->sectors || dev->sectors - lba < n) {
		*why = "the state block stage2 records is not whole sectors inside the disk";
		return AS_ERANGE;
	}
	return bstate_load(&d->io, dev, d->offset);
}
