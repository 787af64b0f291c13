#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Tests of the scripts themselves, as TAP ("ok N - NAME" / "not ok N - NAME",
# the plan last).  Exits non-zero when any test failed.
# Bad input must give a one-line error and a non-zero exit and leave the
# cache usable; nothing that was not exported may be lost; every way a boot
# can go wrong must be a failed run; the whole default check must pass on a
# new machine (an empty cache, git without an identity), tried on a
# stand-in kernel tree with a fake kunit.py, make, gcc and gcov.
# Needs the tree (scripts/setup-tree.sh); builds no kernel.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

FIX=$REPO/scripts/checks/tests
# The recorded kernel logs, shared with the Python unit tests.
LOGS_DIR=$REPO/kunit/test_data
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# A signal ends the run through its EXIT trap, which removes what the run
# made, the scratch branch and tag in the patched tree's repository among
# them (a branch left there would be work that every later run refuses).
trap 'exit 130' INT
trap 'exit 143' TERM
n=0
failures=0

ok() {	# ok NAME: the last step passed
	n=$((n + 1)); echo "ok $n - $1"
}
not_ok() {	# not_ok NAME WHY
	n=$((n + 1)) failures=$((failures + 1)); echo "not ok $n - $1: $2"
}
section() {	# section NAME: the time each part takes, on stderr
	echo "# $(date +%s) $1" >&2
}
not_kept() {	# not_kept LOG PATTERN: LOG shows PATTERN and no result kept from a run before
	grep -q "$2" "$1" && ! grep -q 'kept: ' "$1"
}
check_that() {	# check_that NAME WHY_IF_NOT COMMAND...: ok when COMMAND succeeds
	local name=$1 why=$2
	shift 2
	if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name" "$why"; fi
}

# Every test runs as a new user would: git with no identity of its own (and
# forbidden to guess one), whatever the machine's configuration.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
# Nor does a new machine keep Python from writing its bytecode caches.
unset PYTHONDONTWRITEBYTECODE
mkdir -p "$tmp/home"
export HOME=$tmp/home GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 XDG_CACHE_HOME=$tmp/home/.cache
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.useConfigOnly GIT_CONFIG_VALUE_0=true
if git var GIT_COMMITTER_IDENT >/dev/null 2>&1; then
	not_ok "the tests run without a git identity" "git still finds one: $(git var GIT_COMMITTER_IDENT)"
else
	ok "the tests run without a git identity"
fi

# expect_error NAME PATTERN COMMAND...: COMMAND fails, and its last line of
# stderr is one "error: ..." line matching PATTERN.  Its output goes to
# $scr (a folder of each section that runs on its own).
scr=$tmp
expect_error() {
	local name=$1 pattern=$2 err
	shift 2
	if "$@" >"$scr/out" 2>"$scr/err"; then
		not_ok "$name" "exited 0"
		return
	fi
	err=$(tail -n 1 "$scr/err")
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

# --- the whole default check on a new machine --------------------------------
# It runs beside the other sections (it needs none of their state, not even
# their worktree, which it starts before, and they none of its), in a
# subshell of its own: its TAP lines go to a file that is numbered into this
# script's output at the end (relay_tap), and a last line says that it ran
# to its end.
whole_default_check() {
	trap - EXIT
	scr=$tmp/whole
	mkdir -p "$scr" || exit 1
	section "the whole default check on a new machine"
	# scripts/test-all.sh, as .ci/run runs it, on a stand-in kernel tree (a
	# tarball with the tree's kunit_tool parser, a fake kunit.py, a stub
	# checkpatch.pl and get_maintainer.pl) and a stand-in series, with a fake
	# make, gcc and gcov on the PATH: every step of the sequence runs, in the
	# order and with the state a new machine gives it.  The check that the
	# repository's documents show the repository's series is skipped (and
	# counted as skipped): the stand-in series is not that one; so is the
	# proof that the XArray race test fails without the tree fix: the
	# stand-in harness has no XArray to race; and so are kunit_tool's own
	# parser tests: they import the stand-in's kunit.py, a fake.
	standin_tree() {	# standin_tree DIR VERSION: DIR/linux-standin.tar.xz, its Makefile saying VERSION
		local d=$1/linux-standin
		rm -rf "$d" && mkdir -p "$d/lib" "$d/scripts" "$d/tools/testing/kunit" "$d/tools/testing/radix-tree"
		cp "$SRC"/tools/testing/kunit/*.py "$d/tools/testing/kunit/"
		cp -r "$SRC"/tools/testing/kunit/qemu_configs "$d/tools/testing/kunit/"
		cp "$FIX/fake-kunit.py" "$d/tools/testing/kunit/kunit.py"
		cp "$LOGS_DIR/fail.log" "$d/tools/testing/kunit/fail.log"
		printf '// SPDX-License-Identifier: GPL-2.0\nint ida_alloc_range(int max)\n{\n\tif ((int)max < 0)\n\t\treturn 1;\n\treturn 0;\n}\n' >"$d/lib/idr.c"
		printf 'obj-y += idr.o\n' >"$d/lib/Makefile"
		printf 'VERSION = %s\n' "$2" >"$d/Makefile"
		printf 'idr-test multiorder xarray main maple:\n' >"$d/tools/testing/radix-tree/Makefile"
		printf 'config IDA_STANDIN\n\tbool\n' >"$d/lib/Kconfig"
		printf '#!/usr/bin/perl\nprint "total: 0 errors, 0 warnings, 0 checks, 1 lines checked\\n";\n' >"$d/scripts/checkpatch.pl"
		printf '#!/usr/bin/perl\nprint "IDA STAND-IN\\n";\n' >"$d/scripts/get_maintainer.pl"
		printf '/*\n' >"$d/.gitignore"
		tar -C "$1" -cJf "$1/linux-standin.tar.xz" linux-standin && rm -rf "$d"
	}
	standin_series() {	# standin_series TARBALL OUT TEXT: a one-patch series adding TEXT
		local w=$tmp/series-work
		rm -rf "$w" "$2" && mkdir -p "$w" "$2" && tar -C "$w" -xJf "$1" || return 1
		(
			cd "$w/linux-standin" || exit 1
			export GIT_AUTHOR_NAME="Stand In" GIT_AUTHOR_EMAIL=standin@example.org
			export GIT_COMMITTER_NAME="Stand In" GIT_COMMITTER_EMAIL=standin@example.org
			git init -q && git add -A -f && git commit -q -m pristine &&
			mkdir -p lib/tests && echo "/* $3 */" >>lib/idr.c && echo "int standin_$3;" >lib/tests/standin_kunit.c &&
			git add -A -f && git commit -q -m "ida: $3" -m "Why: a stand-in." -m "Signed-off-by: Stand In <standin@example.org>" &&
			git format-patch -q --cover-letter -o "$2" HEAD~1 && cd "$2" && ls 0001-*.patch >series
		)
	}
	printf '#!/bin/sh\necho "ok 1 - stand-in of the scripts'"'"' own tests"\necho "1..1"\n' >"$tmp/self-tests" &&
		chmod +x "$tmp/self-tests"
	mkdir -p "$tmp/whole-bin" && cp "$FIX/fake-make" "$tmp/whole-bin/make" &&
		for f in gcc gcov; do cp "$FIX/fake-$f" "$tmp/whole-bin/$f"; done
	standin_tree "$tmp/standin" one
	standin_series "$tmp/standin/linux-standin.tar.xz" "$tmp/series-a" first || not_ok "the stand-in series is made" "git failed"
	newcomer() {	# newcomer CACHE SERIES [test-all.sh args]: test-all.sh as a new machine runs it
		local cache=$1 series=$2
		shift 2
		env -u IDA_KUNIT_SRC -u IDA_KUNIT_BRANCH PATH="$tmp/whole-bin:$PATH" IDA_KUNIT_CACHE="$cache" IDA_KUNIT_TARBALL="$tmp/standin/linux-standin.tar.xz" \
			IDA_KUNIT_PATCHES="$series" IDA_KUNIT_RESULTS="$tmp/standin-results" IDA_KUNIT_SELF_TESTS="$tmp/self-tests" \
			IDA_KUNIT_TIMEOUT=120 IDA_KUNIT_SKIP="series-table-in-docs,xarray-rcu-race-fails-without-fix,maple-slowread-race,maple-slowread-race-fails-without-fix,kunit-tool-parser,bench-claims,plain-*${IDA_KUNIT_SKIP:+,$IDA_KUNIT_SKIP}" \
			"$REPO/scripts/test-all.sh" "$@" >"$tmp/all.out" 2>&1
	}
	whole_run() {	# whole_run NAME CACHE SERIES [args]: passes and ends "N passed, 0 failed, S skipped"
		local name=$1
		shift
		if newcomer "$@" && tail -n 1 "$tmp/all.out" | grep -qE "^[1-9][0-9]* passed, 0 failed, $skips skipped\$"; then
			ok "$name"
		else
			not_ok "$name" "$(grep -E '^(FAIL|error:|  ERROR|kunit [^ ]*: FAIL)' "$tmp/all.out" | head -n 2 | tr '\n' ' ') $(tail -n 1 "$tmp/all.out")"
		fi
	}
	# Skipped there: the six checks newcomer names (a stand-in program
	# cannot say that the maple check's wrapper held a reader back), the plain kunit.py
	# commands (which a stand-in tree cannot run) and their two checks of
	# the documents (the stand-in series' cover letter gives none).
	skips=$((8 + $(python3 "$REPO/kunit/plain.py" list | wc -l)))
	whole_run "test-all.sh passes on an empty cache with no git identity" "$tmp/new-cache" "$tmp/series-a"
	check_that "and it ran every step: kunit legs, bisect, harness, lints, hang" "a step is missing" \
		grep -q 'PASS kunit-hang-is-failure' "$tmp/all.out"
	check_that "and the legs ran the suites of their kunitconfigs" "a leg ran none" \
		test "$(grep -c 'kunit .*: PASS' "$tmp/all.out")" -ge 4
	# The runs below try states of the cache: the lints (which read only the
	# repository, and ran above) are skipped in them, and counted as skipped;
	# so is, after the first of them, the page's check in the browser.  The
	# first is a run with no leg, as the CI's checks job runs it, whose page
	# shows the checks alone.
	export IDA_KUNIT_SKIP=shellcheck,workflow-yamllint,workflow-actionlint
	skips=11
	whole_run "a rerun on the same cache passes, with no leg (as the CI's checks job)" "$tmp/new-cache" "$tmp/series-a" --no-kunit
	check_that "and the page of a run with no leg opens in the browser" "report-in-browser did not pass" \
		grep -q 'PASS report-in-browser' "$tmp/all.out"
	export IDA_KUNIT_SKIP=$IDA_KUNIT_SKIP,report-in-browser
	skips=12
	check_that "a patch whose tree did not change keeps its bisect row" "it was built again" \
		grep -q '^1 .*ok: .*(kept: ' "$tmp/standin-results/bisect/table.txt"
	check_that "a patch checked before is not given to checkpatch.pl again" "it was checked again" \
		grep -q '^checkpatch: the same patch, script and tree as a run before; kept: ' \
		"$tmp/standin-results/checks/checkpatch-0001-ida-first.log"
	check_that "nor is the coverage of the same tree measured again" "it was measured again" \
		grep -q '^coverage: the same tree, script and compiler as a run before; kept: ' \
		"$tmp/standin-results/checks/suite-coverage.log"
	standin_series "$tmp/standin/linux-standin.tar.xz" "$tmp/series-b" second
	whole_run "a cache that holds an older series passes" "$tmp/new-cache" "$tmp/series-b" --no-kunit
	check_that "an edited patch's bisect row is built again, never taken from a stale key" "it was kept" \
		grep -q '^1 .*ok: lib/idr.o built' "$tmp/standin-results/bisect/table.txt"
	check_that "and its table says no row was kept" "a row was kept" \
		grep -q '^0 of 1 patches kept' "$tmp/standin-results/checks/series-bisectable.log"
	check_that "and the edited patch is given to checkpatch.pl, not taken from a stale key" "it was kept" \
		not_kept "$tmp/standin-results/checks/checkpatch-0001-ida-second.log" '^total: 0 errors'
	check_that "and the coverage of its tree is measured, not taken from the other tree's key" "it was kept" \
		not_kept "$tmp/standin-results/checks/suite-coverage.log" '^coverage total: '
	standin_tree "$tmp/standin" two
	whole_run "a cache imported from another version of the package is imported again" "$tmp/new-cache" "$tmp/series-b" --no-kunit
	check_that "and the tree is the new version's" "it is the old one" grep -q "VERSION = two" "$tmp/new-cache/linux-6.12/Makefile"
	check_that "and the run says so" "it does not" grep -q "importing" "$tmp/standin-results/checks/distro-tree.log"
	mkdir -p "$tmp/cold/ida-kunit"
	whole_run "a cache folder that never held the tree or the branch passes" "$tmp/cold/ida-kunit" "$tmp/series-a" --no-kunit

	# A newer package while the tree holds work that was not exported: refused,
	# the work kept.
	echo "/* mine */" >>"$tmp/new-cache/linux-6.12/lib/idr.c"
	standin_tree "$tmp/standin" three
	if newcomer "$tmp/new-cache" "$tmp/series-b" --no-kunit; then
		not_ok "a new package version does not throw away unexported work" "test-all.sh passed"
	elif grep -q "error: .* has uncommitted changes (lib/idr.c): export it" "$tmp/standin-results/checks/distro-tree.log" &&
	     grep -q mine "$tmp/new-cache/linux-6.12/lib/idr.c"; then
		ok "a new package version does not throw away unexported work"
	else
		not_ok "a new package version does not throw away unexported work" "$(tail -n 1 "$tmp/standin-results/checks/distro-tree.log")"
	fi
	# A kernel tree that setup-tree.sh did not make is never touched.
	mkdir -p "$tmp/my-linux" && git -C "$tmp/my-linux" init -q && echo work >"$tmp/my-linux/README" &&
		git -C "$tmp/my-linux" add README && git -C "$tmp/my-linux" -c user.name=m -c user.email=m@localhost commit -q -m mine
	expect_error "setup-tree.sh refuses a folder it did not make" "was not made by scripts/setup-tree.sh" \
		env IDA_KUNIT_SRC="$tmp/my-linux" IDA_KUNIT_TARBALL="$tmp/standin/linux-standin.tar.xz" "$REPO/scripts/setup-tree.sh"
	check_that "and leaves it as it was" "it changed" test "$(git -C "$tmp/my-linux" log -1 --format=%s)" = mine
	# The scripts' own tests decide: a crash half-way or a failed test fails the
	# whole run, whatever the counts say.
	printf '#!/bin/sh\necho "ok 1 - first"\nexit 3\n' >"$tmp/self-tests" 
	if newcomer "$tmp/cold/ida-kunit" "$tmp/series-a" --no-kunit; then
		not_ok "test-all.sh fails when the scripts' own tests stop before their plan" "it passed"
	else
		ok "test-all.sh fails when the scripts' own tests stop before their plan"
	fi
	printf '#!/bin/sh\necho "ok 1 - first"\necho "1..1"\nexit 1\n' >"$tmp/self-tests"
	if newcomer "$tmp/cold/ida-kunit" "$tmp/series-a" --no-kunit; then
		not_ok "test-all.sh fails when the scripts' own tests exit non-zero" "it passed"
	else
		ok "test-all.sh fails when the scripts' own tests exit non-zero"
	fi
	section "the whole default check: done"
	echo "# whole default check: done"
}
whole_default_check >"$tmp/whole.tap" 2>"$tmp/whole.err" &
whole_pid=$!

