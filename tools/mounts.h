/* Is the target in use? A mounted filesystem or active swap on the device itself, on one of its
 * partitions, or (for an image file) on a loop device backed by the image. */
#ifndef ANYSECTOR_TOOLS_MOUNTS_H
#define ANYSECTOR_TOOLS_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/hostdev.h"

/* True when in use; *what gets a sentence naming the mount ("/dev/loop0p3 is mounted on /mnt"). */
bool target_in_use(const struct hostdev *h, char *what, size_t cap);

/* Refuses (reports and returns EXIT_REFUSED) when the target is in use, else 0. */
int refuse_if_in_use(const struct hostdev *h);

#endif
