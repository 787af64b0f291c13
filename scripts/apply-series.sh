#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Distro tree -> patched tree: reset branch ida-kunit to the pristine tag, git
# am the tree fixes of kernel-patches/linux-$IDA_KUNIT_TREE-fixes/series (tag
# tree-fixes: the base) and every patch of
# kernel-patches/linux-$IDA_KUNIT_TREE/series, in order.
# A patch that does not apply is named, the git am is aborted, and the tree is
# left on the pristine source with nothing half-applied.
# When the tree already holds exactly this series nothing is done, unless
# IDA_KUNIT_REAPPLY=1.  Work in the tree that was not exported (commits,
# staged or unstaged changes, new files, a git am in progress) stops it with
# a one-line error naming it, unless IDA_KUNIT_FORCE=1.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh first"
cd "$SRC" || exit 1
git rev-parse -q --verify "refs/tags/$PRISTINE_TAG" >/dev/null || die "tree $SRC has no $PRISTINE_TAG tag"

mapfile -t patches < <(series_patches) || exit 1
[ ${#patches[@]} -gt 0 ] || die "series $PATCHES/series lists no patches"
for p in "${patches[@]}"; do
	[ -f "$PATCHES/$p" ] || die "series lists $p, which does not exist in ${PATCHES#"$REPO"/}"
done

# Nothing to do when the tree holds exactly this series already (the stamp
# names the series' hash and the commit it gave) and nothing else.
head=$(git rev-parse HEAD)
read_series_stamp
work=$(unexported_work "$SRC" "$STAMP_COMMIT")
if [ "${IDA_KUNIT_REAPPLY:-0}" != 1 ] && [ -z "$work" ] && [ "$head" = "$STAMP_COMMIT" ] &&
   [ "$(git symbolic-ref -q --short HEAD)" = "$BRANCH" ] && [ "$STAMP_HASH" = "$(series_hash)" ]; then
	info "series already applied to $SRC ($(git rev-parse --short HEAD))"
	exit 0
fi
# Never throw away work that was not exported.
if [ -n "$work" ] && [ "${IDA_KUNIT_FORCE:-0}" != 1 ]; then
	die "$SRC has $work: commit and run scripts/export-series.sh, or set IDA_KUNIT_FORCE=1 to discard it"
fi

rm -f "$(series_stamp_file)"
git am --abort >/dev/null 2>&1
git checkout -q -f -B "$BRANCH" "$PRISTINE_TAG" || die "cannot check out $PRISTINE_TAG in $SRC"
# What is left untracked is build output (or, with IDA_KUNIT_FORCE=1, what
# the caller chose to discard).
git clean -q -f -d -x || die "cannot clean $SRC"

# The tree fixes first (lib.sh), the base the series applies to.
if ! ( apply_fixes "$SRC" ) || ! git tag -f "$BASE_TAG" HEAD >/dev/null; then
	git checkout -q -f -B "$BRANCH" "$PRISTINE_TAG"
	exit 1
fi
# The committer is the scripts' identity (lib.sh), the authors the patches'.
for p in "${patches[@]}"; do
	if ! out=$(git am -q --keep-cr "$PATCHES/$p" 2>&1); then
		git am --abort >/dev/null 2>&1
		git checkout -q -f -B "$BRANCH" "$PRISTINE_TAG"
		echo "$out" | grep -E '^(error|Patch failed)' | head -n 3 >&2
		die "patch $p does not apply to linux-$TREE_VERSION"
	fi
done

# The cover letter's subject and text become the branch description, which
# export-series.sh turns back into the cover letter.
cover=$PATCHES/0000-cover-letter.patch
if [ -f "$cover" ]; then
	desc=$(git rev-parse --git-path ida-kunit-description)
	python3 - "$cover" > "$desc" <<'PY' || die "cannot read $cover"
import email, re, sys
with open(sys.argv[1], encoding='utf-8') as f:
    msg = email.message_from_file(f)
subject = re.sub(r'\s+', ' ', msg['Subject'])
subject = re.sub(r'^\[[^]]*\]\s*', '', subject)
body = []
for line in msg.get_payload().splitlines():
    # The shortlog ("Author Name (N):") ends the text.
    if re.match(r'^\S.* \(\d+\):$', line):
        break
    body.append(line)
print(subject + '\n\n' + '\n'.join(body).strip())
PY
	git config "branch.$BRANCH.description" "$(cat "$desc")"
fi
write_series_stamp
info "applied ${#patches[@]} patches to $SRC on branch $BRANCH ($(git rev-parse --short HEAD))"
