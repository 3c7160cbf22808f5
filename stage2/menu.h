#ifndef ANYSECTOR_STAGE2_MENU_H
#define ANYSECTOR_STAGE2_MENU_H

#include <stdbool.h>

#include "common/config.h"

/* Shows the entries and returns the index to boot. With countdown, the default boots when the
 * configured timeout passes with no key pressed; any key stops the countdown. Keys: 1..9 boot
 * that entry, Up/Down move, Enter boots the highlighted one. */
int menu_choose(const struct cfg *c, bool countdown);

#endif
