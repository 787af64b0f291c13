#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the scripts themselves, as TAP ("ok - NAME" / "not ok - NAME").
# Bad input must give a one-line error and a non-zero exit and leave the
# cache usable; every way a boot can go wrong must be a failed run.
# Needs the tree (scripts/setup-tree.sh); builds no kernel.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

FIX=$REPO/scripts/checks/tests
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0

ok() {	# ok NAME: the last step passed
	n=$((n + 1)); echo "ok $n - $1"
}
not_ok() {	# not_ok NAME WHY
	n=$((n + 1)); echo "not ok $n - $1: $2"
}

# expect_error NAME PATTERN COMMAND...: COMMAND fails, and its last line of
# stderr is one "error: ..." line matching PATTERN.
expect_error() {
	local name=$1 pattern=$2 err
	shift 2
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		not_ok "$name" "exited 0"
		return
	fi
	err=$(tail -n 1 "$tmp/err")
	if [[ "$err" == error:* ]] && grep -qE -- "$pattern" <<<"$err"; then
		ok "$name"
	else
		not_ok "$name" "unexpected message '$err'"
	fi
}

# results NAME EXPECTED_RC GREP_PATTERN LOG [results.py args]: convert a
# fixture log and check the exit code and the summary.
results() {
	local name=$1 want=$2 pattern=$3 log=$4 rc
	shift 4
	rm -rf "$tmp/res"
	python3 "$REPO/kunit/results.py" --kunit-tool "$SRC/tools/testing/kunit" \
		--log "$log" --out "$tmp/res" --arch test "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne "$want" ]; then
		not_ok "$name" "exit $rc, wanted $want: $(tail -n 1 "$tmp/out")"
	elif ! grep -qE -- "$pattern" "$tmp/out"; then
		not_ok "$name" "summary does not match '$pattern': $(tail -n 1 "$tmp/out")"
	elif ! python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$tmp/res/junit.xml" 2>/dev/null; then
		not_ok "$name" "junit.xml is not well-formed XML"
	elif [ "$want" -ne 0 ] && ! grep -qE '<(failure|error)' "$tmp/res/junit.xml"; then
		not_ok "$name" "junit.xml shows no failure"
	else
		ok "$name"
	fi
}

# The tests that apply and export series work on a scratch worktree and
# branch of their own, so that the patched tree (and the incremental builds
# that depend on its files' times) is left alone.
scratch=$(scratch_worktree selftest) || exit 1
export IDA_KUNIT_SRC=$scratch IDA_KUNIT_BRANCH=ida-kunit-selftest
SRC=$scratch BRANCH=ida-kunit-selftest

# --- bad input ---------------------------------------------------------
expect_error "run-kunit rejects an unknown arch" "unknown arch 'sparc64'" \
	"$REPO/scripts/run-kunit.sh" --arch sparc64
expect_error "run-kunit wants --arch" "--arch is required" "$REPO/scripts/run-kunit.sh"
expect_error "pipeline rejects an unknown arch" "unknown arch 'mips'" "$REPO/scripts/pipeline.sh" mips
expect_error "test-all rejects an unknown arch" "unknown arch 'arm'" "$REPO/scripts/test-all.sh" arm
expect_error "a missing cross compiler is named" "compiler nonexistent-linux-gnu-gcc for powerpc is missing" \
	env CROSS_COMPILE=nonexistent-linux-gnu- "$REPO/scripts/run-kunit.sh" --arch powerpc
expect_error "a missing kunitconfig is named" "no kunitconfig /nonexistent" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig /nonexistent
expect_error "a missing little-endian cross compiler is named" "compiler nonexistent-linux-gnu-gcc for ppc64le is missing" \
	env CROSS_COMPILE=nonexistent-linux-gnu- "$REPO/scripts/run-kunit.sh" --arch ppc64le
expect_error "bench.sh rejects an unknown argument" "unknown argument '--fast'" "$REPO/scripts/tools/bench.sh" --fast
expect_error "the benchmark reader rejects a log without benchmark lines" "no benchmark output" \
	python3 "$REPO/kunit/bench_table.py" kernel --log "$REPO/scripts/checks/tests/pass.log" --out "$tmp/bench.json"

# A series whose first patch does not apply: named, and the tree is left on
# the pristine source with no git am in progress.
cp -r "$PATCHES" "$tmp/bad"
first=$(series_patches | head -n 1)
python3 - "$tmp/bad/$first" <<'PY'
import sys
p = sys.argv[1]
lines = open(p).read().split('\n')
# Change the first context line of the first hunk: the patch no longer applies.
for i, l in enumerate(lines):
    if l.startswith('@@'):
        lines[i + 1] = ' this line is not in the tree'
        break
open(p, 'w').write('\n'.join(lines))
PY
expect_error "a patch that does not apply is named" "patch $first does not apply" \
	env IDA_KUNIT_PATCHES="$tmp/bad" "$REPO/scripts/apply-series.sh"
if [ "$(git -C "$SRC" rev-parse HEAD)" = "$(git -C "$SRC" rev-parse "$PRISTINE_TAG^{commit}")" ] &&
   [ ! -d "$(git -C "$SRC" rev-parse --absolute-git-dir)/rebase-apply" ] && [ -z "$(git -C "$SRC" status --porcelain)" ]; then
	ok "a failed apply leaves the pristine tree"
else
	not_ok "a failed apply leaves the pristine tree" "tree is at $(git -C "$SRC" log --oneline -1) with $(git -C "$SRC" status --porcelain | wc -l) changes"
fi

