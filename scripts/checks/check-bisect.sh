#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability of the series: after each patch, build the objects that
# patch touches and the IDA KUnit suite (for x86_64; objects under
# arch/powerpc for ppc64), with W=1 and sparse (C=2), in the scratch
# worktree (scratch_worktree) and build folders of their own, so the
# patched tree and its build folders are left alone; after a patch that
# touches what the userspace radix-tree harness compiles, build every
# target of tools/testing/radix-tree.  A patch fails when an object or a
# harness target does not build, or an object shows more warnings than
# before the series.  Prints a table, one row per patch; exits non-zero on
# any failure.
#
# Usage: check-bisect.sh [--run-harness]
#   --run-harness  also run idr-test, xarray and multiorder after each such
#                  patch (about a minute a patch on 2 CPUs, most of it
#                  idr-test's own IDR and thread checks).  The default
#                  check runs every harness program once, on the whole
#                  series (radix-tree-test.sh), and builds them here.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

run_harness=0
case "${1-}" in
'') ;;
--run-harness) run_harness=1 ;;
*) die "check-bisect.sh: unknown option '$1' (usage: check-bisect.sh [--run-harness])" ;;
esac

"$REPO/scripts/install-deps.sh" build checks || exit 1
[ -d "$SRC/.git" ] || die "no tree at $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
git -C "$SRC" rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null || die "no $BRANCH branch: run scripts/apply-series.sh first"

build=$CACHE/build/linux-$TREE_VERSION-bisect-x86_64
out=$RESULTS/bisect
rm -f "$out/table.txt" "$out"/harness-*.log "$out"/harness-*.rc
mkdir -p "$build" "$out" "$CACHE/ccache" || exit 1
use_ccache
wt=$CACHE/worktree-linux-$TREE_VERSION

make_args=(-s -C "$wt" O="$build" ARCH=x86_64 CC="$CCACHE_CC gcc" -j"$JOBS")
# A small config with everything the series touches built in; the fragment
# is applied again after each checkout, as options come and go.
fragment='CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_DEBUG_KERNEL=y
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_KUNIT=y
CONFIG_IDA_KUNIT_TEST=y
CONFIG_IDA_BENCHMARK_KUNIT_TEST=y
CONFIG_TEST_IDA=y
CONFIG_MMC=y
CONFIG_RPMB=y
CONFIG_NVMEM=y'

# configure: apply the fragment to the checked-out source; the options of
# the fragment that exist there must end up enabled.
# Patches to arch/powerpc are built for ppc64 (book3s64, with the MMU
# context suite compiled in) in a build folder of their own, set up the
# first time one is met.
ppc_build=$CACHE/build/linux-$TREE_VERSION-bisect-powerpc
arch_params powerpc	# the cross compiler of the table's powerpc row
ppc_args=(-s -C "$wt" O="$ppc_build" ARCH=powerpc CROSS_COMPILE="$CROSS"
	  CC="$CCACHE_CC $COMPILER" -j"$JOBS")
ppc_fragment='CONFIG_PPC64=y
CONFIG_PPC_BOOK3S_64=y
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_DEBUG_KERNEL=y
CONFIG_KUNIT=y
CONFIG_BOOK3S64_MMU_CONTEXT_KUNIT_TEST=y'
ppc_used=0

configure_ppc() {
	"$REPO/scripts/install-deps.sh" powerpc || exit 1
	mkdir -p "$ppc_build" || exit 1
	[ -f "$ppc_build/.config" ] || make "${ppc_args[@]}" tinyconfig >/dev/null || die "powerpc tinyconfig failed"
	echo "$ppc_fragment" >> "$ppc_build/.config"
	make "${ppc_args[@]}" olddefconfig >/dev/null 2>&1 || die "powerpc olddefconfig failed"
	grep -q '^CONFIG_PPC_BOOK3S_64=y' "$ppc_build/.config" || die "the powerpc bisect config is not book3s64"
	if [ -f "$wt/arch/powerpc/mm/book3s64/tests/mmu_context_kunit.c" ]; then
		grep -q '^CONFIG_BOOK3S64_MMU_CONTEXT_KUNIT_TEST=y' "$ppc_build/.config" ||
			die "the powerpc bisect config does not enable CONFIG_BOOK3S64_MMU_CONTEXT_KUNIT_TEST"
	fi
	ppc_used=1
}