# The tests that apply and export series work on a worktree and branch of
# their own, made afresh for this run and removed after it, so that the
# patched tree (and the incremental builds that depend on its files' times)
# is left alone and no earlier run's state is read.
scratch=$tmp/scratch-tree
tree=$SRC
git -C "$SRC" worktree add -q --detach "$scratch" "$PRISTINE_TAG" || exit 1
git -C "$SRC" branch -q -D ida-kunit-selftest-$$ >/dev/null 2>&1
# The tree's own base (the tree fixes), which nothing here may move.
tree_base=$(git -C "$SRC" rev-parse -q --verify refs/tags/tree-fixes)
trap 'git -C "$tree" worktree remove -f -f "$scratch" >/dev/null 2>&1; git -C "$tree" branch -q -D ida-kunit-selftest-$$ >/dev/null 2>&1; git -C "$tree" tag -d tree-fixes-ida-kunit-selftest-$$ >/dev/null 2>&1; rm -rf "$tmp"' EXIT
export IDA_KUNIT_SRC=$scratch IDA_KUNIT_BRANCH=ida-kunit-selftest-$$ IDA_KUNIT_RESULTS=$tmp/results
SRC=$scratch BRANCH=ida-kunit-selftest-$$

# --- bad input ---------------------------------------------------------
section "bad input"
expect_error "run-kunit rejects an unknown arch" "unknown arch 'sparc64'" \
	"$REPO/scripts/run-kunit.sh" --arch sparc64
expect_error "run-kunit wants --arch" "--arch is required" "$REPO/scripts/run-kunit.sh"
expect_error "pipeline rejects an unknown arch" "unknown arch 'mips'" "$REPO/scripts/pipeline.sh" mips
expect_error "test-all rejects an unknown arch" "unknown arch 'mips'" "$REPO/scripts/test-all.sh" mips
expect_error "a missing cross compiler is named" "compiler nonexistent-linux-gnu-gcc for powerpc is missing" \
	env CROSS_COMPILE=nonexistent-linux-gnu- "$REPO/scripts/run-kunit.sh" --arch powerpc
check_that "and the leg's counts.json and junit.xml give that reason, not a generic one" "they do not" python3 -c '
import json, sys
c = json.load(open(sys.argv[1] + "/counts.json"))
assert c["verdict"] == "FAIL" and "nonexistent-linux-gnu-gcc for powerpc is missing" in c["problems"][0]["message"], c
assert "nonexistent-linux-gnu-gcc for powerpc is missing" in open(sys.argv[1] + "/junit.xml").read()' "$IDA_KUNIT_RESULTS/powerpc"
expect_error "a missing kunitconfig is named" "no kunitconfig /nonexistent" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig /nonexistent
printf '# users: nosuch\n# leak-scan: kmemleak\nCONFIG_KUNIT=y\n' >"$tmp/users-nosuch.kunitconfig"
expect_error "a users' program that does not exist is named" "no program kunit/users/nosuch.c for '# users: nosuch'" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/users-nosuch.kunitconfig"
printf '# users: sd\nCONFIG_KUNIT=y\n' >"$tmp/users-no-init.kunitconfig"
expect_error "users' programs without the leak-scan init that runs them are refused" "'# users:' needs the leak-scan init" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/users-no-init.kunitconfig"
printf '# timeout: 600\n# timeout: 10m\nCONFIG_KUNIT=y\n' >"$tmp/timeout-bad.kunitconfig"
expect_error "a boot time limit that is not a number of seconds is refused, beside one that is" "'# timeout: 10m' in the kunitconfigs of .*: not a number of seconds" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/timeout-bad.kunitconfig"
printf '# timeout:\nCONFIG_KUNIT=y\n' >"$tmp/timeout-empty.kunitconfig"
expect_error "and so is an empty one" "'# timeout: ' in the kunitconfigs of .*: not a number of seconds" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/timeout-empty.kunitconfig"
expect_error "and a time limit from the environment that is not one" "IDA_KUNIT_TIMEOUT='5m': not a number of seconds" \
	env IDA_KUNIT_TIMEOUT=5m "$REPO/scripts/run-kunit.sh" --arch x86_64
printf '# users-bin: /usr/bin/true\n# leak-scan: kmemleak\nCONFIG_KUNIT=y\n' >"$tmp/users-bin-alone.kunitconfig"
expect_error "programs to copy into the initramfs without a users' program are refused" "'# users-bin:' without a program of kunit/users" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/users-bin-alone.kunitconfig"
printf '# users: sd\n# users-bin: true\n# leak-scan: kmemleak\nCONFIG_KUNIT=y\n' >"$tmp/users-bin-relative.kunitconfig"
expect_error "a program to copy that is not an absolute path is refused" "'# users-bin: true' in the kunitconfigs of .*: not an absolute path" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/users-bin-relative.kunitconfig"
printf '# users: sd\n# users-bin: /nonexistent/iscsi-nosuch\n# leak-scan: kmemleak\nCONFIG_KUNIT=y\n' >"$tmp/users-bin-nosuch.kunitconfig"
expect_error "a program to copy that this machine lacks is named" "no program /nonexistent/iscsi-nosuch on this machine" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/users-bin-nosuch.kunitconfig"
expect_error "a missing little-endian cross compiler is named" "compiler nonexistent-linux-gnu-gcc for ppc64le is missing" \
	env CROSS_COMPILE=nonexistent-linux-gnu- "$REPO/scripts/run-kunit.sh" --arch ppc64le
