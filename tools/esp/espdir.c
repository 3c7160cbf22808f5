/* SPDX-License-Identifier: BSD-2-Clause */
#include "tools/esp/espdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config.h"
#include "common/errors.h"
#include "tools/base/fileio.h"
#include "tools/base/util.h"
#include "tools/esp/bootmenu.h"

#define COPY_CHUNK (1u << 20)

static void host_path(const struct esp_session *s, const char *path, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", s->mount_dir, path[0] == '/' ? "" : "/", path);
}

/* The last recorded change of path, or NULL. */
static const struct dir_op *pending(const struct esp_session *s, const char *path)
{
	for (unsigned i = s->nops; i-- > 0;)
		if (esp_path_eq(s->ops[i].path, path))
			return &s->ops[i];
	return NULL;
}

static struct dir_op *record(struct esp_session *s, enum dir_op_kind kind, const char *path)
{
	if (s->nops == s->ops_cap) {
		s->ops_cap = s->ops_cap ? 2 * s->ops_cap : 16;
		s->ops = xrealloc(s->ops, s->ops_cap * sizeof *s->ops);
	}
	struct dir_op *op = &s->ops[s->nops++];
	memset(op, 0, sizeof *op);
	op->kind = kind;
	snprintf(op->path, sizeof op->path, "%s", path);
	return op;
}

bool espdir_exists(struct esp_session *s, const char *path, bool *is_dir)
{
	const struct dir_op *op = pending(s, path);
	char hp[PATH_MAX + 300];
	struct stat st;

	if (op) {
		if (op->kind == DIR_OP_DELETE || op->kind == DIR_OP_RMDIR)
			return false;
		if (is_dir)
			*is_dir = op->kind == DIR_OP_MKDIR;
		return true;
	}
	host_path(s, path, hp, sizeof hp);
	if (stat(hp, &st))
		return false;
	if (is_dir)
		*is_dir = S_ISDIR(st.st_mode);
	return true;
}

/* A whole host file into a NUL-terminated buffer; AS_* codes as esp_read_file. */
static int read_host(const char *hp, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(hp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? AS_ENOENT : AS_EIO;
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? AS_EISDIR : AS_EIO;
	}
	if ((uint64_t)st.st_size > CFG_FILE_MAX_BYTES) {
		close(fd);
		return AS_ETOOBIG;
	}
	*buf = xmalloc((size_t)st.st_size + 1);
	int rc = pread_full(fd, *buf, (size_t)st.st_size, 0);
	close(fd);
	if (rc) {
		free(*buf);
		*buf = NULL;
		return AS_EIO;
	}
	(*buf)[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return 0;
}

int espdir_read_file(struct esp_session *s, const char *path, char **buf, size_t *len)
{
	const struct dir_op *op = pending(s, path);
	char hp[PATH_MAX + 300];

	if (op && op->kind != DIR_OP_PUT)
		return op->kind == DIR_OP_MKDIR ? AS_EISDIR : AS_ENOENT;
	if (op)
		return read_host(op->staged, buf, len);
	host_path(s, path, hp, sizeof hp);
	return read_host(hp, buf, len);
}

/* Whether path's parent directory is dir. */
static bool in_dir(const char *path, const char *dir, const char **name)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	char parent[FAT_PATH_MAX + 32];
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
	*name = slash + 1;
	return esp_path_eq(parent[0] ? parent : "/", dir);
}

struct listed {
	char name[FAT_NAME_MAX + 1];
	bool is_dir;
	uint64_t size;
};

int espdir_list(struct esp_session *s, const char *dir, esp_list_cb cb, void *ctx)
{
	char hp[PATH_MAX + 300];
	bool is_dir;

	if (!espdir_exists(s, dir, &is_dir))
		return AS_ENOENT;
	if (!is_dir)
		return AS_ENOTDIR;
	struct listed *l = NULL;
	unsigned n = 0, cap = 0;
	host_path(s, dir, hp, sizeof hp);
	DIR *d = pending(s, dir) ? NULL : opendir(hp);
	struct dirent *e;
	/* the directory as the disk has it, bounded as the FAT walk is */
	while (d && (e = readdir(d)) && n < FAT_DIR_MAX_ENTRIES) {
		struct stat st;
		char ep[PATH_MAX + 600];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(ep, sizeof ep, "%s/%s", hp, e->d_name);
		if (stat(ep, &st))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			l = xrealloc(l, cap * sizeof *l);
		}
		snprintf(l[n].name, sizeof l[n].name, "%s", e->d_name);
		l[n].is_dir = S_ISDIR(st.st_mode);
		l[n].size = (uint64_t)st.st_size;
		n++;
	}
	if (d)
		closedir(d);
	/* then the changes recorded in it */
	for (unsigned i = 0; i < s->nops; i++) {
		const char *name;
		if (!in_dir(s->ops[i].path, dir, &name))
			continue;
		unsigned k = 0;
		while (k < n && strcasecmp(l[k].name, name))
			k++;
		bool gone = s->ops[i].kind == DIR_OP_DELETE || s->ops[i].kind == DIR_OP_RMDIR;
		if (gone && k < n) {
			l[k] = l[--n];
			continue;
		}
		if (gone)
			continue;
		if (k == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				l = xrealloc(l, cap * sizeof *l);
			}
			snprintf(l[n++].name, sizeof l[0].name, "%s", name);
		}
		l[k].is_dir = s->ops[i].kind == DIR_OP_MKDIR;
		l[k].size = s->ops[i].size;
	}
	int rc = 0;
	for (unsigned i = 0; i < n && !rc; i++)
		rc = cb(ctx, l[i].name, l[i].is_dir, l[i].size);
	free(l);
	return rc;
}

int espdir_mkdir(struct esp_session *s, const char *dir)
{
	record(s, DIR_OP_MKDIR, dir);
	return 0;
}

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
	const char *tmp = getenv("TMPDIR");
	struct dir_op *op = record(s, DIR_OP_PUT, dst);
	snprintf(op->staged, sizeof op->staged, "%.4000s/anysector-put-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(op->staged);
	if (fd < 0) {
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

int espdir_delete(struct esp_session *s, const char *path)
{
	record(s, DIR_OP_DELETE, path);
	return 0;
}

int espdir_rmdir(struct esp_session *s, const char *path)
{
	record(s, DIR_OP_RMDIR, path);
	return 0;
}

void espdir_close(struct esp_session *s)
{
	for (unsigned i = 0; i < s->nops; i++)
		if (s->ops[i].kind == DIR_OP_PUT && s->ops[i].staged[0])
			unlink(s->ops[i].staged);
	free(s->ops);
	s->ops = NULL;
	s->nops = s->ops_cap = 0;
}

void espdir_print(const struct esp_session *s, FILE *f)
{
	static const char *const what[] = {
		[DIR_OP_MKDIR] = "make the directory",
		[DIR_OP_PUT] = "write",
		[DIR_OP_DELETE] = "delete",
		[DIR_OP_RMDIR] = "remove the directory",
	};
	for (unsigned i = 0; i < s->nops; i++) {
		const struct dir_op *op = &s->ops[i];
		fprintf(f, "through the filesystem mounted on %s: %s %s", s->mount_dir, what[op->kind],
			op->path);
		if (op->kind == DIR_OP_PUT)
			fprintf(f, " (%llu bytes: a new file under a temporary name, fsync, rename over "
				"the old one, fsync the directory)", (unsigned long long)op->size);
		fprintf(f, "\n");
	}
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
		host_path(s, op->path, hp, sizeof hp);
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
