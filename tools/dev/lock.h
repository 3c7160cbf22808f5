/* SPDX-License-Identifier: BSD-2-Clause */
/* One writer at a time: BSD file locks (flock) on the target, as util-linux's --lock and
 * systemd's "Locking Block Device Access" convention have them (docs/DESIGN.md "Locking").
 * A command that writes holds LOCK_EX on the image file or whole-disk device node from before
 * it reads what it will change until after its last fsync; a command that only reads holds
 * LOCK_SH, so it never sees a half-written disk, and neither does udev (it probes a disk only
 * when its own LOCK_SH|LOCK_NB succeeds). A lock that is taken waits for its holder up to the
 * --wait time, saying whom it waits for; locks are released when their descriptors close, so a
 * killed holder leaves nothing behind. POSIX and OFD record locks (fcntl; QEMU takes OFD locks
 * on the disks of a running virtual machine) are another program's claim that lasts: a writer
 * is refused at once. --no-lock takes and honours none of them. */
#ifndef ANYSECTOR_TOOLS_LOCK_H
#define ANYSECTOR_TOOLS_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#define LOCK_WAIT_DEFAULT 10u           /* seconds */
#define LOCK_WAIT_MAX 86400u            /* the most --wait takes as a number */
#define LOCK_WAIT_FOREVER UINT32_MAX    /* --wait infinity */

/* The process's policy, set from the command line (--wait, --no-lock) before any target is
 * opened. */
void lock_set_wait(uint32_t seconds);
void lock_set_disabled(bool disabled);
/* --wait's value: decimal seconds 0..LOCK_WAIT_MAX, or "infinity". */
bool lock_parse_wait(const char *s, uint32_t *out);

/* Takes a shared or exclusive flock on path (an image file, a whole-disk device node, or a lock
 * file, which create makes when it is missing), waiting for its holder as the policy says.
 * Locks this process already holds on the same file are counted, not taken twice. A regular
 * file replaced or removed while the lock was awaited is locked again under its new identity.
 * *id gets a handle for lock_release (0, as in a zeroed struct, when locking is off).
 * Returns 0 or an exit code: EXIT_REFUSED (one sentence naming the holder) when the wait ran
 * out, EXIT_ERRORS when the file cannot be opened or locked at all. */
int lock_take(const char *path, bool exclusive, bool create, int *id);
/* Drops one hold of a lock lock_take returned (a no-op for 0). */
void lock_release(int id);

/* Whether another process holds a POSIX or OFD record lock on any byte of fd's file. Returns 0
 * (none, or locking is off) or EXIT_REFUSED after one sentence naming the holder. */
int lock_refuse_record_locks(int fd, const char *path);

#endif