expect_error "bench.sh rejects an unknown argument" "unknown argument '--fast'" "$REPO/scripts/tools/bench.sh" --fast
expect_error "the benchmark reader rejects a log without benchmark lines" "no benchmark output" \
	python3 "$REPO/kunit/bench_table.py" kernel --log "$LOGS_DIR/pass.log" --out "$tmp/bench.json"

# A series whose first patch does not apply: named, and the tree is left on
# the pristine source with no git am in progress.
cp -r "$PATCHES" "$tmp/bad"
[ ! -d "$FIXES" ] || cp -r "$FIXES" "$tmp/bad-fixes"
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

# Work in the tree that was not exported is never thrown away: a commit, a
# staged change, an unstaged change, a new file (ignored, like every new
# file under the tarball's "/*" .gitignore).  Each is refused by name, with
# the work still there; IDA_KUNIT_FORCE=1 discards it.
"$REPO/scripts/apply-series.sh" 2>"$tmp/err" || not_ok "the series applies to the scratch tree" "$(tail -n 1 "$tmp/err")"
check_that "and the tree's own base tag stays where it was" "apply-series.sh on the scratch branch moved it" \
	test "$(git -C "$tree" rev-parse -q --verify refs/tags/tree-fixes)" = "$tree_base"
check_that "and the scratch branch has a base tag of its own" "it has none" \
	git -C "$tree" rev-parse -q --verify refs/tags/tree-fixes-ida-kunit-selftest-$$
# The arch fixes: a leg of an arch that needs one builds a worktree of the
# patched tree with it on top, made again only when something changed; one
# that does not apply is named.  (A cache folder of the test's own.)
af=$(arch_fixes_for alpha)
check_that "the alpha leg has an arch fix" "arch_fixes_for alpha printed '$af'" test -n "$af"
af_default=$(for a in $(default_arches); do arch_fixes_for "$a"; done)
check_that "and no leg of the default check has any" "they have $af_default" test -z "$af_default"
# (lib.sh, sourced again in a shell of its own, gives git am the scripts'
# committer identity, which this script unset above.)
arch_fix_tree_run() {	# arch_fix_tree_run ARCH PATCH...: arch_fix_tree as run-kunit.sh runs it
	IDA_KUNIT_CACHE=$tmp/af-cache bash -c '. "$0/scripts/lib.sh" && mkdir -p "$CACHE" && arch_fix_tree "$@"' "$REPO" "$@"
}
# shellcheck disable=SC2086 # one patch name per word
af_tree=$(arch_fix_tree_run alpha $af 2>"$tmp/af.err")
check_that "the alpha worktree is the patched tree with its arch fix on top" "$(tail -n 1 "$tmp/af.err")" \
	test "$(git -C "$af_tree" rev-parse HEAD~1)" = "$(git -C "$SRC" rev-parse "refs/heads/$BRANCH")" -a \
	"$(git -C "$af_tree" show HEAD | git patch-id --stable | cut -d' ' -f1)" = \
	"$(git patch-id --stable <"$ARCH_FIXES/$af" | cut -d' ' -f1)" -a -n "$af_tree"
af_head=$(git -C "$af_tree" rev-parse HEAD)
# shellcheck disable=SC2086
arch_fix_tree_run alpha $af >/dev/null 2>&1
check_that "and a second leg on the same tree applies nothing again" "the worktree moved" \
	test "$(git -C "$af_tree" rev-parse HEAD)" = "$af_head"
mkdir -p "$tmp/bad-arch" && cp "$tmp/bad/$first" "$tmp/bad-arch/" && printf '%s\n' "$first" >"$tmp/bad-arch/series" && printf '%s x86_64\n' "$first" >"$tmp/bad-arch/legs"
expect_error "an arch fix that does not apply is named" "arch fix $first does not apply to the patched tree" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" IDA_KUNIT_CACHE="$tmp/af-cache" "$REPO/scripts/run-kunit.sh" --arch x86_64
printf '%s alpha\n' "other.patch" >"$tmp/bad-arch/legs"
expect_error "an arch fix without its legs is named" "legs gives no legs for $first" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" IDA_KUNIT_CACHE="$tmp/af-cache" "$REPO/scripts/run-kunit.sh" --arch x86_64
printf '%s x86_64\n%s alpha\n' "$first" "$first" >"$tmp/bad-arch/legs"
expect_error "an arch fix with two lines of legs is named" "legs gives 2 lines for $first" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" IDA_KUNIT_CACHE="$tmp/af-cache" "$REPO/scripts/run-kunit.sh" --arch x86_64
printf '%s x86_64 alpha\n' "$first" >"$tmp/bad-arch/legs"
expect_error "a line of legs that is not a patch and its legs is named" "a line needs a patch and its legs: $first x86_64 alpha" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" IDA_KUNIT_CACHE="$tmp/af-cache" "$REPO/scripts/run-kunit.sh" --arch x86_64
rm "$tmp/bad-arch/legs"
expect_error "a missing legs file is named" "legs is missing" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" IDA_KUNIT_CACHE="$tmp/af-cache" "$REPO/scripts/run-kunit.sh" --arch x86_64
cp "$ARCH_FIXES"/* "$tmp/bad-arch/" && printf 'gone.patch sparc32\n' >>"$tmp/bad-arch/legs"
# shellcheck disable=SC2016 # $0 is for the inner shell
expect_error "a legs line for a patch the series does not list is named" "legs names gone.patch, which the series does not list" \
	env IDA_KUNIT_ARCH_FIXES="$tmp/bad-arch" bash -c '. "$0/scripts/lib.sh" && arch_fix_legs_listed' "$REPO"
rm -rf "$tmp/af-cache" && git -C "$SRC" worktree prune

idr=$SRC/lib/idr.c
refused() {	# refused NAME PATTERN STILL_THERE_COMMAND...
	local name=$1 pattern=$2
	shift 2
	expect_error "$name" "$pattern" "$REPO/scripts/apply-series.sh"
	"$@" || not_ok "$name: the work is still there" "it is gone"
}
git -C "$SRC" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m "unexported work"
head_is_unexported() { [ "$(git -C "$SRC" log -1 --format=%s)" = "unexported work" ]; }
refused "unexported commits are refused" "commits that were not exported \(.* unexported work\)" head_is_unexported
git -C "$SRC" reset -q --hard HEAD~1
echo "/* staged */" >>"$idr" && git -C "$SRC" add lib/idr.c
refused "staged changes are refused" "uncommitted changes \(lib/idr.c\)" grep -q staged "$idr"
git -C "$SRC" reset -q --hard
echo "/* unstaged */" >>"$idr"
refused "unstaged changes are refused" "uncommitted changes \(lib/idr.c\)" grep -q unstaged "$idr"
git -C "$SRC" checkout -q -- lib/idr.c
echo "int new_work;" >"$SRC/lib/new_work.c"
check_that "a new file is ignored by the tree's .gitignore" "git status shows it" \
	test -z "$(git -C "$SRC" status --porcelain)"
refused "new, untracked source files are refused" "untracked files \(lib/new_work.c\)" test -f "$SRC/lib/new_work.c"
if IDA_KUNIT_FORCE=1 "$REPO/scripts/apply-series.sh" 2>"$tmp/err" && [ ! -e "$SRC/lib/new_work.c" ]; then
	ok "IDA_KUNIT_FORCE=1 discards it and applies the series"
else
	not_ok "IDA_KUNIT_FORCE=1 discards it and applies the series" "$(tail -n 1 "$tmp/err")"
fi
mkdir -p "$SRC/tools/testing/radix-tree/generated" && touch "$SRC/tools/testing/radix-tree/generated/map-shift.h" "$SRC/lib/idr.o"
if "$REPO/scripts/apply-series.sh" 2>"$tmp/err"; then
	ok "build output left in the tree is not work"
else
	not_ok "build output left in the tree is not work" "$(tail -n 1 "$tmp/err")"
fi
rm -f "$SRC/tools/testing/radix-tree/generated/map-shift.h" "$SRC/lib/idr.o"
# What a reset or a new import would also lose: a stash, another branch
# with commits, a new executable where the harness builds, a new file in a
# generated/ folder.
echo "/* stashed */" >>"$idr" && git -C "$SRC" -c user.name=t -c user.email=t@localhost stash -q
# shellcheck disable=SC2016 # the inner shell expands its own arguments
refused "a stash is refused" "a stash \(stash@\{0\}" sh -c 'git -C "$1" stash list | grep -q .' - "$SRC"
git -C "$SRC" stash drop -q
side=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@localhost GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost \
	git -C "$SRC" commit-tree -p HEAD -m "side work" "HEAD^{tree}")
git -C "$SRC" branch "ida-kunit-side-$$" "$side"
refused "another branch with commits is refused" "commits that were not exported \(ida-kunit-side-$$: .* side work\)" \
	git -C "$SRC" rev-parse -q --verify "refs/heads/ida-kunit-side-$$"
git -C "$SRC" branch -q -D "ida-kunit-side-$$"
printf '#!/bin/sh\necho mine\n' >"$SRC/tools/testing/radix-tree/my-tool" && chmod +x "$SRC/tools/testing/radix-tree/my-tool"
refused "a new executable where the harness builds is refused" "untracked files \(tools/testing/radix-tree/my-tool\)" \
	test -x "$SRC/tools/testing/radix-tree/my-tool"
rm -f "$SRC/tools/testing/radix-tree/my-tool"
echo "/* mine */" >"$SRC/tools/testing/radix-tree/generated/mine.h"
refused "a new file in the harness's generated/ folder is refused" "untracked files \(tools/testing/radix-tree/generated/mine.h\)" \
	test -f "$SRC/tools/testing/radix-tree/generated/mine.h"
rm -f "$SRC/tools/testing/radix-tree/generated/mine.h"

