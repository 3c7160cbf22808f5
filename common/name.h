/* SPDX-License-Identifier: BSD-2-Clause */
/* File names on the boot partition that every reader sees alike. The Boot Loader
 * Specification's character set, A-Z a-z 0-9 + - _ . (the POSIX portable set and '+'): FAT
 * stores such a name as written, Linux's vfat shows it unchanged, and the loaders' FAT reader
 * reads it back the same (it shows every other character of a long name as '?', so a name
 * with one could not even be opened again by the name it was listed under). */
#ifndef ANYSECTOR_NAME_H
#define ANYSECTOR_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* The position of the first character of [s, s+n) outside that set; n when there is none. */
size_t name_portable_span(const char *s, size_t n);

#endif
