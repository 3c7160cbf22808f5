/* SPDX-License-Identifier: BSD-2-Clause */
/* The names one disk's bytes go by: an image file and the loop devices over it (sysfs
 * loop/backing_file). A change through one name must wait for a change through another, and
 * udev probes the loop device while the image is written, so a target's lock
 * (tools/dev/lock.h) is taken on every name, in one order for all takers: the image file first,
 * then its loop devices by number. */
#ifndef ANYSECTOR_TOOLS_LOOP_ALIAS_H
#define ANYSECTOR_TOOLS_LOOP_ALIAS_H

#include <limits.h>
#include <sys/stat.h>

#define LOOP_ALIAS_MAX 8

/* The names of the bytes of path (st: its stat) in lock order: path itself when nothing else
 * names them; else the backing image file (path itself for an image) and the loop devices over
 * it, at most LOOP_ALIAS_MAX in all, with path in the place of its own name. *self gets path's
 * index. Returns the count (at least 1). */
unsigned loop_aliases(const char *path, const struct stat *st, char (*names)[PATH_MAX],
		      unsigned *self);

#endif
