# SPDX-License-Identifier: BSD-2-Clause
# libFuzzer targets: tests/fuzz/fuzz_<name>.c, seed corpus in tests/fuzz/corpus/<name>/.
# `make test` runs each for FUZZ_RUNS executions (a quick check); `make fuzz` runs each until
# FUZZ_LONG_RUNS executions (the 10 million of tests/fuzz/README.md), FUZZ_ONLY="gpt fat" picks
# targets. FUZZ_TIME=S instead stops each after S seconds.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_RUNS ?= 20000
FUZZ_LONG_RUNS ?= 10000000
FUZZ_ONLY ?=
FUZZ_TIME ?=
FUZZ_LONG_BINS := $(if $(FUZZ_ONLY),$(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_ONLY)),$(FUZZ_BINS))

# CRC-32 is pure arithmetic with no branch worth steering: the fuzzers link tests/fuzz/crc32_fast.c
# (checked at start-up against common/crc32.c, built here as crc32_update_reference), without
# coverage callbacks; ASan and UBSan stay on.
FUZZ_CRC_OBJS := $(BUILD)/fuzz/tests/fuzz/crc32_fast.o $(BUILD)/fuzz/tests/fuzz/crc32_reference.o
$(FUZZ_CRC_OBJS): FUZZ_CFLAGS += -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt
$(FUZZ_CRC_OBJS): tests/fuzz/coverage-ignore.txt
$(BUILD)/fuzz/tests/fuzz/crc32_reference.o: common/crc32.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Dcrc32_update=crc32_update_reference $(DEPFLAGS) -c $< -o $@

$(BUILD)/fuzz/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/tests/fuzz/fuzz_%.o $(FUZZ_CRC_OBJS) $(COMMON_FUZZ_LIB)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(FUZZ_LDLIBS) -o $@

# fuzz_sha256 compares common/sha256.c with OpenSSL's libcrypto (libssl-dev).
$(BUILD)/fuzz/fuzz_sha256: FUZZ_LDLIBS = -lcrypto

# fuzz_menu runs list's reader (tools/esp/bootmenu.c) beside the loaders' code: the installer's
# library built for libFuzzer too (tools/tools.mk is read after this file: its names are
# expanded when the rules run).
FUZZ_TOOLS_LIB := $(BUILD)/fuzz/tools/libanysector.a
$(BUILD)/fuzz/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Wno-format-zero-length $(TOOLS_DEFS) $(DEPFLAGS) -c $< -o $@
.SECONDEXPANSION:
$(FUZZ_TOOLS_LIB): $$(patsubst %.c,$(BUILD)/fuzz/%.o,$$(TOOLS_LIB_SRCS))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/fuzz/fuzz_menu: $(BUILD)/fuzz/tests/fuzz/fuzz_menu.o $(FUZZ_CRC_OBJS) $(FUZZ_TOOLS_LIB) \
		$(COMMON_FUZZ_LIB)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ $(TOOLS_LDLIBS) -o $@

.PHONY: test-fuzz fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)
test-fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh runs $(FUZZ_RUNS) $(FUZZ_BINS)
fuzz: $(FUZZ_LONG_BINS)
	@tests/fuzz/run.sh $(if $(FUZZ_TIME),time $(FUZZ_TIME),runs $(FUZZ_LONG_RUNS)) $(FUZZ_LONG_BINS)
TEST_SUITES += 30:test-fuzz
TEST_BUILD += $(FUZZ_BINS)
