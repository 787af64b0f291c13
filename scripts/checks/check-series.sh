#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Checks of the series itself.
#   check-series.sh am             git am the series on the pristine tree and
#                                  its tree fixes
#   check-series.sh patch          apply the series with patch -p1, as quilt
#                                  would, on the pristine tree and compare the
#                                  result with the ida-kunit branch
#   check-series.sh checkpatch P   checkpatch.pl --strict on patch P: no
#                                  errors, warnings or checks
#   check-series.sh checkpatch-fix P  the same for a patch of the tree fixes
#   check-series.sh checkpatch-arch-fix P  and for a patch of the arch fixes
#   check-series.sh arch-fixes     every arch fix names legs of the
#                                  architecture table and applies to the
#                                  patched tree
#   check-series.sh api            no deprecated IDA API left in the tree
#   check-series.sh incbin         no header uses .incbin (scripts/ccache-cc)
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

[ -d "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh first"
cd "$SRC" || exit 1

case "$1" in
am|patch)
	# In a scratch worktree, so that the patched tree is left alone.
	wt=$(scratch_worktree "") || exit 1
	cd "$wt" || exit 1
	{ git checkout -q -f --detach "$PRISTINE_TAG" && git clean -q -f -d -x; } || die "cannot check out $PRISTINE_TAG in $wt"
	# The series applies on top of the tree fixes (lib.sh).
	( apply_fixes "$wt" ) || exit 1
	nfixes=$(fixes_patches | wc -l)
	while read -r p; do
		if [ "$1" = am ]; then
			git -c user.name=ida-kunit -c user.email=ida-kunit@localhost am -q "$PATCHES/$p" >/dev/null 2>&1 ||
				{ git am --abort; die "patch $p does not apply with git am"; }
		else
			patch -p1 --batch --forward --no-backup-if-mismatch -s < "$PATCHES/$p" ||
				{ git reset -q --hard; git clean -q -f -d -x; die "patch $p does not apply with patch -p1"; }
		fi
	done < <(series_patches)
	n=$(series_patches | wc -l)
	if [ "$1" = am ]; then
		echo "git am: $n patches applied on $PRISTINE_TAG and its $nfixes tree fixes"
	else
		if ! { git add -A -f . && git diff --cached --quiet "$BRANCH"; }; then
			git reset -q --hard
			die "patch -p1 gives a different tree than the $BRANCH branch"
		fi
		git reset -q --hard && git clean -q -f -d -x
		echo "patch -p1: $n patches applied on $PRISTINE_TAG and its $nfixes tree fixes, same tree as git am"
	fi
	;;
