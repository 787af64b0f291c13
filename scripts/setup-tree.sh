#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Distro tree: install Debian's linux-source-$IDA_KUNIT_TREE, unpack it into
# the cache folder and make it a git repository whose first commit is the
# pristine source, tagged "pristine".
#
# The import records what it was made from (the package version and the
# tarball's sha256) in a marker of its own, .git/ida-kunit-import.  A tree
# whose record matches the installed package is reused; one from another
# version is imported again, unless it holds work that was not exported (then
# it stops, unless IDA_KUNIT_FORCE=1).  A folder without that marker is never
# touched.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ -n "${IDA_KUNIT_TARBALL:-}" ]; then
	"$REPO/scripts/install-deps.sh" git || exit 1
	version=local
else
	"$REPO/scripts/install-deps.sh" tree || exit 1
	version=$(dpkg-query -W -f '${Version}' "$PKG") || die "cannot read the version of $PKG"
fi
[ -f "$TARBALL" ] || die "$TARBALL is missing"
hash=$(sha256sum "$TARBALL" | cut -d' ' -f1) || die "cannot read $TARBALL"
want="$PKG $version sha256:$hash"

marker_of() {	# marker_of TREE: the import marker's path
	echo "$1/.git/ida-kunit-import"
}

# An import made before the marker existed: the pristine commit by the
# import's own identity, its message naming the version.
legacy_version() {
	git -C "$SRC" log -1 --format='%ae %s' "$PRISTINE_TAG" 2>/dev/null |
		sed -n "s/^ida-kunit@localhost Debian $PKG \(.*\), pristine$/\1/p"
}

if [ -e "$SRC" ]; then
	marker=$(marker_of "$SRC")
	if [ -f "$marker" ]; then
		have=$(head -n 1 "$marker")
	elif [ -n "$(legacy_version)" ]; then
		have="$PKG $(legacy_version) (hash not recorded)"
		if [ "$(legacy_version)" = "$version" ] && [ "$version" != local ]; then
			echo "$want" >"$marker" || die "cannot write $marker"
			have=$want
		fi
	else
		die "$SRC exists and was not made by scripts/setup-tree.sh: move it away or set IDA_KUNIT_SRC"
	fi
	if [ "$have" = "$want" ] && git -C "$SRC" rev-parse -q --verify "refs/tags/$PRISTINE_TAG" >/dev/null; then
		info "tree: $SRC ($PKG $version, pristine at $(git -C "$SRC" rev-parse --short "$PRISTINE_TAG"))"
		exit 0
	fi
	read_series_stamp
	work=$(unexported_work "$SRC" "$STAMP_COMMIT")
	if [ -n "$work" ] && [ "${IDA_KUNIT_FORCE:-0}" != 1 ]; then
		die "$SRC was imported from '$have', not the installed '$want', and has $work: export it (scripts/export-series.sh) or set IDA_KUNIT_FORCE=1"
	fi
	info "tree: $SRC was imported from '$have'; importing '$want'"
fi

# Unpack next to the final place and move it there only when complete, so
# that an interrupted run leaves nothing half-done behind.
mkdir -p "$CACHE" || die "cannot create cache folder $CACHE"
tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX") || die "cannot create a folder in $CACHE"
trap 'rm -rf "$tmp"' EXIT
info "unpacking $TARBALL into $SRC"
tar -C "$tmp" -xJf "$TARBALL" || die "cannot unpack $TARBALL"
top=$(ls "$tmp")
if [ "$(echo "$top" | wc -l)" != 1 ] || [ ! -d "$tmp/$top/lib" ]; then
	die "unexpected layout in $TARBALL"
fi

(
	cd "$tmp/$top" || exit 1
	export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"
	export GIT_AUTHOR_NAME="$IMPORT_NAME" GIT_AUTHOR_EMAIL="$IMPORT_EMAIL"
	export GIT_COMMITTER_NAME="$IMPORT_NAME" GIT_COMMITTER_EMAIL="$IMPORT_EMAIL"
	git init -q -b master &&
	# The tarball's top-level .gitignore ignores "/*": force-add everything.
	git add -A -f &&
	git commit -q -m "Debian $PKG $version, pristine" &&
	git tag "$PRISTINE_TAG" &&
	echo "$want" >"$(marker_of .)"
) || die "cannot make a git repository of $TARBALL"

if [ -e "$SRC" ]; then
	# Only a tree with our marker (or an import of ours from before it) gets
	# here; it is set aside first, so a failed move loses nothing.
	mv "$SRC" "$tmp/old" || die "cannot move the old tree $SRC away"
fi
mv "$tmp/$top" "$SRC" || die "cannot move the tree to $SRC"
git -C "$SRC" worktree prune
info "tree: $SRC ($PKG $version, pristine at $(git -C "$SRC" rev-parse --short "$PRISTINE_TAG"))"
