/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/disk/part_file.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/errors.h"
#include "tools/base/util.h"

int part_slice(struct hostdev *h, const struct part_info *p, struct blockdev *out)
{
	return bdev_slice(&h->dev, p->first, p->sectors, out);
}

int part_file_open(struct hostdev *h, const struct disk_info *di, unsigned number,
		   const char *path, char *why, size_t cap, struct blockdev *part,
		   struct fat_fs *fs, struct fat_file *f)
{
	const struct part_info *p = NULL;
	int err;

	for (unsigned i = 0; i < di->nparts && !p; i++)
		if (di->parts[i].number == number && !di->parts[i].container)
			p = &di->parts[i];
	if (!p) {
		snprintf(why, cap, "%s has no partition %u", h->path, number);
		return AS_ENOENT;
	}
	if ((err = part_slice(h, p, part)) || (err = fat_mount(part, fs, NULL))) {
		snprintf(why, cap, "partition %u of %s holds no FAT filesystem anysector can read "
			 "(%s)", number, h->path, as_strerror(err));
		return AS_ECORRUPT;
	}
	if ((err = fat_open(fs, path, f, NULL)) || f->is_dir) {
		snprintf(why, cap, "partition %u of %s has no file %s%s", number, h->path, path,
			 err ? "" : " (it is a directory)");
		return AS_ENOENT;
	}
	return 0;
}

int part_file_check(struct hostdev *h, const struct disk_info *di, unsigned number,
		    const char *path, char *why, size_t cap)
{
	struct blockdev part;
	struct fat_file f;
	struct fat_fs *fs = xcalloc(1, sizeof *fs);
	int err = part_file_open(h, di, number, path, why, cap, &part, fs, &f);
	free(fs);
	return err;
}
