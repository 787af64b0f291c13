#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Patched tree -> kernel-patches/: export the commits tree-fixes..ida-kunit of
# the tree as git format-patch output with a cover letter, and rewrite the
# series file; the tree fixes (pristine..tree-fixes) go to the fixes folder.  The cover letter's subject and text are the branch
# description (git branch --edit-description), which apply-series.sh sets
# from the exported cover letter, so an edit round-trips.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
cd "$SRC" || exit 1
[ "$(git symbolic-ref --short -q HEAD)" = "$BRANCH" ] || die "tree is not on branch $BRANCH"
work=$(unexported_work "$SRC" "$(git rev-parse HEAD)")
[ -z "$work" ] || die "tree has $work: commit it first"
git rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null || die "no $BASE_TAG tag: run scripts/apply-series.sh first"
git merge-base --is-ancestor "$BASE_TAG" HEAD || die "$BRANCH does not start from $BASE_TAG (the tree fixes)"
n=$(git rev-list --count "$BASE_TAG..HEAD")
[ "$n" -gt 0 ] || die "no commits on $BRANCH above $BASE_TAG: nothing to export"
git config "branch.$BRANCH.description" >/dev/null ||
	die "no cover letter text: set it with 'git -C $SRC branch --edit-description'"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The cover letter is signed like the series: by the author of its last
# patch, whatever git's own configuration says (format-patch takes the
# cover letter's From: from the committer identity).  The abbreviated
# blob names of the "index" lines have a fixed length: git's default
# depends on how many objects the repository holds and how they are packed.
# The series starts from the tree fixes: --base names the pristine source
# and lists the fixes as prerequisite patches (by patch id).
GIT_COMMITTER_NAME=$(git log -1 --format=%an) GIT_COMMITTER_EMAIL=$(git log -1 --format=%ae) \
git -c core.abbrev=9 format-patch -q --cover-letter --cover-from-description=subject \
	--zero-commit --base="$PRISTINE_TAG" -o "$tmp" "$BASE_TAG..HEAD" ||
	die "git format-patch failed"
# The tree fixes, from the pristine source to the base.
fixes=$(git rev-list --count "$PRISTINE_TAG..$BASE_TAG")
if [ "$fixes" -gt 0 ]; then
	if ! git -c core.abbrev=9 format-patch -q --zero-commit -o "$tmp/fixes" "$PRISTINE_TAG..$BASE_TAG"; then
		die "git format-patch of the tree fixes failed"
	fi
	for f in "$tmp"/fixes/*.patch; do echo "${f##*/}"; done >"$tmp/fixes/series"
fi
for f in "$tmp"/*.patch; do
	f=${f##*/}
	[ "$f" = 0000-cover-letter.patch ] || echo "$f"
done > "$tmp/series"

# Keep the old cover letter when only its date would change.
old=$PATCHES/0000-cover-letter.patch
if [ -f "$old" ] && cmp -s <(grep -v '^Date: ' "$old") <(grep -v '^Date: ' "$tmp/0000-cover-letter.patch"); then
	cp "$old" "$tmp/0000-cover-letter.patch"
fi

# install_patches FROM TO: the patches and series of FROM into TO; only
# once they are all there do the patches of TO that FROM has not go.
install_patches() {
	local f
	if ! { mkdir -p "$2" && cp "$1"/*.patch "$1/series" "$2/"; }; then
		die "cannot write $2"
	fi
	for f in "$2"/*.patch; do
		[ -e "$1/${f##*/}" ] || rm -f "$f"
	done
}
install_patches "$tmp" "$PATCHES"
what="$n patches and a cover letter to ${PATCHES#"$REPO"/}"
if [ "$fixes" -gt 0 ]; then
	install_patches "$tmp/fixes" "$FIXES"
	what="$what, $fixes tree fixes to ${FIXES#"$REPO"/}"
fi
write_series_stamp
info "exported $what"
