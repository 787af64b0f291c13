#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Checks of the series itself.
#   check-series.sh patch          apply the series with patch -p1, as quilt
#                                  would, on the pristine tree and compare the
#                                  result with what git am gives
#   check-series.sh checkpatch P   checkpatch.pl --strict on patch P: no
#                                  errors, warnings or checks
#   check-series.sh api            no deprecated IDA API left in the tree
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh first"
cd "$SRC" || exit 1

case "$1" in
patch)
	git rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null || die "no $BRANCH branch: run scripts/apply-series.sh first"
	git checkout -q -f --detach "$PRISTINE_TAG" && git clean -q -f -d -x || die "cannot check out $PRISTINE_TAG"
	rc=0
	while read -r p; do
		if ! patch -p1 --batch --forward --no-backup-if-mismatch -s < "$PATCHES/$p"; then
			echo "error: patch $p does not apply with patch -p1" >&2
			rc=1
			break
		fi
	done < <(series_patches)
	if [ $rc -eq 0 ]; then
		git add -A -f . && git diff --cached --quiet "$BRANCH" ||
			{ echo "error: patch -p1 gives a different tree than git am" >&2; rc=1; }
	fi
	git reset -q && git checkout -q -f "$BRANCH" && git clean -q -f -d -x
	exit $rc
	;;
checkpatch)
	[ -n "$2" ] || die "usage: check-series.sh checkpatch PATCH"
	[ -f "$PATCHES/$2" ] || die "no patch $PATCHES/$2"
	# Debian's python3 first: spdxcheck.py needs python3-ply.
	out=$(PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --showfile "$PATCHES/$2" 2>&1)
	echo "$out"
	echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks' ||
		die "checkpatch.pl --strict: $2: $(echo "$out" | grep '^total:')"
	;;
api)
	# The deprecated IDA API is gone from the whole tree.
	if git grep -n -E 'ida_simple_get|ida_simple_remove|ida_pre_get|ida_get_new|ida_remove\(' "$BRANCH"; then
		die "the deprecated IDA API is still used (above)"
	fi
	echo "git grep: no ida_simple_get, ida_simple_remove, ida_pre_get, ida_get_new or ida_remove( in the tree"
	;;
*)
	die "usage: check-series.sh patch | checkpatch PATCH | api"
	;;
esac
