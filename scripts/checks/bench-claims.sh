#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every benchmark figure the series' commit messages quote is what the
# userspace benchmark gives for the tree just patched: a message with
# bench_table.py's table (its "instructions/op" header line) quotes its own
# commit; one with "before -> after" lines quotes its parent and itself;
# the cover letter quotes the benchmark patch and the branch
# (scripts/tools/cover-letter.py --bench-check).
# Measures each revision those need with scripts/tools/bench.sh --no-kernel
# (callgrind counts, the same from run to run for a given compiler and C
# library), then compares, message by message, with kunit/bench_table.py
# claims.
# Usage: bench-claims.sh
# Exits 0 when every quoted block matches, 1 when one does not or no
# commit message quotes the benchmark.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 0 ] || die "usage: bench-claims.sh (no arguments)"
git -C "$SRC" rev-parse -q --verify "$BRANCH^{commit}" >/dev/null ||
	die "no branch $BRANCH in $SRC: run scripts/apply-series.sh first"
git -C "$SRC" rev-parse -q --verify "$BASE_TAG^{commit}" >/dev/null ||
	die "no tag $BASE_TAG in $SRC: run scripts/apply-series.sh first"

tmp=$(mktemp -d) || die "cannot create a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# Which commits quote the benchmark, and how (at: a table; change: lines).
declare -A need=()
quotes=()
n=0
for rev in $(git -C "$SRC" rev-list --reverse "$BASE_TAG..$BRANCH"); do
	n=$((n + 1))
	git -C "$SRC" log -1 --format=%B "$rev" >"$tmp/$rev.msg" || die "cannot read the message of $rev"
	if grep -q '^  instructions/op  *IDA  *IDR  *bitmap$' "$tmp/$rev.msg"; then
		quotes+=("$n:$rev:at")
		need[$rev]=1
	fi
	if grep -Eq '^  .*([0-9].*->|->.*[0-9])' "$tmp/$rev.msg"; then
		quotes+=("$n:$rev:change")
		need[$rev]=1
		need[$(git -C "$SRC" rev-parse "$rev^")]=1
	fi
done
[ ${#quotes[@]} -gt 0 ] || die "no commit message of $BASE_TAG..$BRANCH quotes the benchmark"

# bench.sh takes the allocator from each revision and the rest from the
# branch: a revision that differs from it in anything else the benchmark
# builds would be measured as something it never was.
bench_args=()
for rev in "${!need[@]}"; do
	git -C "$SRC" diff --quiet "$rev" "$BRANCH" -- tools/testing tools/include tools/lib lib/xarray.c \
		lib/radix-tree.c lib/radix-tree.h lib/tests/ida_benchmark_kunit.c include/linux/xarray.h ||
		die "$(git -C "$SRC" log -1 --format='%h ("%s")' "$rev") differs from $BRANCH in what the benchmark builds besides the allocator: it cannot be measured as it is"
	bench_args+=(--rev "$rev")
done
"$REPO/scripts/tools/bench.sh" --no-kernel "${bench_args[@]}" >"$tmp/bench.log" 2>&1 || {
	tail -n 5 "$tmp/bench.log" >&2
	die "the userspace benchmark did not run (above)"
}

json() {	# json REV: the result bench.sh wrote for REV
	echo "$RESULTS/bench/userspace-$(git -C "$SRC" rev-parse --short "$1").json"
}

failed=0 first=
for q in "${quotes[@]}"; do
	IFS=: read -r nr rev how <<<"$q"
	subject=$(git -C "$SRC" log -1 --format=%s "$rev")
	if [ "$how" = at ]; then
		set -- "$(json "$rev")"
	else
		set -- "$(json "$rev^")" "$(json "$rev")"
	fi
	if out=$(python3 "$REPO/kunit/bench_table.py" claims --message "$tmp/$rev.msg" "$@" 2>&1); then
		echo "patch $nr ($subject): ${out#*: }"
	else
		echo "patch $nr ($subject): ${out#error: *: }" >&2
		first=${first:-patch $nr}
		failed=1
	fi
done
# The cover letter's block: before the allocator patches -> after the last
# patch that changes the allocator.
if out=$(python3 "$REPO/scripts/tools/cover-letter.py" --bench-check "$PATCHES/0000-cover-letter.patch" "$RESULTS"); then
	echo "cover letter: ${out#*: }"
else
	first=${first:-the cover letter}
	failed=1
fi
[ "$failed" = 0 ] || die "$first quotes benchmark figures that the benchmark does not give (above; counts depend on the compiler and C library: Debian 12's are the reference)"
echo "bench-claims: the benchmark blocks of ${#quotes[@]} commit messages (of $n) and of the cover letter, each the same as measured now"
