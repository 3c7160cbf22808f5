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
#include "common/fat_path.h"
#include "tools/esp/hashfile.h"
#include "tools/base/fileio.h"
#include "tools/base/tempfile.h"
#include "tools/base/util.h"


void espdir_host_path(const struct esp_session *s, const char *path, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", s->mount_dir, path[0] == '/' ? "" : "/", path);
}

/* What a recorded rename leaves at its old name. */
static const struct dir_op renamed_away = { .kind = DIR_OP_DELETE };

/* The last recorded change of path, or NULL. */
static const struct dir_op *pending(const struct esp_session *s, const char *path)
{
	for (unsigned i = s->nops; i-- > 0;) {
		if (fat_path_eq(s->ops[i].path, path))
			return &s->ops[i];
		if (s->ops[i].kind == DIR_OP_RENAME && fat_path_eq(s->ops[i].from, path))
			return &renamed_away;
	}
	return NULL;
}

/* Whether op's contents are in a host file, op->staged: a new file, or one renamed. */
static bool has_file(const struct dir_op *op)
{
	return op->kind == DIR_OP_PUT || op->kind == DIR_OP_RENAME;
}

struct dir_op *espdir_record(struct esp_session *s, enum dir_op_kind kind, const char *path)
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
	espdir_host_path(s, path, hp, sizeof hp);
	if (stat(hp, &st))
		return false;
	if (is_dir)
		*is_dir = S_ISDIR(st.st_mode);
	return true;
}

/* A whole host file into a NUL-terminated buffer; AS_* codes as esp_read_file. */
static int read_host(const char *hp, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(hp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? AS_ENOENT : AS_EIO;
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? AS_EISDIR : AS_EIO;
	}
	if ((uint64_t)st.st_size > max) {
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

int espdir_read_file(struct esp_session *s, const char *path, size_t max, char **buf,
		     size_t *len)
{
	const struct dir_op *op = pending(s, path);
	char hp[PATH_MAX + 300];

	if (op && !has_file(op))
		return op->kind == DIR_OP_MKDIR ? AS_EISDIR : AS_ENOENT;
	if (op)
		return read_host(op->staged, max, buf, len);
	espdir_host_path(s, path, hp, sizeof hp);
	return read_host(hp, max, buf, len);
}

/* The host file holding path now (its staged copy when a change is recorded). Returns 0 or
 * AS_ENOENT / AS_EISDIR for a recorded deletion or directory. */
static int host_file(struct esp_session *s, const char *path, char *hp, size_t cap)
{
	const struct dir_op *op = pending(s, path);

	if (op && !has_file(op))
		return op->kind == DIR_OP_MKDIR ? AS_EISDIR : AS_ENOENT;
	if (op)
		snprintf(hp, cap, "%s", op->staged);
	else
		espdir_host_path(s, path, hp, cap);
	return 0;
}

int espdir_file_size(struct esp_session *s, const char *path, uint64_t *size)
{
	char hp[PATH_MAX + 300];
	struct stat st;
	int rc = host_file(s, path, hp, sizeof hp);

	if (rc)
		return rc;
	if (stat(hp, &st))
		return errno == ENOENT || errno == ENOTDIR ? AS_ENOENT : AS_EIO;
	if (S_ISDIR(st.st_mode))
		return AS_EISDIR;
	*size = (uint64_t)st.st_size;
	return 0;
}

int espdir_read_at(struct esp_session *s, const char *path, uint64_t off, void *buf, size_t len)
{
	char hp[PATH_MAX + 300];
	int rc = host_file(s, path, hp, sizeof hp);

	if (rc)
		return rc;
	int fd = open(hp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? AS_ENOENT : AS_EIO;
	rc = pread_full(fd, buf, len, off) ? AS_EIO : 0;
	close(fd);
	return rc;
}

int espdir_sha256(struct esp_session *s, const char *path, uint8_t out[SHA256_BYTES])
{
	const struct dir_op *op = pending(s, path);
	char hp[PATH_MAX + 300];
	struct stat st;

	if (op && !has_file(op))
		return op->kind == DIR_OP_MKDIR ? AS_EISDIR : AS_ENOENT;
	if (op)
		snprintf(hp, sizeof hp, "%s", op->staged);
	else
		espdir_host_path(s, path, hp, sizeof hp);
	if (stat(hp, &st))
		return errno == ENOENT || errno == ENOTDIR ? AS_ENOENT : AS_EIO;
	if (S_ISDIR(st.st_mode))
		return AS_EISDIR;
	return hash_host_file(hp, out);
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
	return fat_path_eq(parent[0] ? parent : "/", dir);
}

struct listed {
	char name[FAT_NAME_MAX + 1];
	bool is_dir;
	uint64_t size;
};

/* Takes name out of the listing l of *n names, if it is there. */
static void unlist(struct listed *l, unsigned *n, const char *name)
{
	for (unsigned k = 0; k < *n; k++)
		if (!strcasecmp(l[k].name, name)) {
			l[k] = l[--*n];
			return;
		}
}

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
	espdir_host_path(s, dir, hp, sizeof hp);
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
		if (s->ops[i].kind == DIR_OP_RENAME && in_dir(s->ops[i].from, dir, &name))
			unlist(l, &n, name);
		if (!in_dir(s->ops[i].path, dir, &name))
			continue;
		unsigned k = 0;
		while (k < n && strcasecmp(l[k].name, name))
			k++;
		if (s->ops[i].kind == DIR_OP_DELETE || s->ops[i].kind == DIR_OP_RMDIR) {
			unlist(l, &n, name);
			continue;
		}
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
	espdir_record(s, DIR_OP_MKDIR, dir);
	return 0;
}

int espdir_delete(struct esp_session *s, const char *path)
{
	espdir_record(s, DIR_OP_DELETE, path);
	return 0;
}

int espdir_rmdir(struct esp_session *s, const char *path)
{
	espdir_record(s, DIR_OP_RMDIR, path);
	return 0;
}

void espdir_hoist(struct esp_session *s, const char *path)
{
	for (unsigned i = s->nops; i-- > 0;)
		if (fat_path_eq(s->ops[i].path, path)) {
			struct dir_op op = s->ops[i];
			memmove(&s->ops[1], &s->ops[0], i * sizeof op);
			s->ops[0] = op;
			return;
		}
}

void espdir_close(struct esp_session *s)
{
	for (unsigned i = 0; i < s->nops; i++)
		if (s->ops[i].kind == DIR_OP_PUT && s->ops[i].staged[0])
			temp_remove(s->ops[i].staged);
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
		[DIR_OP_RENAME] = "rename",
	};
	for (unsigned i = 0; i < s->nops; i++) {
		const struct dir_op *op = &s->ops[i];
		fprintf(f, "through the filesystem mounted on %s: %s %s%s%s", s->mount_dir,
			what[op->kind], op->kind == DIR_OP_RENAME ? op->from : "",
			op->kind == DIR_OP_RENAME ? " to " : "", op->path);
		if (op->kind == DIR_OP_PUT)
			fprintf(f, " (%llu bytes: a new file under a temporary name, fsync, rename over "
				"the old one, fsync the directory)", (unsigned long long)op->size);
		fprintf(f, "\n");
	}
}