checkpatch|checkpatch-fix|checkpatch-arch-fix)
	[ -n "$2" ] || die "usage: check-series.sh checkpatch PATCH | checkpatch-fix PATCH | checkpatch-arch-fix PATCH"
	# checkpatch-fix, checkpatch-arch-fix: a patch of the tree fixes or
	# of the arch fixes (their folder is the one read).
	case "$1" in
	checkpatch-fix) PATCHES=$FIXES ;;
	checkpatch-arch-fix) PATCHES=$ARCH_FIXES ;;
	esac
	[ -f "$PATCHES/$2" ] || die "no patch $PATCHES/$2"
	# A pass is kept under a key of everything it depends on: the patch,
	# this script, and the branch's tree (checkpatch.pl, its word lists,
	# MAINTAINERS); the same inputs are not checked twice.
	store=$CACHE/checkpatch-results
	key=$({ sha256sum <"$PATCHES/$2"; sha256sum <"$REPO/scripts/checks/check-series.sh"; git rev-parse "$BRANCH^{tree}"; perl --version; } |
		sha256sum | cut -c1-32)
	if [ -f "$store/$key" ]; then
		cat "$store/$key"
		echo "checkpatch: the same patch, script and tree as a run before; kept: ${key:0:12}"
		exit 0
	fi
	# Debian's python3 first: spdxcheck.py needs python3-ply.
	# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires for any
	# new file; it is checked below for what it means instead.
	# UNKNOWN_COMMIT_ID: the distro tree is a tarball without upstream
	# history, so no commit a Fixes: tag names can be looked up in it (the
	# tag's form is still checked, as GIT_COMMIT_ID).
	out=$(PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --showfile \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$PATCHES/$2" 2>&1)
	echo "$out"
	echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks' ||
		die "checkpatch.pl --strict: $2: $(echo "$out" | grep '^total:')"
	# Every file the patch adds has a MAINTAINERS section on the branch
	# (other than THE REST), whether or not the patch touches MAINTAINERS.
	added=$(mktemp) || exit 1
	git apply --summary "$PATCHES/$2" | sed -n 's/^ create mode [0-7]* //p' |
	while read -r f; do
		# The tree is on the branch (apply-series.sh), so its MAINTAINERS
		# and the new file are the branch's.
		git cat-file -e "$BRANCH:$f" 2>/dev/null || die "$2 adds $f, which is not on the $BRANCH branch"
		sections=$(PATH=/usr/bin:$PATH perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--sections -f "$f" 2>&1 | grep -v -E '^([A-Z]:|$)' | grep -v -x 'THE REST')
		[ -n "$sections" ] || die "$2 adds $f, which no MAINTAINERS section covers"
		echo "$f: maintained in $(echo "$sections" | paste -s -d, -)"
	done >"$added" || { cat "$added"; rm -f "$added"; exit 1; }
	cat "$added"
	mkdir -p "$store" && { echo "$out"; cat "$added"; } >"$store/$key.tmp" &&
		mv "$store/$key.tmp" "$store/$key"
	rm -f "$added"
	;;
api)
	# The deprecated IDA API is gone from the whole tree.
	if git grep -n -E 'ida_simple_get|ida_simple_remove|ida_pre_get|ida_get_new|ida_remove\(' "$BRANCH"; then
		die "the deprecated IDA API is still used (above)"
	fi
	echo "git grep: no ida_simple_get, ida_simple_remove, ida_pre_get, ida_get_new or ida_remove( in the tree"
	;;
arch-fixes)
	# Each arch fix is for legs of the table, and applies to the patched
	# tree (checked against the branch's tree in a temporary index, so
	# the tree's files are left alone).
	[ -f "$ARCH_FIXES/series" ] || { echo "no arch fixes (${ARCH_FIXES#"$REPO"/}/series)"; exit 0; }
	known=" $(known_arches) "
	idx=$(mktemp) || exit 1
	trap 'rm -f "$idx"' EXIT
	GIT_INDEX_FILE=$idx git read-tree "$BRANCH" || die "cannot read the tree of $BRANCH"
	# The legs file names no patch the series does not list,
	err=$(arch_fix_legs_listed 2>&1) || die "${err#error: }"
	# and every patch of the series is there, for rows of the table.
	while read -r p; do
		[ -f "$ARCH_FIXES/$p" ] || die "${ARCH_FIXES#"$REPO"/}/series lists $p, which does not exist"
		legs=$(arch_fix_legs "$p" 2>&1) || die "${legs#error: }"
		for l in ${legs//,/ }; do
			[[ "$known" == *" $l "* ]] || die "arch fix $p is for '$l', which is not a row of $ARCH_TABLE"
		done
		GIT_INDEX_FILE=$idx git apply --cached --check "$ARCH_FIXES/$p" 2>/dev/null ||
			die "arch fix $p does not apply to the patched tree (branch $BRANCH)"
		echo "$p applies to $BRANCH, for $legs"
	done < <(arch_fixes_patches)
	;;
incbin)
	# scripts/ccache-cc keeps out of ccache every source that embeds a
	# file with .incbin, looking at the source alone: that is enough only
	# while no header does it.
	if git grep -n -F incbin "$BRANCH" -- '*.h' '*.inc'; then
		die "a header embeds a file with .incbin (above): scripts/ccache-cc cannot see it"
	fi
	echo "git grep: no header (*.h, *.inc) of the tree uses .incbin"
	;;
*)
	die "usage: check-series.sh am | patch | checkpatch PATCH | checkpatch-fix PATCH | checkpatch-arch-fix PATCH | arch-fixes | api | incbin"
	;;
esac
