# SPDX-License-Identifier: BSD-2-Clause
# Compilers and flags for every world the code runs in.
Q := $(if $(filter 1,$(V)),,@)

HOSTCC ?= gcc
CLANG ?= clang
NASM ?= nasm

CSTD := -std=gnu11
WARN := -Wall -Wextra -Werror
DEPFLAGS = -MMD -MP

# Host tools (release build) and the sanitized build that `make test` runs.
HOST_CFLAGS := $(CSTD) $(WARN) -O2 -g -I.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_CFLAGS := $(CSTD) $(WARN) -O1 -g -I. $(SAN_FLAGS)
# util-linux's libblkid: what the installer asks before it writes over anything (tools/dev/probe.c).
BLKID_CFLAGS := $(shell pkg-config --cflags blkid 2>/dev/null)
BLKID_LIBS := $(or $(shell pkg-config --libs blkid 2>/dev/null),-lblkid)
# util-linux's libfdisk: the tables fdisk opens that libblkid's low-level probe does not name
# (a whole-disk BSD disklabel; tools/dev/label_probe.c).
FDISK_CFLAGS := $(shell pkg-config --cflags fdisk 2>/dev/null)
FDISK_LIBS := $(or $(shell pkg-config --libs fdisk 2>/dev/null),-lfdisk)

# Freestanding 32-bit protected mode (stage2): no libc, no PIC, no SSE.
FS32_CFLAGS := $(CSTD) $(WARN) -m32 -march=i686 -ffreestanding -fno-pic -fno-pie -fno-builtin \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-exceptions -mno-mmx -mno-sse \
	-mno-sse2 -Os -I.

# gnu-efi 3.0.15 x86_64 application (docs/FIRMWARE.md "gnu-efi").
EFI_INC := /usr/include/efi
EFI_CFLAGS := $(CSTD) $(WARN) -fpic -fshort-wchar -ffreestanding -fno-stack-protector \
	-fno-strict-aliasing -mno-red-zone -mno-mmx -mno-sse -mno-sse2 -DGNU_EFI_USE_MS_ABI \
	-maccumulate-outgoing-args -Os -I. -I$(EFI_INC) -I$(EFI_INC)/x86_64 -I$(EFI_INC)/protocol

# libFuzzer builds (clang).
FUZZ_CFLAGS := $(CSTD) $(WARN) -O1 -g -I. -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer

# The compilers' dependency files; $(BUILD)/debian (test-debian's Debian trees, whose
# /usr/sbin/invoke-rc.d and friends are no makefiles), $(BUILD)/deb and $(BUILD)/suite-tmp (the
# suites' TMPDIRs: make test's background test-debian-prepare has mmdebstrap's chroot there while
# other suites run make) are not searched.
-include $(shell find $(BUILD) \( -path $(BUILD)/debian -o -path $(BUILD)/deb \
	-o -path $(BUILD)/suite-tmp \) -prune -o -name '*.d' -type f -print 2>/dev/null)
