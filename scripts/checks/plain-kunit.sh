#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A kunit.py command that README.md and the cover letter give, run as
# written (kunit/plain-commands.tsv, row NAME): at the top of a worktree of
# the patched tree (scratch_worktree plain-NAME, checked out at the head of
# the series), where kunit.py builds in its default folder, .kunit, which is
# kept for the next run.  kunit/plain.py then checks what it printed: the
# command's suites ran and passed, the boot was of the kernel just built,
# and the kernel log shows the warnings the row allows and no other.
#
# The command is not changed in any way: bash -c runs it as a shell would.
# Its environment gets ccache the way a developer's does, through the
# compiler's name on PATH: a folder of wrappers named gcc and <cross>gcc
# that call scripts/ccache-cc (so that a source that .incbin's another file
# is never taken from the cache).  What a new developer's run would not
# find is removed first: the .kunitconfig an earlier run left in .kunit
# (kunit.py reuses it when given no --kunitconfig, instead of its default
# configuration).
# Usage: plain-kunit.sh NAME
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

name=$1
{ [ $# -eq 1 ] && [ -n "$name" ]; } || die "usage: plain-kunit.sh NAME (one of: $(python3 "$REPO/kunit/plain.py" list | paste -s -d ' ' -))"
row=$(python3 "$REPO/kunit/plain.py" show "$name") || exit 1
command=$(sed -n 's/^command //p' <<<"$row")
arch=$(sed -n 's/^arch //p' <<<"$row")
cross=$(grep -o -- '--cross_compile=[^ ]*' <<<"$command" | cut -d= -f2)

"$REPO/scripts/install-deps.sh" build "$arch" || exit 1
[ -d "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
head=$(git -C "$SRC" rev-parse -q --verify "refs/heads/$BRANCH") || die "no $BRANCH branch: run scripts/apply-series.sh first"

wt=$(scratch_worktree "plain-$name") || exit 1
git -C "$wt" checkout -q -f --detach "$head" || die "cannot check out $BRANCH in $wt"
use_ccache
bin=$CACHE/bin/plain-cc
mkdir -p "$bin" || die "cannot create $bin"
for cc in gcc ${cross:+"${cross}gcc"}; do
	real=$(PATH=${PATH//"$bin:"/} command -v "$cc") || die "$cc is missing"
	{ printf '#!/bin/sh\nexec %q %q "$@"\n' "$CCACHE_CC" "$real" >"$bin/$cc.tmp" &&
	  chmod +x "$bin/$cc.tmp" && mv -f "$bin/$cc.tmp" "$bin/$cc"; } || die "cannot write $bin/$cc"
done

out=$RESULTS/plain/$name
mkdir -p "$out" || die "cannot create $out"
rm -f "$out/kunit.log" "$wt/.kunit/test.log" "$wt/.kunit/.kunitconfig"
echo "\$ $command"
t0=$(date +%s)
(cd "$wt" && PATH=$bin:$PATH timeout -k 10 $((QEMU_TIMEOUT + 3600)) bash -c "$command") >"$out/kunit.log" 2>&1
rc=$?
cp "$wt/.kunit/test.log" "$out/test.log" 2>/dev/null || : >"$out/test.log"
tail -n 3 "$out/kunit.log"
echo "(exit code $rc, $(elapsed "$t0")s; kunit.py's output in $out/kunit.log, the kernel's in $out/test.log)"
python3 "$REPO/kunit/plain.py" check "$name" --exit-code "$rc" --output "$out/kunit.log" \
	--log "$out/test.log" --vmlinux "$wt/.kunit/vmlinux"
