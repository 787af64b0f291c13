# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Common settings and helpers, sourced by every script in scripts/.
#
# Environment (all optional):
#   IDA_KUNIT_CACHE    cache folder for the unpacked trees, build folders and
#                      ccache (default: ${XDG_CACHE_HOME:-$HOME/.cache}/ida-kunit)
#   IDA_KUNIT_TREE     target tree version, e.g. 6.12 (default: 6.12)
#   IDA_KUNIT_RESULTS  results folder (default: <repo>/results)
#   IDA_KUNIT_TIMEOUT  seconds a QEMU boot may take before it counts as hung
#                      (default: 300)
#   IDA_KUNIT_JOBS     make -j (default: nproc)
#   CROSS_COMPILE      cross compiler prefix for the non-native arches
#   IDA_KUNIT_PATCHES  the series folder (default: kernel-patches/linux-<tree>)
#   IDA_KUNIT_SRC      the kernel tree (default: $IDA_KUNIT_CACHE/linux-<tree>)
#   IDA_KUNIT_BRANCH   the branch the series is applied on (default: ida-kunit)
#   IDA_KUNIT_FORCE    1: apply-series.sh and setup-tree.sh may discard work
#                      that was not exported
#   IDA_KUNIT_TARBALL  the distro tree's tarball (default: Debian's
#                      /usr/src/linux-source-<tree>.tar.xz)
#   IDA_KUNIT_ARCH_TABLE  the architecture table (default: kunit/arches.tsv)
# Every path is made absolute before use.

set -o pipefail

# abspath PATH: PATH made absolute (it need not exist), so that a relative
# IDA_KUNIT_* path means the same folder whatever directory a script is in.
abspath() {
	realpath -m -- "$1"
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The settings below are read by the scripts that source this file.
# shellcheck disable=SC2034
{
TREE_VERSION=${IDA_KUNIT_TREE:-6.12}
CACHE=$(abspath "${IDA_KUNIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ida-kunit}")
SRC=$(abspath "${IDA_KUNIT_SRC:-$CACHE/linux-$TREE_VERSION}")
PATCHES=$(abspath "${IDA_KUNIT_PATCHES:-$REPO/kernel-patches/linux-$TREE_VERSION}")
RESULTS=$(abspath "${IDA_KUNIT_RESULTS:-$REPO/results}")
ARCH_TABLE=$(abspath "${IDA_KUNIT_ARCH_TABLE:-$REPO/kunit/arches.tsv}")
JOBS=${IDA_KUNIT_JOBS:-$(nproc)}
QEMU_TIMEOUT=${IDA_KUNIT_TIMEOUT:-300}
BRANCH=${IDA_KUNIT_BRANCH:-ida-kunit}
# Python's bytecode caches go to the cache folder, never into the kernel
# tree: kunit.py, run from the tree, would write tools/testing/kunit/__pycache__
# during a leg, after the leg's build stamp, and the next run would see a
# changed tree (and rebuild) although no source changed.
export PYTHONPYCACHEPREFIX=$CACHE/pycache
PRISTINE_TAG=pristine
# Fixes to the distro tree that are not the series' (a folder beside the
# series, "<series folder>-fixes", with a series file of its own): applied
# on the pristine source first, the result tagged BASE_TAG, and the series
# on top.  Every leg and the userspace harness build that base.
FIXES=${IDA_KUNIT_FIXES:-}
[ -n "$FIXES" ] || FIXES="$PATCHES-fixes"
FIXES=$(abspath "$FIXES")
# Build fixes that only some architectures need (a folder beside the
# series, "<series folder>-arch-fixes"): its series file lists the
# patches, its legs file the legs (rows of the architecture table) that
# need each.  A leg of such an arch builds a worktree of the patched tree
# with those patches on top (arch_fix_tree); every other leg builds the
# patched tree itself.
ARCH_FIXES=$(abspath "${IDA_KUNIT_ARCH_FIXES:-$PATCHES-arch-fixes}")
# One base tag per branch: tags are shared by every worktree of a
# repository, and a branch made in one (the scripts' own tests make one)
# must not move the base of another.
BASE_TAG="tree-fixes"
[ "$BRANCH" = ida-kunit ] || BASE_TAG="tree-fixes-$BRANCH"
PKG="linux-source-$TREE_VERSION"
# The distro tree: Debian's tarball, or (for the scripts' own tests) a
# stand-in given with IDA_KUNIT_TARBALL.
TARBALL=$(abspath "${IDA_KUNIT_TARBALL:-/usr/src/$PKG.tar.xz}")

# A fixed identity (and date, in setup-tree.sh) for the pristine commit, so
# that its hash is the same on every machine that unpacks the same tarball.
IMPORT_NAME="ida-kunit pristine import"
IMPORT_EMAIL=ida-kunit@localhost

# The objects of the userspace radix-tree harness that a program of our own
# (kunit/harness) links with, in tools/testing/radix-tree.
HARNESS_OBJS="xarray-shared.o radix-tree.o idr.o linux.o slab.o find_bit.o bitmap.o hweight.o vsprintf.o xarray.o maple.o test.o"
}
# Commits the scripts make (git am) need an identity whatever git's own
# configuration says; the committer is the scripts, the author the patch's.
export GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-ida-kunit}
export GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-ida-kunit@localhost}

