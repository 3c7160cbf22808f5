# SPDX-License-Identifier: BSD-2-Clause
# Hostile inputs to the installer (suite 45): a corpus of damaged and adversarial disk images built
# by tests/hostile/corpus.py, each run through the ASan+UBSan anysector: exit 2, the sentence
# naming what is wrong and where, no sanitizer report, the image's SHA-256 unchanged.
.PHONY: test-hostile
test-hostile: $(BUILD)/asan/tools/anysector $(BUILD)/tests/lib/bootinfo_h.py
	@BUILD=$(BUILD) python3 tests/hostile/run.py
TEST_SUITES += 45:test-hostile

# Existing content (suite 46): disks holding other tools' tables and filesystems, whole and inside
# the region install writes, refused without --force and erased with it (tests/hostile/foreign.py;
# the source images are cached in $(BUILD)/test-data/foreign).
.PHONY: test-hostile-foreign
test-hostile-foreign: $(BUILD)/asan/tools/anysector $(BUILD)/tests/lib/bootinfo_h.py
	@BUILD=$(BUILD) python3 tests/hostile/foreign.py
TEST_SUITES += 46:test-hostile-foreign
