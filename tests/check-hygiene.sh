#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Source rules a compiler does not enforce:
#  1. no literal 512 above the block layer (common/, stage2/, efi/) except where a format defines
#     it — each allowed place is listed below with its reason;
#  2. common/ includes no system header but the three freestanding ones;
#  3. no struct cast over on-disk buffers in common/ ("(struct x *)buf" patterns);
#  4. every file a tracked file names exists in the tree;
#  5. no compiled Python tracked, harnesses share tests/lib;
#  6. every suite has its own number, and the tree quotes it right;
#  7. array lengths through ARRAY_SIZE;
#  8. every int function of tools/*/*.h says what it returns (tools/base/exit_codes.h's convention),
#     and one header's functions return one kind of code;
#  9. every source file (C, headers, linker script, asm, Python, shell, make) carries the
#     licence's SPDX line in its first two lines (LICENSE: BSD-2-Clause);
# 10. tests/run-suites.sh fails a run whose suites leave a file in the source tree, and a signal
#     stops the running suite and removes its TMPDIR (probes in a throwaway git repository);
# 11. every use between the layers of tools/ goes down, no include cycle, no export unused
#     (tests/check_layers.py);
# 12. functions of common/ and tools/ at most 100 lines, or a comment says why they are one piece
#     (tests/check_funclen.py);
# 13. tools/ makes its temporary files through tools/base/tempfile.c (temp_create locks them).
set -u
cd "$(dirname "$0")/.."
fail=0; pass=0

# file:regex  reason
ALLOW='
common/blockdev.c:sector_size < 512|the smallest logical sector any disk format allows
common/blockdev.h:512\.\.4096|documentation of the accepted range
common/blockdev.h:\[512, 65536\]|documentation of the accepted range
common/mbr.h:MBR_RECORD_SIZE 512|the MBR is a 512-byte record whatever the sector size
common/linux.h:LINUX_SETUP_SECTOR 512u|the Linux boot protocol counts setup in 512-byte units
common/fat.h:512\.\.4096|documentation of the BPB range
common/fat.c:FAT_MIN_SECTOR 512|the FAT spec sets the smallest BytsPerSec to 512
common/gpt.c:512|docs/FIRMWARE.md worked numbers in comments only
'