# --- the series round-trips: apply, then export, gives the same files ------
section "the series round-trips: apply, then export, gives the same files"
# (with no git identity: see the top)
cp -r "$PATCHES" "$tmp/export"
if "$REPO/scripts/apply-series.sh" 2>"$tmp/err" &&
   IDA_KUNIT_PATCHES="$tmp/export" IDA_KUNIT_FIXES="$tmp/export-fixes" "$REPO/scripts/export-series.sh" 2>>"$tmp/err" &&
   diff -r -I '^Date: ' "$PATCHES" "$tmp/export" >"$tmp/diff" &&
   diff -r "$FIXES" "$tmp/export-fixes" >>"$tmp/diff"; then
	ok "apply then export reproduces the series"
else
	not_ok "apply then export reproduces the series" "$(tail -n 1 "$tmp/err") $(head -n 5 "$tmp/diff" 2>/dev/null | tr '\n' ' ')"
fi

# --- the loop: what a rerun configures and builds ---------------------------
section "the loop: what a rerun configures and builds"
# run-kunit.sh against a fake tree whose kunit.py, and a make on the PATH,
# only record their calls.
fake=$tmp/fake-tree
mkdir -p "$fake/tools/testing/kunit" "$fake/lib" "$tmp/fake-cache" "$tmp/fake-bin"
for f in "$SRC"/tools/testing/kunit/*.py; do ln -s "$f" "$fake/tools/testing/kunit/"; done
rm "$fake/tools/testing/kunit/kunit.py"
cp "$FIX/fake-kunit.py" "$fake/tools/testing/kunit/kunit.py"
cp "$LOGS_DIR/fail.log" "$fake/tools/testing/kunit/fail.log"
cp "$FIX/fake-make" "$tmp/fake-bin/make"
echo "int x;" >"$fake/lib/idr.c"
echo "config IDA_FAKE" >"$fake/lib/Kconfig"
cp "$REPO/kunitconfigs/ida.kunitconfig" "$tmp/fake.kunitconfig"
# The recorded logs these legs print are of the ida suite alone, so they
# run on a copy of the architecture table whose rows name no fragment with
# suites of its own ("# suites:", such as the dmaengine suite's); the
# benchmark's leg below runs on the table itself.  The QEMU configs are
# the ones beside it, as for the table itself.
mkdir -p "$tmp/table" && ln -s "$REPO/kunit/qemu_configs" "$tmp/table/qemu_configs"
python3 - "$REPO/kunit/arches.tsv" "$REPO/kunitconfigs" >"$tmp/table/arches.tsv" <<'PY'
import os, sys
def has_suites(name):
	with open(os.path.join(sys.argv[2], name + '.kunitconfig'), encoding='utf-8') as f:
		return any(line.startswith('# suites:') for line in f)
for line in open(sys.argv[1], encoding='utf-8'):
	row = line.split()
	if line.startswith('#') or len(row) < 5 or row[4] == '-':
		print(line, end='')
		continue
	keep = [c for c in row[4].split(',') if not has_suites(c)]
	row[4] = ','.join(keep) or '-'
	print('\t'.join(row))
PY
fake_run() {	# fake_run [env...]: one x86_64 leg on the fake tree; prints its exit code and calls
	local calls=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake/calls.log rc
	rm -f "$calls" "${calls%.log}.jsonl"
	env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE="$tmp/fake-cache" \
		IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" "$@" \
		"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/fake.kunitconfig" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	# The two boots run side by side: either may come first.
	echo "$rc" "$(paste -s -d " " "$calls" 2>/dev/null | sed 's/exec-slow exec$/exec exec-slow/')"
}
expect_calls() {	# expect_calls NAME WANT GOT
	if [ "$3" = "$2" ]; then ok "$1"; else not_ok "$1" "exit code and calls '$3', wanted '$2'"; fi
}
expect_calls "a first run configures and builds with kunit.py" "0 config build exec exec-slow" "$(fake_run)"
# Every argument run-kunit.sh gives kunit.py, and nothing else: the leg's
# and the arch's kunitconfigs and the allnoconfig base, the QEMU config,
# the compilers through ccache, the jobs, the time limit, each boot's filter.
kunit_args_ok() {	# kunit_args_ok NAME ARCH [TABLE]: the last fake leg of ARCH (on TABLE) gave kunit.py what it must
	if IDA_KUNIT_ARCH_TABLE="${3:-$ARCH_TABLE}" python3 "$FIX/kunit-args.py" "$tmp/fake-cache" "$TREE_VERSION" "$2" "$tmp/fake.kunitconfig" "$REPO" \
		"${IDA_KUNIT_TIMEOUT:-300}" "${IDA_KUNIT_JOBS:-$(nproc)}" >"$tmp/args-diff" 2>&1; then
		ok "$1"
	else
		not_ok "$1" "$(head -c 600 "$tmp/args-diff")"
	fi
}
kunit_args_ok "kunit.py gets every argument of the leg, and nothing else" x86_64 "$tmp/table/arches.tsv"
rm -f "$tmp/fake-cache/build/linux-$TREE_VERSION-powerpc-fake/calls.jsonl"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch powerpc --kunitconfig "$tmp/fake.kunitconfig" >"$tmp/out" 2>"$tmp/err"
kunit_args_ok "and a cross-compiled leg's get its --cross_compile and its compiler" powerpc
rm -f "$tmp/fake-cache/build/linux-$TREE_VERSION-um-fake/calls.jsonl"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch um --kunitconfig "$tmp/fake.kunitconfig" >"$tmp/out" 2>"$tmp/err"
kunit_args_ok "and a UML leg's no QEMU config and no cross compiler" um
# On the table itself: a leg expects the suites its arch's fragments name
# (the x86_64 row's dmaengine suite, which the recorded log lacks), and a
# leg that boots only for its slow cases expects only its own.  (Build
# folders of their own: a kunitconfig of another name.)
cp "$tmp/fake.kunitconfig" "$tmp/fake-arch-suites.kunitconfig"
if env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" FAKE_KUNIT_SLOW_LOG="$LOGS_DIR/skip.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-arch-suites --kunitconfig "$tmp/fake-arch-suites.kunitconfig" >"$tmp/out" 2>&1; then
	not_ok "a leg expects the suites of its arch's fragments" "it passed: $(tail -n 1 "$tmp/out" | head -c 300)"
else
	check_that "a leg expects the suites of its arch's fragments" "$(tail -n 2 "$tmp/out" | head -c 300)" \
		grep -q "suite dmaengine did not run" "$tmp/out"
fi
if env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-arch-suites --kunitconfig "$tmp/fake-arch-suites.kunitconfig" \
	-- --filter "speed=normal" >"$tmp/out" 2>&1; then
	ok "but with a filter of the caller's own, no suite by name"
else
	not_ok "but with a filter of the caller's own, no suite by name" "$(tail -n 2 "$tmp/out" | head -c 300)"
fi
if env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/no-tests.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-arch-suites --kunitconfig "$tmp/fake-arch-suites.kunitconfig" \
	-- --filter "speed=normal" >"$tmp/out" 2>&1; then
	not_ok "and a filter that leaves nothing to run fails the leg" "it passed: $(tail -n 1 "$tmp/out" | head -c 300)"
else
	check_that "and a filter that leaves nothing to run fails the leg" "$(tail -n 2 "$tmp/out" | head -c 300)" \
		grep -q "no test ran\|ran no test" "$tmp/out"
fi
{ printf '# suites: ida\n# boots: slow\n'; grep -v '^#' "$tmp/fake.kunitconfig"; } >"$tmp/fake-slow.kunitconfig"
if env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_SLOW_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-slow --kunitconfig "$tmp/fake-slow.kunitconfig" >"$tmp/out" 2>&1; then
	ok "and one that boots only for its slow cases, only its own"
else
	not_ok "and one that boots only for its slow cases, only its own" "$(tail -n 2 "$tmp/out" | head -c 300)"
fi
expect_calls "a rerun with nothing changed only boots" "0 exec exec-slow" "$(fake_run)"
if grep -qE "build [0-9]+s \(up to date\)" "$tmp/err"; then
	ok "a rerun says the kernel is up to date"
else
	not_ok "a rerun says the kernel is up to date" "$(tail -n 1 "$tmp/err")"
fi
leg_json_ok() {	# leg_json_ok [VCPUS]: the last leg's leg.json says what it ran (and on how many vCPUs)
	python3 -c 'import json, sys
l = json.load(open(sys.argv[1]))
sys.exit(0 if l["name"] == l["arch"] == "x86_64" and l["compiler"] and
	 l["kunitconfigs"][0] == "fake.kunitconfig" and
	 (len(sys.argv) < 3 or l["vcpus"] == int(sys.argv[2])) else 1)' "$tmp/fake-results/x86_64/leg.json" "$@"
}
check_that "its leg.json says what the leg is" "it does not" leg_json_ok 2
echo "int y;" >>"$fake/lib/idr.c"
expect_calls "an edited source file is rebuilt with make alone" "0 make exec exec-slow" "$(fake_run)"
echo "	bool" >>"$fake/lib/Kconfig"
expect_calls "an edited Kconfig file is reconfigured" "0 config build exec exec-slow" "$(fake_run)"
echo "CONFIG_DEBUG_MISC=y" >>"$tmp/fake.kunitconfig"
expect_calls "a changed kunitconfig is reconfigured" "0 config build exec exec-slow" "$(fake_run)"
expect_calls "IDA_KUNIT_REBUILD=1 reconfigures" "0 config build exec exec-slow" "$(fake_run IDA_KUNIT_REBUILD=1)"
touch "$fake/lib/idr.c"
expect_calls "a failed build fails the run" "1 make" "$(fake_run FAKE_KUNIT_BUILD_FAIL=1)"
check_that "and leg.json still says what the leg is" "it does not" leg_json_ok
expect_calls "after a failed build the next run builds again" "0 make exec exec-slow" "$(fake_run)"
expect_calls "and the one after only boots" "0 exec exec-slow" "$(fake_run)"

# Two boots: the cases of normal speed, then the slow ones.
expect_calls "a leg boots once more for its slow cases" "0 exec exec-slow" \
	"$(fake_run FAKE_KUNIT_SLOW_LOG="$LOGS_DIR/skip.log")"
check_that "the slow boot's cases are counted with the first boot's" "they are not" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["passed"] > 0 and c["skipped"] > 0 else 1)' "$tmp/fake-results/x86_64/counts.json"
check_that "and its log is kept beside the first one's" "it is not" \
	test -s "$tmp/fake-results/x86_64/kernel-slow.log"
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "each boot's log is its own, though the two run side by side" "a log has the other boot's output" \
	sh -c 'grep -q "# SKIP" "$1" && ! grep -q "# SKIP" "$2"' - \
	"$tmp/fake-results/x86_64/kernel-slow.log" "$tmp/fake-results/x86_64/kernel.log"
expect_calls "a failure in the slow boot fails the leg" "1 exec exec-slow" \
	"$(fake_run FAKE_KUNIT_SLOW_LOG="$LOGS_DIR/fail.log")"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/fake.kunitconfig" \
	-- --filter "speed=normal" >/dev/null 2>&1
expect_calls "a filter of the caller's own gets one boot" "exec" \
	"$(paste -s -d " " "$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake/calls.log" | awk '{ print $NF }')"

# A leg whose kunitconfig asks for a program of kunit/users: the program
# runs in the boot of the cases of normal speed, and its suite is the leg's.
{ cat "$tmp/fake.kunitconfig"; printf '# leak-scan: kmemleak\n# users: sd\n# users-bin: /usr/bin/true\n# timeout: 450\n'; } >"$tmp/fake-users.kunitconfig"
users_leg() {	# users_leg [env...]: a fake x86_64 leg with kunit/users/sd.c; its exit code
	env -u IDA_KUNIT_TIMEOUT PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE="$tmp/fake-cache" \
		IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" "$@" \
		"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-users --kunitconfig "$tmp/fake-users.kunitconfig" \
		>"$tmp/out" 2>"$tmp/err"
}
users_leg
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "a users' program's suite joins the leg's results" "$(tail -n 2 "$tmp/out" | head -c 300)" \
	sh -c 'grep -q "^\[ *[0-9.]*\] *ok 1 sd_fake_case\|^ *ok 1 sd_fake_case" "$1/users-sd.log" &&
	       grep -q "\"sd\"" "$1/results.json" && grep -q "PASS: .*suites: ida, sd;" "$2"' - \
	"$tmp/fake-results/fake-users" "$tmp/out"
calls=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake-users/calls.jsonl
check_that "it runs in one boot, the one of the cases of normal speed" "the boots got $(grep -c ida_kunit_users=1 "$calls" 2>/dev/null)" \
	python3 -c '
import json, sys
boots = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("[\"exec\"")]
with_users = [b for b in boots if "ida_kunit_users=1" in b]
sys.exit(0 if len(boots) == 2 and len(with_users) == 1 and "speed>slow" in with_users[0] else 1)' "$calls"
check_that "a leg's '# timeout:' is every boot's time limit" "the boots' limits: $(grep -o '"--timeout", "[0-9]*"' "$calls" 2>/dev/null | tr '\n' ' ')" \
	python3 -c '
import json, sys
boots = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("[\"exec\"")]
sys.exit(0 if len(boots) == 2 and all(b[b.index("--timeout") + 1] == "450" for b in boots) else 1)' "$calls"
initrd=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake-users/leak-scan/initrd.cpio
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "a program of '# users-bin:' goes into the initramfs at its path, with its libraries and loader" \
	"the initramfs holds: $(cpio -it --quiet <"$initrd" 2>/dev/null | tr '\n' ' ' | head -c 300)" \
	sh -c 'list=$(cpio -it --quiet <"$1") && for f in users/sd leak-scan usr/bin/true $(ldd /usr/bin/true | grep -o "/[^ ]*" | sed "s|^/||"); do
		printf "%s\n" "$list" | grep -qx "$f" || exit 1; done' - "$initrd"
users_leg FAKE_KUNIT_NO_USERS=1
check_that "a leg whose users' program printed nothing fails, naming its suite" "$(tail -n 2 "$tmp/out" | head -c 300)" \
	grep -q "suite sd did not run" "$tmp/out"
rm -f "$calls"
users_leg IDA_KUNIT_TIMEOUT=77
check_that "a shorter limit in IDA_KUNIT_TIMEOUT does not cut a leg's '# timeout:'" "the boots' limits: $(grep -o '"--timeout", "[0-9]*"' "$calls" 2>/dev/null | tr '\n' ' ')" \
	python3 -c '
import json, sys
boots = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("[\"exec\"")]
sys.exit(0 if len(boots) == 2 and all(b[b.index("--timeout") + 1] == "450" for b in boots) else 1)' "$calls"
# What '# users-bin:' copies: a static program alone; a library ldd cannot
# find, or a script, stops the leg.
cp "$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake-users/leak-scan/root/leak-scan" "$tmp/static-prog"
bin_leg() {	# bin_leg PROGRAM [env...]: the fake users leg with PROGRAM as its '# users-bin:'
	local prog=$1
	shift
	sed "s|^# users-bin:.*|# users-bin: $prog|" "$tmp/fake-users.kunitconfig" >"$tmp/fake-bin-leg.kunitconfig"
	env -u IDA_KUNIT_TIMEOUT PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" \
		IDA_KUNIT_CACHE="$tmp/fake-cache" IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" "$@" \
		"$REPO/scripts/run-kunit.sh" --arch x86_64 --name fake-bin-leg --kunitconfig "$tmp/fake-bin-leg.kunitconfig"
}
bin_leg "$tmp/static-prog" >"$tmp/out" 2>&1
initrd=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake-bin-leg/leak-scan/initrd.cpio
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "a static program of '# users-bin:' goes into the initramfs alone" \
	"the initramfs holds: $(cpio -it --quiet <"$initrd" 2>/dev/null | tr '\n' ' ' | head -c 300)" \
	sh -c 'list=$(cpio -it --quiet <"$1") && printf "%s\n" "$list" | grep -qx "${2#/}" && ! printf "%s\n" "$list" | grep -q "^lib"' - "$initrd" "$tmp/static-prog"
mkdir -p "$tmp/fake-ldd"
printf '#!/bin/sh\nprintf "\\tlibnosuch.so.1 => not found\\n"\n' >"$tmp/fake-ldd/ldd"
chmod +x "$tmp/fake-ldd/ldd"
expect_error "a library that ldd cannot find stops the leg, named" "ldd /usr/bin/true: a library is missing: .*libnosuch.so.1 => not found" \
	bin_leg /usr/bin/true PATH="$tmp/fake-ldd:$tmp/fake-bin:$PATH"
expect_error "a program of '# users-bin:' that is no ELF program is refused" "'# users-bin: $tmp/fake-ldd/ldd' in the kunitconfigs of .*: not an ELF program" \
	bin_leg "$tmp/fake-ldd/ldd"

# The benchmark's kernel part reads the boot its cases run in: every case
# of ida-bench.kunitconfig is slow, so the leg boots once, for them.
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/bench-results" FAKE_KUNIT_SLOW_LOG="$LOGS_DIR/bench/kernel-slow.log" \
	"$REPO/scripts/tools/bench.sh" --no-userspace >"$tmp/out" 2>&1
check_that "bench.sh reads the benchmark from the leg's slow boot" "$(tail -n 1 "$tmp/out")" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))
sys.exit(0 if k["ops"].get("seq_alloc_64K") == 65536 and "dense_1M" in k["memory"] else 1)' "$tmp/bench-results/bench/kernel.json"
expect_error "bench.sh refuses --rev without the userspace benchmark" "not with --no-userspace" \
	"$REPO/scripts/tools/bench.sh" --no-userspace --rev HEAD

# The guard against a boot image that is not the build's.
expect_calls "a boot whose banner is not the build's fails the leg" "1 exec exec-slow" \
	"$(fake_run FAKE_KUNIT_BOOT_BANNER="Linux version 6.12-standin (fake@build) (fake-gcc) #0 SMP stale")"
check_that "and says it booted a kernel other than the one built" "it does not" \
	grep -q "booted a kernel other than the one built" "$tmp/out"
expect_calls "a slow boot that ran no test fails the leg" "1 exec exec-slow" \
	"$(fake_run FAKE_KUNIT_SLOW_LOG=none)"
check_that "and says which boot" "it does not" grep -q "kernel-slow.log: the boot ran no test" "$tmp/out"
echo "int z;" >>"$fake/lib/idr.c"
fake_run >/dev/null
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "a rebuilt kernel's boot carries the new build's banner" "it does not" \
	sh -c 'grep -q "#$(cat "$1")" "$2"' - "$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake/.fake-build-number" \
	"$tmp/fake-results/x86_64/kernel.log"

# One run at a time in a build folder; a signal stops the boots.
lock=$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake.lock
# The holder takes the lock before the run starts, and lets it go only once
# the run has said that it waits (then one second more): no fixed pause,
# which a busy machine can outlast before the run reaches its lock.
rm -f "$tmp/held"
: >"$tmp/err"
( exec 8>"$lock" && flock 8 && touch "$tmp/held" &&
  for _ in $(seq 600); do grep -qs "another run is using" "$tmp/err" && break; sleep 0.1; done && sleep 1 ) &
holder=$!
for _ in $(seq 600); do [ -e "$tmp/held" ] && break; sleep 0.1; done
t0=$(date +%s)
expect_calls "a run waits while another holds the build folder" "0 exec exec-slow" "$(fake_run)"
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "and says so, and starts once it is free" "it did not wait: $(grep -c 'another run' "$tmp/err") $(elapsed "$t0")s" \
	sh -c 'grep -q "another run is using" "$1" && [ "$2" -ge 1 ]' - "$tmp/err" "$(elapsed "$t0")"
wait "$holder"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" IDA_KUNIT_TIMEOUT=60 FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/fake.kunitconfig" -- --qemu_args=-S \
	>"$tmp/out" 2>"$tmp/err" &
leg=$!
for _ in $(seq 50); do
	[ -f "$tmp/fake-cache/build/linux-$TREE_VERSION-x86_64-fake/.ida-kunit-boot-pid" ] && break
	sleep 0.2
done
sleep 1
t0=$(date +%s)
kill -TERM "$leg"
wait "$leg"
rc=$?
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "a signal during the boot stops it at once, and the leg fails saying so" \
	"exit $rc after $(elapsed "$t0")s: $(tail -n 1 "$tmp/err")" \
	sh -c '[ "$1" -ne 0 ] && [ "$2" -lt 10 ] && grep -q "stopped by SIGTERM during the boot" "$3" &&
	       grep -q "stopped by SIGTERM" "$4"' - "$rc" "$(elapsed "$t0")" "$tmp/err" "$tmp/fake-results/x86_64/counts.json"
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "and no boot is left running" "one is: $(pgrep -f "build_dir $tmp/fake-cache" | head -n 1)" \
	sh -c '! pgrep -f "build_dir $1" >/dev/null' - "$tmp/fake-cache"

# A leg that stops before its boot leaves no earlier run's counts behind.
expect_calls "a passing leg, first" "0 exec exec-slow" "$(fake_run)"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/fake-results" FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/nonexistent.kunitconfig" >/dev/null 2>&1
check_that "a leg that stops before its boot leaves a failed counts.json, not the last run's" \
	"the previous counts are still there" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["verdict"] == "FAIL" and c["phase"] == "setup" and c["passed"] == 0 else 1)' "$tmp/fake-results/x86_64/counts.json"
mkdir -p "$tmp/fake-results/mine" && echo "keep" >"$tmp/fake-results/mine/notes.txt"
expect_error "a results folder a leg did not make is not emptied" "is not a leg's results folder" \
	env IDA_KUNIT_RESULTS="$tmp/fake-results" "$REPO/scripts/run-kunit.sh" --arch x86_64 --name mine
check_that "and its files are still there" "they are gone" test -f "$tmp/fake-results/mine/notes.txt"
( cd "$tmp" && env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$fake" IDA_KUNIT_ARCH_TABLE="$tmp/table/arches.tsv" IDA_KUNIT_CACHE=rel-cache \
	IDA_KUNIT_RESULTS=rel-results FAKE_KUNIT_LOG="$LOGS_DIR/pass.log" \
	"$REPO/scripts/run-kunit.sh" --arch x86_64 --kunitconfig "$tmp/fake.kunitconfig" >/dev/null 2>&1 )
check_that "relative IDA_KUNIT_* paths are taken from the current folder" "results are elsewhere" \
	test -f "$tmp/rel-results/x86_64/counts.json" -a -d "$tmp/rel-cache/build"

# --- results of a boot ----------------------------------------------------
section "results of a boot"
results "a passing run passes" 0 'PASS: 8 passed, 0 failed, 0 skipped .*2 expected warnings' \
	"$LOGS_DIR/pass.log" --expect-suite ida
results "a failed case fails the run" 1 'FAILED ida.ida_test_max' "$LOGS_DIR/fail.log"
results "a skipped case is counted as skipped, not passed" 0 '7 passed, 0 failed, 1 skipped' "$LOGS_DIR/skip.log"
results "a kernel panic fails the run" 1 'panicked' "$LOGS_DIR/panic.log"
results "truncated KTAP fails the run" 1 'FAIL' "$LOGS_DIR/truncated.log"
results "a boot with no KTAP fails the run" 1 'no test ran' "$LOGS_DIR/empty.log"
results "an empty suite list fails the run" 1 'no test ran' "$LOGS_DIR/no-tests.log"
results "a hung boot fails the run" 1 'hung' "$LOGS_DIR/pass.log" --timed-out 300
results "a missing suite fails the run" 1 'suite ida_mmu did not run' "$LOGS_DIR/pass.log" --expect-suite ida_mmu
results "an unexpected warning fails the run" 1 'unexpected kernel report: WARNING: CPU: 1' "$LOGS_DIR/splat.log"
results "a wrong number of expected warnings fails the run" 1 'expected 2 warnings, the log has 1' "$LOGS_DIR/warn-count.log"
results "a missing log fails the run" 1 'no test ran' "$tmp/does-not-exist.log"
results "a boot whose leak scan found nothing passes" 0 'PASS' "$LOGS_DIR/leak-clean.log" --expect-leak-scan
results "a leak kmemleak reports fails the run" 1 'kmemleak: unreferenced object 0xffff888004a1c800' \
	"$LOGS_DIR/leak-report.log" --expect-leak-scan
results "a boot without the leak scan fails a run that wants one" 1 'the leak scan did not finish in pass.log' \
	"$LOGS_DIR/pass.log" --expect-leak-scan
sed '/^SMBIOS/a smp: Brought up 1 node, 2 CPUs' "$LOGS_DIR/pass.log" >"$tmp/smp2.log"
sed '/^SMBIOS/a smp: Brought up 1 node, 1 CPU' "$LOGS_DIR/pass.log" >"$tmp/smp1.log"
results "a boot that brings up every CPU QEMU gave it passes" 0 'PASS' "$tmp/smp2.log" --expect-cpus 2
results "a boot that brings up fewer CPUs than QEMU gave it fails the run" 1 'smp1.log: 1 of 2 CPUs up' \
	"$tmp/smp1.log" --expect-cpus 2
results "a boot that does not say how many CPUs came up fails a run that wants 2" 1 \
	'pass.log: no "smp: Brought up" line' "$LOGS_DIR/pass.log" --expect-cpus 2
results "a KASAN report inside an expected-warnings window fails the run" 1 \
	"in ida_test_bad_free's expected-warnings window: BUG: KASAN: slab-use-after-free" "$LOGS_DIR/kasan-in-window.log"
results "a warning without the announced text inside a window fails the run" 1 \
	"in ida_test_bad_free's expected-warnings window: xa_store called with a bad index" "$LOGS_DIR/other-warning-in-window.log"
results "a warning whose message follows its WARNING line (arm, sh) is counted" 0 'PASS: .*2 expected warnings' \
	"$LOGS_DIR/warn-after.log"
results "and one whose following line lacks the announced text fails the run" 1 \
	"in ida_test_bad_free's expected-warnings window: WARNING: CPU: 0 PID: 46" "$LOGS_DIR/warn-after-other.log"
# Gates that must not pass what they should fail, nor fail what they should pass.
sed '/^SMBIOS/a PM: DEBUG: suspend entered' "$LOGS_DIR/pass.log" >"$tmp/pm-debug.log"
results "a \"PM: DEBUG: \" line is not a kernel report" 0 'PASS' "$tmp/pm-debug.log"
sed '/ok 2 ida_test_destroy/a BUG: kernel NULL pointer dereference, address: 0000000000000000\nOops: 0002 [#1] SMP' \
	"$LOGS_DIR/pass.log" >"$tmp/oops.log"
results "an Oops that KUnit survived is an Oops, not a panic" 1 'the kernel oopsed: BUG: kernel NULL pointer' \
	"$tmp/oops.log"
check_that "and counts.json does not say it panicked" "it does" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if not c["panicked"] and [p["kind"] for p in c["problems"]].count("oops") == 1 else 1)' "$tmp/res/counts.json"
sed '/# ida_test_bad_free: expected warnings end/s/.*/    # ida_test_other: expected warnings begin: 0/' "$LOGS_DIR/pass.log" >"$tmp/window-open.log"
results "an expected-warnings window that never ends fails the run, though another begins" 1 \
	"ida_test_bad_free: expected warnings never ended \(the next window, ida_test_other's, began\)" \
	"$tmp/window-open.log"
