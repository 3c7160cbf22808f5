# SPDX-License-Identifier: BSD-2-Clause
# The BIOS test payload: a bzImage (boot protocol 2.15) whose 16-bit setup switches to protected
# mode and whose 32-bit part (linked at 0x100000 with tests/payload/report_line.c, common/ and
# libgcc's 64-bit division for common/fmt.c) reports the command line and the initrd's CRC32 on
# COM1. See tests/payload/bios/README.md.
PAYLOAD_BIOS_DIR := $(BUILD)/payload/bios
PAYLOAD_BIOS := $(PAYLOAD_BIOS_DIR)/payload.bzImage
# Bytes of memory from 0x100000 the 32-bit part may use (code, bss, stack); the setup header's
# init_size says the same, and the link fails when the image outgrows it.
PAYLOAD_BIOS_INIT_SIZE := 0x20000
PAYLOAD_BIOS_LIBGCC := $(shell $(HOSTCC) -m32 -print-libgcc-file-name)

$(PAYLOAD_BIOS_DIR)/payload.o: tests/payload/bios/payload.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(FS32_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(PAYLOAD_BIOS_DIR)/report_line.o: tests/payload/report_line.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(FS32_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(PAYLOAD_BIOS_DIR)/entry32.o: tests/payload/bios/entry32.asm
	@mkdir -p $(@D)
	$(Q)$(NASM) -f elf32 $< -o $@
$(PAYLOAD_BIOS_DIR)/pm.elf: $(PAYLOAD_BIOS_DIR)/entry32.o $(PAYLOAD_BIOS_DIR)/payload.o \
		$(PAYLOAD_BIOS_DIR)/report_line.o $(COMMON_FS32_LIB) tests/payload/bios/payload.ld
	$(Q)ld -m elf_i386 -nostdlib -static --no-warn-rwx-segments --defsym=PAYLOAD_INIT_SIZE=$(PAYLOAD_BIOS_INIT_SIZE) \
		-T tests/payload/bios/payload.ld -o $@ $(filter %.o %.a,$^) $(PAYLOAD_BIOS_LIBGCC)
$(PAYLOAD_BIOS_DIR)/pm.bin: $(PAYLOAD_BIOS_DIR)/pm.elf
	$(Q)objcopy -O binary $< $@
# setup.asm includes pm.bin and common/uart.h's register names (UART_INC, common/common.mk).
$(PAYLOAD_BIOS): tests/payload/bios/setup.asm $(PAYLOAD_BIOS_DIR)/pm.bin $(UART_INC)
	$(Q)$(NASM) -f bin -i $(PAYLOAD_BIOS_DIR)/ -i $(NASM_INC_DIR)/ \
		-DINIT_SIZE=$(PAYLOAD_BIOS_INIT_SIZE) -o $@ $<

ALL_TARGETS += $(PAYLOAD_BIOS)