die() {
	echo "error: $*" >&2
	exit 1
}

info() {
	echo ">>> $*" >&2
}

# The architecture table (kunit/arches.tsv): arch_rows prints its rows,
# without comments.
arch_rows() {
	[ -f "$ARCH_TABLE" ] || die "no architecture table $ARCH_TABLE"
	grep -v -E '^[[:space:]]*(#|$)' "$ARCH_TABLE"
}

known_arches() {
	arch_rows | awk '{ print $1 }' | paste -s -d ' ' -
}

default_arches() {
	arch_rows | awk '$6 == "yes" { print $1 }' | paste -s -d ' ' -
}

# arch_params ARCH: from the table and the QEMU config beside it
# (qemu_configs/ARCH.py), sets CROSS, COMPILER, QEMU_BIN,
# QEMU_CONFIG (both empty for User Mode Linux, a row whose qemu column is
# "-"), LINUX_ARCH, KNOWN_FAILURE ("-" or the row's known failure), ARCH_PACKAGES
# and ARCH_KUNITCONFIGS (the kunitconfigs every
# leg of that arch adds to its own).  CROSS_COMPILE overrides the table's
# cross compiler prefix.
# shellcheck disable=SC2034
arch_params() {
	local name cross qemu packages configs default known c
	read -r name cross qemu packages configs default known < <(arch_rows | awk -v a="$1" '$1 == a')
	[ -n "$name" ] || die "unknown arch '$1' (known: $(known_arches))"
	[ -n "$known" ] || die "row '$1' of $ARCH_TABLE has fewer than 7 columns"
	KNOWN_FAILURE=$known
	CROSS=
	[ "$cross" = - ] || CROSS=${CROSS_COMPILE:-$cross}
	COMPILER=${CROSS}gcc
	QEMU_BIN=$qemu
	ARCH_PACKAGES=()
	[ "$packages" = - ] || IFS=, read -r -a ARCH_PACKAGES <<<"$packages"
	ARCH_KUNITCONFIGS=()
	if [ "$configs" != - ]; then
		IFS=, read -r -a configs <<<"$configs"
		for c in "${configs[@]}"; do
			ARCH_KUNITCONFIGS+=("$REPO/kunitconfigs/$c.kunitconfig")
			[ -f "$REPO/kunitconfigs/$c.kunitconfig" ] ||
				die "arch '$1' names kunitconfigs/$c.kunitconfig, which does not exist"
		done
	fi
	# A row without a QEMU binary is User Mode Linux: kunit_tool's default,
	# a kernel that runs as a program of this machine, with no QEMU config.
	if [ "$qemu" = - ]; then
		[ "$cross" = - ] || die "row '$1' of $ARCH_TABLE has no QEMU but a cross compiler: UML runs on this machine"
		QEMU_BIN='' QEMU_CONFIG='' LINUX_ARCH=um
		return 0
	fi
	QEMU_CONFIG=$(dirname "$ARCH_TABLE")/qemu_configs/$1.py
	[ -f "$QEMU_CONFIG" ] || die "no QEMU config $QEMU_CONFIG for arch '$1'"
	# Linux's name of the arch (make ARCH=), from the QEMU config as
	# kunit_tool reads it (kunit/qemu_params.py, with a stand-in for
	# kunit_tool's qemu_config.py until the tree is there).
	command -v python3 >/dev/null || "$REPO/scripts/install-deps.sh" python || exit 1
	LINUX_ARCH=$(python3 "$REPO/kunit/qemu_params.py" --kunit-tool "$SRC/tools/testing/kunit" \
		"$QEMU_CONFIG" linux_arch) || exit 1
	[ -n "$LINUX_ARCH" ] || die "no linux_arch in $QEMU_CONFIG"
}

