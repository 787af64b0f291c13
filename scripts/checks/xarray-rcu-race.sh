#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The XArray's iteration test in the userspace radix-tree harness with the
# writer held up after each call_rcu() (kunit/harness/xa_rcu_race.c): a node
# handed to call_rcu() while still linked is freed under a reader, which
# AddressSanitizer reports.  The tree fix "xarray: Unlink a node before
# handing it to call_rcu()" (kernel-patches/linux-<tree>-fixes) closes it.
# Usage: xarray-rcu-race.sh [--rev REV] [--runs N] [--delay US] [--seconds S]
#                           [--expect-failure]
#   REV      the tree's revision to test (default: the series' branch, which
#            holds the tree fixes); "pristine" is Debian's source as it is
#   N        runs of the test, two at a time (default 4)
#   US       microseconds the writer sleeps after each call_rcu() (default
#            2000; 0 is the harness's own iteration test, as main runs it)
#   S        seconds each run lasts (default 5)
# Builds in a scratch worktree of the tree.  Prints how many runs failed;
# exits 0 when none did, 1 when one did, 2 when the test could not run (a
# run that held up no call_rcu() tested nothing: that too).  With
# --expect-failure (the proof that the test can fail, on a tree without the
# fix): exits 0 when a run failed with AddressSanitizer's use-after-free,
# 1 when none did.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

rev=$BRANCH runs=4 delay=2000 seconds=5 expect=pass
while [ $# -gt 0 ]; do
	case "$1" in
	--expect-failure) expect=failure; shift; continue ;;
	--rev|--runs|--delay|--seconds)
		[ $# -ge 2 ] || die "$1 needs a value"
		case "$1" in
		--rev) rev=$2 ;;
		--runs) runs=$2 ;;
		--delay) delay=$2 ;;
		--seconds) seconds=$2 ;;
		esac
		shift 2 ;;
	*) die "xarray-rcu-race.sh: unknown argument '$1' (usage: xarray-rcu-race.sh [--rev REV] [--runs N] [--delay US] [--seconds S] [--expect-failure])" ;;
	esac
done
for v in "$runs" "$delay" "$seconds"; do
	[[ "$v" =~ ^[0-9]+$ ]] || die "xarray-rcu-race.sh: '$v' is not a number"
done
# The proof of failure keeps its results beside the passing run's.
out=$RESULTS/xarray-rcu-race
[ "$expect" = pass ] || out=$out-without-fix
setup=$(harness_check_setup race "$rev" "$out") || exit 2
read -r wt commit <<<"$setup"
dir=$wt/tools/testing/radix-tree
use_ccache
cp "$REPO/kunit/harness/xa_rcu_race.c" "$dir/" || exit 2
read -r -a objs <<<"$HARNESS_OBJS"
(cd "$dir" && make -s CC="$CCACHE_CC gcc" generated/map-shift.h generated/bit-length.h &&
 make -s -j"$JOBS" CC="$CCACHE_CC gcc" "${objs[@]}" iteration_check.o xa_rcu_race.o &&
 gcc -fsanitize=address -fsanitize=undefined -Wl,--wrap=urcu_memb_call_rcu \
	-o xa-rcu-race xa_rcu_race.o iteration_check.o "${objs[@]}" -lpthread -lurcu) \
	>"$out/build.log" 2>&1 || cannot_run "the test does not build (see $out/build.log)"

progs=()
for ((i = 1; i <= runs; i++)); do
	printf '#!/bin/sh\nexec ./xa-rcu-race %s %s\n' "$delay" "$seconds" >"$dir/run-$i" && chmod +x "$dir/run-$i"
	progs+=("run-$i")
done
failed=0 uaf=0 untested=0
while read -r prog _ status; do
	if [ "$status" = 2 ] && grep -q 'did not take' "$out/run-$prog.log"; then
		untested=$((untested + 1))
	elif [ "$status" != 0 ]; then
		failed=$((failed + 1))
		grep -q 'ERROR: AddressSanitizer: heap-use-after-free' "$out/run-$prog.log" && uaf=$((uaf + 1))
		echo "$prog failed (exit $status): $(grep -m1 -E 'ERROR: AddressSanitizer|runtime error' "$out/run-$prog.log" || tail -n 1 "$out/run-$prog.log")"
	fi
done < <(run_programs "$dir" "$out/run" $((seconds + 120)) "${progs[@]}")
rm -f "$dir"/run-[0-9]*
echo "xarray-rcu-race: $(git -C "$SRC" log -1 --format='%h %s' "$commit"): $failed of $runs runs failed, $uaf with a use-after-free ($seconds s each, ${delay} us after each call_rcu())"
[ "$untested" -eq 0 ] || cannot_run "$untested of $runs runs held up no call_rcu(): the wrapper did not take, nothing was tested"
if [ "$expect" = failure ]; then
	[ "$uaf" -gt 0 ] || die "no run failed with a use-after-free: the test did not catch the race"
	echo "xarray-rcu-race: the race is caught without the fix"
	exit 0
fi
[ "$failed" -eq 0 ]
