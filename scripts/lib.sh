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

set -o pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TREE_VERSION=${IDA_KUNIT_TREE:-6.12}
CACHE=${IDA_KUNIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ida-kunit}
SRC=${IDA_KUNIT_SRC:-$CACHE/linux-$TREE_VERSION}
PATCHES=${IDA_KUNIT_PATCHES:-$REPO/kernel-patches/linux-$TREE_VERSION}
RESULTS=${IDA_KUNIT_RESULTS:-$REPO/results}
JOBS=${IDA_KUNIT_JOBS:-$(nproc)}
QEMU_TIMEOUT=${IDA_KUNIT_TIMEOUT:-300}
BRANCH=${IDA_KUNIT_BRANCH:-ida-kunit}
PRISTINE_TAG=pristine

# A fixed identity and date for the pristine commit, so that its hash is the
# same on every machine that unpacks the same tarball.
GIT_ID=(-c user.name="ida-kunit pristine import" -c user.email="ida-kunit@localhost")

die() {
	echo "error: $*" >&2
	exit 1
}

info() {
	echo ">>> $*" >&2
}

# arch_params ARCH: sets CROSS, COMPILER, QEMU_BIN, QEMU_CONFIG, and
# ARCH_KUNITCONFIGS, the kunitconfigs every leg of that arch adds to its own.
# Adding an architecture means adding a case here and a QEMU config in
# kunit/qemu_configs/.
arch_params() {
	ARCH_KUNITCONFIGS=()
	case "$1" in
	x86_64)
		CROSS=
		COMPILER=gcc
		QEMU_BIN=qemu-system-x86_64
		ARCH_KUNITCONFIGS=("$REPO/kunitconfigs/x86_64-trim.kunitconfig")
		;;
	i386)
		CROSS=
		COMPILER=gcc
		QEMU_BIN=qemu-system-i386
		;;
	powerpc)	# ppc64 big endian, POWER8: hash MMU
		CROSS=${CROSS_COMPILE:-powerpc64-linux-gnu-}
		COMPILER=${CROSS}gcc
		QEMU_BIN=qemu-system-ppc64
		ARCH_KUNITCONFIGS=("$REPO/kunitconfigs/book3s64-mmu-context.kunitconfig")
		;;
	ppc64le)	# ppc64 little endian, POWER9: radix MMU
		CROSS=${CROSS_COMPILE:-powerpc64le-linux-gnu-}
		COMPILER=${CROSS}gcc
		QEMU_BIN=qemu-system-ppc64
		ARCH_KUNITCONFIGS=("$REPO/kunitconfigs/book3s64-mmu-context.kunitconfig")
		;;
	*)
		die "unknown arch '$1' (known: $(known_arches))"
		;;
	esac
	QEMU_CONFIG=$REPO/kunit/qemu_configs/$1.py
	[ -f "$QEMU_CONFIG" ] || die "no QEMU config $QEMU_CONFIG for arch '$1'"
}

known_arches() {
	echo "x86_64 powerpc ppc64le i386"
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

# The series as applied: a hash of the series file and its patches.  The tree
# records it with the commit it gave (series_stamp_file), so that a rerun
# with an unchanged series and tree re-applies nothing and the build stays
# incremental, and so that commits not yet exported are never thrown away.
series_hash() {
	(cd "$PATCHES" && cat series $(series_patches)) | sha256sum | cut -d' ' -f1
}

series_stamp_file() {
	echo "$(git -C "$SRC" rev-parse --absolute-git-dir)/ida-kunit-applied-$BRANCH"
}

write_series_stamp() {
	echo "$(series_hash) $(git -C "$SRC" rev-parse HEAD)" > "$(series_stamp_file)"
}

# scratch_worktree: a second checkout of the tree, for checks that must
# not touch the patched tree (whose files' times drive incremental builds).
scratch_worktree() {
	local wt=$CACHE/worktree-linux-$TREE_VERSION${1:+-$1}
	if [ ! -e "$wt/.git" ]; then
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$wt" "$PRISTINE_TAG" >&2 || die "cannot create worktree $wt"
	fi
	git -C "$wt" am --abort >/dev/null 2>&1
	echo "$wt"
}

# The objects of the userspace radix-tree harness that a program of our own
# (kunit/coverage, kunit/bench) links with, in tools/testing/radix-tree.
HARNESS_OBJS="xarray-shared.o radix-tree.o idr.o linux.o slab.o find_bit.o bitmap.o hweight.o vsprintf.o xarray.o maple.o test.o"

elapsed() {
	echo $(( $(date +%s) - $1 ))
}
