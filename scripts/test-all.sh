#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole test suite (what .ci/run runs).  Installs what it needs, makes
# the distro tree and the patched tree itself (nothing an earlier run left is
# read unless it is verified: see setup-tree.sh and apply-series.sh), then:
#   - the scripts' own tests (scripts/checks/test-scripts.sh)
#   - the series: git am on the pristine tree, patch -p1 from the series
#     file, checkpatch.pl --strict on every patch, no deprecated IDA API
#     left in the tree
#   - every patch builds on its own, with no new W=1 or sparse warnings
#   - the userspace radix-tree harness (idr-test) on the patched tree, the
#     XArray's iteration test with its writer held up after call_rcu() (the
#     tree fix it needs), and the line coverage of the IDA functions under
#     the suite
#   - lints: shellcheck, yamllint and actionlint, the architecture table,
#     mypy --strict and the unit tests of the Python
#   - the KUnit legs in QEMU: every case of every leg counts as one check
#   - a hang: a boot that outlives its time limit must be reported as failed
#   - a fresh boot: an edit of one instruction boots the kernel just built
#   - the plain kunit.py commands of README.md and the cover letter, each
#     run as written
# Prints one line per step with its time; writes $IDA_KUNIT_RESULTS/times.json.
# IDA_KUNIT_SKIP=NAME,... skips those checks (counted as skipped); a NAME
# may be a shell pattern (plain-kunit-*).
# Ends with "N passed, N failed, N skipped"; exits non-zero on any failure.
# Usage: test-all.sh [--no-kunit | ARCH...]   (default: the default legs of
# kunit/arches.tsv)
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$1" = --no-kunit ]; then
	set --
