# stage1: the MBR boot code. Its patch-block offsets come from common/bootinfo.h through a
# generated NASM include, so the header stays the single truth; the TIMES directives in mbr.asm
# fail the assembly when the code grows into the patch block (STAGE1_MAX_CODE bytes in all).
STAGE1_BIN := $(BUILD)/stage1/stage1.bin
STAGE1_INC := $(BUILD)/stage1/bootinfo.inc
STAGE1_LST := $(BUILD)/stage1/stage1.lst

# "#define STAGE1_X value" -> "%define STAGE1_X value", C comments and the u suffix dropped.
$(STAGE1_INC): common/bootinfo.h stage1/stage1.mk
	@mkdir -p $(@D)
	$(Q)sed -nE -e 's#/\*.*\*/##g' \
		-e 's/^#define[[:space:]]+((STAGE1|STAGE2)_[A-Z0-9_]+)[[:space:]]+(.*[^[:space:]])[[:space:]]*$$/%define \1 \3/p' $< \
		| sed -E 's/\b(0x[0-9A-Fa-f]+|[0-9]+)[uU]\b/\1/g' > $@.tmp && mv $@.tmp $@

$(STAGE1_BIN): stage1/mbr.asm $(STAGE1_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -I$(BUILD)/stage1/ -l $(STAGE1_LST) -o $@ $<
	$(Q)test "$$(stat -c %s $@)" = 512 || { echo "stage1: $@ is not 512 bytes" >&2; rm -f $@; exit 1; }

ALL_TARGETS += $(STAGE1_BIN)
