#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Line coverage of ida_alloc_range(), ida_free() and ida_destroy() (and, from
# patch 15, the bitmap scans they call) under the
# IDA KUnit suite alone: the suite runs in the userspace radix-tree harness
# (through its KUnit emulation) built with gcov, and gcov reports per
# function.  The kernel-only cases (contexts, kthreads, fail_nth) are not
# compiled there; the harness's own -ENOMEM path stands in for fail_nth.
# Writes $IDA_KUNIT_RESULTS/coverage/.  Exits non-zero below 100%.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

"$REPO/scripts/install-deps.sh" build checks || exit 1
dir=$SRC/tools/testing/radix-tree
[ -d "$dir" ] || die "no radix-tree harness in $SRC: run scripts/pipeline.sh first"
out=$RESULTS/coverage
# Only a folder this script made (it carries the marker) is emptied.
if [ -e "$out" ]; then
	[ -f "$out/.ida-kunit-coverage" ] || die "$out exists and was not made by coverage.sh: move it away"
	rm -rf "$out" || die "cannot remove the previous coverage in $out"
fi
{ mkdir -p "$out" && touch "$out/.ida-kunit-coverage"; } || die "cannot create $out"

# A result is kept under a key of everything it depends on (the tree, this
# script, the suite's main program, the compiler), so that a rerun on the
# same tree gives the same figures without building and running again.  A
# tree with uncommitted changes is measured, and nothing is kept.
store=$CACHE/coverage-results
key=
if tree=$(git -C "$SRC" rev-parse -q --verify "HEAD^{tree}") &&
   [ -z "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
	key=$({ echo "$tree"; sha256sum <"$0"; sha256sum <"$REPO/kunit/harness/ida_suite_main.c"; gcc --version; } |
		sha256sum | cut -c1-32)
	if [ -f "$store/$key/summary.txt" ] && cp -r "$store/$key/." "$out/"; then
		cat "$out/summary.txt"
		echo "coverage: the same tree, script and compiler as a run before; kept: ${key:0:12}"
		exit 0
	fi
fi

cd "$dir" || exit 1
trap 'rm -f ida_suite_main.c ida_suite_main.o ida-suite *.gcda *.gcno *.gcov; make -s clean >/dev/null 2>&1' EXIT
make -s clean >/dev/null 2>&1
cp "$REPO/kunit/harness/ida_suite_main.c" . || exit 1
read -r -a objs <<<"$HARNESS_OBJS"
make -s -j"$JOBS" CC="gcc --coverage" "${objs[@]}" >"$out/build.log" 2>&1 || die "harness objects do not build (see $out/build.log)"
make -s CC="gcc --coverage" ida_suite_main.o >>"$out/build.log" 2>&1 || die "ida_suite_main.c does not build (see $out/build.log)"
gcc --coverage -fsanitize=address -fsanitize=undefined ida_suite_main.o "${objs[@]}" -lpthread -lurcu -o ida-suite >>"$out/build.log" 2>&1 ||
	die "ida-suite does not link (see $out/build.log)"
./ida-suite >"$out/suite.log" 2>&1 || die "the suite failed in the harness (see $out/suite.log)"
gcov -f -o . idr.c >"$out/gcov.txt" 2>&1 || die "gcov failed"
cp idr.c.gcov "$out/" 2>/dev/null

# Per function, from the annotated source: gcov's own function summaries
# also count the XArray helpers inlined from headers.
python3 - "$out/idr.c.gcov" <<'PY' | tee "$out/summary.txt"
import re, sys
fn = None
stats = {}
missed = []
missed_ok = []
unreachable = []
for line in open(sys.argv[1]):
    parts = line.split(':', 2)
    if len(parts) < 3:
        continue
    count, num, text = parts[0].strip(), parts[1].strip(), parts[2].rstrip('\n')
    m = re.match(r'(?:static )?(?:int|void|unsigned int|bool) (ida_alloc_range|ida_free|ida_destroy|ida_bitmap_find_zero|ida_bitmap_full|ida_bitmap_empty)\(', text)
    if m:
        fn = m.group(1)
        stats[fn] = [0, 0]
        continue
    if fn is None:
        continue
    if text.startswith('}'):
        fn = None
        continue
    if count == '-':
        continue
    stats[fn][1] += 1
    if count in ('#####', '====='):
        # Converting a value entry to a bitmap stores over an existing
        # entry, which needs no memory, so xas_store() cannot fail there:
        # the error branch after it (which keeps the bitmap for a retry) is
        # unreachable.
        if text.strip() == 'bitmap->bitmap[0] = 0;' or \
           (unreachable and text.strip() in ('alloc = bitmap;', 'goto out;') and int(num) - int(unreachable[-1]) <= 2):
            unreachable.append(num)
            missed_ok.append(f'  not run (unreachable): {fn}, lib/idr.c:{num}: {text.strip()}')
            continue
        missed.append(f'  not run: {fn}, lib/idr.c:{num}: {text.strip()}')
    else:
        stats[fn][0] += 1
total = [sum(v[0] for v in stats.values()), sum(v[1] for v in stats.values())]
# Every function tracked must be found, with lines to run: the three of the
# API always, the bitmap helpers wherever lib/idr.c defines them.
source = open(sys.argv[1]).read()
lost = []
for fn in ('ida_alloc_range', 'ida_free', 'ida_destroy', 'ida_bitmap_find_zero',
           'ida_bitmap_full', 'ida_bitmap_empty'):
    # A definition: a line of gcov's listing that opens with a type and
    # names the function, with no ";".
    defined = re.search(r'^[^:]*:[^:]*:(?:static )?(?:inline )?[a-z][a-z_ ]* \**' + fn + r'\([^;]*$',
                        source, re.M)
    required = fn in ('ida_alloc_range', 'ida_free', 'ida_destroy') or defined
    if fn not in stats:
        if required:
            lost.append(fn)
        continue
    if stats[fn][1] == 0:
        lost.append(fn)
    run, lines = stats[fn]
    print(f'coverage {fn}: {run} of {lines} lines ({100.0 * run / max(lines, 1):.1f}%)')
print(f'coverage total: {total[0]} of {total[1]} lines ({100.0 * total[0] / max(total[1], 1):.1f}%)')
print('\n'.join(missed_ok + missed))
for fn in lost:
    print(f'error: {fn} not found in lib/idr.c, or no line of it to run: its coverage cannot be measured')
sys.exit(1 if missed or lost or not total[1] else 0)
PY
rc=$?
if [ $rc -eq 0 ] && [ -n "$key" ]; then
	mkdir -p "$store" && rm -rf "$store/$key.tmp" && cp -r "$out" "$store/$key.tmp" &&
		mv "$store/$key.tmp" "$store/$key" || echo "coverage: the result could not be kept" >&2
fi
exit $rc
