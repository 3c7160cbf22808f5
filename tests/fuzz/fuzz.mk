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

# The CRC loop is pure arithmetic: no coverage callbacks in it (ASan and UBSan stay on).
$(BUILD)/fuzz/common/crc32.o: FUZZ_CFLAGS += -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt
$(BUILD)/fuzz/common/crc32.o: tests/fuzz/coverage-ignore.txt

$(BUILD)/fuzz/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/tests/fuzz/fuzz_%.o $(COMMON_FUZZ_LIB)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@

.PHONY: test-fuzz fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)
test-fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh runs $(FUZZ_RUNS) $(FUZZ_BINS)
fuzz: $(FUZZ_LONG_BINS)
	@tests/fuzz/run.sh $(if $(FUZZ_TIME),time $(FUZZ_TIME),runs $(FUZZ_LONG_RUNS)) $(FUZZ_LONG_BINS)
TEST_SUITES += 30:test-fuzz
