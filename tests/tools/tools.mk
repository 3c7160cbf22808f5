# Installer tests: image files (suite 40) and loop devices cross-checked against sfdisk, sgdisk,
# fsck.fat and the kernel (suite 50, root). Both use the ASan+UBSan build of anysector.
# (tools/tools.mk sorts after this file, so the binary is named here by its path.)
.PHONY: test-tools test-loop-tools
test-tools: $(BUILD)/asan/tools/anysector
	@BUILD=$(BUILD) python3 tests/tools/test_tools.py
test-loop-tools: $(BUILD)/asan/tools/anysector
	@BUILD=$(BUILD) python3 tests/tools/test_loop.py
TEST_SUITES += 40:test-tools 50:test-loop-tools

# cmocka tests of the installer's own logic, linked with the objects they exercise.
TOOLS_UNIT_OBJS = $(addprefix $(BUILD)/asan/tools/,layout.o report.o util.o fatfmt.o run.o \
	hostdev.o mounts.o)
UNIT_EXTRA_tools_layout = $(TOOLS_UNIT_OBJS)
UNIT_EXTRA_tools_journal = $(addprefix $(BUILD)/asan/tools/,journal.o plan.o hostdev.o mounts.o \
	report.o util.o)
UNIT_EXTRA_tools_cli = $(BUILD)/asan/tools/cli.o $(TOOLS_UNIT_OBJS)