# The folder kunit.py builds ARCH in: one per tree and arch, kept between
# runs so that a rerun is incremental.
build_dir() {
	echo "$CACHE/build/linux-$TREE_VERSION-$1"
}

# series_patches: the patch files of the series, in order, one per line.
series_patches() {
	[ -f "$PATCHES/series" ] || die "no series file $PATCHES/series"
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$PATCHES/series" | grep -v '^$' || true
}

# fixes_patches: the patch files of the tree fixes, in order (none when the
# folder has no series file).
fixes_patches() {
	[ -f "$FIXES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$FIXES/series" | grep -v '^$' || true
}

# arch_fixes_patches: the patch files of the arch fixes, in order.
arch_fixes_patches() {
	[ -f "$ARCH_FIXES/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$ARCH_FIXES/series" | grep -v '^$' || true
}

# arch_fix_legs_lines: the lines of the arch fixes' legs file, without
# comments, carriage returns and blank lines; an error when it is missing.
arch_fix_legs_lines() {
	[ -f "$ARCH_FIXES/legs" ] || {
		echo "error: ${ARCH_FIXES#"$REPO"/}/legs is missing: it names the legs of each arch fix" >&2
		return 1
	}
	sed -e 's/#.*//' -e 's/\r$//' "$ARCH_FIXES/legs" | awk 'NF'
}

# arch_fix_legs PATCH: the legs (comma-separated) the arch fix PATCH is
# for: the one line of the legs file that names it, with a patch and its
# legs; an error otherwise, naming the line.
arch_fix_legs() {
	local all
	all=$(arch_fix_legs_lines) || return 1
	awk -v p="$1" -v f="${ARCH_FIXES#"$REPO"/}/legs" '
		$1 != p { next }
		NF != 2 { print "error: " f ": a line needs a patch and its legs: " $0 > "/dev/stderr"; bad = 1; exit }
		{ n++; legs = $2 }
		END {
			if (bad) exit 1
			if (n != 1) { print "error: " f " gives " (n ? n " lines" : "no legs") " for " p > "/dev/stderr"; exit 1 }
			print legs
		}' <<<"$all"
}

# arch_fix_legs_listed: an error when the legs file names a patch that the
# series does not list.
arch_fix_legs_listed() {
	local p lines
	lines=$(arch_fix_legs_lines) || return 1
	while read -r p; do
		arch_fixes_patches | grep -qxF "$p" || {
			echo "error: ${ARCH_FIXES#"$REPO"/}/legs names $p, which the series does not list" >&2
			return 1
		}
	done < <(awk 'NF { print $1 }' <<<"$lines")
}

# arch_fixes_for ARCH: the arch fixes the legs of ARCH need, in order.
arch_fixes_for() {
	local p legs
	while read -r p; do
		legs=$(arch_fix_legs "$p") || return 1
		[[ ",$legs," == *",$1,"* ]] && echo "$p"
	done < <(arch_fixes_patches)
	return 0
}

# arch_fix_tree ARCH PATCH...: a worktree of the patched tree (branch
# BRANCH) with PATCH... of the arch fixes applied, for the legs of ARCH;
# prints its path.  It is made again only when the branch or a patch
# changed (a stamp beside it says which), so that its files keep their
# times and the leg's build stays incremental.  A patch that does not
# apply is named, and the worktree is left on the patched tree.
arch_fix_tree() {
	local arch=$1 wt head key stamp p amout
	shift
	head=$(git -C "$SRC" rev-parse -q --verify "refs/heads/$BRANCH") ||
		die "no $BRANCH branch in $SRC: run scripts/apply-series.sh first"
	wt=$(scratch_worktree "arch-$arch") || exit 1
	for p in "$@"; do
		[ -f "$ARCH_FIXES/$p" ] || die "${ARCH_FIXES#"$REPO"/}/series lists $p, which does not exist"
	done
	key=$({ echo "$head"; for p in "$@"; do echo "$p"; cat "$ARCH_FIXES/$p"; done; } | sha256sum | cut -c1-32)
	stamp=$wt.ida-kunit-arch-fixes
	if [ -f "$stamp" ] && [ "$(sed -n 1p "$stamp")" = "$key" ] &&
	   [ "$(git -C "$wt" rev-parse HEAD)" = "$(sed -n 2p "$stamp")" ] &&
	   [ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ]; then
		echo "$wt"
		return 0
	fi
	rm -f "$stamp"
	git -C "$wt" checkout -q -f --detach "$head" || die "cannot check out $BRANCH in $wt"
	for p in "$@"; do
		if ! amout=$(git -C "$wt" am -q --keep-cr "$ARCH_FIXES/$p" 2>&1); then
			git -C "$wt" am --abort >/dev/null 2>&1
			git -C "$wt" checkout -q -f --detach "$head"
			echo "$amout" | grep -E '^(error|Patch failed)' | head -n 3 >&2
			die "arch fix $p does not apply to the patched tree (branch $BRANCH)"
		fi
	done
	printf '%s\n%s\n' "$key" "$(git -C "$wt" rev-parse HEAD)" >"$stamp" || die "cannot write $stamp"
	echo "$wt"
}

# apply_fixes TREE: git am the tree fixes onto TREE (checked out at the
# pristine source), with the committer date of each its author date, so
# that the base has the same commit on every machine.  A fix that does
# not apply is named, and the git am is aborted.
apply_fixes() {
	local tree=$1 p out
	while read -r p; do
		[ -f "$FIXES/$p" ] || die "${FIXES#"$REPO"/}/series lists $p, which does not exist"
		if ! out=$(git -C "$tree" am -q --keep-cr --committer-date-is-author-date "$FIXES/$p" 2>&1); then
			git -C "$tree" am --abort >/dev/null 2>&1
			echo "$out" | grep -E '^(error|Patch failed)' | head -n 3 >&2
			die "tree fix $p does not apply to linux-$TREE_VERSION"
		fi
	done < <(fixes_patches)
}

# The series as applied: a hash of the series file and its patches.  The tree
# records it with the commit it gave (series_stamp_file), so that a rerun
# with an unchanged series and tree re-applies nothing and the build stays
# incremental, and so that commits not yet exported are never thrown away.
series_hash() {
	local p files=(series)
	while read -r p; do files+=("$p"); done < <(series_patches)
	{
		(cd "$PATCHES" && cat "${files[@]}")
		if [ -f "$FIXES/series" ]; then
			files=(series)
			while read -r p; do files+=("$p"); done < <(fixes_patches)
			(cd "$FIXES" && cat "${files[@]}")
		fi
	} | sha256sum | cut -d' ' -f1
}

series_stamp_file() {
	echo "$(git -C "$SRC" rev-parse --absolute-git-dir)/ida-kunit-applied-$BRANCH"
}

# read_series_stamp: sets STAMP_HASH and STAMP_COMMIT from the stamp (both
# empty when there is none).
# shellcheck disable=SC2034
read_series_stamp() {
	STAMP_HASH='' STAMP_COMMIT=''
	{ read -r STAMP_HASH STAMP_COMMIT < "$(series_stamp_file)"; } 2>/dev/null
}

write_series_stamp() {
	echo "$(series_hash) $(git -C "$SRC" rev-parse HEAD)" > "$(series_stamp_file)"
}

# Files that builds in the tree leave behind (the radix-tree harness builds
# in place, and the scripts put their programs for it there): anything else
# untracked is somebody's new file, executable or not.
HARNESS_PROGRAMS="main idr-test multiorder xarray maple ida-bench ida-suite xa-rcu-race"
is_build_output() {
	local p
	case "$1" in
	*.o|*.d|*.a|*.so|*.cmd|*.gcda|*.gcno|*.gcov|*.pyc|*/__pycache__/*) return 0 ;;
	tools/testing/radix-tree/generated/map-shift.h|tools/testing/radix-tree/generated/bit-length.h) return 0 ;;
	tools/testing/radix-tree/generated/autoconf.h) return 0 ;;
	tools/testing/radix-tree/radix-tree.c|tools/testing/radix-tree/idr.c) return 0 ;;
	tools/testing/radix-tree/ida_suite_main.c|tools/testing/radix-tree/xa_rcu_race.c) return 0 ;;
	esac
	for p in $HARNESS_PROGRAMS; do
		[ "$1" = "tools/testing/radix-tree/$p" ] && return 0
	done
	return 1
}

# unexported_work TREE [STAMP_COMMIT]: one line saying what of TREE a reset
# to the pristine source would lose (a git am in progress, staged or
# unstaged changes, untracked or ignored new source files, commits on HEAD
# or on the branch other than the pristine source and STAMP_COMMIT, the
# last series applied), or nothing.
unexported_work() {
	local tree=$1 stamp=${2:-} pristine head ref f untracked=()
	pristine=$(git -C "$tree" rev-parse -q --verify "$PRISTINE_TAG^{commit}")
	if [ -d "$(git -C "$tree" rev-parse --git-path rebase-apply)" ]; then
		echo "a git am or rebase in progress"
		return
	fi
	f=$(git -C "$tree" status --porcelain --untracked-files=no | head -n 3 | cut -c4- | paste -s -d ' ' -)
	if [ -n "$f" ]; then
		echo "uncommitted changes ($f)"
		return
	fi
	while IFS= read -r -d '' f; do
		is_build_output "$f" "$tree/$f" || untracked+=("$f")
	done < <(git -C "$tree" ls-files -z --others)
	if [ ${#untracked[@]} -gt 0 ]; then
		echo "untracked files (${untracked[*]:0:3}${untracked[3]:+ ...})"
		return
	fi
	if git -C "$tree" rev-parse -q --verify refs/stash >/dev/null; then
		echo "a stash ($(git -C "$tree" stash list | head -n 1))"
		return
	fi
	head=$(git -C "$tree" rev-parse HEAD)
	# HEAD and every branch: at the pristine source, at the last series
	# applied, or at a commit the latter holds (the tree fixes, a patch of
	# it); anything else holds commits of somebody's.  A branch checked out
	# in another worktree is that tree's, and its own check's.
	local others
	others=$(git -C "$tree" worktree list --porcelain |
		awk -v me="$(cd "$tree" && pwd -P)" '/^worktree /{ wt = substr($0, 10) } /^branch /{ if (wt != me) print substr($2, 12) }')
	while read -r f ref; do
		[ -n "$ref" ] && grep -qxF "$ref" <<<"$others" && continue
		if [ "$f" != "$pristine" ] && [ "$f" != "$stamp" ] &&
		   ! { [ -n "$stamp" ] && git -C "$tree" merge-base --is-ancestor "$f" "$stamp" 2>/dev/null; }; then
			echo "commits that were not exported (${ref:+$ref: }$(git -C "$tree" log -1 --format='%h %s' "$f"))"
			return
		fi
	done < <(echo "$head"; git -C "$tree" for-each-ref --format='%(objectname) %(refname:short)' refs/heads/)
}

# scratch_worktree [NAME]: a second checkout of the tree, for checks that
# must not touch the patched tree (whose files' times drive incremental
# builds).  Made by the scripts, marked as such beside it, and made again
# when it does not belong to the tree any more (a new import).
scratch_worktree() {
	local wt=$CACHE/worktree-linux-$TREE_VERSION${1:+-$1}
	local mark=$wt.ida-kunit common
	common=$(git -C "$wt" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
	if [ -e "$wt" ] && [ "$common" != "$(git -C "$SRC" rev-parse --path-format=absolute --git-common-dir)" ]; then
		[ -f "$mark" ] || die "$wt exists and was not made by these scripts: move it away"
		rm -rf "$wt"
	fi
	if [ ! -e "$wt" ]; then
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$wt" "$PRISTINE_TAG" >&2 || die "cannot create worktree $wt"
		touch "$mark"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1
	echo "$wt"
}

# cannot_run MESSAGE: a check that could not run at all (exit 2, where a
# check that ran and failed exits 1).
cannot_run() {
	echo "error: $*" >&2
	exit 2
}

# harness_check_setup NAME REV OUT: what a check that builds a program of
# kunit/harness into the radix-tree harness of a revision of the tree needs
# first: its packages, REV checked out in the scratch worktree NAME, and
# the results folder OUT made anew (only a folder marked as such a check's
# is ever removed).  Prints the worktree's path and REV's commit; exits 2
# (run it in $(...) and pass that on) when any of it cannot be done.
harness_check_setup() {
	local name=$1 rev=$2 out=$3 commit wt
	"$REPO/scripts/install-deps.sh" build checks >&2 || exit 2
	[ -d "$SRC/.git" ] || cannot_run "no tree at $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
	commit=$(git -C "$SRC" rev-parse -q --verify "$rev^{commit}") || cannot_run "no revision '$rev' in $SRC"
	wt=$(scratch_worktree "$name") || exit 2
	git -C "$wt" checkout -q -f --detach "$commit" || cannot_run "cannot check out $rev in $wt"
	if [ -e "$out" ]; then
		[ -f "$out/.ida-kunit-race" ] || cannot_run "$out exists and was not made by $(basename "$0"): move it away"
		rm -rf "$out" || cannot_run "cannot remove the previous results in $out"
	fi
	{ mkdir -p "$out" && touch "$out/.ida-kunit-race"; } || cannot_run "cannot create $out"
	echo "$wt $commit"
}

# use_ccache: ccache in the cache folder for the builds of a script.  Paths
# below the cache folder (the tree, the build folders) are hashed relative
# to it, so that a ccache copied to another cache folder (a new machine, a
# CI cache) still hits.
# Depend mode: ccache takes the headers of a compilation from the -MD file
# the compiler writes anyway (Kbuild asks for one), instead of running the
# preprocessor once more before every compilation it has not seen.  On a
# new machine, where every compilation is such a miss, that second
# preprocessor run makes a build with ccache slower than one without it;
# in depend mode it costs nothing (scripts/tools/build-profile.sh times a
# build without ccache, to compare).
# What may be cached: an object is keyed on its source, flags and headers,
# so a source that embeds another file (.incbin) may not be: the compiler
# goes through scripts/ccache-cc, which compiles such a source without
# ccache.  Every caller writes "CC=$CCACHE_CC <compiler>": the wrapper is
# copied to the cache folder ($CACHE/bin/ccache-cc), so that the command
# lines Kbuild records are the same from every clone of this repository.
use_ccache() {
	export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$CACHE CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	export CCACHE_DEPEND=1
	mkdir -p "$CCACHE_DIR" "$CACHE/bin" || die "cannot create $CCACHE_DIR"
	CCACHE_CC=$CACHE/bin/ccache-cc
	if ! cmp -s "$REPO/scripts/ccache-cc" "$CCACHE_CC"; then
		{ cp "$REPO/scripts/ccache-cc" "$CCACHE_CC.$$" && chmod +x "$CCACHE_CC.$$" &&
		  mv -f "$CCACHE_CC.$$" "$CCACHE_CC"; } || die "cannot install $CCACHE_CC"
	fi
}

elapsed() {
	echo $(( $(date +%s) - $1 ))
}

# run_programs DIR LOG_PREFIX LIMIT PROG...: run the programs ./PROG of DIR,
# at most $JOBS at a time (they are single-threaded for the most part, so
# the longest go first), each killed after LIMIT seconds, each with its
# output in LOG_PREFIX-PROG.log.  Prints "PROG SECONDS EXIT_CODE" for each,
# in the order given.
run_programs() {
	local dir=$1 prefix=$2 limit=$3 prog
	shift 3
	for prog in "$@"; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
		rm -f "$prefix-$prog.rc"
		(
			t0=$(date +%s)
			cd "$dir" && timeout "$limit" "./$prog" >"$prefix-$prog.log" 2>&1
			status=$?
			echo "$prog $(elapsed "$t0") $status" >"$prefix-$prog.rc"
		) &
	done
	wait
	for prog in "$@"; do
		# A program whose subshell could not even record its end failed.
		cat "$prefix-$prog.rc" 2>/dev/null || echo "$prog 0 255"
		rm -f "$prefix-$prog.rc"
	done
}
