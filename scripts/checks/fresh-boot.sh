#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The kernel a leg boots is the one it just built, after an edit too: two
# builds of the x86_64 leg, in its own build folder, that differ by one
# instruction of the same size (lib/idr.c's "(int)max < 0" made "<= 0", which
# the suite must catch), then the source as it was.  The first must boot its
# own kernel and fail cases; the second must boot its own and pass.  Needs
# the patched tree with nothing in it that was not exported (the edit is
# undone with git checkout, whatever stops the script), and the x86_64 leg
# built once (scripts/run-kunit.sh --arch x86_64).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ -d "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
read_series_stamp
work=$(unexported_work "$SRC" "$STAMP_COMMIT")
[ -z "$work" ] || die "$SRC has $work: the check edits lib/idr.c and would lose it"
file=lib/idr.c
from='if ((int)max < 0)' to='if ((int)max <= 0)'
grep -q -F "$from" "$SRC/$file" || die "no '$from' in $file: the instruction to change is gone"
tmp=$(mktemp -d) || exit 1
trap 'git -C "$SRC" checkout -q -- "$file"; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

leg() {	# leg NAME: the x86_64 leg into $tmp/NAME; prints its verdict line
	IDA_KUNIT_RESULTS=$tmp "$REPO/scripts/run-kunit.sh" --arch x86_64 --name "$1" >"$tmp/$1.log" 2>&1
	grep -E '^kunit [^ ]*: (PASS|FAIL)' "$tmp/$1.log" | tail -n 1
}
problems() {	# problems NAME: the kinds of the leg's problems
	python3 -c 'import json, sys
print(" ".join(p["kind"] for p in json.load(open(sys.argv[1]))["problems"]))' "$tmp/$1/counts.json"
}
sed -i "s/$from/$to/" "$SRC/$file" || die "cannot edit $file"
edited=$(leg edited)
echo "edited ($to): $edited"
[ -f "$tmp/edited/counts.json" ] || die "the edited kernel's leg left no counts.json (see $tmp/edited.log)"
case " $(problems edited) " in
*" stale-kernel "*) die "the edited kernel's leg booted another kernel: $(grep -m1 'booted a kernel' "$tmp/edited.log")" ;;
esac
if [[ "$edited" != *": FAIL: "* ]] || [[ "$edited" == *" 0 failed"* ]]; then
	die "the edited kernel's cases did not fail: the boot was not of the edit, or the suite does not catch it"
fi
git -C "$SRC" checkout -q -- "$file" || die "cannot restore $file"
restored=$(leg restored)
echo "restored: $restored"
[[ "$restored" == *": PASS: "* ]] || die "the restored kernel's leg did not pass (see $tmp/restored.log): $(grep -m1 -E 'ERROR|FAILED' "$tmp/restored.log")"
banner() { grep -m1 -o '#[0-9]* SMP[^(]*' "$tmp/$1/kernel.log"; }
echo "booted: edited $(banner edited), restored $(banner restored): each its own build"