hits=$(grep -rnE '(^|[^0-9A-Za-z_.])512([^0-9]|$)' common stage2 efi 2>/dev/null \
	| grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//|;)' || true)
bad=""
IFS='
'
for h in $hits; do
	file=${h%%:*}
	text=$(printf '%s' "${h#*:*:}" | sed -E 's#/\*.*\*/##g; s#/\*.*$##; s#//.*$##')
	printf '%s' "$text" | grep -qE '(^|[^0-9A-Za-z_.])512([^0-9]|$)' || continue
	ok=0
	for a in $ALLOW; do
		[ -n "$a" ] || continue
		af=${a%%:*}; rest=${a#*:}; re=${rest%%|*}
		if [ "$file" = "$af" ] && printf '%s' "$text" | grep -qE "$re"; then ok=1; break; fi
	done
	[ $ok = 1 ] || bad="$bad
  $h"
done
unset IFS
if [ -n "$bad" ]; then
	echo "FAIL literal 512 above the block layer:$bad"; fail=$((fail + 1))
else
	echo "ok   no stray 512 in common/ stage2/ efi/"; pass=$((pass + 1))
fi

inc=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' common/*.c common/*.h \
	| grep -vE '<(stdint|stddef|stdbool)\.h>' || true)
if [ -n "$inc" ]; then
	echo "FAIL common/ includes a system header beyond stdint/stddef/stdbool:"; echo "$inc"
	fail=$((fail + 1))
else
	echo "ok   common/ is freestanding"; pass=$((pass + 1))
fi

casts=$(grep -nE '\(\s*(const\s+)?struct\s+[a-z_0-9]+\s*\*\s*\)\s*(buf|raw|rec|sector|data|p)\b' common/*.c || true)
if [ -n "$casts" ]; then
	echo "FAIL struct cast over a buffer in common/:"; echo "$casts"; fail=$((fail + 1))
else
	echo "ok   no struct casts over on-disk buffers in common/"; pass=$((pass + 1))
fi

# 4. Every file of the tree that a tracked file names is in the tree (tests/check_refs.py says
#    what counts as a name and what is skipped: build outputs, run-time paths, URLs); nothing
#    points outside it into a shared directory, and a document's section named after it is a
#    heading there. First a file with four bad references (written here in pieces, so this file
#    does not name them) must fail it: the check cannot quietly pass everything.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files)
else
	files=$(find . -path ./build -prune -o -type f -print | sed 's#^\./##')
fi
probe=$(mktemp -d)
printf '/* %s, %s, %s, %s, %s */\n' 'DESIGN.m''d' '..''/shared/notes.txt' 'tests''/no/such_file.c' \
	'tests/check_refs.py' 'docs''/DESIGN.m''d "No such ''section"' > "$probe/refs.c"
seen=$(python3 tests/check_refs.py "$probe/refs.c" | wc -l)
rm -rf "$probe"
missing=$(printf '%s\n' "$files" | xargs python3 tests/check_refs.py)
if [ "$seen" != 4 ]; then
	echo "FAIL tests/check_refs.py found $seen of the 4 bad references in its probe"
	fail=$((fail + 1))
elif [ -n "$missing" ]; then
	echo "FAIL files name files that are not in the tree:"; echo "$missing"; fail=$((fail + 1))
else
	echo "ok   every file named in the tree exists (and the check finds a bad name)"
	pass=$((pass + 1))
fi

# 5. The Python harnesses share tests/lib (tests/lib/README.md): no compiled Python is tracked,
#    and a harness puts only tests/ (the library's parent, reached by going up) on its path,
#    never another harness's directory.
pyc=$(printf '%s\n' "$files" | grep -E '(^|/)__pycache__/|\.pyc$' || true)
paths=$(grep -rnE 'sys\.path\.(insert|append)' tests --include='*.py' \
	| grep -vE '"\.\."(, "\.\.")*\)\)$' || true)
if [ -n "$pyc$paths" ]; then
	echo "FAIL compiled Python tracked, or a harness path that is not tests/:"
	printf '%s\n' $pyc "$paths" | sed '/^$/d; s/^/  /'
	fail=$((fail + 1))
else
	echo "ok   no .pyc tracked; harnesses import other directories only through tests/lib"
	pass=$((pass + 1))
fi

# 6. Suite numbers: `make test` runs the suites sorted by the NN of "NN:target" in TEST_SUITES
#    (a text sort, so always two digits); two suites with one number have no defined order and
#    a number quoted in the tree ("`make test-x` (suite NN", docs/TESTING.md's table) that is not the
#    suite's own sends a reader to the wrong place.
suites=$(printf '%s\n' "$files" | grep -E '(^|/)Makefile$|\.mk$' | python3 -c '
import re, sys
files = sys.stdin.read().split()
num, bad = {}, []
for path in files:
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if not re.match(r"\s*TEST_SUITES\s*\+=", line):
            continue
        for tok in line.split("+=", 1)[1].split():
            m = re.fullmatch(r"(\d\d):(test-[a-z0-9-]+)", tok)
            if not m:
                bad.append(f"  {path}:{n}: {tok} is not NN:test-name (two digits)")
                continue
            nn, target = m.groups()
            if target in num:
                bad.append(f"  {path}:{n}: {target} is listed twice")
            for t, (k, where) in num.items():
                if k == nn:
                    bad.append(f"  {path}:{n}: {target} has number {nn}, as {t} has ({where})")
            num[target] = (nn, f"{path}:{n}")
print("\n".join(bad))
print("@@" + " ".join(f"{t}={k}" for t, (k, _) in num.items()))
')
known=$(printf '%s\n' "$suites" | sed -n 's/^@@//p')
dups=$(printf '%s\n' "$suites" | grep -v '^@@' | sed '/^$/d' || true)
quoted=$(printf '%s\n' "$files" | python3 -c '
import re, sys
known = dict(kv.split("=") for kv in sys.argv[1].split())
pat = re.compile(r"(" + "|".join(re.escape(t) for t in sorted(known, key=len, reverse=True))
                 + r")(?![a-z0-9-])|\bsuite (\d+)\b|^\| (\d+) \| `(test-[a-z0-9-]+)`")
for path in sys.stdin.read().split():
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    for n, line in enumerate(text.splitlines(), 1):
        last = None
        for m in pat.finditer(line):
            if m.group(4):
                t, nn = m.group(4), m.group(3)
            elif m.group(1):
                last = m.group(1)
                continue
            else:
                t, nn = last, m.group(2)
            if t and t in known and known[t] != nn:
                print(f"  {path}:{n}: {t} is suite {known[t]}, not {nn}")
            elif t and t not in known:
                print(f"  {path}:{n}: {t} is not a suite in TEST_SUITES")
' "$known")
if [ -n "$dups$quoted" ]; then
	echo "FAIL suite numbers not unique, or quoted wrongly:"
	printf '%s\n' "$dups" "$quoted" | sed '/^$/d'
	fail=$((fail + 1))
else
	echo "ok   every suite has its own two-digit number, quoted right wherever it is quoted"
	pass=$((pass + 1))
fi

# 7. An array's length is common/bits.h's ARRAY_SIZE, not a hand-written sizeof quotient.
arr=$(printf '%s\n' "$files" | grep -E '\.(c|h)$' | grep -vxF common/bits.h \
	| xargs grep -nE 'sizeof[[:space:]]*\(?[[:space:]]*[A-Za-z_][A-Za-z0-9_.>-]*[[:space:]]*\)?[[:space:]]*/[[:space:]]*sizeof' \
	|| true)
if [ -n "$arr" ]; then
	echo "FAIL an array length written by hand (use ARRAY_SIZE from common/bits.h):"
	printf '%s\n' "$arr" | sed 's/^/  /'
	fail=$((fail + 1))
else
	echo "ok   array lengths through ARRAY_SIZE"
	pass=$((pass + 1))
fi

# 8. tools/base/exit_codes.h's return convention is stated at every int function of tools/*/*.h: the
#    comment block right above it (or above its group of declarations) says what it returns
#    ("Returns 0 or an exit code", "an AS_* code", "or -1", "Each returns ...", "The same ...");
#    and the functions of one header return one kind of code: exit codes or AS_* codes, not both.
undoc=$(python3 - tools/*/*.h <<'PY'
import re, sys
for h in sys.argv[1:]:
    lines = open(h).read().split("\n")
    kinds = {}
    for i, line in enumerate(lines):
        m = re.match(r"(?:typedef )?int \(?\*?(\w+)\)?\(", line)
        if not m:
            continue
        j, block = i - 1, []
        while j >= 0 and lines[j].strip():
            block.append(lines[j])
            j -= 1
        said = " ".join(block)
        if not re.search(r"[Rr]eturn|exit code|AS_[A-Z]|-1\b|The same", said):
            print(f"  {h}:{i + 1}: {m.group(1)}")
        if re.search(r"exit code|EXIT_", said):
            kinds.setdefault("an exit code", m.group(1))
        if re.search(r"AS_[A-Z]", said):
            kinds.setdefault("an AS_* code", m.group(1))
    if len(kinds) > 1:
        print(f"  {h}: " + " but ".join(f"{f} returns {k}" for k, f in kinds.items())
              + " (one kind of code per header)")
PY
)
if [ -n "$undoc" ]; then
	echo "FAIL int functions of tools/ that do not say what they return, or headers that mix" \
		"kinds (tools/base/exit_codes.h):"
	echo "$undoc"; fail=$((fail + 1))
else
	echo "ok   every int function of tools/*/*.h says what it returns, one kind of code per header"
	pass=$((pass + 1))
fi

# 9. The licence line: every source file names BSD-2-Clause (LICENSE) in its first two lines
#    (the second after a #! line). A source file is C, a header, the linker script, NASM,
#    Python, shell, make, or any tracked executable text file. First a probe file without it
#    must be caught, so the check cannot pass everything.
spdx_missing() {
	for f in "$@"; do
		head -c 2 "$f" 2>/dev/null | grep -q . || continue
		head -n 2 "$f" | grep -qE '^(/\*|#|;) SPDX-License-Identifier: BSD-2-Clause( \*/)?$' \
			|| printf '  %s\n' "$f"
	done
}
probe=$(mktemp -d)
printf '#!/bin/sh\n# no licence line here\n' > "$probe/probe.sh"
caught=$(spdx_missing "$probe/probe.sh")
rm -rf "$probe"
srcs=$(printf '%s\n' "$files" | while read -r f; do
	case "$f" in
	*.c|*.h|*.ld|*.asm|*.py|*.sh|*.mk|Makefile|*/Makefile|debian/rules) echo "$f" ;;
	*) [ -f "$f" ] && [ -x "$f" ] && head -c 2 "$f" | grep -q '#!' && echo "$f" ;;
	esac
done)
nolic=$(spdx_missing $srcs)
if [ -z "$caught" ]; then
	echo "FAIL the licence check does not catch a file without its SPDX line"; fail=$((fail + 1))
elif [ -n "$nolic" ]; then
	echo "FAIL source files without 'SPDX-License-Identifier: BSD-2-Clause' in their first two lines:"
	echo "$nolic"; fail=$((fail + 1))
elif [ ! -f LICENSE ] || ! grep -q 'BSD 2-Clause License' LICENSE; then
	echo "FAIL LICENSE is missing or is not the BSD 2-Clause licence"; fail=$((fail + 1))
else
	echo "ok   every source file carries the BSD-2-Clause SPDX line; LICENSE holds the text"
	pass=$((pass + 1))
fi

# 10. Tests write only under $BUILD or TMPDIR. tests/run-suites.sh compares `git status` before
#     and after the suites; these probes run it in a throwaway git repository with a stand-in
#     for make: a suite writing a file beside the sources must fail the run and be named, one
#     writing into its TMPDIR passes (its TMPDIR then removed, and $BUILD inside the tree does
#     not count), a background job (bg:target) runs beside the suites and its TMPDIR is removed
#     after it, and SIGTERM to the runner must reach a sleeping suite and a sleeping background
#     job and their whole process groups, remove their TMPDIRs and exit 143.
suites_probe() {
	top=$(pwd); repo=$1
	git -C "$repo" init -q && echo x > "$repo/tracked" && git -C "$repo" add tracked \
		&& git -C "$repo" -c user.name=probe -c user.email=probe@invalid commit -qm probe \
		|| { echo "cannot make a git repository"; return; }
	cat > "$repo/fake-make" <<'EOF_MAKE'
#!/bin/sh
case $2 in
tmp) echo x > "$TMPDIR/scratch" && echo x > "$BUILD/out" ;;
leave) echo x > left-behind ;;
sleep|bgsleep) trap 'echo x > "$BUILD/$2-got-term"; exit 143' TERM
	echo x > "$TMPDIR/scratch"; sleep 60 & echo $! > "$BUILD/$2.pid"; wait ;;
bgtmp) sleep 1; echo x > "$TMPDIR/scratch" && echo x > "$BUILD/bg-out" ;;
esac
EOF_MAKE
	chmod +x "$repo/fake-make"
	# always in a subshell ($(...) or &), which the runner then replaces: $! is the runner
	runs() { cd "$repo" && exec env -u RESULTS BUILD=build "$top/tests/run-suites.sh" ./fake-make "$@"; }
	out=$(runs 01:tmp 2>&1) || { echo "a clean run failed: $out"; return; }
	[ -e "$repo/build/suite-tmp/tmp" ] && { echo "a passed suite's TMPDIR is left"; return; }
	out=$(runs bg:bgtmp 01:tmp 2>&1) || { echo "a clean run with a background job failed: $out"; return; }
	case $out in *"=== background bgtmp: done"*) ;;
	*) echo "the background job's end is not shown: $out"; return ;; esac
	[ -e "$repo/build/bg-out" ] || { echo "the background job did not run"; return; }
	[ -e "$repo/build/suite-tmp/bg-bgtmp" ] && { echo "a background job's TMPDIR is left"; return; }
	out=$(runs 01:tmp 02:leave 2>&1) && { echo "a run leaving left-behind passed: $out"; return; }
	case $out in *"left files in the source tree"*left-behind*) ;;
	*) echo "a run leaving left-behind does not name it: $out"; return ;; esac
	rm -f "$repo/left-behind"
	runs bg:bgsleep 01:sleep >/dev/null 2>&1 &
	runner=$!
	n=0
	while { [ ! -s "$repo/build/sleep.pid" ] || [ ! -s "$repo/build/bgsleep.pid" ]; } \
		&& [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	kill -TERM $runner
	wait $runner
	rc=$?
	[ $rc = 143 ] || { echo "SIGTERM: the runner exited $rc, want 143"; return; }
	for who in sleep bgsleep; do
		sleeper=$(cat "$repo/build/$who.pid" 2>/dev/null)
		[ -n "$sleeper" ] || { echo "the sleeping $who did not start"; return; }
		n=0  # it may still be a zombie for a moment, which kill -0 finds
		while kill -0 "$sleeper" 2>/dev/null && [ $n -lt 20 ]; do sleep 0.1; n=$((n + 1)); done
		kill -0 "$sleeper" 2>/dev/null \
			&& { kill "$sleeper"; echo "SIGTERM left $who's process $sleeper running"; return; }
		[ -e "$repo/build/$who-got-term" ] || { echo "$who was not sent SIGTERM"; return; }
	done
	[ -e "$repo/build/suite-tmp/sleep" ] && { echo "SIGTERM left the suite's TMPDIR"; return; }
	[ -e "$repo/build/suite-tmp/bg-bgsleep" ] && { echo "SIGTERM left the background job's TMPDIR"; return; }
	return 0
}
if ! command -v git >/dev/null 2>&1; then
	echo "ok   (skipped: no git) a suite run leaves nothing in the tree"; pass=$((pass + 1))