sed 's/kmemleak done: 0 unreferenced/kmemleak done: 3 unreferenced/' "$LOGS_DIR/leak-clean.log" >"$tmp/leak-count.log"
results "a leak scan that counts objects it does not list fails the run" 1 \
	'kmemleak: 3 unreferenced objects in leak-count.log' "$tmp/leak-count.log" --expect-leak-scan
results "a crash is one failed case, the cases after it not run" 1 '2 passed, 1 failed, 0 skipped, 3 not run' \
	"$LOGS_DIR/panic.log"
check_that "and results.json names the cases that never reported as junit.xml does" "the names differ" python3 -c '
import json, sys, xml.etree.ElementTree as E
def names(t):
    for s in t.get("sub_groups", []):
        yield from names(s)
    for c in t.get("test_cases", []):
        yield c["name"]
j = set(names(json.load(open(sys.argv[1]))))
x = {c.get("name") for c in E.parse(sys.argv[2]).getroot().iter("testcase")}
never = {n for n in x if n.endswith("never reported")}
sys.exit(0 if never and never <= j else 1)' "$tmp/res/results.json" "$tmp/res/junit.xml"

# The booted kernel is the built one: its banner is the build's.
{ printf '\177ELF junk\0%%s version %%s\0'; head -n 1 "$LOGS_DIR/pass.log"; printf '\0more'; } >"$tmp/vmlinux-same"
sed '1s/#2 SMP/#3 SMP/' "$LOGS_DIR/pass.log" | head -n 1 >"$tmp/vmlinux-other"
results "a boot of the kernel that was built passes" 0 'PASS' "$LOGS_DIR/pass.log" --expect-banner-of "$tmp/vmlinux-same"
results "a boot of another kernel than the one built fails the run" 1 \
	'booted a kernel other than the one built: pass.log says .*#2 SMP.*, vmlinux-other .*#3 SMP' \
	"$LOGS_DIR/pass.log" --expect-banner-of "$tmp/vmlinux-other"
