/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef ANYSECTOR_STAGE2_MENU_H
#define ANYSECTOR_STAGE2_MENU_H

#include <stdbool.h>

#include "common/config.h"

/* Runs the boot menu (common/menu.h) until an entry is to boot: returns its index and sets
 * *cmdline to the command line to give it (the entry's, or the one edited for this boot). With
 * countdown the configured timeout runs first. */
int menu_choose(const struct cfg *c, bool countdown, const char **cmdline);

#endif
