#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs each libFuzzer binary over its seed corpus (copied, so the repository is never written)
# for a number of runs or seconds. Any crash, leak, timeout or sanitizer report fails the suite;
# the reproducer is kept under $BUILD/fuzz/artifacts. Each line says the executions, the seconds
# and the speed, for tests/fuzz/README.md.
# usage: run.sh runs|time N fuzzer...
set -u
mode=$1; n=$2; shift 2
pass=0; fail=0
art=${BUILD:-build}/fuzz/artifacts
mkdir -p "$art"
for bin in "$@"; do
	name=$(basename "$bin"); name=${name#fuzz_}
	work=$(mktemp -d)
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	if [ "$mode" = runs ]; then lim="-runs=$n"; else lim="-max_total_time=$n"; fi
	log="$art/$name.log"
	start=$(date +%s)
	# max_len: a 64 KiB image plus fuzz_gpt's mode byte
	if "$bin" "$lim" -timeout=10 -rss_limit_mb=2048 -max_len=65537 -artifact_prefix="$art/$name-" \
		-print_final_stats=1 "$work" >"$log" 2>&1; then
		secs=$(($(date +%s) - start))
		runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
		echo "ok   fuzz $name ($runs runs, ${secs} s, $((runs / (secs > 0 ? secs : 1))) exec/s)"
		pass=$((pass + 1))
	else
		echo "FAIL fuzz $name: see $log"; tail -n 30 "$log"
		fail=$((fail + 1))
	fi
	rm -rf "$work"
done
[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=0" > "$RESULTS/fuzz"
[ $fail = 0 ]