sed '/Linux version/d' "$LOGS_DIR/pass.log" >"$tmp/no-banner.log"
results "a boot that printed no banner fails the run" 1 'no-banner.log: no Linux version banner' \
	"$tmp/no-banner.log" --expect-banner-of "$tmp/vmlinux-same"
results "a build with no banner in its vmlinux fails the run" 1 'no Linux version banner in .*vmlinux-none' \
	"$LOGS_DIR/pass.log" --expect-banner-of "$tmp/vmlinux-none"
# Each of a leg's boots must run cases of its own.
results "a second boot that ran no test fails the run" 1 'no-tests.log: the boot ran no test' \
	"$LOGS_DIR/pass.log" --log "$LOGS_DIR/no-tests.log"
results "a second boot that left an empty log fails the run" 1 'empty-boot.log: the boot left no log' \
	"$LOGS_DIR/pass.log" --log "$tmp/empty-boot.log"
: >"$tmp/empty-boot.log"
results "and one with an empty log file fails it too" 1 'empty-boot.log: the boot left no log' \
	"$LOGS_DIR/pass.log" --log "$tmp/empty-boot.log"
results "two boots that each ran their cases pass" 0 'PASS: 15 passed, 0 failed, 1 skipped' \
	"$LOGS_DIR/pass.log" --log "$LOGS_DIR/skip.log"
