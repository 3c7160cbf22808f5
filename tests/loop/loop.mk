# SPDX-License-Identifier: BSD-2-Clause
# Loop-device cross-checks of common/'s partition tables against sfdisk and sgdisk (root only;
# prints SKIP with the reason elsewhere). gpt_tool is our front end, built with ASan+UBSan.
GPT_TOOL := $(BUILD)/asan/tests/loop/gpt_tool

$(BUILD)/asan/tests/loop/%.o: tests/loop/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(GPT_TOOL): $(BUILD)/asan/tests/loop/gpt_tool.o $(COMMON_ASAN_LIB)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $^ -o $@

.PHONY: test-loop-tables
test-loop-tables: $(GPT_TOOL)
	@tests/loop/tables.sh $(GPT_TOOL)
ALL_TARGETS += $(GPT_TOOL)
TEST_SUITES += 50:test-loop-tables