configure() {
	local opt
	[ "$ppc_used" = 0 ] || configure_ppc
	echo "$fragment" >> "$build/.config"
	make "${make_args[@]}" olddefconfig >/dev/null 2>&1 || die "olddefconfig failed"
	for opt in CONFIG_RPMB CONFIG_NVMEM; do
		grep -q "^$opt=y" "$build/.config" || die "the bisect config does not enable $opt"
	done
	if [ -f "$wt/lib/test_ida.c" ]; then opt=CONFIG_TEST_IDA; else opt=CONFIG_IDA_KUNIT_TEST; fi
	grep -q "^$opt=y" "$build/.config" || die "the bisect config does not enable $opt"
}

# The worktree and the x86_64 config, made when the first patch that is
# not in the results store needs them.
setup_done=0
setup() {
	[ "$setup_done" = 0 ] || return 0
	wt=$(scratch_worktree "") || exit 1
	git -C "$wt" checkout -q -f --detach "$BASE_TAG" || die "cannot check out $BASE_TAG"
	[ -f "$build/.config" ] || make "${make_args[@]}" tinyconfig >/dev/null || die "tinyconfig failed"
	configure
	setup_done=1
}

# The results store: a patch's row is kept under a key made of everything
# the row depends on (the tree before and after the patch, this script and
# scripts/lib.sh, the compilers and sparse), so that a patch whose tree is unchanged is not
# built again, and an edited patch (or any patch after it, whose tree
# changes with it) always is.  Only passing rows are kept.
store=$CACHE/bisect-results
mkdir -p "$store" || exit 1
tools_id=$({ gcc --version; "$COMPILER" --version; sparse --version; } 2>&1 | sha256sum | cut -c1-16)
row_key() {	# row_key COMMIT
	{ echo "$tools_id $run_harness"; cat "$0" "$REPO/scripts/lib.sh" | sha256sum; git -C "$SRC" rev-parse "$1^{tree}" "$1^^{tree}"; } |
		sha256sum | cut -d' ' -f1
}

# objects_of COMMIT: the objects whose source the commit touches, plus the
# IDA suite and lib/idr.o.
# An object Kbuild builds: its name is in the Makefile of its folder or of
# the folder above (a .c file #included by another one is not).
kbuild_object() {
	local dir=${1%/*} name=${1##*/}
	grep -q -w -F "$name" "$wt/$dir/Makefile" 2>/dev/null ||
		grep -q -F "${dir##*/}/$name" "$wt/${dir%/*}/Makefile" 2>/dev/null
}

objects_of() {
	{
		git -C "$wt" diff-tree --no-commit-id --name-only -r "$1" |
			sed -n 's/\.c$/.o/p' | grep -v '^tools/' | grep -v '^arch/'
		git -C "$wt" diff-tree --no-commit-id --name-only -r "$1" |
			sed -n 's/\.c$/.o/p' | grep '^arch/\(x86\|powerpc\)/'
		# A header: an object that includes it.
		git -C "$wt" diff-tree --no-commit-id --name-only -r "$1" |
			sed -n 's|^include/linux/nvmem-provider\.h$|drivers/nvmem/core.o|p'
		echo lib/idr.o
		if [ -f "$wt/lib/tests/ida_kunit.c" ]; then echo lib/tests/ida_kunit.o; fi
		if [ -f "$wt/lib/test_ida.c" ]; then echo lib/test_ida.o; fi
	} | sort -u
}

