#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The IDA benchmark (lib/tests/ida_benchmark_kunit.c, suite ida_benchmark):
#   - in userspace: the series' "make SHIFT=6 ida-bench" of the radix-tree
#     harness (-O2, no sanitizers,
#     XA_CHUNK_SHIFT 6), instructions per operation counted by callgrind, for
#     the allocator (lib/idr.c, include/linux/idr.h) of each REV given with
#     --rev (default: the branch);
#   - in the kernel, in QEMU on x86_64 with kunit.py (unless --no-kernel):
#     ns/op of the IDA, the IDR and a bitmap in the same boot, and bytes of
#     slab per ID.
# Writes $IDA_KUNIT_RESULTS/bench/: userspace-<rev>.json, kernel.json and
# table.md (which it also prints); the kernel run itself is in bench-kernel/.
# Usage: bench.sh [--rev REV]... [--no-kernel | --no-userspace]
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

revs=()
kernel=1
userspace=1
usage="usage: bench.sh [--rev REV]... [--no-kernel | --no-userspace]"
while [ $# -gt 0 ]; do
	case "$1" in
	--rev)		[ $# -ge 2 ] || die "--rev needs a value"; revs+=("$2"); shift 2 ;;
	--no-kernel)	kernel=0; shift ;;
	--no-userspace)	userspace=0; shift ;;
	*)		die "bench.sh: unknown argument '$1' ($usage)" ;;
	esac
done
[ "$kernel" = 1 ] || [ "$userspace" = 1 ] || die "bench.sh: --no-kernel and --no-userspace leave nothing to run"
[ "$userspace" = 1 ] || [ ${#revs[@]} -eq 0 ] || die "bench.sh: --rev is for the userspace benchmark, not with --no-userspace"
[ ${#revs[@]} -gt 0 ] || [ "$userspace" = 0 ] || revs=("$BRANCH")

if [ "$userspace" = 1 ]; then
	"$REPO/scripts/install-deps.sh" build checks bench || exit 1
	command -v valgrind >/dev/null || die "valgrind is missing"
	git -C "$SRC" rev-parse -q --verify "$BRANCH^{commit}" >/dev/null || die "no branch $BRANCH in $SRC: run scripts/apply-series.sh first"
	git -C "$SRC" cat-file -e "$BRANCH:lib/tests/ida_benchmark_kunit.c" 2>/dev/null ||
		die "the $BRANCH branch has no lib/tests/ida_benchmark_kunit.c"
fi
out=$RESULTS/bench
mkdir -p "$out" || die "cannot create $out"

# The harness and the benchmark come from the branch, the allocator from REV,
# so that only the allocator differs between two revisions.
bench_user() {	# bench_user REV
	local rev=$1 label wt dir
	git -C "$SRC" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "unknown revision '$rev'"
	label=$(git -C "$SRC" rev-parse --short "$rev")
	wt=$(scratch_worktree bench) || exit 1
	git -C "$wt" checkout -q -f --detach "$BRANCH" || die "cannot check out $BRANCH in $wt"
	git -C "$wt" clean -q -f -d -x tools/testing/radix-tree
	git -C "$wt" checkout -q "$rev" -- lib/idr.c include/linux/idr.h ||
		die "cannot take lib/idr.c and include/linux/idr.h from $rev"
	dir=$wt/tools/testing/radix-tree
	# The series' own target (tools/testing/radix-tree/ida-bench.c).
	(cd "$dir" && make -s -j"$JOBS" SHIFT=6 ida-bench) >"$out/build-$label.log" 2>&1 ||
		die "the userspace benchmark does not build for $rev (see $out/build-$label.log)"
	rm -f "$out/cg-$label" "$out/cg-$label".* "$out/cg-$label"-*
	(cd "$dir" && valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file="$out/cg-$label" ./ida-bench) \
		>"$out/userspace-$label.log" 2>&1 ||
		die "the userspace benchmark failed for $rev (see $out/userspace-$label.log)"
	python3 "$REPO/kunit/bench_table.py" userspace --label "$label" --rev "$rev" \
		--log "$out/userspace-$label.log" --out "$out/userspace-$label.json" "$out/cg-$label".* ||
		die "cannot read the callgrind dumps of $rev"
	rm -f "$out/cg-$label" "$out/cg-$label".* "$out/cg-$label"-*
	git -C "$wt" checkout -q -f --detach "$BRANCH"
	git -C "$wt" clean -q -f -d -x tools/testing/radix-tree
	echo "$out/userspace-$label.json"
}

t0=$(date +%s)
jsons=()
for rev in "${revs[@]}"; do
	jsons+=("$(bench_user "$rev")") || exit 1
done
[ "$userspace" = 0 ] || info "userspace benchmark: $(elapsed "$t0")s"

if [ "$kernel" = 1 ]; then
	t0=$(date +%s)
	IDA_KUNIT_TIMEOUT=${IDA_KUNIT_TIMEOUT:-1200} "$REPO/scripts/run-kunit.sh" --arch x86_64 \
		--name bench-kernel --kunitconfig "$REPO/kunitconfigs/ida-bench.kunitconfig" ||
		die "the in-kernel benchmark failed (see $RESULTS/bench-kernel/)"
	# Every benchmark case is slow: they run in the leg's slow boot.
	python3 "$REPO/kunit/bench_table.py" kernel --log "$RESULTS/bench-kernel/kernel-slow.log" \
		--out "$out/kernel.json" || die "cannot read the in-kernel benchmark"
	jsons+=("$out/kernel.json")
	info "in-kernel benchmark: $(elapsed "$t0")s"
fi
python3 "$REPO/kunit/bench_table.py" table "${jsons[@]}" | tee "$out/table.md"