else
	repo=$(mktemp -d)
	why=$(suites_probe "$repo")
	rm -rf "$repo"
	if [ -z "$why" ]; then
		echo "ok   tests/run-suites.sh fails a run that leaves a file in the tree; a signal stops a suite and a background job"
		pass=$((pass + 1))
	else
		echo "FAIL tests/run-suites.sh's tree check or signal handling: $why"; fail=$((fail + 1))
	fi
fi

# 11. The layers of tools/ (tests/check_layers.py, docs/DESIGN.md "The map of tools/"). First a
#     copy of tools/ with a reversed include, a cycle and an export nobody uses must fail it on
#     each, so the check cannot pass everything.
probe=$(mktemp -d)
cp -r tools "$probe/tools"
printf '#include "tools/cmd/cli.h"\n' >> "$probe/tools/base/util.c"
printf '#include "tools/base/json.h"\n' >> "$probe/tools/base/run.c"
printf '#include "tools/base/run.h"\n' >> "$probe/tools/base/json.c"
printf 'int layers_probe_unused(void) { return 0; }\n' >> "$probe/tools/base/json.c"
faults='^layer: tools/base/util.c includes tools/cmd/cli|^cycle: .*tools/base/json'
faults="$faults|layers_probe_unused is exported"
caught=$(python3 tests/check_layers.py "$probe" | grep -cE "$faults")
rm -rf "$probe"
layers=$(python3 tests/check_layers.py .)
if [ "$caught" != 3 ]; then
	echo "FAIL tests/check_layers.py found $caught of the 3 faults in its probe"; fail=$((fail + 1))
