/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* mkostemp */
#include "tools/base/tempfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bits.h"
#include "common/errors.h"
#include "tools/base/util.h"

#define TEMP_PREFIX "anysector-"

static const char *const temp_kinds[] = { "esp", "put", "cfg", "signed", "fat", "ext4" };

/* The files this process made and still holds: path and the descriptor that holds the lock. */
static struct held {
	char *path;
	int fd;
} *held;
static unsigned nheld;

const char *temp_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* Whether path still names the file open at fd (a sweep may have removed a name that was not
 * locked yet). */
static bool names_fd(const char *path, int fd)
{
	struct stat a, b;
	return !fstat(fd, &a) && !lstat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* At exit: a file a failed step did not remove goes too. */
static void temp_remove_all(void)
{
	while (nheld)
		temp_remove(held[nheld - 1].path);
}

int temp_create(const char *kind, char *path, size_t cap, int *fd)
{
	for (unsigned tries = 0;; tries++) {
		snprintf(path, cap, "%.3900s/" TEMP_PREFIX "%.16s-XXXXXX", temp_dir(), kind);
		int lock_fd = mkostemp(path, O_CLOEXEC);
		if (lock_fd < 0)
			return AS_EIO;
		/* Locked at once. A sweep that came between mkstemp and flock holds the lock and
		 * removes the name: then another name. A file system without flock keeps the file
		 * unlocked, which a sweep there cannot lock either. */
		if (flock(lock_fd, LOCK_EX | LOCK_NB) ? errno == EWOULDBLOCK && tries < 100
						     : !names_fd(path, lock_fd) && tries < 100) {
			close(lock_fd);
			continue;
		}
		*fd = fcntl(lock_fd, F_DUPFD_CLOEXEC, 0);
		if (*fd < 0) {
			int e = errno;
			close(lock_fd);
			unlink(path);
			errno = e;
			return AS_EIO;
		}
		static bool at_exit;
		if (!at_exit)
			at_exit = !atexit(temp_remove_all);
		held = xrealloc(held, (nheld + 1) * sizeof *held);
		held[nheld++] = (struct held){ xstrdup(path), lock_fd };
		return 0;
	}
}

void temp_remove(const char *path)
{
	if (!path || !*path)
		return;
	unlink(path);
	for (unsigned i = 0; i < nheld; i++) {
		if (strcmp(held[i].path, path))
			continue;
		close(held[i].fd);
		free(held[i].path);
		held[i] = held[--nheld];
		if (!nheld) {
			free(held);
			held = NULL;
		}
		return;
	}
}

/* Whether a directory entry is named as temp_create names its files: the prefix, a kind, '-',
 * and mkstemp's six letters and digits. */
static bool temp_name(const char *name)
{
	if (strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)))
		return false;
	name += strlen(TEMP_PREFIX);
	for (size_t i = 0; i < ARRAY_SIZE(temp_kinds); i++) {
		size_t n = strlen(temp_kinds[i]);
		if (strncmp(name, temp_kinds[i], n) || name[n] != '-')
			continue;
		const char *x = name + n + 1;
		size_t k = 0;
		while (x[k] && ((x[k] >= 'a' && x[k] <= 'z') || (x[k] >= 'A' && x[k] <= 'Z') ||
				(x[k] >= '0' && x[k] <= '9')))
			k++;
		return k == 6 && !x[6];
	}
	return false;
}

void temp_sweep(void)
{
	const char *dir = temp_dir();
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4400];
		struct stat st;
		if (!temp_name(de->d_name))
			continue;
		snprintf(path, sizeof path, "%.4000s/%s", dir, de->d_name);
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* ours, a plain file, nobody holding it, and still the file of that name */
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    !flock(fd, LOCK_EX | LOCK_NB) && names_fd(path, fd))
			unlink(path);
		close(fd);
	}
	closedir(d);
}