results "a log with ESC, NUL and BEL still gives a failed run" 1 'FAILED ida.ida_test_max' "$LOGS_DIR/control-chars.log"
"$REPO/scripts/install-deps.sh" checks >/dev/null 2>&1
check_that "junit.xml of a log with ESC, NUL and BEL is valid XML (xmllint)" "xmllint rejects it" \
	xmllint --noout "$tmp/res/junit.xml"
check_that "every testcase and testsuite of junit.xml has a time" "one has none" python3 -c '
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
els = [r] + r.findall("testsuite") + r.findall("testsuite/testcase")
sys.exit(0 if len(els) > 2 and all(e.get("time") is not None for e in els) else 1)' "$tmp/res/junit.xml"
check_that "counts.json says in fields what went wrong (phase, hung, problems)" "it does not" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["phase"] == "run" and c["hung"] is False and c["failed"] == 1 and c["problems"] == [] else 1)' "$tmp/res/counts.json"
results "a hung boot fails the run" 1 'hung' "$LOGS_DIR/pass.log" --timed-out 300
check_that "a hung boot says so in counts.json" "hung is not true" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(0 if c["hung"] is True and c["problems"][0]["kind"] == "hung" else 1)' "$tmp/res/counts.json"

# --- reports: kcidb, the GitHub summary, the HTML page -------------------------
section "reports: kcidb, the GitHub summary, the HTML page"
# A recorded run: a failed case, a skipped case, a panic, and two checks.
rec=$tmp/recorded
mkdir -p "$rec/checks"
for leg in fail skip panic; do
	python3 "$REPO/kunit/results.py" --kunit-tool "$SRC/tools/testing/kunit" --log "$LOGS_DIR/$leg.log" \
		--out "$rec/$leg" --arch "$leg" >/dev/null 2>&1
	echo '{"configure": 1, "build": 20, "run": 3}' >"$rec/$leg/times.json"
	echo "{\"name\": \"$leg\", \"arch\": \"x86_64\", \"compiler\": \"gcc (Debian 12.2.0-14) 12.2.0\", \"kunitconfigs\": [\"ida.kunitconfig\"]}" >"$rec/$leg/leg.json"
done
printf 'series-git-am PASS 3\nshellcheck FAIL 2\n' >"$rec/checks/checks.txt"
echo "error: shellcheck: findings above" >"$rec/checks/shellcheck.log"
printf '{"run_id": "1796300000-0123456789ab", "start": 1796300000, "package": "linux-source-6.12", "version": "6.12.1-1", "pristine": "%s", "branch_head": "%s", "patchset_hash": "%s", "patches": ["0001-a.patch"]}\n' \
	"$(printf '0%.0s' {1..40})" "$(printf '1%.0s' {1..40})" "$(printf 'a%.0s' {1..64})" >"$rec/run.json"
echo '{"total": 60, "steps": {}}' >"$rec/times.json"
echo "20 passed, 7 failed, 1 skipped" >"$rec/summary.txt"
"$REPO/scripts/install-deps.sh" checks >/dev/null 2>&1
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-1.json" >/dev/null 2>"$tmp/err"
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-2.json" >/dev/null 2>>"$tmp/err"
check_that "kcidb.json of a recorded run is valid against the kcidb v5 schema" "$(tail -n 1 "$tmp/err")" \
	python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
	"$REPO/kunit/kcidb-v5.schema.json" "$tmp/kcidb-1.json"
check_that "the schema rejects a status kcidb does not know" "it accepts it" python3 -c '
import json, sys, jsonschema
d = json.load(open(sys.argv[2])); d["tests"][0]["status"] = "BROKEN"
try:
    jsonschema.validate(d, json.load(open(sys.argv[1])))
except jsonschema.ValidationError:
    sys.exit(0)
sys.exit(1)' "$REPO/kunit/kcidb-v5.schema.json" "$tmp/kcidb-1.json"
check_that "kcidb: the failure, the skip and the panic are there, with the failure's log" "one is missing" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["path"] + "@" + x["build_id"].rsplit("-", 1)[-1]: x for x in d["tests"]}
assert t["ida.ida_test_max@fail"]["status"] == "FAIL" and "EXPECTATION FAILED" in t["ida.ida_test_max@fail"]["log_excerpt"]
assert t["ida.ida_test_max@skip"]["status"] == "SKIP"
assert t["kunit-run.boot@panic"]["status"] == "FAIL" and "panicked" in t["kunit-run.boot@panic"]["log_excerpt"]
assert t["ida.ida_test_leaf.base_1024@fail"]["status"] == "PASS"
assert t["checks.shellcheck@checks"]["status"] == "FAIL"
assert {b["architecture"] for b in d["builds"]} == {"x86_64"} and d["checkouts"][0]["patchset_hash"] == "a" * 64
' "$tmp/kcidb-1.json"
check_that "kcidb ids are unique, and the same for the same run" "they are not" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for kind in ("checkouts", "builds", "tests"):
    ids = [x["id"] for x in a[kind]]
    assert len(ids) == len(set(ids)), kind
    assert ids == [x["id"] for x in b[kind]], kind
    assert all(i.startswith("ida_kunit:1796300000-0123456789ab") for i in ids), kind' "$tmp/kcidb-1.json" "$tmp/kcidb-2.json"
sed -i 's/"run_id": "1796300000-0123456789ab"/"run_id": "1796300999-0123456789ab"/' "$rec/run.json"
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-3.json" >/dev/null 2>&1
check_that "and another run's ids are all different" "some are the same" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for kind in ("checkouts", "builds", "tests"):
    assert not {x["id"] for x in a[kind]} & {x["id"] for x in b[kind]}, kind' "$tmp/kcidb-1.json" "$tmp/kcidb-3.json"
python3 "$REPO/kunit/report.py" summary "$rec/fail" >"$tmp/summary.md" 2>&1
check_that "the GitHub summary of a failed leg gives its counts, times and the failure's first lines" "it does not" \
	grep -qzE '\| 7 \| 1 \| 0 \| 0 \| 1 s \| 20 s \| 3 s \|.*failed\*\* .ida.ida_test_max.: ida_test_max: EXPECTATION FAILED.*Expected ida_alloc_min' "$tmp/summary.md"
python3 "$REPO/kunit/report.py" summary "$rec/skip" >"$tmp/summary.md" 2>&1
check_that "the GitHub summary of a leg with a skip gives the reason" "it does not" \
	grep -q 'skipped .ida.ida_test_max.: fault injection is not configured' "$tmp/summary.md"
python3 "$REPO/kunit/report.py" summary "$rec" >"$tmp/summary.md" 2>&1
check_that "the GitHub summary of the checks names the failed one with its log" "it does not" \
	grep -q 'shellcheck\*\* failed' "$tmp/summary.md"
python3 "$REPO/kunit/report.py" html "$rec" >/dev/null 2>&1
python3 "$REPO/kunit/report.py" html "$rec" >/dev/null 2>&1
check_that "the HTML page shows every leg, the failure and no remote resource" "it does not" python3 -c '
import re, sys
page = open(sys.argv[1]).read()
assert all(f"data-leg=\"{l}\" data-passed" in page for l in ("fail", "skip", "panic"))
assert "EXPECTATION FAILED" in page and "the kernel panicked" in page
assert not re.search(r"(src|href)=\"(https?:)?//", page)' "$rec/index.html"
check_that "history.jsonl has one line per run, also when the page is written twice" "it has $(wc -l <"$rec/history.jsonl" 2>/dev/null) lines" \
	test "$(wc -l <"$rec/history.jsonl")" = 1
# What the reports say must be this run's, and true.
cp -r "$rec/fail" "$rec/old-leg"
python3 - "$rec/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); r["legs"] = ["fail", "skip", "panic"]; r["series_applied"] = True
json.dump(r, open(sys.argv[1], "w"))
PY
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-4.json" >/dev/null 2>&1
check_that "kcidb.json holds the legs of this run (run.json), not an earlier run's left in the folder" "it does not" \
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
legs = {b["misc"]["leg"] for b in d["builds"] if "misc" in b}
assert legs == {"fail", "skip", "panic"}, legs' "$tmp/kcidb-4.json"
check_that "the build of the checks fails when a check failed" "it passes" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for b in d["builds"] if b["config_name"] == "checks"][0]
assert b["status"] == "FAIL" and "shellcheck" in b["comment"], b' "$tmp/kcidb-4.json"
check_that "the checkout is valid when the series applied" "it is not" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["checkouts"][0]["valid"] is True' "$tmp/kcidb-4.json"
sed -i 's/"series_applied": true/"series_applied": false/' "$rec/run.json"
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-5.json" >/dev/null 2>&1
check_that "and not valid when it did not" "it is" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["checkouts"][0]["valid"] is False' "$tmp/kcidb-5.json"
rm -rf "$rec/old-leg"
echo '{"name": "skip", "arch": "ppc64le", "linux_arch": "powerpc", "vcpus": 1, "kunitconfigs": []}' >"$rec/skip/leg.json"
python3 "$REPO/kunit/report.py" kcidb "$rec" --out "$tmp/kcidb-6.json" >/dev/null 2>&1
check_that "a test's environment is its leg's (arch, vCPUs), not always 2 vCPUs" "it is not" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
envs = {t["environment"]["comment"] for t in d["tests"] if "-skip-" in t["id"]}
assert envs == {"QEMU, ppc64le, 1 vCPU"}, envs' "$tmp/kcidb-6.json"
mkdir -p "$tmp/empty-results"
expect_error "kcidb of a folder with no leg and no check is an error, not an empty submission" \
	"nothing to submit" python3 "$REPO/kunit/report.py" kcidb "$tmp/empty-results" --out "$tmp/kcidb-empty.json"
check_that "and writes nothing" "it wrote a file" test ! -e "$tmp/kcidb-empty.json"
# shellcheck disable=SC2016 # the inner shell expands its own arguments
check_that "report.py line counts a leg whose run went wrong as failed, and says why" "$(python3 "$REPO/kunit/report.py" line "$rec/panic")" \
	sh -c 'python3 "$1" line "$2" | grep -q "FAIL: 2 passed, 2 failed, .*; unexpected kernel report: BUG"' - "$REPO/kunit/report.py" "$rec/panic"
mkdir -p "$rec/bench"
for rev in before after; do
	printf '{"kind": "userspace", "label": "%s", "rev": "%s", "instructions_per_op": {"seq_alloc_64K": {"ida": 500, "idr": 520, "bitmap": 93}, "seq_free_64K": {"ida": 180, "idr": 240, "bitmap": 25}}}\n' \
		"$rev" "$rev" >"$rec/bench/userspace-$rev.json"
