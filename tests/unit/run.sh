#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs cmocka test programs, prints their output, and totals passed/failed/skipped tests.
set -u
pass=0; fail=0; skip=0; broken=""
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n1)
	s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -n1)
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
	if [ $rc != 0 ] && [ -z "$f" ]; then
		broken="$broken $(basename "$t")"; fail=$((fail + 1))
	fi
done
echo "unit: pass=$pass fail=$fail skip=$skip${broken:+ crashed:$broken}"
[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=$skip" > "$RESULTS/unit"
[ $fail = 0 ]