mkdir -p "$tmp/missing" && echo "0001-nothing-here.patch" > "$tmp/missing/series"
expect_error "a series entry without a file is named" "0001-nothing-here.patch, which does not exist" \
	env IDA_KUNIT_PATCHES="$tmp/missing" "$REPO/scripts/apply-series.sh"

# Commits made in the tree but not exported are never thrown away.
if "$REPO/scripts/apply-series.sh" 2>"$tmp/err" &&
   git -C "$SRC" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m "unexported work"; then
	expect_error "unexported commits are not thrown away" "commits that were not exported" \
		"$REPO/scripts/apply-series.sh"
	git -C "$SRC" reset -q --hard HEAD~1
else
	not_ok "unexported commits are not thrown away" "cannot set up: $(tail -n 1 "$tmp/err")"
fi

# --- the series round-trips: apply, then export, gives the same files ------
cp -r "$PATCHES" "$tmp/export"
if "$REPO/scripts/apply-series.sh" 2>"$tmp/err" &&
   IDA_KUNIT_PATCHES="$tmp/export" "$REPO/scripts/export-series.sh" 2>>"$tmp/err" &&
   diff -r -I '^Date: ' "$PATCHES" "$tmp/export" >"$tmp/diff"; then
	ok "apply then export reproduces the series"
else
	not_ok "apply then export reproduces the series" "$(tail -n 1 "$tmp/err") $(head -n 5 "$tmp/diff" 2>/dev/null | tr '\n' ' ')"
fi

# --- the loop: what a rerun configures and builds ---------------------------
# run-kunit.sh against a fake tree whose kunit.py, and a make on the PATH,
# only record their calls.
fake=$tmp/fake-tree
mkdir -p "$fake/tools/testing/kunit" "$fake/lib" "$tmp/fake-cache" "$tmp/fake-bin"
for f in "$SRC"/tools/testing/kunit/*.py; do ln -s "$f" "$fake/tools/testing/kunit/"; done
rm "$fake/tools/testing/kunit/kunit.py"
cp "$FIX/fake-kunit.py" "$fake/tools/testing/kunit/kunit.py"
cp "$FIX/fake-make" "$tmp/fake-bin/make"
echo "int x;" >"$fake/lib/idr.c"
echo "config IDA_FAKE" >"$fake/lib/Kconfig"
cp "$REPO/kunitconfigs/ida.kunitconfig" "$tmp/fake.kunitconfig"
fake_run() {	# fake_run [env...]: one x86_64 leg on the fake tree; prints its exit code and calls
	local calls=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake/calls.log rc
	rm -f "$calls"
	env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
		IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$FIX/pass.log" "$@" \
		"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/fake.kunitconfig" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	echo "$rc" "$(paste -s -d " " "$calls" 2>/dev/null)"
}
expect_calls() {	# expect_calls NAME WANT GOT
	if [ "$3" = "$2" ]; then ok "$1"; else not_ok "$1" "exit code and calls '$3', wanted '$2'"; fi
}
expect_calls "a first run configures and builds with kunit.py" "0 config build exec" "$(fake_run)"
expect_calls "a rerun with nothing changed only boots" "0 exec" "$(fake_run)"
if grep -q "build 0s (up to date)" "$tmp/err"; then
	ok "a rerun says the kernel is up to date"
else
	not_ok "a rerun says the kernel is up to date" "$(tail -n 1 "$tmp/err")"
fi
echo "int y;" >>"$fake/lib/idr.c"
expect_calls "an edited source file is rebuilt with make alone" "0 make exec" "$(fake_run)"
echo "	bool" >>"$fake/lib/Kconfig"
expect_calls "an edited Kconfig file is reconfigured" "0 config build exec" "$(fake_run)"
echo "CONFIG_DEBUG_MISC=y" >>"$tmp/fake.kunitconfig"
expect_calls "a changed kunitconfig is reconfigured" "0 config build exec" "$(fake_run)"
expect_calls "IDA_KUNIT_REBUILD=1 reconfigures" "0 config build exec" "$(fake_run IDA_KUNIT_REBUILD=1)"
touch "$fake/lib/idr.c"
expect_calls "a failed build fails the run" "1 make" "$(fake_run FAKE_KUNIT_BUILD_FAIL=1)"
expect_calls "after a failed build the next run builds again" "0 make exec" "$(fake_run)"
expect_calls "and the one after only boots" "0 exec" "$(fake_run)"

# --- results of a boot ----------------------------------------------------
results "a passing run passes" 0 'PASS: 8 passed, 0 failed, 0 skipped .*2 expected warnings' \
	"$FIX/pass.log" --expect-suite ida
results "a failed case fails the run" 1 'FAILED ida.ida_test_max' "$FIX/fail.log"
results "a skipped case is counted as skipped, not passed" 0 '7 passed, 0 failed, 1 skipped' "$FIX/skip.log"
results "a kernel panic fails the run" 1 'panicked' "$FIX/panic.log"
results "truncated KTAP fails the run" 1 'FAIL' "$FIX/truncated.log"
results "a boot with no KTAP fails the run" 1 'no test ran' "$FIX/empty.log"
results "an empty suite list fails the run" 1 'no test ran' "$FIX/no-tests.log"
results "a hung boot fails the run" 1 'hung' "$FIX/pass.log" --timed-out 300
results "a missing suite fails the run" 1 'suite ida_mmu did not run' "$FIX/pass.log" --expect-suite ida_mmu
results "an unexpected warning fails the run" 1 'unexpected kernel report: WARNING: CPU: 1' "$FIX/splat.log"
results "a wrong number of expected warnings fails the run" 1 'expected 2 warnings, the log has 1' "$FIX/warn-count.log"
results "a missing log fails the run" 1 'no test ran' "$tmp/does-not-exist.log"

echo "1..$n"