done
sed -i 's/"run_id": "1796300999-0123456789ab"/"run_id": "1796301999-0123456789ab"/' "$rec/run.json"
python3 "$REPO/kunit/report.py" html "$rec" >/dev/null 2>&1
check_that "the page draws the benchmark (IDA per revision, IDR, bitmap) and the history as SVG" "it does not" python3 -c '
import sys
page = open(sys.argv[1]).read()
assert page.count("<rect") >= 2 * 4 and "IDA before" in page and "IDA after" in page and ">IDR<" in page
assert "<polyline" in page and "last 2 runs" in page' "$rec/index.html"

# --- mutation testing: what a run of a mutant means -------------------------
section "mutation testing: what a run of a mutant means"
check_that "mutate.py: a mutant is only killed by a failure in a booted kernel" "classify() disagrees" \
	python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from mutate import classify
assert classify(0, {}) == "passed"
assert classify(1, {"phase": "run", "failed": 1}) == "killed"
assert classify(1, {"phase": "run", "hung": True}) == "killed"
assert classify(1, {"phase": "build"}) == "stillborn"
for counts in ({"phase": "setup"}, {"phase": "config"}, {}):
    assert classify(1, counts) == "error", counts' "$REPO/scripts/tools"
printf 'radix-tree: idr-test FAILED (see /r/radix-tree-idr-test.log)\nerror: radix-tree: idr-test failed\n' >"$tmp/h1.log"
printf 'error: /t has uncommitted changes: the harness would not test the branch\n' >"$tmp/h2.log"
check_that "mutate.py: a survivor is killed by the harness only when a harness program fails" \
	"harness_verdict() disagrees" python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from mutate import harness_verdict
assert harness_verdict(0, sys.argv[2]) == ("survived", "")
assert harness_verdict(1, sys.argv[2]) == ("killed", "radix-tree harness: idr-test failed"), harness_verdict(1, sys.argv[2])
v, by = harness_verdict(2, sys.argv[3])
assert v == "error" and "could not run" in by, (v, by)' "$REPO/scripts/tools" "$tmp/h1.log" "$tmp/h2.log"
mkdir -p "$tmp/dirty/tools/testing/radix-tree"
git -C "$tmp/dirty" init -q && echo a >"$tmp/dirty/f" &&
	git -C "$tmp/dirty" add f && git -C "$tmp/dirty" -c user.name=t -c user.email=t@t commit -qm a &&
	echo b >"$tmp/dirty/f"
env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$tmp/dirty" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/dirty-results" "$REPO/scripts/checks/radix-tree-test.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
check_that "radix-tree-test.sh on uncommitted changes: exit 2 (could not run), not 1 (a failure)" \
	"exit $rc: $(tail -n 1 "$tmp/err")" \
	test "$rc" = 2 -a "$(grep -c 'has uncommitted changes' "$tmp/err")" = 1
# The harness checks read each program's exit code from run_programs.
mkdir -p "$tmp/progs" && printf '#!/bin/sh\nexit 3\n' >"$tmp/progs/fails" &&
	printf '#!/bin/sh\nexit 0\n' >"$tmp/progs/passes" && chmod +x "$tmp/progs/fails" "$tmp/progs/passes"
check_that "run_programs gives each harness program's own exit code" "it does not: $(run_programs "$tmp/progs" "$tmp/progs/log" 10 fails passes | paste -s -d ' ')" \
	test "$(run_programs "$tmp/progs" "$tmp/progs/log" 10 fails passes | cut -d' ' -f1,3 | paste -s -d ' ')" = "fails 3 passes 0"
mkdir -p "$tmp/mut/lib"
cp "$fake/lib/idr.c" "$tmp/mut/lib/idr.c" 2>/dev/null
git -C "$SRC" show "$BRANCH:lib/idr.c" >"$tmp/mut/lib/idr.c" 2>/dev/null
cp -r "$fake/tools" "$tmp/mut/"
if env PATH="$tmp/fake-bin:$PATH" IDA_KUNIT_SRC="$tmp/mut" IDA_KUNIT_CACHE="$tmp/fake-cache" \
	IDA_KUNIT_RESULTS="$tmp/mut-results" FAKE_KUNIT_LOG="$LOGS_DIR/fail.log" \
	python3 "$REPO/scripts/tools/mutate.py" --only max-clamp-dropped --no-harness --no-debug-leg \
	>"$tmp/out" 2>"$tmp/err"; then
	not_ok "mutate.py stops when the unmutated tree fails" "it exited 0"
elif grep -q "error: the unmutated tree fails on x86_64 (ida.ida_test_max" "$tmp/err" &&
     ! grep -q "killed" "$tmp/out"; then
	ok "mutate.py stops when the unmutated tree fails"
else
	not_ok "mutate.py stops when the unmutated tree fails" "$(tail -n 1 "$tmp/err")"
fi

# --- the architecture table: one row and one QEMU config add an architecture --
section "the architecture table: one row and one QEMU config add an architecture"
# A new row (its package column names one that is installed, so nothing is
# fetched) and a new QEMU config, in copies: every consumer sees it.
cp "$ARCH_TABLE" "$tmp/arches.tsv" && cp -r "$(dirname "$ARCH_TABLE")/qemu_configs" "$tmp/"
echo "fakearch  fake-linux-gnu-  qemu-system-fake  git  dmaengine  yes  -" >>"$tmp/arches.tsv"
cp "$tmp/qemu_configs/x86_64.py" "$tmp/qemu_configs/fakearch.py"
with_fake_arch() { env IDA_KUNIT_ARCH_TABLE="$tmp/arches.tsv" "$@"; }
expect_error "a new architecture is known to every script" "unknown arch 'nope' \(known: .*fakearch" \
	with_fake_arch "$REPO/scripts/run-kunit.sh" --arch nope
check_that "install-deps.sh installs what its row names" "it does not know the arch" \
	with_fake_arch "$REPO/scripts/install-deps.sh" fakearch
expect_error "run-kunit.sh builds it with the row's cross compiler" "compiler fake-linux-gnu-gcc for fakearch is missing" \
	with_fake_arch env IDA_KUNIT_SRC="$fake" IDA_KUNIT_RESULTS="$tmp/fake-results" "$REPO/scripts/run-kunit.sh" --arch fakearch
fakearch_is_default() { local ARCH_TABLE=$tmp/arches.tsv; [[ " $(default_arches) " == *" fakearch "* ]]; }
check_that "test-all.sh runs it by default (its row says yes)" "it is not a default leg" fakearch_is_default
expect_error "the CI matrix check wants a job for it" "fakearch: no job of the CI matrix" \
	with_fake_arch "$REPO/scripts/checks/lint.sh" arches
rm "$tmp/qemu_configs/fakearch.py"
expect_error "and a QEMU config" "no QEMU config .*fakearch.py" \
	with_fake_arch "$REPO/scripts/run-kunit.sh" --arch fakearch

section "known failures: a leg marked xfail must fail exactly the known way"
# Results folders as run-kunit.sh leaves them, for the table's known
# failure (sh4's): passing, failing in another phase, printing its banner.
# (That it is recognised when it fails the known way needs the sh4
# compiler: the CI's sh4 leg runs that.)
kf=$tmp/known
mkdir -p "$kf/sh4" "$kf/passed" "$kf/other-phase"
leg_counts() {	# leg_counts DIR VERDICT PHASE
	printf '{"verdict": "%s", "phase": "%s", "passed": 0, "failed": 1, "skipped": 0}\n' "$2" "$3" >"$1/counts.json"
}
leg_counts "$kf/passed" PASS run
leg_counts "$kf/other-phase" FAIL build
echo "lib/idr.c:1:1: error: something else" >"$kf/other-phase/build.log"
leg_counts "$kf/sh4" FAIL run
echo "Linux version 6.12 (sh4) #1" >"$kf/sh4/kernel.log"
expect_error "a leg marked xfail that passes turns red" "sh4 passed: its known failure .* is gone" \
	"$REPO/scripts/checks/known-failure.sh" sh4 "$kf/passed"
expect_error "a leg marked xfail that fails in another phase turns red" "not as 'sh4-gcc-cmpeq' says: it stopped in the build phase" \
	"$REPO/scripts/checks/known-failure.sh" sh4 "$kf/other-phase"
expect_error "sh4's hang is not the known one once its kernel prints" "got past the decompressor" \
	"$REPO/scripts/checks/known-failure.sh" sh4 "$kf/sh4"
expect_error "a leg with no known failure has no xfail to check" "x86_64 has no known failure" \
	"$REPO/scripts/checks/known-failure.sh" x86_64 "$kf/passed"
sed 's/^\(arm64 .*\)  ida-nomem-trace,dmaengine /\1  ida-nomem-trace /' "$ARCH_TABLE" >"$tmp/arches-no-dma.tsv"
expect_error "every row must run the dmaengine suite" "arm64: its kunitconfigs leave out dmaengine" \
	env IDA_KUNIT_ARCH_TABLE="$tmp/arches-no-dma.tsv" "$REPO/scripts/checks/lint.sh" arches
sed 's/^\(sh4 .*\) sh4-gcc-cmpeq$/\1 -/' "$ARCH_TABLE" >"$tmp/arches-no-xfail.tsv"
expect_error "the CI matrix must mark exactly the table's known failures" "CI leg sh4: xfail is sh4-gcc-cmpeq, the table says -" \
	env IDA_KUNIT_ARCH_TABLE="$tmp/arches-no-xfail.tsv" "$REPO/scripts/checks/lint.sh" arches

# relay_tap FILE: the TAP lines of a section that ran on its own, numbered
# on from here.
relay_tap() {
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok "*) n=$((n + 1)); echo "ok $n - ${line#* - }" ;;
		"not ok "*) n=$((n + 1)) failures=$((failures + 1)); echo "not ok $n - ${line#* - }" ;;
		esac
	done <"$1"
}
wait "$whole_pid"
relay_tap "$tmp/whole.tap"
cat "$tmp/whole.err" >&2
if ! grep -q '^# whole default check: done$' "$tmp/whole.tap"; then
	not_ok "the whole default check ran to its end" "it stopped half-way: $(tail -n 1 "$tmp/whole.err")"
fi

section end
echo "1..$n"
[ "$failures" -eq 0 ]
