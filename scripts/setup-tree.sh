#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Distro tree: install Debian's linux-source-$IDA_KUNIT_TREE, unpack it into
# the cache folder and make it a git repository whose first commit is the
# pristine source, tagged "pristine".  Idempotent: an existing, complete
# repository is reused as it is.
. "$(dirname "$0")/lib.sh"

pkg=linux-source-$TREE_VERSION
tarball=/usr/src/$pkg.tar.xz

if [ -d "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify "refs/tags/$PRISTINE_TAG" >/dev/null; then
	info "tree: $SRC (pristine at $(git -C "$SRC" rev-parse --short "$PRISTINE_TAG"))"
	exit 0
fi

"$REPO/scripts/install-deps.sh" tree || exit 1
[ -f "$tarball" ] || die "$pkg is installed but $tarball is missing"

# Unpack next to the final place and move it there only when complete, so
# that an interrupted run leaves nothing half-done behind.
mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX") || die "cannot create a folder in $CACHE"
trap 'rm -rf "$tmp"' EXIT
info "unpacking $tarball into $SRC"
tar -C "$tmp" -xJf "$tarball" || die "cannot unpack $tarball"
top=$(ls "$tmp")
[ -d "$tmp/$top/lib" ] || die "unexpected layout in $tarball"

(
	cd "$tmp/$top" || exit 1
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
	git init -q -b master &&
	# The tarball's top-level .gitignore ignores "/*": force-add everything.
	git add -A -f &&
	git "${GIT_ID[@]}" commit -q -m "Debian $pkg $(dpkg-query -W -f '${Version}' "$pkg"), pristine" &&
	git tag "$PRISTINE_TAG"
) || die "cannot make a git repository of $tarball"

rm -rf "$SRC"
mv "$tmp/$top" "$SRC" || die "cannot move the tree to $SRC"
info "tree: $SRC (pristine at $(git -C "$SRC" rev-parse --short "$PRISTINE_TAG"))"
