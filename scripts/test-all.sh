#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole test suite (what .ci/run runs).  Installs what it needs, then:
#   - the scripts' own tests (scripts/test-scripts.sh)
#   - the series: git am on the pristine tree, patch -p1 from the series
#     file, checkpatch.pl --strict on every patch, no deprecated IDA API
#     left in the tree
#   - every patch builds on its own, with no new W=1 or sparse warnings
#   - the userspace radix-tree harness (idr-test) on the patched tree, and
#     the line coverage of the IDA functions under the suite
#   - the GitHub workflow, linted
#   - the KUnit legs in QEMU: every case of every leg counts as one check
#   - a hang: a boot that outlives its time limit must be reported as failed
# Ends with "N passed, N failed, N skipped"; exits non-zero on any failure.
# Usage: test-all.sh [--no-kunit | ARCH...]   (default: x86_64 powerpc ppc64le)
. "$(dirname "$0")/lib.sh"

if [ "$1" = --no-kunit ]; then
	set --
elif [ $# -eq 0 ]; then
	set -- x86_64 powerpc ppc64le
fi
for arch in "$@"; do
	( arch_params "$arch" ) || exit 1
done

passed=0 failed=0 skipped=0
failures=()
start=$(date +%s)
LOGS=$RESULTS/checks
mkdir -p "$LOGS" || die "cannot create $LOGS"

# check NAME COMMAND...: run one check, its output in $LOGS/NAME.log.
check() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $name ($(elapsed "$t0")s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL $name ($(elapsed "$t0")s): $(grep -E -m1 '^error:|FAIL|not ok' "$LOGS/$name.log" || tail -n 1 "$LOGS/$name.log")"
	fi
	return $rc
}

# count_tap FILE: add the ok/not ok lines of a TAP file to the totals.
count_tap() {
	local p f
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	while read -r line; do failures+=("${line#not ok - }"); done < <(grep '^not ok ' "$1")
}

"$REPO/scripts/install-deps.sh" tree build checks "$@" || exit 1
"$REPO/scripts/setup-tree.sh" || exit 1

echo "== scripts' own tests"
"$REPO/scripts/test-scripts.sh" >"$LOGS/test-scripts.tap" 2>"$LOGS/test-scripts.log"
count_tap "$LOGS/test-scripts.tap"
grep '^not ok' "$LOGS/test-scripts.tap"
echo "scripts: $(grep -c '^ok ' "$LOGS/test-scripts.tap") ok, $(grep -c '^not ok ' "$LOGS/test-scripts.tap") not ok"

echo "== series"
check series-git-am "$REPO/scripts/check-series.sh" am
check series-patch-p1 "$REPO/scripts/check-series.sh" patch
while read -r p; do
	check "checkpatch-${p%.patch}" "$REPO/scripts/check-series.sh" checkpatch "$p"
done < <(series_patches)
"$REPO/scripts/apply-series.sh" >/dev/null || die "cannot apply the series"
check no-deprecated-ida-api "$REPO/scripts/check-series.sh" api

echo "== every patch builds on its own (W=1, sparse)"
check series-bisectable "$REPO/scripts/check-bisect.sh"
sed -n '2,$p' "$RESULTS/bisect/table.txt" 2>/dev/null | cut -c1-110

echo "== userspace harness"
check radix-tree-idr-test "$REPO/scripts/radix-tree-test.sh"
check suite-coverage "$REPO/scripts/coverage.sh"
grep '^coverage\|not run' "$LOGS/suite-coverage.log"

echo "== workflow"
check workflow-yamllint yamllint -s -d '{extends: default, rules: {line-length: disable, truthy: disable, document-start: disable}}' "$REPO/.github/workflows"

# kunit_leg ARCH NAME KUNITCONFIG: one KUnit leg; every case is a check,
# and every problem of the run (panic, hang, bad log) a failed one.
kunit_leg() {
	local p f s counts=$RESULTS/$2/counts.json
	"$REPO/scripts/run-kunit.sh" --arch "$1" --name "$2" --kunitconfig "$3" 2>&1 |
		tee "$LOGS/kunit-$2.log" | grep -E '^(kunit |  FAILED|  ERROR|error:)'
	if [ -f "$counts" ]; then
		read -r p f s < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["passed"], c["failed"] + len(c.get("problems", [])), c["skipped"])' "$counts")
	else
		p=0 f=1 s=0
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	[ "$f" -eq 0 ] || failures+=("kunit-$2")
}

for arch in "$@"; do
	echo "== kunit $arch"
	kunit_leg "$arch" "$arch" "$REPO/kunitconfigs/ida.kunitconfig"
done

# The x86_64 debug leg: the suite, slow cases included, under lockdep,
# KASAN, UBSAN and debug objects; any report in the log fails it.
if [[ " $* " == *" x86_64 "* ]] && [ "${IDA_KUNIT_DEBUG_LEG:-1}" = 1 ]; then
	echo "== kunit x86_64-debug"
	kunit_leg x86_64 x86_64-debug "$REPO/kunitconfigs/ida-debug.kunitconfig"
fi

# A boot that runs out of time must be a failure: give the x86_64 kernel
# (already built above) far too little time to finish.
if [[ " $* " == *" x86_64 "* ]]; then
	echo "== hang detection"
	check kunit-hang-is-failure "$REPO/scripts/test-hang.sh"
fi

echo
echo "total time $(elapsed "$start")s"
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
