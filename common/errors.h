/* SPDX-License-Identifier: BSD-2-Clause */
/* Error codes shared by every common/ module: 0 is success, failures are negative. */
#ifndef ANYSECTOR_ERRORS_H
#define ANYSECTOR_ERRORS_H

enum as_error {
	AS_OK = 0,
	AS_EIO = -1,       /* the driver failed to read or write (see blockdev.err_lba) */
	AS_ERANGE = -2,    /* an offset, LBA or length lies outside the device or the object */
	AS_EINVAL = -3,    /* a bad argument from the caller */
	AS_ECORRUPT = -4,  /* on-disk or file data that breaks its format's rules */
	AS_ENOENT = -5,    /* no such file, partition, entry */
	AS_ENOSPC = -6,    /* does not fit */
	AS_EUNSUPP = -7,   /* valid but not handled (e.g. a format revision we do not know) */
	AS_ENOTDIR = -8,   /* a path component is not a directory */
	AS_EISDIR = -9,    /* a file operation on a directory */
	AS_ELOOP = -10,    /* an on-disk chain loops or exceeds its hard bound */
	AS_ETOOBIG = -11,  /* larger than a fixed limit of ours */
	AS_ENOMEM = -12,   /* out of memory (firmware allocators) */
	AS_EABORT = -13,   /* the user cancelled */
	AS_EDENIED = -14,  /* a signature or pinned-hash check refused a file */
};

/* A short lower-case phrase for an error code ("device read failed", ...). */
const char *as_strerror(int err);

#endif
