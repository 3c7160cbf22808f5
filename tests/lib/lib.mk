# SPDX-License-Identifier: BSD-2-Clause
# tests/lib: the Python test library (tests/lib/README.md). Its bootinfo module takes stage1's
# patch block, stage2's header and the MBR's offsets from a module generated here out of
# common/bootinfo.h and common/mbr.h (as stage1/stage1.mk does for NASM), so the headers stay the
# single truth and no harness hard-codes an offset. Suites whose fragments sort before this one
# name the file by its path.
PY_BOOTINFO := $(BUILD)/tests/lib/bootinfo_h.py

# "#define STAGE2_X value" -> "STAGE2_X = value", C comments and the u suffix dropped; values
# that are C expressions of other names ("(A - B)") are Python expressions too.
$(PY_BOOTINFO): common/bootinfo.h common/mbr.h tests/lib/lib.mk
	@mkdir -p $(@D)
	$(Q){ echo '# Generated from common/bootinfo.h and common/mbr.h by tests/lib/lib.mk.'; \
		sed -nE -e 's#/\*.*\*/##g' \
		-e 's/^#define[[:space:]]+((STAGE1|STAGE2|MBR)_[A-Z0-9_]+)[[:space:]]+(.*[^[:space:]])[[:space:]]*$$/\1 = \3/p' \
		common/bootinfo.h common/mbr.h \
		| sed -E 's/\b(0x[0-9A-Fa-f]+|[0-9]+)[uU]\b/\1/g'; } > $@.tmp
	$(Q)python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' $@.tmp
	$(Q)mv $@.tmp $@

ALL_TARGETS += $(PY_BOOTINFO)
