# SPDX-License-Identifier: BSD-2-Clause
# anysector — top-level build.
# Each part keeps its rules beside it in a fragment (<dir>/<name>.mk) included below; fragments
# append to ALL_TARGETS (built by `all`), TEST_SUITES ("NN:target", run in NN order by `test`),
# TEST_BUILD (what a suite builds beyond `all`: `test` builds it with `all` first) and
# TEST_BACKGROUND (targets `test` starts beside the suites: work a later suite would do alone).
.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:

BUILD ?= build
export BUILD
ALL_TARGETS :=
TEST_SUITES :=
TEST_BUILD :=
TEST_BACKGROUND :=
# `make test` builds on every core at once, before the suites (which then find it all built):
# one compiler a core instead of one in all, the same objects.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_TARGETS :=

include mk/toolchain.mk
include common/common.mk
include $(sort $(filter-out mk/toolchain.mk common/common.mk,$(wildcard mk/*.mk */*.mk tests/*/*.mk tests/payload/*/*.mk)))

.PHONY: all deps test fuzz clean size run bench install
all: $(ALL_TARGETS)

# Installs missing Debian packages when root, else prints the exact apt-get command and stops.
deps:
	@tools/deps.sh ensure

# Every suite runs even when an earlier one fails; the last line is the summary.
test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) all $(TEST_BUILD)
	@tests/run-suites.sh "$(MAKE)" $(addprefix bg:,$(TEST_BACKGROUND)) $(sort $(TEST_SUITES))

clean:
	rm -rf $(BUILD)