elif [ -n "$layers" ]; then
	echo "FAIL tools/ layers (tests/check_layers.py):"; printf '%s\n' "$layers" | sed 's/^/  /'
	fail=$((fail + 1))
else
	echo "ok   tools/ layers: every use goes down, no cycle, no export unused (and the check finds each)"
	pass=$((pass + 1))
fi

# 12. Functions of common/ and tools/ at most 100 lines (tests/check_funclen.py). First a probe
#     tree with a 101-line function must fail it, and pass once a "One piece:" comment says why.
probe=$(mktemp -d)
mkdir -p "$probe/tools/x"
{ printf 'int probe_long(void)\n{\n'; i=0; while [ $i -lt 99 ]; do printf '\tprobe();\n'; i=$((i + 1)); done
  printf '}\n'; } > "$probe/tools/x/long.c"
long_caught=$(python3 tests/check_funclen.py "$probe" | grep -c 'probe_long is 101 lines')
{ printf '/* One piece: a probe. */\n'; cat "$probe/tools/x/long.c"; } > "$probe/tools/x/long2.c"
rm "$probe/tools/x/long.c"
python3 tests/check_funclen.py "$probe" >/dev/null && marked_ok=1 || marked_ok=0
rm -rf "$probe"
long=$(python3 tests/check_funclen.py .)
if [ "$long_caught" != 1 ] || [ "$marked_ok" != 1 ]; then
	echo "FAIL tests/check_funclen.py: probe of 101 lines caught $long_caught times, passed with its reason: $marked_ok"
	fail=$((fail + 1))
