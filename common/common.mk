# SPDX-License-Identifier: BSD-2-Clause
# common/: one set of sources built for every world. mem.c only where there is no libc.
COMMON_SRCS := $(filter-out common/mem.c,$(wildcard common/*.c))
COMMON_FS_SRCS := $(wildcard common/*.c)

COMMON_HOST_LIB := $(BUILD)/host/libcommon.a
COMMON_ASAN_LIB := $(BUILD)/asan/libcommon.a
COMMON_FS32_LIB := $(BUILD)/fs32/libcommon.a
COMMON_EFI_LIB := $(BUILD)/efi/libcommon.a
COMMON_FUZZ_LIB := $(BUILD)/fuzz/libcommon.a

$(BUILD)/host/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/asan/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/fs32/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(FS32_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/efi/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(EFI_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/fuzz/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(COMMON_HOST_LIB): $(patsubst %.c,$(BUILD)/host/%.o,$(COMMON_SRCS))
$(COMMON_ASAN_LIB): $(patsubst %.c,$(BUILD)/asan/%.o,$(COMMON_SRCS))
$(COMMON_FS32_LIB): $(patsubst %.c,$(BUILD)/fs32/%.o,$(COMMON_FS_SRCS))
$(COMMON_EFI_LIB): $(patsubst %.c,$(BUILD)/efi/%.o,$(COMMON_FS_SRCS))
$(COMMON_FUZZ_LIB): $(patsubst %.c,$(BUILD)/fuzz/%.o,$(COMMON_SRCS))
$(BUILD)/%/libcommon.a:
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

# common/uart.h's register names for NASM (stage1/mbr.asm, tests/payload/bios/setup.asm,
# tests/payload/chain/bootrec.asm): "#define UART_X value" -> "%define UART_X value", C comments
# and the u suffix dropped, as stage1.mk makes bootinfo.inc. Assemble with -I$(NASM_INC_DIR)/.
NASM_INC_DIR := $(BUILD)/inc
UART_INC := $(NASM_INC_DIR)/uart.inc
$(UART_INC): common/uart.h common/common.mk
	@mkdir -p $(@D)
	$(Q)sed -nE -e 's#/\*.*\*/##g' \
		-e 's/^#define[[:space:]]+(UART_[A-Z0-9_]+)[[:space:]]+(.*[^[:space:]])[[:space:]]*$$/%define \1 \2/p' \
		common/uart.h | sed -E 's/\b(0x[0-9A-Fa-f]+|[0-9]+)[uU]\b/\1/g' > $@.tmp && mv $@.tmp $@

# The freestanding builds prove common/ needs nothing but the compiler's own headers.
ALL_TARGETS += $(COMMON_HOST_LIB) $(COMMON_FS32_LIB) $(COMMON_EFI_LIB)