elif [ $# -eq 0 ]; then
	read -r -a defaults <<<"$(default_arches)"
	set -- "${defaults[@]}"
fi
for arch in "$@"; do
	( arch_params "$arch" ) || exit 1
done
# The scripts' own tests; they run this script on a stand-in tree with a
# stand-in of themselves (IDA_KUNIT_SELF_TESTS).
self_tests=${IDA_KUNIT_SELF_TESTS:-$REPO/scripts/checks/test-scripts.sh}

passed=0 failed=0 skipped=0
series_applied=0
legs_run=()	# the KUnit legs of this run, for the reports (run.json)
failures=()
times=()
checks=()	# name status seconds, for the reports
start=$(date +%s)
LOGS=$RESULTS/checks
if [ -e "$LOGS" ]; then
	[ -f "$LOGS/.ida-kunit-checks" ] || die "$LOGS exists and is not a folder of check logs: move it away"
	rm -rf "$LOGS" || die "cannot remove the previous check logs in $LOGS"
fi
{ mkdir -p "$LOGS" && touch "$LOGS/.ida-kunit-checks"; } || die "cannot create $LOGS"

step_time() {	# step_time NAME SECONDS: remembered for times.json
	times+=("$1" "$2")
}

# skipped_by_request NAME: IDA_KUNIT_SKIP (comma separated names, or shell
# patterns such as plain-kunit-*) names the check NAME.
skipped_by_request() {
	local p
	local -a pats
	IFS=, read -r -a pats <<<"${IDA_KUNIT_SKIP:-}"
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a pattern, on purpose
		[[ -n "$p" && "$1" == $p ]] && return 0
	done
	return 1
}

# check NAME COMMAND...: run one check, its output in $LOGS/NAME.log.  A
# check named in IDA_KUNIT_SKIP is not run, and is counted as skipped.
check() {
	local name=$1 t0 rc
	shift
	if skipped_by_request "$name"; then
		skipped=$((skipped + 1))
		checks+=("$name" SKIP 0)
		echo "SKIP $name (IDA_KUNIT_SKIP)"
		return 0
	fi
	t0=$(date +%s)
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	step_time "$name" "$(elapsed "$t0")"
	checks+=("$name" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed "$t0")")
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

# run_info: what the reports need to know of this run, in
# $RESULTS/run.json: an id unique to it, the tree, the series (and whether
# it applied), the KUnit legs it ran.
run_info() {
	python3 - "$RESULTS/run.json" "$start" "$SRC" "$PATCHES" "$CACHE" "$series_applied" "${legs_run[@]}" <<'PY'
import hashlib, json, os, subprocess, sys
out, start, src, patches, cache, applied = sys.argv[1:7]
legs = sys.argv[7:]
def git(*args):
    r = subprocess.run(['git', '-C', src] + list(args), capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ''
names = [l.split('#')[0].strip() for l in open(os.path.join(patches, 'series')) if l.split('#')[0].strip()]
# kcidb's patchset hash: sha256 over the patches' sha256 lines, in order.
lines = ''.join(hashlib.sha256(open(os.path.join(patches, n), 'rb').read()).hexdigest() + '\n' for n in names)
patchset = hashlib.sha256(lines.encode()).hexdigest()
try:
    imported = open(os.path.join(src, '.git', 'ida-kunit-import')).readline().split()
except OSError:
    imported = []
package = imported[0] if imported else ''
version = imported[1] if len(imported) > 1 else ''
head = git('rev-parse', 'HEAD')
fixes = git('rev-list', '--count', 'pristine..tree-fixes')
json.dump({'run_id': f'{int(start)}-{patchset[:12]}', 'start': int(start),
           'package': package, 'version': version,
           'series': f'{len(names)} patches on {package} {version}'
                     + (f' and {fixes} tree fixes' if fixes not in ('', '0') else '')
                     + (f', head {head[:12]}' if head and applied == '1' else ', not applied'),
           'pristine': git('rev-parse', 'pristine^{commit}'), 'branch_head': head,
           'patchset_hash': patchset, 'patches': names, 'series_applied': applied == '1',
           'legs': legs}, open(out, 'w'), indent=2)
PY
}

write_run_files() {	# times.json, checks/checks.txt and run.json, so far
	local i
	{
		printf '{"total": %d, "cache_mb": %d, "steps": {' "$(elapsed "$start")" \
			"$(du -sm "$CACHE" 2>/dev/null | cut -f1)"
		for ((i = 0; i < ${#times[@]}; i += 2)); do
			[ "$i" -eq 0 ] || printf ', '
			printf '"%s": %d' "${times[i]}" "${times[i + 1]}"
		done
		printf '}}\n'
	} >"$RESULTS/times.json"
	for ((i = 0; i < ${#checks[@]}; i += 3)); do
		printf '%s %s %s\n' "${checks[i]}" "${checks[i + 1]}" "${checks[i + 2]}"
	done >"$LOGS/checks.txt"
	run_info
}

finish() {
	echo
	write_run_files
	{
		echo "total time $(elapsed "$start")s (steps: $RESULTS/times.json)"
		[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]}"
		echo "$passed passed, $failed failed, $skipped skipped"
	} | tee "$RESULTS/summary.txt"
	if [ -f "$RESULTS/index.html" ]; then
		python3 "$REPO/kunit/report.py" all "$RESULTS" >/dev/null ||
			echo "error: the reports could not be written again" >&2
	fi
	[ "$failed" -eq 0 ]
	exit
}

echo "== set-up"
arches=()
for arch in "$@"; do arches+=("$arch"); done
check install-deps "$REPO/scripts/install-deps.sh" tree build checks lint browser bench "${arches[@]}" || finish
check distro-tree "$REPO/scripts/setup-tree.sh" || finish
check series-apply "$REPO/scripts/apply-series.sh" || finish
series_applied=1

echo "== scripts' own tests"
t0=$(date +%s)
"$self_tests" >"$LOGS/test-scripts.tap" 2>"$LOGS/test-scripts.log"
rc=$?
step_time test-scripts "$(elapsed "$t0")"
ok=$(grep -c '^ok ' "$LOGS/test-scripts.tap")
not_ok=$(grep -c '^not ok ' "$LOGS/test-scripts.tap")
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$LOGS/test-scripts.tap" | tail -n 1)
passed=$((passed + ok)) failed=$((failed + not_ok))
while read -r line; do failures+=("${line#not ok }"); done < <(grep '^not ok ' "$LOGS/test-scripts.tap")
grep '^not ok' "$LOGS/test-scripts.tap"
if [ "${plan:-none}" != $((ok + not_ok)) ]; then
	failed=$((failed + 1)) failures+=("test-scripts-plan")
	echo "FAIL test-scripts: the plan says ${plan:-nothing}, $((ok + not_ok)) tests reported (see $LOGS/test-scripts.log)"
elif [ $rc -ne 0 ] && [ "$not_ok" -eq 0 ]; then
	failed=$((failed + 1)) failures+=("test-scripts-exit")
	echo "FAIL test-scripts: exit $rc with no failed test (see $LOGS/test-scripts.log)"
fi
checks+=(test-scripts "$([ "${plan:-none}" = $((ok + not_ok)) ] && [ "$not_ok" -eq 0 ] && [ $rc -eq 0 ] && echo PASS || echo FAIL)" "$(elapsed "$t0")")
echo "scripts: $ok ok, $not_ok not ok ($(elapsed "$t0")s)"

echo "== series"
check series-git-am "$REPO/scripts/checks/check-series.sh" am
check series-patch-p1 "$REPO/scripts/checks/check-series.sh" patch
while read -r p; do
	check "checkpatch-${p%.patch}" "$REPO/scripts/checks/check-series.sh" checkpatch "$p"
done < <(series_patches)
while read -r p; do
	check "checkpatch-fix-${p%.patch}" "$REPO/scripts/checks/check-series.sh" checkpatch-fix "$p"
done < <(fixes_patches)
if [ -f "$ARCH_FIXES/series" ]; then
	check arch-fixes-apply "$REPO/scripts/checks/check-series.sh" arch-fixes
	while read -r p; do
		check "checkpatch-arch-fix-${p%.patch}" "$REPO/scripts/checks/check-series.sh" checkpatch-arch-fix "$p"
	done < <(arch_fixes_patches)
fi
check no-deprecated-ida-api "$REPO/scripts/checks/check-series.sh" api
check no-incbin-in-headers "$REPO/scripts/checks/check-series.sh" incbin
check series-table-in-docs python3 "$REPO/scripts/docs.py" series --check
# kunit.py's own parser tests, with the tree fix's case (a kernel message
# inside a subtest's header): every leg's verdict goes through that parser.
check kunit-tool-parser python3 "$SRC/tools/testing/kunit/kunit_tool_test.py" KUnitParserTest

echo "== every patch builds on its own (W=1, sparse)"
check series-bisectable "$REPO/scripts/checks/check-bisect.sh"
sed -n '2,$p' "$RESULTS/bisect/table.txt" 2>/dev/null | cut -c1-110

echo "== userspace harness"
check radix-tree-targets "$REPO/scripts/checks/radix-tree-test.sh"
check xarray-rcu-race "$REPO/scripts/checks/xarray-rcu-race.sh"
check xarray-rcu-race-fails-without-fix "$REPO/scripts/checks/xarray-rcu-race.sh" --rev "$PRISTINE_TAG" --runs 2 --expect-failure
check maple-slowread-race "$REPO/scripts/checks/maple-slowread-race.sh"
check maple-slowread-race-fails-without-fix "$REPO/scripts/checks/maple-slowread-race.sh" --rev "$PRISTINE_TAG" --expect-failure
check suite-coverage "$REPO/scripts/tools/coverage.sh"
grep '^coverage\|not run' "$LOGS/suite-coverage.log"
# The figures the allocator patches quote, measured again (callgrind).
check bench-claims "$REPO/scripts/checks/bench-claims.sh"
grep '^bench-claims: ' "$LOGS/bench-claims.log" 2>/dev/null

echo "== lints"
check shellcheck "$REPO/scripts/checks/lint.sh" shellcheck
check workflow-yamllint "$REPO/scripts/checks/lint.sh" yamllint
check workflow-actionlint "$REPO/scripts/checks/lint.sh" actionlint
check arch-table "$REPO/scripts/checks/lint.sh" arches
check python-mypy-strict "$REPO/scripts/checks/lint.sh" mypy
check python-unittest "$REPO/scripts/checks/lint.sh" unittest
check plain-commands-in-docs python3 "$REPO/kunit/plain.py" docs "$REPO/README.md" "$PATCHES/0000-cover-letter.patch"
check plain-commands-block python3 "$REPO/scripts/docs.py" plain-commands --check

# kunit_leg ARCH NAME KUNITCONFIG: one KUnit leg; every case is a check,
# and whatever went wrong with the run besides (panic, hang, bad log, a stop
# before the boot: counts.json's problems) one failed check more.
kunit_leg() {
	local p f s t0 counts=$RESULTS/$2/counts.json
	t0=$(date +%s)
	legs_run+=("$2")
	"$REPO/scripts/run-kunit.sh" --arch "$1" --name "$2" --kunitconfig "$3" 2>&1 |
		tee "$LOGS/kunit-$2.log" | grep -E '^(kunit |  FAILED|  ERROR|error:)'
	step_time "kunit-$2" "$(elapsed "$t0")"
	if ! read -r p f s < <(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
print(c["passed"], c["failed"] + (1 if c["problems"] else 0), c["skipped"])' "$counts" 2>/dev/null); then
		p=0 f=1 s=0
		echo "FAIL kunit-$2: no counts.json"
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
# (already built above) far too little time to finish.  And an edit of one
# instruction must boot the edited kernel, then the source as it was its own.
if [[ " $* " == *" x86_64 "* ]]; then
	echo "== hang detection, fresh boots"
	check kunit-hang-is-failure "$REPO/scripts/checks/test-hang.sh"
	check kunit-boots-what-it-built "$REPO/scripts/checks/fresh-boot.sh"
fi

# The kunit.py commands that README.md and the cover letter give, each run
# as written (kunit/plain-commands.tsv): those of the arches this run has
# legs of.
if [ $# -gt 0 ]; then
	echo "== plain kunit.py commands"
	while read -r name; do
		a=$(python3 "$REPO/kunit/plain.py" show "$name" | sed -n 's/^arch //p')
		[[ " $* " == *" $a "* ]] || continue
		check "plain-kunit-$name" "$REPO/scripts/checks/plain-kunit.sh" "$name"
		grep -E '^(PASS|FAIL) plain|^  skipped: ' "$LOGS/plain-kunit-$name.log" 2>/dev/null
	done < <(python3 "$REPO/kunit/plain.py" list)
fi

# The reports (kunit/README.md): kcidb.json, index.html and a history line,
# and the page in a real browser.  Written again at the end, so that they
# hold the whole run.
echo "== reports"
write_run_files
check reports python3 "$REPO/kunit/report.py" all "$RESULTS"
check report-in-browser "$REPO/scripts/checks/report-browser.sh" "$RESULTS"

finish
