#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The userspace radix-tree harness on the patched tree: build every target
# of tools/testing/radix-tree and run each of them: idr-test (which runs the
# IDA KUnit suite through tools/testing/shared/kunit/test.h), multiorder
# and xarray as many at a time as there are CPUs, then main and maple each
# on its own.  A pass is kept under a key of the tree, this script, scripts/lib.sh
# (which runs the programs) and the compiler, so that a rerun on the same
# tree does not spend minutes on main and maple again.
#
# Usage: radix-tree-test.sh [--working-tree]
#   --working-tree  test the files as they are, uncommitted changes included,
#                   and keep no pass (scripts/tools/mutate.py, whose mutant is
#                   an uncommitted change)
# Exit: 0 every target passed, 1 a target failed or did not build, 2 the
# harness could not be run at all.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

working=
case "${1-}" in
'') ;;
--working-tree) working=1 ;;
*) echo "error: radix-tree-test.sh: unknown option '$1'" >&2; exit 2 ;;
esac
# Setup problems are not test failures: exit 2 for those.
cannot() { echo "error: $*" >&2; exit 2; }

"$REPO/scripts/install-deps.sh" build checks || exit 2
dir=$SRC/tools/testing/radix-tree
[ -d "$dir" ] || cannot "no radix-tree harness in $SRC"
tree=$(git -C "$SRC" rev-parse -q --verify "HEAD^{tree}") || cannot "no git tree in $SRC"
[ -n "$working" ] || [ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] ||
	cannot "$SRC has uncommitted changes: the harness would not test the branch (--working-tree tests them)"
store=$CACHE/radix-tree-results
mkdir -p "$RESULTS" || cannot "cannot create $RESULTS"
key=$({ echo "$tree"; cat "$0" "$REPO/scripts/lib.sh" | sha256sum; gcc --version; } | sha256sum | cut -c1-32)
if [ -z "$working" ] && [ -f "$store/$key" ]; then
	echo "radix-tree: every target passed on this tree before ($(cat "$store/$key")); kept: ${key:0:12}"
	exit 0
fi
use_ccache
make -s -C "$dir" -j"$JOBS" CC="$CCACHE_CC gcc" >/dev/null || die "the radix-tree targets do not all build"
failed=()
times=()
# idr-test, xarray and multiorder side by side, then main and maple each on
# its own: their threaded tests are the ones a busy machine disturbs most.
# (maple's slow-reader RCU test failed once beside another program on
# Debian's source, as its writer did not wait for a reader's first read:
# the tree fix "maple_tree: Wait for a slow reader's first read in the RCU
# test" closes it, and checks/maple-slowread-race.sh shows it every time
# without that fix.  main's ASan use-after-free in iteration_check.c, now
# and then on Debian's source, is the XArray's: the tree fix "xarray:
# Unlink a node before handing it to call_rcu()" closes it, and
# checks/xarray-rcu-race.sh shows it every time without that fix.)
while read -r prog secs rc; do
	if [ "$rc" != 0 ]; then
		failed+=("$prog")
		echo "radix-tree: $prog FAILED (see $RESULTS/radix-tree-$prog.log)" >&2
	fi
	times+=("$prog ${secs}s")
done < <(run_programs "$dir" "$RESULTS/radix-tree" 1800 idr-test xarray multiorder
	 run_programs "$dir" "$RESULTS/radix-tree" 1800 main
	 run_programs "$dir" "$RESULTS/radix-tree" 1800 maple)
[ ${#failed[@]} -eq 0 ] || die "radix-tree: ${failed[*]} failed"
[ -n "$working" ] || { mkdir -p "$store" && echo "${times[*]}" >"$store/$key"; }
echo "radix-tree: every target passed (${times[*]})"
