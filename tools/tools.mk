# SPDX-License-Identifier: BSD-2-Clause
# The host installer `anysector` (release and ASan+UBSan builds), the assembled stage directory
# $(BUILD)/stages/ the installer and the tests use, the man page, and `make install`.
PREFIX ?= /usr/local
DESTDIR ?=

# The sources live in layer folders (tools/base/ .. tools/cmd/); includes name them from the
# tree's root ("tools/dev/hostdev.h"), so -I. is the only include path.
TOOLS_SRCS := $(wildcard tools/*/*.c)
TOOLS_DEFS := -DANYSECTOR_LIBDIR='"$(PREFIX)/lib/anysector"' $(BLKID_CFLAGS) $(FDISK_CFLAGS)
# Everything but main() is a static library, so the unit tests link against what they use
# without a list of objects; TOOLS_LDLIBS are the system libraries it needs.
TOOLS_LIB_SRCS := $(filter-out tools/cmd/anysector.c,$(TOOLS_SRCS))
TOOLS_HOST_LIB := $(BUILD)/tools/libanysector.a
TOOLS_ASAN_LIB := $(BUILD)/asan/tools/libanysector.a
TOOLS_LDLIBS := $(BLKID_LIBS) $(FDISK_LIBS) -lcrypto
# Extra flags for the release build only (debian/rules passes dpkg-buildflags' hardening here).
TOOLS_EXTRA_CFLAGS ?=
TOOLS_EXTRA_LDFLAGS ?=
ANYSECTOR := $(BUILD)/tools/anysector
ANYSECTOR_ASAN := $(BUILD)/asan/tools/anysector

$(BUILD)/host/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(TOOLS_EXTRA_CFLAGS) $(TOOLS_DEFS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/asan/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $(TOOLS_DEFS) $(DEPFLAGS) -c $< -o $@

$(TOOLS_HOST_LIB): $(patsubst %.c,$(BUILD)/host/%.o,$(TOOLS_LIB_SRCS))
$(TOOLS_ASAN_LIB): $(patsubst %.c,$(BUILD)/asan/%.o,$(TOOLS_LIB_SRCS))
$(TOOLS_HOST_LIB) $(TOOLS_ASAN_LIB):
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^

$(ANYSECTOR): $(BUILD)/host/tools/cmd/anysector.o $(TOOLS_HOST_LIB) $(COMMON_HOST_LIB)
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(TOOLS_EXTRA_CFLAGS) $(TOOLS_EXTRA_LDFLAGS) $^ $(TOOLS_LDLIBS) -o $@
$(ANYSECTOR_ASAN): $(BUILD)/asan/tools/cmd/anysector.o $(TOOLS_ASAN_LIB) $(COMMON_ASAN_LIB)
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $^ $(TOOLS_LDLIBS) -o $@

# The stages directory: copies of whichever real stage artifacts this tree builds. The stage
# fragments (stage1/stage1.mk, stage2/stage2.mk, efi/efi.mk sort before tools/) define
# STAGE1_BIN, STAGE2_BIN and EFI_BIN; until they exist the tests use placeholder stages.
STAGES_DIR := $(BUILD)/stages
STAGE_FILES :=
ifneq ($(STAGE1_BIN),)
STAGE_FILES += $(STAGES_DIR)/stage1.bin
$(STAGES_DIR)/stage1.bin: $(STAGE1_BIN)
	@mkdir -p $(@D)
	$(Q)cp $< $@
endif
ifneq ($(STAGE2_BIN),)
STAGE_FILES += $(STAGES_DIR)/stage2.bin
$(STAGES_DIR)/stage2.bin: $(STAGE2_BIN)
	@mkdir -p $(@D)
	$(Q)cp $< $@
endif
ifneq ($(STAGE2_GAP_BIN),)
STAGE_FILES += $(STAGES_DIR)/stage2-gap.bin
$(STAGES_DIR)/stage2-gap.bin: $(STAGE2_GAP_BIN)
	@mkdir -p $(@D)
	$(Q)cp $< $@
endif
ifneq ($(EFI_BIN),)
STAGE_FILES += $(STAGES_DIR)/BOOTX64.EFI
$(STAGES_DIR)/BOOTX64.EFI: $(EFI_BIN)
	@mkdir -p $(@D)
	$(Q)cp $< $@
endif

.PHONY: stages
stages: $(STAGE_FILES)

ALL_TARGETS += $(ANYSECTOR) $(ANYSECTOR_ASAN) $(STAGE_FILES)

install:: $(ANYSECTOR) $(STAGE_FILES)
	install -D -m 755 $(ANYSECTOR) $(DESTDIR)$(PREFIX)/bin/anysector
	install -D -m 644 tools/anysector.8 $(DESTDIR)$(PREFIX)/share/man/man8/anysector.8
	$(if $(STAGE_FILES),install -d $(DESTDIR)$(PREFIX)/lib/anysector)
	$(if $(STAGE_FILES),install -m 644 $(STAGE_FILES) $(DESTDIR)$(PREFIX)/lib/anysector/)
