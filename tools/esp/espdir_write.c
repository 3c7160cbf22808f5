/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/espdir_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/base/exit_codes.h"
#include "tools/base/fileio.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"

#define COPY_CHUNK (1u << 20)

/* Copies the host file src into the open file out from its start; *size gets the bytes copied.
 * Returns 0 or AS_EIO (errno says why). */
static int copy_file(const char *src, int out, uint64_t *size)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return AS_EIO;
	uint8_t *buf = xmalloc(COPY_CHUNK);
	uint64_t off = 0;
	int rc = 0;
	for (;;) {
		ssize_t n = read(in, buf, COPY_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? AS_EIO : 0;
			break;
		}
		if ((rc = pwrite_full(out, buf, (size_t)n, off)))
			break;
		off += (uint64_t)n;
	}
	free(buf);
	close(in);
	*size = off;
	return rc;
}

int espdir_put(struct esp_session *s, const char *src, const char *dst)
{
	struct dir_op *op = espdir_record(s, DIR_OP_PUT, dst);
	int fd;
	if (temp_create("put", op->staged, sizeof op->staged, &fd)) {
		t_error("esp.temp", "cannot create a temporary file: %s", strerror(errno));
		op->staged[0] = 0;
		return EXIT_ERRORS;
	}
	int rc = copy_file(src, fd, &op->size);
	close(fd);
	if (rc) {
		t_error("esp.temp", "copying %s for the ESP failed: %s", src, strerror(errno));
		return EXIT_ERRORS;
	}
	return 0;
}

int espdir_rename(struct esp_session *s, const char *from, const char *to)
{
	char hp[PATH_MAX + 300];
	struct stat st;
	bool is_dir = true;

	espdir_host_path(s, from, hp, sizeof hp);
	if (strlen(hp) >= sizeof ((struct dir_op *)0)->staged || !espdir_exists(s, from, &is_dir) ||
	    is_dir || stat(hp, &st) || !S_ISREG(st.st_mode)) {
		t_error("esp.rename", "%s on the boot partition is not a file the disk holds now: it "
			"cannot be renamed to %s", from, to);
		return EXIT_ERRORS;
	}
	struct dir_op *op = espdir_record(s, DIR_OP_RENAME, to);
	memcpy(op->staged, hp, strlen(hp) + 1);
	snprintf(op->from, sizeof op->from, "%s", from);
	op->size = (uint64_t)st.st_size;
	return 0;
}

/* fsync of the directory holding path (its new or removed entry reaches the disk). Returns 0 or
 * AS_EIO (errno says why). */
static int sync_parent(const char *hp)
{
	char dir[PATH_MAX + 300];
	snprintf(dir, sizeof dir, "%s", hp);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return AS_EIO;
	int rc = fsync(fd) ? AS_EIO : 0;
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Replaces the host file hp by op's staged copy: a new file under a temporary name, fsync, rename
 * over the old one, fsync of the directory. Returns 0 or an AS_* code (errno says why). */
static int put_one(const struct esp_session *s, const struct dir_op *op, const char *hp)
{
	char tmp[PATH_MAX + 350];
	snprintf(tmp, sizeof tmp, "%s", hp);
	char *slash = strrchr(tmp, '/');
	snprintf(slash + 1, sizeof tmp - (size_t)(slash + 1 - tmp), ".anysector-new-XXXXXX");
	int fd = mkstemp(tmp);
	if (fd < 0)
		return AS_EIO;
	fchmod(fd, 0644); /* as a new file would be (vfat decides by its mount options anyway) */
	uint64_t size;
	int rc = copy_file(op->staged, fd, &size);
	if (!rc && size != op->size)
		rc = AS_EIO;
	if (!rc && fsync(fd))
		rc = AS_EIO;
	close(fd);
	if (!rc && rename(tmp, hp))
		rc = AS_EIO;
	if (rc) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return rc;
	}
	(void)s;
	return sync_parent(hp);
}

int espdir_apply(struct esp_session *s)
{
	for (unsigned i = 0; i < s->nops; i++) {
		const struct dir_op *op = &s->ops[i];
		char hp[PATH_MAX + 300];
		int rc = 0;
		espdir_host_path(s, op->path, hp, sizeof hp);
		switch (op->kind) {
		case DIR_OP_MKDIR:
			rc = mkdir(hp, 0755) && errno != EEXIST ? AS_EIO : sync_parent(hp);
			break;
		case DIR_OP_PUT:
			rc = put_one(s, op, hp);
			break;
		case DIR_OP_DELETE:
			rc = unlink(hp) ? AS_EIO : sync_parent(hp);
			break;
		case DIR_OP_RMDIR:
			rc = rmdir(hp) ? AS_EIO : sync_parent(hp);
			break;
		case DIR_OP_RENAME:
			rc = rename(op->staged, hp) ? AS_EIO : sync_parent(hp);
			break;
		}
		if (rc) {
			t_error("esp.mounted_write",
				"changing %s through the filesystem mounted on %s failed: %s; the %u "
				"changes before it are done (see 'anysector list')", op->path,
				s->mount_dir, strerror(errno), i);
			return EXIT_ERRORS;
		}
	}
	return 0;
}
