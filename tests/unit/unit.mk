# SPDX-License-Identifier: BSD-2-Clause
# Host unit tests: one cmocka program per tests/unit/test_*.c, built with ASan+UBSan and linked
# against the installer's library and common/ (each takes only the objects it uses).
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/asan/tests/unit/%,$(UNIT_SRCS))

$(BUILD)/asan/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/asan/tests/unit/helpers.o: tests/unit/helpers.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $(DEPFLAGS) -c $< -o $@

# (tools/tools.mk is read after this file: its library is named at the second expansion)
.SECONDEXPANSION:
$(BUILD)/asan/tests/unit/test_%: $(BUILD)/asan/tests/unit/test_%.o $(BUILD)/asan/tests/unit/helpers.o $$(TOOLS_ASAN_LIB) $(COMMON_ASAN_LIB)
	$(Q)$(HOSTCC) $(ASAN_CFLAGS) $^ $(TOOLS_LDLIBS) -lcmocka -o $@

.PHONY: test-unit unit-bins
unit-bins: $(UNIT_BINS)
test-unit: $(UNIT_BINS)
	@tests/unit/run.sh $(UNIT_BINS)
TEST_SUITES += 20:test-unit
TEST_BUILD += $(UNIT_BINS)
