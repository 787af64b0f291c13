#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Does the sh4 cross compiler keep the test of "x == 0" on a value it has
# just loaded?  Debian 12's sh4-linux-gnu-gcc 12.2.0 does not: it emits the
# conditional branch (bt/bf, which test the T bit) without the tst or
# cmp/eq that sets T, so the branch goes whichever way an earlier
# instruction left T.  The sh4 leg's kernel hangs on it before its first
# console line: in the zImage's decompress_kernel(), gunzip() tests the
# input length that way, takes the "no input" path, gets -1 from nofill()
# and ends in error()'s endless loop, which prints nothing on this board.
#
# Usage: sh4-cmpeq-check.sh [CC]   (default: the sh4 row's cross compiler)
# Prints the function as compiled and one verdict line; exits 0 when the
# compiler keeps the test, 1 when it drops it, 2 when it cannot be run.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ $# -gt 0 ]; then
	cc=$1
else
	arch_params sh4 || exit 2
	cc=${CROSS}gcc
fi
command -v "$cc" >/dev/null || { echo "error: no compiler '$cc' (scripts/install-deps.sh sh4 installs it)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# The shape of gunzip()'s length test, with nothing else around it.
cat >"$tmp/cmpeq.c" <<'EOF'
extern int length;
int refill(void);
int too_short(void);

int check(void)
{
	int len = length;

	if (len == 0)
		len = refill();
	if (len < 10)
		return too_short();
	return 0;
}
EOF
# The kernel's options that matter here: -O2 and the sh4 without an FPU.
"$cc" -O2 -m4-nofpu -fno-delete-null-pointer-checks -S -o "$tmp/cmpeq.s" "$tmp/cmpeq.c" ||
	{ echo "error: $cc cannot compile the check" >&2; exit 2; }
body=$(sed -n '/^check:/,/^\.L[0-9]*:$/p' "$tmp/cmpeq.s")
echo "$body"
# Up to the first conditional branch, something must set T.
head=$(echo "$body" | sed -n '2,/\tb[tf]/p')
if echo "$head" | grep -q -E $'\t(tst|cmp/)'; then
	echo "$cc: keeps the test of len == 0 before the branch"
	exit 0
fi
echo "$cc: branches on the T bit with no tst or cmp/eq before it: wrong code for 'if (len == 0)'"
exit 1
