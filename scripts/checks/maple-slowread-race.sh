#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The maple tree's RCU tests of the userspace radix-tree harness with each
# slow reader's first read held back (kunit/harness/maple_slowread.c), as on
# a machine too busy to run the readers before the writer is done: the
# slow-reader test asserts that a reader saw the range before the first
# store changed it, and without the tree fix "maple_tree: Wait for a slow
# reader's first read in the RCU test" (kernel-patches/linux-<tree>-fixes)
# nothing makes the writer wait for one.
# Usage: maple-slowread-race.sh [--rev REV] [--delay US] [--expect-failure]
#   REV      the tree's revision to test (default: the series' branch, which
#            holds the tree fixes); "pristine" is Debian's source as it is
#   US       microseconds each slow reader's first sleep lasts (default
#            500000; 0 is the test as the harness's maple runs it)
# Builds in a scratch worktree of the tree.  Exits 0 when the tests passed,
# 1 when they failed, 2 when they could not run (a run that held back no
# reader tested nothing: that too, whatever the outcome).  With
# --expect-failure (the proof that
# the test can fail, on a tree without the fix): exits 0 when the slow-reader
# test failed its assertion, 1 when it did not.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

rev=$BRANCH delay=500000 expect=pass
while [ $# -gt 0 ]; do
	case "$1" in
	--expect-failure) expect=failure; shift; continue ;;
	--rev|--delay)
		[ $# -ge 2 ] || die "$1 needs a value"
		case "$1" in
		--rev) rev=$2 ;;
		--delay) delay=$2 ;;
		esac
		shift 2 ;;
	*) die "maple-slowread-race.sh: unknown argument '$1' (usage: maple-slowread-race.sh [--rev REV] [--delay US] [--expect-failure])" ;;
	esac
done
[[ "$delay" =~ ^[0-9]+$ ]] || die "maple-slowread-race.sh: '$delay' is not a number"
# The proof of failure keeps its results beside the passing run's.
out=$RESULTS/maple-slowread-race
[ "$expect" = pass ] || out=$out-without-fix
setup=$(harness_check_setup maple "$rev" "$out") || exit 2
read -r wt commit <<<"$setup"
dir=$wt/tools/testing/radix-tree
use_ccache
cp "$REPO/kunit/harness/maple_slowread.c" "$dir/" || exit 2
# The program includes maple.c, which make does not know: built anew.
rm -f "$dir/maple_slowread.o"
# Every object of the harness but maple.o: the program is maple.c itself.
objs=()
for o in $HARNESS_OBJS; do [ "$o" = maple.o ] || objs+=("$o"); done
(cd "$dir" && make -s CC="$CCACHE_CC gcc" generated/map-shift.h generated/bit-length.h &&
 make -s -j"$JOBS" CC="$CCACHE_CC gcc" "${objs[@]}" maple_slowread.o &&
 gcc -fsanitize=address -fsanitize=undefined -Wl,--wrap=usleep \
	-o maple-slowread maple_slowread.o "${objs[@]}" -lpthread -lurcu) \
	>"$out/build.log" 2>&1 || cannot_run "the test does not build (see $out/build.log)"

printf '#!/bin/sh\nexec ./maple-slowread %s\n' "$delay" >"$dir/run-slowread" && chmod +x "$dir/run-slowread"
read -r _ secs status < <(run_programs "$dir" "$out/run" 600 run-slowread)
rm -f "$dir/run-slowread"
log=$out/run-run-slowread.log
asserted=$(grep -o -m1 'run_check_rcu_slowread: Assertion[^.]*' "$log")
echo "maple-slowread-race: $(git -C "$SRC" log -1 --format='%h %s' "$commit"): exit $status in ${secs}s${asserted:+ ($asserted)}, each slow reader's first read ${delay} us late"
[ "$delay" = 0 ] || grep -q '^held back: ' "$log" ||
	cannot_run "no reader was held back: the wrapper did not take, nothing was tested (exit $status, see $log)"
if [ "$expect" = failure ]; then
	[ -n "$asserted" ] || die "the slow-reader test did not fail its assertion: the test did not catch the missing wait (see $log)"
	echo "maple-slowread-race: the missing wait is caught without the fix"
	exit 0
fi
[ "$status" = 0 ]
