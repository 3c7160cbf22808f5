/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* memfd_create */
#include "tools/dev/label_probe.h"

#include <errno.h>
#include <libfdisk.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/fileio.h"

/* The labels libfdisk is asked about, and where libfdisk 2.38 reads each one's magic
 * (libfdisk/src/{sun,sgi,bsd}.c): the hit's place, so that a refusal names it and --force
 * zeroes it as wipefs would. The BSD disklabel is at 512-byte sector 1 whatever the sector size
 * (BSD_LABELSECTOR on x86); zeroing its first d_magic is enough, libfdisk and the kernel need
 * it. libfdisk's other two labels are left to blkid and anysector's own readers, which find all
 * libfdisk would: its dos label is any sector ending in 0x55AA (a FAT or NTFS boot sector too,
 * which blkid names as a filesystem and foreign.c's boot-sector check names whole-disk), and
 * its gpt a valid header, which anysector's reader looks for at every sector size; libfdisk's
 * GPT reader also allocates whatever entry array a header claims (32 GiB for a hostile one,
 * measured under ASan), which the bounded readers do not. */
static const struct {
	const char *name;
	uint64_t off, len;
} magic_at[] = {
	{ "sun", 508, 2 }, { "sgi", 0, 4 }, { "bsd", 512, 4 },
};

/* The copy of a range libfdisk reads from its start (its labels sit in the first sectors). */
#define WINDOW_COPY_BYTES (1u << 20)

/* True when libfdisk finds label `name` on fd (every other label disabled, so a dos MBR in
 * front of a bsd label cannot hide it). -1 when libfdisk cannot look at fd. List-only: no
 * collision check (libblkid again, inside libfdisk). */
static int has_label(int fd, uint32_t lss, const char *name)
{
	struct fdisk_context *cxt = fdisk_new_context();
	struct fdisk_label *lb = NULL;
	int found = -1;

	if (!cxt)
		return -1;
	while (!fdisk_next_label(cxt, &lb))
		fdisk_label_set_disabled(lb, strcmp(fdisk_label_get_name(lb), name) != 0);
	fdisk_enable_listonly(cxt, 1);
	if (!fdisk_save_user_sector_size(cxt, lss, lss) &&
	    !fdisk_assign_device_by_fd(cxt, fd, "anysector-probe", 1))
		found = fdisk_has_label(cxt) && !strcmp(fdisk_label_get_name(fdisk_get_label(cxt, NULL)),
							name);
	fdisk_unref_context(cxt);
	return found;
}

/* fd itself when [off, off + len) is all of it; else a sparse memory file of len bytes holding
 * the range's first MiB. -1 with why set when that cannot be made. */
static int window(int fd, uint64_t off, uint64_t len, char *why, size_t why_cap)
{
	struct stat st;
	uint64_t size = 0;
	if (!fstat(fd, &st) && !off &&
	    (S_ISBLK(st.st_mode) ? !ioctl(fd, BLKGETSIZE64, &size) : (size = st.st_size, true)) &&
	    size == len)
		return fd;
	int w = memfd_create("anysector-label-probe", MFD_CLOEXEC);
	size_t n = len < WINDOW_COPY_BYTES ? (size_t)len : WINDOW_COPY_BYTES;
	uint8_t *buf = malloc(n ? n : 1);
	if (w < 0 || !buf || ftruncate(w, (off_t)len) || pread_full(fd, buf, n, off) ||
	    pwrite_full(w, buf, n, 0)) {
		snprintf(why, why_cap, "libfdisk cannot be given bytes %llu..%llu: %s",
			 (unsigned long long)off, (unsigned long long)(off + len - 1), strerror(errno));
		if (w >= 0)
			close(w);
		w = -1;
	}
	free(buf);
	return w;
}

int label_probe(int fd, uint64_t off, uint64_t len, uint32_t lss, label_named_fn *named,
		void *ctx, struct label_found out[LABEL_KINDS], unsigned *n, char *why,
		size_t why_cap)
{
	off_t pos = lseek(fd, 0, SEEK_CUR); /* libfdisk reads with lseek and read */
	int w = -1, rc = 0;

	*n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(magic_at) && *n < LABEL_KINDS; i++) {
		uint64_t at = magic_at[i].off;
		if (at + magic_at[i].len > len ||
		    named(magic_at[i].name, off + at, magic_at[i].len, ctx))
			continue;
		if (w < 0 && (w = window(fd, off, len, why, why_cap)) < 0)
			return AS_EIO;
		int got = has_label(w, lss, magic_at[i].name);
		if (got < 0) {
			snprintf(why, why_cap, "libfdisk cannot read bytes %llu..%llu",
				 (unsigned long long)off, (unsigned long long)(off + len - 1));
			rc = AS_EIO;
			break;
		}
		if (!got)
			continue;
		struct label_found *f = &out[(*n)++];
		snprintf(f->name, sizeof f->name, "%s", magic_at[i].name);
		f->offset = off + at;
		f->len = magic_at[i].len;
	}
	if (w >= 0 && w != fd)
		close(w);
	if (pos >= 0)
		lseek(fd, pos, SEEK_SET);
	return rc;
}
