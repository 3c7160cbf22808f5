# Boot-time tests of stage1 (and stage2's self-check) under SeaBIOS: tests/stage1/run.py.
# A second stage1 build forces the CHS path, which SeaBIOS (having int 13h extensions) would
# otherwise never take.
STAGE1_CHS_BIN := $(BUILD)/tests/stage1/stage1-chs.bin

$(STAGE1_CHS_BIN): stage1/mbr.asm $(STAGE1_INC)
	@mkdir -p $(@D)
	$(Q)$(NASM) -f bin -DTEST_FORCE_CHS -I$(dir $(STAGE1_INC)) -o $@ $<

.PHONY: test-stage1
test-stage1: $(STAGE1_BIN) $(STAGE1_CHS_BIN) $(STAGE2_BIN)
	@python3 tests/stage1/run.py $(STAGE1_BIN) $(STAGE1_CHS_BIN) $(STAGE2_BIN) $(BUILD)/tests/stage1
TEST_SUITES += 60:test-stage1
