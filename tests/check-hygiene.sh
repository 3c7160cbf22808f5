#!/bin/sh
# Source rules a compiler does not enforce:
#  1. no literal 512 above the block layer (common/, stage2/, efi/) except where a format defines
#     it — each allowed place is listed below with its reason;
#  2. common/ includes no system header but the three freestanding ones;
#  3. no struct cast over on-disk buffers in common/ ("(struct x *)buf" patterns).
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
common/gpt.c:512|REFERENCE.md worked numbers in comments only
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

[ -n "${RESULTS:-}" ] && echo "pass=$pass fail=$fail skip=0" > "$RESULTS/hygiene"
[ $fail = 0 ]
