/* SPDX-License-Identifier: BSD-2-Clause */
/* Opening a target: an image file or a whole-disk block device, locked (tools/dev/lock.h) and
 * held exclusively (O_EXCL) when written, and when the kernel refuses that, the sentence that
 * names what holds it (tools/dev/mounts.h); and syncing it. */
#ifndef ANYSECTOR_TOOLS_HOSTDEV_OPEN_H
#define ANYSECTOR_TOOLS_HOSTDEV_OPEN_H

#include <stdbool.h>

#include "tools/dev/hostdev.h"

/* Opens an existing image file or whole-disk block device; refuses a partition ("give the whole
 * disk"), anything else, and (writable) a block device another user holds open exclusively.
 * Before it opens the target for its work it takes the target's lock (tools/dev/lock.h):
 * exclusive when writable, shared when not, held until hostdev_close; a writable target on
 * which another process holds a record lock (QEMU) is refused. Returns 0 or an exit code after
 * reporting why. */
int hostdev_open(struct hostdev *h, const char *path, bool writable);
/* The same for a file this process made for itself (the ESP's temporary copy): no lock. */
int hostdev_open_own(struct hostdev *h, const char *path, bool writable);
/* The same for a change that writes only outside what is in use (install, add, remove,
 * set-default on a running system): a block device whose partitions are mounted or held is
 * opened without O_EXCL (h->live), and the change refuses each write into a partition in use
 * itself (tools/dev/mounts.h); the disk itself mounted or held is still refused. */
int hostdev_open_live(struct hostdev *h, const char *path, bool writable);

/* fsync of a writable target. Returns 0 or an exit code. */
int hostdev_sync(struct hostdev *h);

#endif
