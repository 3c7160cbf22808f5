# SPDX-License-Identifier: BSD-2-Clause
# stage1: the MBR boot code. Its patch-block offsets (common/bootinfo.h) and the disk's own
# timestamp bytes it must leave alone (common/mbr.h) come through a generated NASM include, so
# the headers stay the single truth; the TIMES directives in mbr.asm fail the assembly when the
# code grows into the timestamp or the patch block (STAGE1_MAX_CODE bytes in all).
STAGE1_BIN := $(BUILD)/stage1/stage1.bin
STAGE1_INC := $(BUILD)/stage1/bootinfo.inc
STAGE1_LST := $(BUILD)/stage1/stage1.lst

# "#define STAGE1_X value" -> "%define STAGE1_X value", C comments and the u suffix dropped.
$(STAGE1_INC): common/bootinfo.h common/mbr.h stage1/stage1.mk
	@mkdir -p $(@D)
	$(Q)sed -nE -e 's#/\*.*\*/##g' \
		-e 's/^#define[[:space:]]+((STAGE1|STAGE2|MBR_TIMESTAMP)_[A-Z0-9_]+)[[:space:]]+(.*[^[:space:]])[[:space:]]*$$/%define \1 \3/p' \
		common/bootinfo.h common/mbr.h \
		| sed -E 's/\b(0x[0-9A-Fa-f]+|[0-9]+)[uU]\b/\1/g' > $@.tmp && mv $@.tmp $@

$(STAGE1_BIN): stage1/mbr.asm $(STAGE1_INC) $(UART_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -I$(BUILD)/stage1/ -I$(NASM_INC_DIR)/ -l $(STAGE1_LST) -o $@ $<
	$(Q)test "$$(stat -c %s $@)" = 512 || { echo "stage1: $@ is not 512 bytes" >&2; rm -f $@; exit 1; }

ALL_TARGETS += $(STAGE1_BIN)
