# SPDX-License-Identifier: BSD-2-Clause
# Changes from a running system (tests/tools/test_live.py, root, loop devices): install, add,
# set-default, remove beside a mounted ext4; writes into mounted or held partitions refused; a
# mounted boot partition changed through its filesystem, the order of its durable steps (strace).
.PHONY: test-live-tools
test-live-tools: $(BUILD)/asan/tools/anysector $(PY_BOOTINFO)
	@BUILD=$(BUILD) python3 tests/tools/test_live.py
TEST_SUITES += 53:test-live-tools
