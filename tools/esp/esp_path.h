/* SPDX-License-Identifier: BSD-2-Clause */
/* Paths on the boot partition, compared as FAT compares them. */
#ifndef ANYSECTOR_TOOLS_ESP_PATH_H
#define ANYSECTOR_TOOLS_ESP_PATH_H

#include <stdbool.h>

/* Whether two paths on the boot partition name the same file: FAT compares names without case,
 * and '/' and '\\' both separate. */
bool esp_path_eq(const char *a, const char *b);

#endif
