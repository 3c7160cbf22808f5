# SPDX-License-Identifier: BSD-2-Clause
# Objects are rebuilt when the compiler flags change, not only when sources do: every target
# depends on a stamp holding the flags, rewritten only when they differ. (A build made with
# other flags once linked stale -mregparm objects into the test payload.)
FLAGS_STAMP := $(BUILD)/flags.stamp
FLAGS_VARS = $(filter-out MAKEFLAGS GNUMAKEFLAGS MFLAGS,$(sort $(foreach v,$(filter %FLAGS,$(.VARIABLES)),$(if $(filter default automatic,$(origin $(v))),,$(v)))))
FLAGS_TEXT = $(foreach v,$(FLAGS_VARS),$(v)=$($(v)))

.EXTRA_PREREQS := $(FLAGS_STAMP)
$(FLAGS_STAMP): .EXTRA_PREREQS :=
# Every make runs this, and several run at once (make test's background job beside a suite):
# each writes a file of its own and renames it into place, so none removes another's.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@new=$@.new.$$$$; printf '%s\n' '$(subst ','\'',$(FLAGS_TEXT))' > $$new; \
	if cmp -s $$new $@; then rm -f $$new; else mv -f $$new $@; fi

.PHONY: FORCE
FORCE: .EXTRA_PREREQS :=
FORCE:
