#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs each test suite (make target) in order, keeps going after a failure, and ends with one
# summary line. A suite may write "pass=N fail=M skip=K" lines into $RESULTS/<target>; they are
# summed into the totals.
# usage: run-suites.sh MAKE NN:target...
set -u
make_cmd=$1
shift
RESULTS=${RESULTS:-build/test-results}
export RESULTS
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

failed=""
npass=0
nsuites=0
start_all=$(date +%s)
for s in "$@"; do
	target=${s#*:}
	nsuites=$((nsuites + 1))
	echo "=== suite $target"
	t0=$(date +%s)
	if $make_cmd --no-print-directory "$target"; then
		st=PASS
		npass=$((npass + 1))
	else
		st=FAIL
		failed="$failed $target"
	fi
	echo "=== suite $target: $st ($(( $(date +%s) - t0 ))s)"
done

tp=0; tf=0; tsk=0
for f in "$RESULTS"/*; do
	[ -f "$f" ] || continue
	while read -r line; do
		case "$line" in pass=*)
			set -- $line
			tp=$((tp + ${1#pass=})); tf=$((tf + ${2#fail=})); tsk=$((tsk + ${3#skip=})) ;;
		esac
	done < "$f"
done
echo "SUMMARY: suites $npass/$nsuites passed; tests pass=$tp fail=$tf skip=$tsk;" \
	"$(( $(date +%s) - start_all ))s${failed:+; FAILED:$failed}"
[ -z "$failed" ]
