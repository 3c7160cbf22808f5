#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs each test suite (make target) in order, keeps going after a failure, and ends with one
# summary line. A suite may write "pass=N fail=M skip=K" lines into $RESULTS/<target>; they are
# summed into the totals.
#
# Tests write only under $BUILD or temporary folders: each suite gets its own TMPDIR,
# $BUILD/suite-tmp/<target>, emptied after it. In a git checkout the run fails when the tree
# holds an untracked file afterwards that `git status` did not show before (what a test wrote
# beside the sources; changes to tracked files are left out, since people edit while tests run). SIGINT, SIGTERM or SIGHUP stop the running suite (its whole process group, which
# gets SIGTERM and, 20 s later, SIGKILL), remove its TMPDIR and still check the tree.
# A bg:target runs in the background from the start, beside the suites (work a later suite would
# otherwise do alone while a core sits idle: test-debian's package and Debian tarball), its own
# process group, TMPDIR $BUILD/suite-tmp/bg-<target> and output in $BUILD/test-background/.
# It counts for nothing: the suite that needs its work waits for it or does it again and reports.
# A signal stops it too; otherwise the runner waits for it before the summary.
# usage: run-suites.sh MAKE [bg:target...] NN:target...
set -u
make_cmd=$1
shift
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-$BUILD/test-results}
export BUILD RESULTS
rm -rf "$RESULTS" "$BUILD/suite-tmp" "$BUILD/test-background"
mkdir -p "$RESULTS"

# The untracked files `git status` lists, one a line, $BUILD left out when it is inside the
# tree (empty outside a git checkout: nothing to compare).
in_git=no
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=yes
tree_state() {
	[ $in_git = yes ] || return 0
	build_rel=$(realpath -m --relative-to=. "$BUILD")
	case $build_rel in
	..|../*) git status --porcelain --untracked-files=all -- . ;;
	*) git status --porcelain --untracked-files=all -- . ":(exclude)$build_rel" ;;
	esac | grep '^??' | LC_ALL=C sort
}
before=$RESULTS/.tree-before
tree_state > "$before"

# Prints the files the suites added to the tree; returns 1 when there is one.
tree_unchanged() {
	[ $in_git = yes ] || return 0
	tree_state > "$RESULTS/.tree-after"
	new=$(LC_ALL=C comm -13 "$before" "$RESULTS/.tree-after")
	[ -z "$new" ] && return 0
	echo "FAIL the suites left files in the source tree (tests write only under \$BUILD or TMPDIR):"
	printf '%s\n' "$new" | sed 's/^/  /'
	return 1
}

child=""
target=""
bg_jobs=""     # pid:target:start, one a word
# Stops the process group $1 (SIGTERM, SIGKILL 20 s later) and waits for it.
stop_group() {
	kill -TERM -"$1" 2>/dev/null
	(sleep 20; kill -KILL -"$1" 2>/dev/null) &
	guard=$!
	wait "$1"
	kill "$guard" 2>/dev/null
}
stop() {
	echo "=== interrupted (SIG$1) during suite ${target:-none}: stopping it"
	[ -n "$child" ] && stop_group "$child"
	[ -n "$target" ] && rm -rf "$BUILD/suite-tmp/$target"
	for j in $bg_jobs; do
		t=${j#*:}
		stop_group "${j%%:*}"
		rm -rf "$BUILD/suite-tmp/bg-${t%%:*}"
	done
	tree_unchanged
	exit "$2"
}
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
trap 'stop HUP 129' HUP

suites=""
for a in "$@"; do
	case $a in
	bg:*)
		t=${a#bg:}
		mkdir -p "$BUILD/suite-tmp/bg-$t" "$BUILD/test-background"
		log=$BUILD/test-background/$t.log
		echo "=== background $t started (its output: $log)"
		TMPDIR=$(cd "$BUILD/suite-tmp/bg-$t" && pwd) \
			setsid $make_cmd --no-print-directory "$t" >"$log" 2>&1 </dev/null &
		bg_jobs="$bg_jobs $!:$t:$(date +%s)"
		;;
	*) suites="$suites $a" ;;
	esac
done

failed=""
npass=0
nsuites=0
start_all=$(date +%s)
for s in $suites; do
	target=${s#*:}
	nsuites=$((nsuites + 1))
	echo "=== suite $target"
	t0=$(date +%s)
	# absolute: a suite runs the installer in other directories (test-crash in its case folders)
	mkdir -p "$BUILD/suite-tmp/$target"
	TMPDIR=$(cd "$BUILD/suite-tmp/$target" && pwd)
	export TMPDIR
	# its own session and process group, so that a signal stops the suite's every process
	setsid $make_cmd --no-print-directory "$target" &
	child=$!
	wait "$child"
	rc=$?
	child=""
	if [ $rc = 0 ]; then
		st=PASS
		npass=$((npass + 1))
		rm -rf "$TMPDIR"
	else
		st=FAIL
		failed="$failed $target"
	fi
	echo "=== suite $target: $st ($(( $(date +%s) - t0 ))s)"
done
target=""
for j in $bg_jobs; do
	t=${j#*:}
	wait "${j%%:*}"
	rc=$?
	took=$(( $(date +%s) - ${t#*:} ))
	t=${t%%:*}
	if [ $rc = 0 ]; then
		rm -rf "$BUILD/suite-tmp/bg-$t"
		echo "=== background $t: done (${took}s): $(tail -n 1 "$BUILD/test-background/$t.log")"
	else
		echo "=== background $t: exit $rc (${took}s; its output: $BUILD/test-background/$t.log)"
	fi
done
bg_jobs=""

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
tree_unchanged || failed="$failed (files-left-in-tree)"
echo "SUMMARY: suites $npass/$nsuites passed; tests pass=$tp fail=$tf skip=$tsk;" \
	"$(( $(date +%s) - start_all ))s${failed:+; FAILED:$failed}"
[ -z "$failed" ]