# warnings OBJ: build OBJ with W=1 and sparse; print the warning lines.
warnings() {
	local args=("${make_args[@]}")
	case "$1" in arch/powerpc/*) args=("${ppc_args[@]}") ;; esac
	touch "$wt/${1%.o}.c"
	make "${args[@]}" W=1 C=2 "$1" 2>&1 | grep -E 'warning:|error:' | sed 's/:[0-9]*:[0-9]*:/:/'
	return "${PIPESTATUS[0]}"
}

# What the radix-tree harness compiles.
harness_inputs='^tools/testing/radix-tree/\|^tools/testing/shared/\|^tools/include/\|^include/linux/\(idr\|xarray\|radix-tree\|maple_tree\)\.h$\|^lib/\(idr\|xarray\|radix-tree\|maple_tree\|test_ida\|test_xarray\|test_maple_tree\)\.c$\|^lib/tests/ida_'

rc=0
printf '%-4s %-72s %s\n' "#" "patch" "result" | tee "$out/table.txt"
n=0
cached=0
while read -r commit; do
	n=$((n + 1))
	subject=$(git -C "$SRC" log -1 --format=%s "$commit")
	key=$(row_key "$commit")
	if [ -f "$store/$key" ]; then
		printf '%-4s %-72s %s\n' "$n" "${subject:0:72}" "$(cat "$store/$key") (kept: ${key:0:12})" | tee -a "$out/table.txt"
		cached=$((cached + 1))
		continue
	fi
	setup
	git -C "$wt" checkout -q -f --detach "$commit" || die "cannot check out $commit"
	configure
	result=ok
	details=()
	if [ "$ppc_used" = 0 ] && git -C "$wt" diff-tree --no-commit-id --name-only -r "$commit" | grep -q '^arch/powerpc/'; then
		configure_ppc
	fi
	for obj in $(objects_of "$commit"); do
		[ -f "$wt/${obj%.o}.c" ] || continue
		if ! kbuild_object "$obj"; then
			details+=("${obj%.o}.c is #included, not built alone")
			continue
		fi
		if ! w=$(warnings "$obj" 2>&1); then
			result=FAIL
			details+=("$obj does not build: $(echo "$w" | grep -m1 error:)")
			continue
		fi
		base=$(git -C "$wt" cat-file -e "$PRISTINE_TAG:${obj%.o}.c" 2>/dev/null && echo yes)
		count=$(echo -n "$w" | grep -c . || true)
		if [ "$count" -gt 0 ]; then
			# Warnings the pristine source of that file has too are not new.
			if [ "$base" = yes ]; then
				git -C "$wt" checkout -q -f --detach "$PRISTINE_TAG"
				configure
				old=$(warnings "$obj" 2>/dev/null)
				git -C "$wt" checkout -q -f --detach "$commit"
				configure
				new=$(comm -23 <(echo "$w" | sort) <(echo "$old" | sort))
			else
				new=$w
			fi
			if [ -n "$new" ]; then
				result=FAIL
				details+=("$obj: new warnings: $(echo "$new" | head -n 2 | tr '\n' ' ')")
			fi
		fi
		details+=("$obj built")
	done
	# The userspace harness: after a patch that touches what it compiles,
	# every target of tools/testing/radix-tree must build; with
	# --run-harness, the quick ones must pass too (main and maple, minutes
	# each, run on the whole series in radix-tree-test.sh).
	if git -C "$wt" diff-tree --no-commit-id --name-only -r "$commit" | grep -q "$harness_inputs"; then
		if ! make -s -C "$wt/tools/testing/radix-tree" -j"$JOBS" CC="$CCACHE_CC gcc" >/dev/null 2>"$out/harness-$n.log"; then
			result=FAIL
			details+=("the radix-tree targets do not all build (see $out/harness-$n.log)")
		elif [ "$run_harness" = 0 ]; then
			details+=("radix-tree targets built")
		else
			details+=("radix-tree targets built:")
			while read -r prog _ status; do
				if [ "$status" = 0 ]; then
					details+=("$prog ok")
				else
					result=FAIL
					details+=("$prog FAILED (see $out/harness-$n-$prog.log)")
				fi
			done < <(run_programs "$wt/tools/testing/radix-tree" "$out/harness-$n" 900 idr-test xarray multiorder)
		fi
		make -s -C "$wt/tools/testing/radix-tree" clean >/dev/null 2>&1
	fi
	if [ "$result" = ok ]; then
		echo "$result: ${details[*]}" >"$store/$key.tmp" && mv "$store/$key.tmp" "$store/$key"
	else
		rc=1
	fi
	printf '%-4s %-72s %s\n' "$n" "${subject:0:72}" "$result: ${details[*]}" | tee -a "$out/table.txt"
done < <(git -C "$SRC" rev-list --reverse "$BASE_TAG..$BRANCH")
echo "$cached of $n patches kept from earlier runs (same trees, script and tools), $((n - cached)) built"
[ $rc -eq 0 ] && echo "every patch builds on its own" || echo "error: some patches do not build cleanly on their own" >&2
exit $rc
