# SPDX-License-Identifier: BSD-2-Clause
# stage2: the BIOS loader. 32-bit freestanding C plus head.asm (header, real-mode entry, call
# gate), linked by the top-level linker.ld with common/ (its own 64-bit division: udiv64.c).
# The image is the uncompressed head followed by the LZMA-compressed body (pack.py), sealed
# by the host program seal (length + CRC32 in the header, common/bootinfo.h).
# Two builds of the same sources (common/features.h): stage2.bin with every feature, and
# stage2-gap.bin with ANYSECTOR_GAP_BUILD, which leaves out what cannot fit the legacy gap (the
# installer puts it only where that gap is the only room). Each has its own object directory.
STAGE2_BIN := $(BUILD)/stage2/stage2.bin
STAGE2_ELF := $(BUILD)/stage2/stage2.elf
STAGE2_GAP_BIN := $(BUILD)/stage2-gap/stage2.bin
STAGE2_SEAL := $(BUILD)/host/stage2/seal
STAGE2_SRCS := $(filter-out stage2/seal.c,$(wildcard stage2/*.c))
# min-pagesize=0: the BIOS data area lives at small fixed addresses GCC would take for NULL+n.
# stage2 must fit the legacy gap, so these flags are chosen by the packed size they give
# (docs/DESIGN.md "stage2's size budget" has each one's measured saving): -march=i386 (mostly its
# tuning: no cmov, narrower moves, code that compresses better), a 4-byte stack alignment
# (nothing in stage2 needs SSE's), arguments in registers (-mregparm=3: the functions head.asm
# defines or calls are ASMLINKAGE, stage2/bioscall.h), -Oz, and nine of -Oz's passes turned off,
# each of which made the packed image larger (STAGE2_PACK_FLAGS). DIAG_NO_CODES: the console
# shows diagnostics' sentences, never their codes (common/diag.h).
STAGE2_PACK_FLAGS := -fno-tree-dominator-opts -fno-code-hoisting -fno-thread-jumps -fconserve-stack \
	-fno-optimize-sibling-calls -fno-caller-saves -fno-defer-pop -fno-move-loop-invariants \
	-fno-shrink-wrap
STAGE2_CFLAGS := $(filter-out -march=% -Os,$(FS32_CFLAGS)) -Oz -march=i386 \
	-mpreferred-stack-boundary=2 -mregparm=3 -ffunction-sections -fdata-sections --param=min-pagesize=0 \
	$(STAGE2_PACK_FLAGS) -DDIAG_NO_CODES
# The legacy DOS layout leaves LBAs 1..62 free before the first partition at LBA 63: the gap
# build must fit (test-stage2-size); stage2.bin may be larger.
STAGE2_SIZE_GOAL := 31744
# Where stage1 loads stage2 and the address it must end below: common/bootinfo.h is the one
# definition, handed to linker.ld as symbols.
bootinfo_define = $(or $(shell sed -nE 's/^\#define[[:space:]]+$(1)[[:space:]]+(0x[0-9A-Fa-f]+|[0-9]+)[uU]?([[:space:]].*)?$$/\1/p' common/bootinfo.h),$(error common/bootinfo.h defines no number $(1)))
STAGE2_LD_DEFS := --defsym=STAGE2_LOAD_ADDR=$(call bootinfo_define,STAGE2_LOAD_ADDR) \
	--defsym=STAGE2_LOAD_LIMIT=$(call bootinfo_define,STAGE2_LOAD_LIMIT)


# $(call STAGE2_VARIANT,DIR,EXTRA_FLAGS): the objects, link, packing and seal of one build of
# stage2 into $(BUILD)/DIR/stage2.bin. common/ is compiled again with stage2's flags: one
# section per function, so the link keeps only what stage2 calls, and linker.ld can place the
# few functions the head needs in .head.
define STAGE2_VARIANT
$(BUILD)/$(1)/%.o: stage2/%.c
	@mkdir -p $$(@D)
	$$(Q)$$(HOSTCC) $$(STAGE2_CFLAGS) $(2) $$(DEPFLAGS) -c $$< -o $$@
$(BUILD)/$(1)/common/%.o: common/%.c
	@mkdir -p $$(@D)
	$$(Q)$$(HOSTCC) $$(STAGE2_CFLAGS) $(2) $$(DEPFLAGS) -c $$< -o $$@
$(BUILD)/$(1)/head.o: stage2/head.asm $$(STAGE1_INC)
	@mkdir -p $$(@D)
	$$(Q)$$(NASM) -f elf32 $(2) -I$$(dir $$(STAGE1_INC)) -o $$@ $$<

$(BUILD)/$(1)/stage2.elf: $(BUILD)/$(1)/head.o $(patsubst %.c,$(BUILD)/$(1)/%.o,$(notdir $(STAGE2_SRCS))) \
		$(patsubst common/%.c,$(BUILD)/$(1)/common/%.o,$(COMMON_FS_SRCS)) linker.ld \
		stage2/check_head.py common/bootinfo.h
	$$(Q)ld -m elf_i386 $$(STAGE2_LD_DEFS) -T linker.ld --gc-sections -nostdlib -z noexecstack \
		--no-warn-rwx-segments -Map=$(BUILD)/$(1)/stage2.map -o $$@.tmp \
		$$(filter %.o,$$^)
	$$(Q)python3 stage2/check_head.py $$@.tmp
	$$(Q)mv $$@.tmp $$@

# head + LZMA(body), which must fit below the body's link address; the x86 filter covers the text.
$(BUILD)/$(1)/stage2.packed: $(BUILD)/$(1)/stage2.elf stage2/pack.py
	$$(Q)objcopy -O binary -j .head $$< $(BUILD)/$(1)/head.bin
	$$(Q)objcopy -O binary -j .text -j .rodata -j .data $$< $(BUILD)/$(1)/body.bin
	$$(Q)python3 stage2/pack.py $(BUILD)/$(1)/head.bin $(BUILD)/$(1)/body.bin $$@ \
		$$$$(( $$(call STAGE2_SYM,__body_start) - $$(call STAGE2_SYM,__image_start) )) \
		$$$$(( $$(call STAGE2_SYM,__text_end) - $$(call STAGE2_SYM,__body_start) ))
$(BUILD)/$(1)/stage2.bin: $(BUILD)/$(1)/stage2.packed $$(STAGE2_SEAL)
	$$(Q)$$(STAGE2_SEAL) $$< $$@
endef

STAGE2_SYM = 0x$$(nm $< | awk '$$3 == "$(1)" { print $$1 }')
$(eval $(call STAGE2_VARIANT,stage2,))
$(eval $(call STAGE2_VARIANT,stage2-gap,-DANYSECTOR_GAP_BUILD))

$(BUILD)/host/stage2/seal.o: stage2/seal.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(STAGE2_SEAL): $(BUILD)/host/stage2/seal.o $(COMMON_HOST_LIB)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $^ -o $@

ALL_TARGETS += $(STAGE2_BIN) $(STAGE2_GAP_BIN)

# Sizes of the BIOS stages. stage1's 440-byte limit is enforced when it assembles (mbr.asm's
# TIMES directives); this prints how much of it is code. The gap build must fit the legacy gap:
# test-stage2-size fails `make test` when it does not (GPT disks and aligned MBR layouts have
# room for stage2.bin, but install refuses --dos-compat disks whose first partition starts at
# LBA 63 when not even the gap build fits).
STAGE2_SIZE_CHECK = s=$$(stat -c %s $(STAGE2_GAP_BIN)); \
	if [ $$s -gt $(STAGE2_SIZE_GOAL) ]; then \
		echo "stage2-gap.bin is $$s bytes, $$(( s - $(STAGE2_SIZE_GOAL) )) bytes over the $(STAGE2_SIZE_GOAL) bytes of the legacy gap (LBA 1..62 before a partition at LBA 63): install would refuse --dos-compat disks; make it smaller (docs/DESIGN.md \"stage2's size budget\")"; \
		exit 1; \
	fi; \
	echo "stage2-gap.bin: $$s bytes, $$(( $(STAGE2_SIZE_GOAL) - s )) under the $(STAGE2_SIZE_GOAL)-byte legacy gap"

# What each object of the gap build costs packed (stage2/size_objects.py): where to look when it
# must shrink.
.PHONY: size-objects
size-objects: $(BUILD)/stage2-gap/stage2.packed
	@python3 stage2/size_objects.py $(BUILD)/stage2-gap/body.bin $(BUILD)/stage2-gap/stage2.map $(BUILD)

.PHONY: size test-stage2-size
size:: $(STAGE1_BIN) $(STAGE2_BIN) $(STAGE2_GAP_BIN)
	@code=$$(sed -n '/code_end:/{n;s/^ *[0-9]* \([0-9A-F]*\).*/\1/p}' $(STAGE1_LST)); \
	printf 'stage1: %d bytes of code and data before the DAP and patch block at 0x1A0 (of 440 boot-code bytes)\n' "0x$$code"
	@echo "stage2.bin: $$(stat -c %s $(STAGE2_BIN)) bytes (every feature; outside the legacy gap)"
	@$(STAGE2_SIZE_CHECK)

TEST_SUITES += 12:test-stage2-size
test-stage2-size: $(STAGE2_GAP_BIN)
	@$(STAGE2_SIZE_CHECK)
