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
# usage: run-suites.sh MAKE NN:target...
set -u
make_cmd=$1
shift
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-$BUILD/test-results}
export BUILD RESULTS
rm -rf "$RESULTS" "$BUILD/suite-tmp"
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
stop() {
	echo "=== interrupted (SIG$1) during suite ${target:-none}: stopping it"
	if [ -n "$child" ]; then
		kill -TERM -"$child" 2>/dev/null
		(sleep 20; kill -KILL -"$child" 2>/dev/null) &
		guard=$!
		wait "$child"
		kill "$guard" 2>/dev/null
	fi
	[ -n "$target" ] && rm -rf "$BUILD/suite-tmp/$target"
	tree_unchanged
	exit "$2"
}
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
trap 'stop HUP 129' HUP

failed=""
npass=0
nsuites=0
start_all=$(date +%s)
for s in "$@"; do
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
