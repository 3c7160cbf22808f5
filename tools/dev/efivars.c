/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/dev/efivars.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/le.h"
#include "tools/base/util.h"

#define EFIVARFS_MAGIC_NUMBER 0xde5e81e4u
#define SYS_EFIVARS "/sys/firmware/efi/efivars"
#define LOOP_MAJOR 7

static bool efivars_test(void)
{
	const char *t = getenv("ANYSECTOR_TEST_EFIVARS");
	return t && *t;
}

bool efivars_sees(const struct hostdev *h)
{
	struct stat st;
	if (efivars_test())
		return true;
	return h->is_block && !fstat(h->fd, &st) && S_ISBLK(st.st_mode) &&
	       major(st.st_rdev) != LOOP_MAJOR;
}

const char *efivars_dir(void)
{
	struct stat st;
	if (efivars_test())   /* a path that is no directory: a system not booted through UEFI */
		return !stat(getenv("ANYSECTOR_TEST_EFIVARS"), &st) && S_ISDIR(st.st_mode)
		       ? getenv("ANYSECTOR_TEST_EFIVARS") : NULL;
	return !stat(SYS_EFIVARS, &st) && S_ISDIR(st.st_mode) ? SYS_EFIVARS : NULL;
}

static void var_path(const char *dir, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%.3800s/%.64s-" EFI_GLOBAL_GUID_TEXT, dir, name);
}

/* efivar_read for a variable of any vendor (guid as text, lower case). */
static int efivar_read_vendor(const char *dir, const char *name, const char *guid,
			      uint32_t *attr, uint8_t **data, size_t *len)
{
	char path[4000];
	uint8_t *buf = xmalloc(EFIVARS_MAX_BYTES + 1);
	size_t n = 0;

	snprintf(path, sizeof path, "%.3800s/%.64s-%.36s", dir, name, guid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return errno == ENOENT ? AS_ENOENT : AS_EIO;
	}
	/* efivarfs wants the whole variable in one read; a plain file may come in pieces */
	for (;;) {
		ssize_t r = read(fd, buf + n, EFIVARS_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (n += (size_t)r) > EFIVARS_MAX_BYTES) {
			int err = r < 0 ? AS_EIO : n > EFIVARS_MAX_BYTES ? AS_ETOOBIG : 0;
			close(fd);
			if (!err && n < 4)
				err = AS_ECORRUPT;
			if (err) {
				free(buf);
				return err;
			}
			break;
		}
	}
	*attr = le32_load(buf);
	*len = n - 4;
	memmove(buf, buf + 4, *len);
	*data = buf;
	return 0;
}

int efivar_read(const char *dir, const char *name, uint32_t *attr, uint8_t **data, size_t *len)
{
	return efivar_read_vendor(dir, name, EFI_GLOBAL_GUID_TEXT, attr, data, len);
}

bool efivar_loader_str(const char *dir, const char *name, char *out, size_t cap)
{
	uint8_t *data = NULL;
	uint32_t attr;
	size_t len, n = 0;

	if (!dir || !cap || efivar_read_vendor(dir, name, LOADER_GUID_TEXT, &attr, &data, &len))
		return false;
	for (size_t i = 0; i + 1 < len && (data[i] | data[i + 1]) && n + 1 < cap; i += 2)
		out[n++] = data[i + 1] || data[i] < 0x20 || data[i] > 0x7E ? '?' : (char)data[i];
	out[n] = 0;
	free(data);
	return true;
}

/* efivarfs makes some variables immutable; writing needs the flag off (as chattr -i). */
static void make_mutable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int flags;
	if (fd < 0)
		return;
	if (!ioctl(fd, FS_IOC_GETFLAGS, &flags) && (flags & FS_IMMUTABLE_FL)) {
		flags &= ~FS_IMMUTABLE_FL;
		ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
}

int efivar_write(const char *dir, const char *name, uint32_t attr, const uint8_t *data,
		 size_t len)
{
	char path[4000], tmp[4100];
	struct statfs sf;
	uint8_t *buf = xmalloc(len + 4);

	le32_store(buf, attr);
	memcpy(buf + 4, data, len);
	var_path(dir, name, path, sizeof path);
	bool efivarfs = !statfs(dir, &sf) && (uint32_t)sf.f_type == EFIVARFS_MAGIC_NUMBER;
	if (efivarfs)
		make_mutable(path);
	snprintf(tmp, sizeof tmp, "%s.anysector-new", path);
	const char *target = efivarfs ? path : tmp;
	int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC | (efivarfs ? 0 : O_TRUNC), 0644);
	int rc = AS_EIO;
	if (fd >= 0) {
		ssize_t w = write(fd, buf, len + 4);
		rc = w == (ssize_t)(len + 4) ? 0 : AS_EIO;
		if (close(fd))
			rc = AS_EIO;
	}
	if (!efivarfs && !rc && rename(tmp, path))
		rc = AS_EIO;
	int err = errno;
	if (!efivarfs && rc)
		unlink(tmp);
	free(buf);
	errno = err;
	return rc;
}

static int by_id(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

unsigned efivar_boot_ids(const char *dir, uint16_t *ids, unsigned cap)
{
	static const char suffix[] = "-" EFI_GLOBAL_GUID_TEXT;
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	while (d && n < cap && (e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "Boot", 4) || strlen(e->d_name) != 8 + sizeof suffix - 1 ||
		    strcasecmp(e->d_name + 8, suffix))
			continue;
		char hex[5];
		memcpy(hex, e->d_name + 4, 4);
		hex[4] = 0;
		unsigned long v = strtoul(hex, &end, 16);
		if (*end || strspn(hex, "0123456789ABCDEF") != 4)
			continue;
		ids[n++] = (uint16_t)v;
	}
	if (d)
		closedir(d);
	qsort(ids, n, sizeof *ids, by_id);
	return n;
}
