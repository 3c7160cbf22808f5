/* SPDX-License-Identifier: BSD-2-Clause */
/* Setting a target's topology: a block device's from the kernel (ioctls, sysfs), an image file's
 * from the sector size decided for it (tools/disk/topology.h), with the flags that override. */
#ifndef ANYSECTOR_TOOLS_HOSTDEV_TOPO_H
#define ANYSECTOR_TOOLS_HOSTDEV_TOPO_H

#include <stdint.h>

#include "tools/dev/hostdev.h"

/* Puts the kernel's topology of a block device into h (sysfs when an ioctl fails); --sector-size
 * must match it, the other flags override (with a note). Returns 0 or an exit code. */
int hostdev_device_topology(struct hostdev *h, const struct topo_flags *f);
/* Gives an image file the logical sector size lss (origin and origin_text already set), with
 * the flags other than --sector-size applied. Returns 0 or an exit code. */
int hostdev_image_topology(struct hostdev *h, uint32_t lss, const struct topo_flags *f);

#endif
