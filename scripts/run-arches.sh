#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every architecture in turn: distro tree -> patched tree -> kunit.py per
# arch -> results, one line per leg, then the per-leg table.
# Usage: run-arches.sh [ARCH...]   (default: every row of kunit/arches.tsv)
# Each leg is scripts/run-kunit.sh --arch ARCH (its output goes to
# $IDA_KUNIT_RESULTS/arches/ARCH.log); the table (word size, byte order,
# vCPUs, counts, times) goes to $IDA_KUNIT_RESULTS/arches/arches.md.
# A leg with a known failure (kunit/arches.tsv's "known" column) counts as
# an expected failure when scripts/checks/known-failure.sh says it failed
# that way, and as failed otherwise (also when it passed).
# Exits 0 only when every leg passed or failed as expected.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arches=("$@")
[ ${#arches[@]} -gt 0 ] || read -r -a arches <<<"$(known_arches)"
for a in "${arches[@]}"; do
	case "$a" in -*) die "run-arches.sh: unknown option '$a' (usage: run-arches.sh [ARCH...])" ;; esac
	( arch_params "$a" ) || exit 1
done
"$REPO/scripts/setup-tree.sh" || exit 1
"$REPO/scripts/apply-series.sh" || exit 1

logs=$RESULTS/arches
mkdir -p "$logs" || die "cannot create $logs"
passed=0
failed=0
xfailed=0
for a in "${arches[@]}"; do
	arch_params "$a"
	"$REPO/scripts/run-kunit.sh" --arch "$a" >"$logs/$a.log" 2>&1
	rc=$?
	if [ -f "$RESULTS/$a/counts.json" ]; then
		line=$(python3 "$REPO/kunit/report.py" line "$RESULTS/$a")
	else
		line="$a: FAIL: no results (see $logs/$a.log)"
	fi
	if [ "$KNOWN_FAILURE" != - ]; then
		# A known failure (the table's "known" column) must still be that one.
		if "$REPO/scripts/checks/known-failure.sh" "$a" >>"$logs/$a.log" 2>&1; then
			xfailed=$((xfailed + 1))
			line="$line (expected: $KNOWN_FAILURE)"
		else
			failed=$((failed + 1))
			line="$line; not the known failure $KNOWN_FAILURE: $(tail -n 1 "$logs/$a.log")"
		fi
	elif [ $rc -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		case "$line" in *FAIL*) ;; *) line="$line (run-kunit.sh exited $rc)" ;; esac
	fi
	echo "$line"
done
python3 "$REPO/kunit/report.py" arches "$RESULTS" "${arches[@]}" >"$logs/arches.md" ||
	die "cannot write $logs/arches.md"
echo "table: $logs/arches.md"
echo "$passed legs passed, $failed failed, $xfailed expected failures"
[ "$failed" -eq 0 ]
