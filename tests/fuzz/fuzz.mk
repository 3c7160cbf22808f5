# libFuzzer targets: tests/fuzz/fuzz_<name>.c, seed corpus in tests/fuzz/corpus/<name>/.
# `make test` runs each for FUZZ_RUNS executions; `make fuzz` for FUZZ_TIME seconds each.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_RUNS ?= 20000
FUZZ_TIME ?= 120

$(BUILD)/fuzz/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/tests/fuzz/fuzz_%.o $(COMMON_FUZZ_LIB)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@

.PHONY: test-fuzz fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)
test-fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh runs $(FUZZ_RUNS) $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh time $(FUZZ_TIME) $(FUZZ_BINS)
TEST_SUITES += 30:test-fuzz
