# SPDX-License-Identifier: BSD-2-Clause
# Inputs checked before anything is written (tests/tools/test_inputs.py): names, titles,
# command lines, the files add copies, exit 64 with the image unchanged.
.PHONY: test-inputs
test-inputs: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_inputs.py
TEST_SUITES += 48:test-inputs