elif [ -n "$long" ]; then
	echo "FAIL functions longer than 100 lines:"; printf '%s\n' "$long" | sed 's/^/  /'
	fail=$((fail + 1))
else
	echo "ok   every function of common/ and tools/ is at most 100 lines or says why it is one piece"
	pass=$((pass + 1))
fi

# 13. The installer makes its temporary files only through tools/base/tempfile.c, which locks each
#     one: the next run removes every unlocked $TMPDIR/anysector-KIND-XXXXXX as a killed run's, so
#     one made by a bare mkstemp could vanish while in use. (espdir_write.c's temporary name lives
#     beside its target on a mounted ESP, not in $TMPDIR.)
bare=$(grep -rnE '\bmk(o?s)?temps?\(' tools --include=*.c | grep -vE '^tools/base/tempfile\.c:|^tools/esp/espdir_write\.c:.*mkstemp\(tmp\)' || true)
if [ -n "$bare" ]; then
	echo "FAIL a temporary file made around tools/base/tempfile.c (temp_create locks it):"
	printf '%s\n' "$bare" | sed 's/^/  /'
	fail=$((fail + 1))
else
	echo "ok   tools/ makes its temporary files through tools/base/tempfile.c"
	pass=$((pass + 1))
fi

[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=0" > "$RESULTS/hygiene"
[ $fail = 0 ]
