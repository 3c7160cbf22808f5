/* SPDX-License-Identifier: BSD-2-Clause */
/* The installer's temporary files in $TMPDIR (else /tmp): "anysector-KIND-XXXXXX" (KIND: esp,
 * put, cfg, signed, fat, ext4). Each is held under flock(LOCK_EX) by the process that made it,
 * from the moment it has its name until temp_remove or the process ends, so a run that was
 * killed leaves its files unlocked, and the next run's temp_sweep removes them: by name, owner
 * and lock, never a file of another user or one a running process holds. */
#ifndef ANYSECTOR_TOOLS_TEMPFILE_H
#define ANYSECTOR_TOOLS_TEMPFILE_H

#include <stddef.h>

/* The directory the temporary files go in. */
const char *temp_dir(void);

/* Makes a new empty temporary file of that kind, locked, its path into path[cap] and a
 * descriptor open for reading and writing into *fd (the caller's to close: the lock stays with
 * a descriptor of its own). Returns 0 or AS_EIO (errno says why). */
int temp_create(const char *kind, char *path, size_t cap, int *fd);

/* Removes a file temp_create made and drops its lock (a path it did not make is only
 * unlinked; "" is nothing). */
void temp_remove(const char *path);

/* Removes the temporary files an earlier run left behind: the entries of temp_dir() named like
 * temp_create's, owned by this user, that no process holds locked. Reports nothing. */
void temp_sweep(void);

#endif
