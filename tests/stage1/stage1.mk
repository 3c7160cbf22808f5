# SPDX-License-Identifier: BSD-2-Clause
# Boot-time tests of stage1 (and stage2's self-check) under SeaBIOS: tests/stage1/run.py.
# A second stage1 build forces the CHS path, which SeaBIOS (having int 13h extensions) would
# otherwise never take.
STAGE1_CHS_BIN := $(BUILD)/tests/stage1/stage1-chs.bin

$(STAGE1_CHS_BIN): stage1/mbr.asm $(STAGE1_INC) $(UART_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -DTEST_FORCE_CHS -I$(dir $(STAGE1_INC)) -I$(NASM_INC_DIR)/ -o $@ $<

# The stage2 cases also need the installer, the assembled stages and the BIOS test payload
# (their rules live in tools/ and tests/payload/; these are the agreed artifact paths).
STAGE1_TEST_TOOLS := $(BUILD)/tools/anysector $(BUILD)/stages/stage1.bin $(BUILD)/stages/stage2.bin \
	$(BUILD)/stages/BOOTX64.EFI \
	$(BUILD)/payload/bios/payload.bzImage

# stage2's LZMA decoder on the host, with the sanitizers.
UNLZMA_CHECK := $(BUILD)/asan/tests/stage1/unlzma_check
$(UNLZMA_CHECK): tests/stage1/unlzma_check.c stage2/unlzma.c stage2/unlzma.h common/le.h
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) tests/stage1/unlzma_check.c stage2/unlzma.c -o $@

TEST_BUILD += $(STAGE1_CHS_BIN) $(UNLZMA_CHECK)

.PHONY: test-stage1
test-stage1: $(STAGE1_BIN) $(STAGE1_CHS_BIN) $(STAGE2_BIN) $(STAGE1_TEST_TOOLS) $(UNLZMA_CHECK) \
		$(PY_BOOTINFO)
	@python3 tests/stage1/run.py $(STAGE1_BIN) $(STAGE1_CHS_BIN) $(STAGE2_BIN) $(BUILD)/tests/stage1 \
		$(BUILD)/tools/anysector $(BUILD)/stages $(BUILD)/payload/bios/payload.bzImage \
		$(UNLZMA_CHECK) $(BUILD)/stage2/body.bin \
		$$(( 0x$$(nm $(STAGE2_ELF) | awk '$$3 == "__text_end" { print $$1 }') - \
		     0x$$(nm $(STAGE2_ELF) | awk '$$3 == "__body_start" { print $$1 }') ))
TEST_SUITES += 61:test-stage1
