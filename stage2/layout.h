/* SPDX-License-Identifier: BSD-2-Clause */
/* Stage2's memory below 1 MiB, defined once in linker.ld:
 *   0x00500 .. __stack_top      stack (real-mode reachable: SS = 0), below stage1's page
 *   0x08000 .. __head_end       stage2's uncompressed head (header, real-mode code, unpacker),
 *                               followed in the loaded image by the LZMA-compressed body
 *   __body_start .. __body_end  the body, unpacked, then its bss up to __bss_end
 *   __copy_hop (4 KiB)          the page stage2/copy.c's copy may go through
 *   __bounce (64 KiB, aligned)  int 13h transfers and other BIOS buffers
 *   __linux_rm (64 KiB)         the unpacker's LZMA model, then anysector.cfg's text while it
 *                               is parsed, then the kernel's
 *                               real-mode setup, heap, stack and command line
 *   __menu (64 KiB)             the boot menu (struct cfg), from the configuration's parse until
 *                               the kernel is entered
 * and the protected-mode kernel at LINUX_KERNEL_ADDR (1 MiB). */
#ifndef ANYSECTOR_STAGE2_LAYOUT_H
#define ANYSECTOR_STAGE2_LAYOUT_H

#include <stdint.h>

extern uint8_t __copy_hop[];
extern uint8_t __bounce[];
extern uint8_t __bounce_end[];
extern uint8_t __linux_rm[];
extern uint8_t __linux_rm_end[];
extern uint8_t __image_start[];
extern uint8_t __head_end[];
extern uint8_t __body_start[];
extern uint8_t __body_end[];
extern uint8_t __text_end[];
extern uint8_t __bss_end[];

#define BOUNCE_BYTES ((uint32_t)(__bounce_end - __bounce))
#define LINUX_KERNEL_ADDR 0x100000u

#endif
