#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A leg that fails for a known reason outside the series (the "known"
# column of kunit/arches.tsv) is an expected failure, in the CI matrix and
# in scripts/run-arches.sh.  This check keeps the mark honest: the leg must
# still fail, and for that reason.
#
# Usage: known-failure.sh LEG [LEG_RESULTS]   (default: $IDA_KUNIT_RESULTS/LEG)
#        known-failure.sh --list              the known failures it can check
# Exits 0 when the leg failed the known way; 1 when it passed (the mark is
# stale: set the row's "known" column to "-") or failed another way; 2 on
# bad usage.
#
# The known failures, each with what makes it that one:
#   sh4-gcc-cmpeq           the kernel prints nothing (it hangs in the
#                           zImage's decompressor), and Debian 12's sh4
#                           compiler still drops the test of "x == 0" on a
#                           value it has just loaded
#                           (scripts/tools/sh4-cmpeq-check.sh)
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

KNOWN="sh4-gcc-cmpeq"
usage="usage: known-failure.sh LEG [LEG_RESULTS] | --list"

case "${1:-}" in
--list)	echo "$KNOWN"; exit 0 ;;
""|-*)	echo "error: $usage" >&2; exit 2 ;;
esac
[ $# -le 2 ] || { echo "error: $usage" >&2; exit 2; }
leg=$1
dir=$(abspath "${2:-$RESULTS/$leg}")
( arch_params "$leg" ) || exit 2
arch_params "$leg"
known=$KNOWN_FAILURE
[ "$known" != - ] || { echo "error: $leg has no known failure in $ARCH_TABLE" >&2; exit 2; }
[[ " $KNOWN " == *" $known "* ]] || { echo "error: $ARCH_TABLE names an unknown known failure '$known' for $leg" >&2; exit 2; }
[ -f "$dir/counts.json" ] || { echo "error: no results of $leg in $dir (no counts.json)" >&2; exit 1; }

# verdict and phase of the leg, from its counts.json
read -r verdict phase < <(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
print(c.get("verdict", "?"), c.get("phase") or "run")' "$dir/counts.json") ||
	{ echo "error: $dir/counts.json cannot be read" >&2; exit 1; }
if [ "$verdict" = PASS ]; then
	echo "error: $leg passed: its known failure '$known' is gone, set its \"known\" column in $ARCH_TABLE to -" >&2
	exit 1
fi

unexpected() {
	echo "error: $leg failed, but not as '$known' says: $*" >&2
	exit 1
}

case "$known" in
sh4-gcc-cmpeq)
	[ "$phase" = run ] || unexpected "it stopped in the $phase phase, before the boot"
	if grep -qs 'Linux version' "$dir/kernel.log"; then
		unexpected "the kernel printed its banner, so it got past the decompressor"
	fi
	"$REPO/scripts/install-deps.sh" sh4 || exit 1
	"$REPO/scripts/tools/sh4-cmpeq-check.sh" >"$dir/sh4-cmpeq-check.log" 2>&1
	rc=$?
	case $rc in
	1)	;;
	0)	unexpected "the compiler keeps the test now (see $dir/sh4-cmpeq-check.log)" ;;
	*)	unexpected "scripts/tools/sh4-cmpeq-check.sh could not run (see $dir/sh4-cmpeq-check.log)" ;;
	esac
	;;
esac
echo "$leg: known failure '$known', as expected"
