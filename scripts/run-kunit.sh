#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Patched tree -> kunit.py per arch -> results.
# Usage: run-kunit.sh --arch ARCH [--kunitconfig FILE] [--name NAME]
#                     [-- extra kunit.py arguments]
# Configures, builds and boots the patched tree with kunit_tool in QEMU, in
# the persistent build folder of that tree and arch, then writes KTAP, JSON
# and JUnit results to $IDA_KUNIT_RESULTS/NAME (NAME defaults to ARCH).
# Every leg of an arch also builds that arch's own suites (ARCH_KUNITCONFIGS
# in lib.sh: the book3s64 MMU context suite on the 64-bit powerpc arches,
# the dmaengine suite on every arch) and runs them,
# unless it boots only for its slow cases.
# Exits 0 only when every case passed (or was skipped, which is counted and
# reported as such).
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

arch=
kunitconfig=$REPO/kunitconfigs/ida.kunitconfig
name=
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--arch)		[ $# -ge 2 ] || die "--arch needs a value"; arch=$2; shift 2 ;;
	--arch=*)	arch=${1#--arch=}; shift ;;
	--kunitconfig)	[ $# -ge 2 ] || die "--kunitconfig needs a value"; kunitconfig=$2; shift 2 ;;
	--name)		[ $# -ge 2 ] || die "--name needs a value"; name=$2; shift 2 ;;
	--)		shift; extra=("$@"); break ;;
	*)		die "run-kunit.sh: unknown argument '$1' (usage: run-kunit.sh --arch ARCH [--kunitconfig FILE] [--name NAME])" ;;
	esac
done
[ -n "$arch" ] || die "run-kunit.sh: --arch is required (known: $(known_arches))"
arch_params "$arch"
name=${name:-$arch}
case "$name" in ''|*/*|.*) die "run-kunit.sh: bad leg name '$name'" ;; esac
[[ "$QEMU_TIMEOUT" =~ ^[1-9][0-9]{0,4}$ ]] ||
	die "IDA_KUNIT_TIMEOUT='$QEMU_TIMEOUT': not a number of seconds"

# The leg's previous results go first, so that whatever stops this run, no
# earlier run's counts are read as this one's.  A folder is only emptied if
# a leg made it (it carries the marker, or a leg's counts.json).
out=$RESULTS/$name
if [ -e "$out" ]; then
	[ -f "$out/.ida-kunit-leg" ] || [ -f "$out/counts.json" ] ||
		die "$out exists and is not a leg's results folder: move it away"
	rm -rf "$out" || die "cannot remove the previous results in $out"
fi
{ mkdir -p "$out" && touch "$out/.ida-kunit-leg"; } || die "cannot create $out"
# Stopping before the boot (a missing tool, a failed step) leaves a
# counts.json (and junit.xml) saying so, written by the same results.py that
# writes them once a phase has a log.
python3 "$REPO/kunit/results.py" --kunit-tool "$SRC/tools/testing/kunit" --arch "$name" --out "$out" \
	--log /dev/null --failed-phase setup --message "the leg stopped before it could build or boot" >/dev/null
[ -f "$out/counts.json" ] || die "cannot write $out/counts.json"
# From here on, a stop says why in the leg's results too (counts.json,
# junit.xml and what the reports make of them), not only on stderr.
phase=setup	# how far the leg got: setup, config, build, run
die() {
	echo "error: $*" >&2
	python3 "$REPO/kunit/results.py" --kunit-tool "$SRC/tools/testing/kunit" --arch "$name" --out "$out" \
		--log /dev/null --failed-phase "$phase" --message "$*" >/dev/null
	exit 1
}

[ -f "$kunitconfig" ] || die "no kunitconfig $kunitconfig"
kunitconfig=$(abspath "$kunitconfig")

"$REPO/scripts/install-deps.sh" build "$arch" || exit 1
command -v "$COMPILER" >/dev/null || die "compiler $COMPILER for $arch is missing"
[ -z "$QEMU_BIN" ] || command -v "$QEMU_BIN" >/dev/null || die "$QEMU_BIN for $arch is missing"
[ -f "$SRC/tools/testing/kunit/kunit.py" ] || die "no kunit.py in $SRC: run scripts/setup-tree.sh and scripts/apply-series.sh first"
# An arch that needs build fixes of its own (kernel-patches/*-arch-fixes)
# builds a worktree of the patched tree with them on top.
fixes_list=$(arch_fixes_for "$arch" 2>"$out/arch-fixes.err") ||
	die "$(sed -n 's/^error: //p' "$out/arch-fixes.err" | head -n 1)"
rm -f "$out/arch-fixes.err"
mapfile -t arch_fixes < <(echo -n "$fixes_list")
if [ ${#arch_fixes[@]} -gt 0 ]; then
	SRC=$(arch_fix_tree "$arch" "${arch_fixes[@]}") || exit 1
	info "kunit $name: the patched tree with the arch fixes ${arch_fixes[*]}, in $SRC"
fi

# One build folder per tree, arch and kunitconfig, so that legs with other
# configurations do not rebuild each other's kernels.
cfg=$(basename "$kunitconfig" .kunitconfig)
build=$(build_dir "$arch")
[ "$cfg" = ida ] || build=$build-$cfg
mkdir -p "$build" "$CACHE/ccache" || die "cannot create $build"
# One run at a time in a build folder: a second one would rebuild the
# kernel under the first one's boot, and share its boot folders.
exec 9>"$build.lock" || die "cannot open $build.lock"
if ! flock -n 9; then
	info "kunit $name: another run is using $build; waiting for it"
	flock 9 || die "cannot lock $build"
fi
use_ccache
# Every build's banner (#N and date) must be its own, for the check that
# the kernel that booted is the one just built (results.py
# --expect-banner-of): no fixed build version or time.
unset KBUILD_BUILD_VERSION KBUILD_BUILD_TIMESTAMP
# The arch's own suites come on top of the leg's kunitconfig.
kunitconfigs=("$kunitconfig" "${ARCH_KUNITCONFIGS[@]}")
# The suites a kunitconfig must run are named in a "# suites:" comment.  A
# leg that boots only for its slow cases ("# boots: slow" in its own
# kunitconfig: the benchmark's) runs none of the cases of normal speed, and
# so none of the arch's own suites: it expects only its kunitconfig's.
suite_configs=("${kunitconfigs[@]}")
grep -q '^# boots:[[:space:]]*slow[[:space:]]*$' "$kunitconfig" && suite_configs=("$kunitconfig")
mapfile -t suites < <(sed -n 's/^# suites:[[:space:]]*//p' "${suite_configs[@]}" | tr ' ' '\n' | grep -v '^$')
# A filter of the caller's own (-- --filter ...) may leave out any suite:
# none is then required by name, though the boot must still run a case.
# (It also gets one boot, with no filter of this script's: below.)
caller_filter=
[[ " ${extra[*]}" != *" --filter"* ]] || caller_filter=yes
[ -z "$caller_filter" ] || suites=()
# A kunitconfig's "# kernel-args:" comment gives kernel command line
# arguments every boot of the leg gets (kunit.py --kernel_args): the
# parameters that ask a suite for its cases that do not run by default.
# They keep the order of the kunitconfigs (the leg's, then the arch's), so
# that an arch's fragment can set a parameter back: the last one counts.
kernel_args=()
while read -r a; do
	kernel_args+=(--kernel_args "$a")
done < <(sed -n 's/^# kernel-args:[[:space:]]*//p' "${kunitconfigs[@]}" | tr ' ' '\n' | grep -v '^$')

# A kunitconfig's "# timeout: SECONDS" raises the time limit of every boot
# of its leg: the limit is the longest of those named and the default
# (IDA_KUNIT_TIMEOUT, or 300), so that a shorter limit asked for in the
# environment (the mutation runs') cannot cut a leg that needs more.
while read -r t; do
	[[ "$t" =~ ^[1-9][0-9]{0,4}$ ]] ||
		die "'# timeout: $t' in the kunitconfigs of $name: not a number of seconds"
	[ "$t" -le "$QEMU_TIMEOUT" ] || QEMU_TIMEOUT=$t
done < <(sed -n 's/^# timeout:\(.*\)$/\1/p' "${kunitconfigs[@]}" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')

# A kunitconfig that says "# leak-scan: kmemleak" (and builds kmemleak in)
# boots with an initramfs whose init has kmemleak scan memory once the
# suites have run (kunit/leak-scan/leak-scan.c); results.py fails the leg on
# any report, and when the scan did not happen.
leak_scan=$(sed -n 's/^# leak-scan:[[:space:]]*//p' "${kunitconfigs[@]}" | head -n 1)
case "$leak_scan" in
''|kmemleak) ;;
*) die "unknown leak scan '$leak_scan' in $kunitconfig (known: kmemleak)" ;;
esac
# A kunitconfig's "# users: NAME..." has the leak-scan init run the
# programs kunit/users/NAME.c before its scan, in one boot of the leg (the
# one of the cases of normal speed, when there are two):
# each drives one of the IDA's users from userspace and prints KTAP (one
# suite, NAME), each line prefixed "users-NAME: ", which goes to results.py
# as a log of its own.
mapfile -t users < <(sed -n 's/^# users:[[:space:]]*//p' "${kunitconfigs[@]}" | tr -s '[:blank:]' '\n' | grep -v '^$' | sort -u)
for u in "${users[@]}"; do
	[[ "$u" =~ ^[a-z0-9_]+$ ]] || die "'# users: $u' in the kunitconfigs of $name: not a program name (a-z, 0-9, _)"
	[ -f "$REPO/kunit/users/$u.c" ] || die "no program kunit/users/$u.c for '# users: $u' in the kunitconfigs of $name"
done
[ "${#users[@]}" -eq 0 ] || [ -n "$leak_scan" ] ||
	die "'# users:' needs the leak-scan init ('# leak-scan: kmemleak') in the kunitconfigs of $name"
if [ -n "$leak_scan" ] && { [ -n "$CROSS" ] || [ -z "$QEMU_CONFIG" ] || [ "$arch" != "$(uname -m)" ]; }; then
	die "the leak scan needs a static init for $arch: only a leg of this machine's arch ($(uname -m)) has one"
fi
# A kunitconfig's "# users-bin: PATH..." copies programs of this machine
# (absolute paths, without blanks), with the shared libraries and the
# loader ldd says they need, into the initramfs at the same paths, for the
# users' programs to run: the initiators that nobody here wrote
# (install-deps.sh's group "users").  What a program loads by name at run
# time (plugins, NSS modules) is not copied.
mapfile -t users_bin < <(sed -n 's/^# users-bin:[[:space:]]*//p' "${kunitconfigs[@]}" | tr -s '[:blank:]' '\n' | grep -v '^$' | sort -u)
[ "${#users_bin[@]}" -eq 0 ] || [ "${#users[@]}" -gt 0 ] ||
	die "'# users-bin:' without a program of kunit/users to run them ('# users:') in the kunitconfigs of $name"
for b in "${users_bin[@]}"; do
	[[ "$b" == /* ]] || die "'# users-bin: $b' in the kunitconfigs of $name: not an absolute path"
done
if [ "${#users_bin[@]}" -gt 0 ]; then
	"$REPO/scripts/install-deps.sh" users || exit 1
	command -v ldd >/dev/null || die "no ldd on this machine (it is in libc-bin)"
	command -v readelf >/dev/null || die "no readelf on this machine (it is in binutils)"
fi
for b in "${users_bin[@]}"; do
	[ -x "$b" ] || die "no program $b on this machine for '# users-bin:' in the kunitconfigs of $name"
done

# A kunitconfig that says "# base: allnoconfig" has the leg's kernel
# configured from allnoconfig instead of the Kconfig defaults: the options
# that olddefconfig would turn on and allnoconfig leaves off go to kunit.py
# as one more kunitconfig, generated into the build folder whenever the leg
# is configured (kunit/allno-base.py).
base=$(sed -n 's/^# base:[[:space:]]*//p' "${kunitconfigs[@]}" | sort -u)
case "$base" in
''|allnoconfig) ;;
*) die "unknown base '$(echo "$base" | tr '\n' ' ')' in the kunitconfigs of $name (known: allnoconfig)" ;;
esac
[ -z "$base" ] || [ -n "$QEMU_CONFIG" ] ||
	die "the allnoconfig base needs a QEMU config, which a UML leg ($name) has none of"
base_config=$build/allnoconfig-base.kunitconfig

kunit=(python3 tools/testing/kunit/kunit.py)
# What every kunit.py call gets besides its QEMU config.
leg_args=()
for k in "${kunitconfigs[@]}"; do leg_args+=(--kunitconfig "$k"); done
[ -z "$base" ] || leg_args+=(--kunitconfig "$base_config")
[ -n "$CROSS" ] && leg_args+=(--cross_compile "$CROSS")
# A UML leg has no QEMU config: kunit.py's default, a kernel that runs as a
# program here.
qemu_args=()
[ -z "$QEMU_CONFIG" ] || qemu_args=(--qemu_config "$QEMU_CONFIG")
common=(--build_dir "$build" "${leg_args[@]}" "${qemu_args[@]}")
# ccache for the kernel's objects and for the host tools (objtool, fixdep,
# kconfig...) that a new build folder builds first.
# The same variables go to kunit.py and to the plain make of a rebuild, so
# that both build the same objects.
make_vars=("CC=$CCACHE_CC $COMPILER" "HOSTCC=$CCACHE_CC gcc")
make_opts=()
for v in "${make_vars[@]}"; do make_opts+=(--make_options "$v"); done
cd "$SRC" || exit 1

fail_phase() {	# fail_phase PHASE MESSAGE LOG
	python3 "$REPO/kunit/results.py" --kunit-tool "$SRC/tools/testing/kunit" --arch "$name" \
		--out "$out" --log "$3" --failed-phase "$1" --message "$2" "${leg_info[@]}" >&2
	exit 1
}

# The loop.  Two stamps in the build folder record what the last successful
# configuration and build were made from (the kunitconfigs, the QEMU config,
# the compiler and make options, and the resulting .config) and, by their
# times, when they started:
#  - nothing changed since the last build: no kunit.py config, no build;
#  - sources changed but no Kconfig file and none of the inputs above: no
#    kunit.py config, and the build is the make command kunit.py build would
#    run, without its second olddefconfig and compile_commands.json (those
#    two cost 8 s of a 15 s rebuild here);
#  - otherwise kunit.py config and kunit.py build.
# IDA_KUNIT_REBUILD=1 forces the last case.
config_stamp=$build/.ida-kunit-configured
build_stamp=$build/.ida-kunit-built
want=$({ printf '%s\n' "$arch" "$COMPILER" "$CROSS" "${make_opts[*]}"
	 cat "${kunitconfigs[@]}" ${QEMU_CONFIG:+"$QEMU_CONFIG"} "$REPO/scripts/ccache-cc"
	 [ -z "$base" ] || cat "$REPO/kunit/allno-base.py"; } | sha256sum | cut -d' ' -f1)
linux_arch=$LINUX_ARCH
# The vCPUs QEMU gives the guest (-smp in the QEMU config), read as kunit_tool reads it.
vcpus=1
if [ -n "$QEMU_CONFIG" ]; then
	vcpus=$(python3 "$REPO/kunit/qemu_params.py" --kunit-tool "$SRC/tools/testing/kunit" "$QEMU_CONFIG" vcpus) ||
		die "cannot read the vCPUs of $QEMU_CONFIG"
fi
# What the leg is, for the reports (kunit/report.py): results.py writes it
# into leg.json with the leg's results, or with the phase that failed.
leg_info=(--leg-arch "$arch" --linux-arch "$linux_arch" --build-dir "$build"
	  --compiler "$("$COMPILER" --version | head -n 1)")
for k in "${kunitconfigs[@]}"; do leg_info+=(--kunitconfig "$k"); done

stamp_matches() {	# stamp_matches STAMP: made from what this run would use
	[ "${IDA_KUNIT_REBUILD:-0}" = 0 ] && [ -f "$1" ] && [ -f "$build/.config" ] &&
		[ "$(cat "$1")" = "$want $(sha256sum <"$build/.config" | cut -d' ' -f1)" ]
}
# What changed in the tree, in one walk of it: "kconfig" for a Kconfig
# file (or kconfig itself) newer than the configuration, "source" for any
# file newer than the build.  The build stamp is never older than the
# configuration stamp, so the walk only looks at files newer than the
# latter.
tree_changes() {
	local built=$build_stamp
	[ -f "$config_stamp" ] || { echo kconfig; return; }
	[ -f "$built" ] || built=$config_stamp
	find "$SRC" \( -path "$SRC/.git" -o -path "$SRC/tools/testing/radix-tree" \) -prune \
		-o -newer "$config_stamp" \( \( -name 'Kconfig*' -o -path "$SRC/scripts/kconfig/*" \) \
		-printf 'kconfig\n' -quit -o -newer "$built" -printf 'source\n' \) | sort -u
}
write_stamp() {	# write_stamp STAMP: made now, from this run's inputs, at $t_start
	echo "$want $(sha256sum <"$build/.config" | cut -d' ' -f1)" >"$1.tmp" &&
		touch -d "@$t_start" "$1.tmp" && mv "$1.tmp" "$1"
}

t_start=$(date +%s.%N)
t0=$(date +%s)
phase=config
changes=$(tree_changes)
if stamp_matches "$config_stamp" && { [ -z "$base" ] || [ -f "$base_config" ]; } &&
   [[ "$changes" != *kconfig* ]]; then
	config_up_to_date=1
else
	config_up_to_date=0
	rm -f "$config_stamp" "$build_stamp"
	if [ -n "$base" ]; then
		base_cmd=(python3 "$REPO/kunit/allno-base.py" --src "$SRC" --arch "$linux_arch"
			  --qemu-config "$QEMU_CONFIG" --out "$base_config" "${kunitconfigs[@]}")
		for v in "${make_vars[@]}"; do base_cmd+=(--make-var "$v"); done
		[ -z "$CROSS" ] || base_cmd+=(--make-var "CROSS_COMPILE=$CROSS")
		if ! "${base_cmd[@]}" >"$out/base.log" 2>&1; then
			cat "$out/base.log" >&2
			fail_phase config "the allnoconfig base for $name failed (see $out/base.log)" "$out/base.log"
		fi
	fi
	if ! "${kunit[@]}" config "${common[@]}" "${make_opts[@]}" >"$out/config.log" 2>&1; then
		tail -n 15 "$out/config.log" >&2
		fail_phase config "kernel config failed for $arch (see $out/config.log)" "$out/config.log"
	fi
	write_stamp "$config_stamp"
fi
t_config=$(elapsed "$t0")

t0=$(date +%s)
phase=build
if [ "$config_up_to_date" = 1 ] && [ -f "$build/vmlinux" ] && stamp_matches "$build_stamp" &&
   [ -z "$changes" ]; then
	info "kunit $name: the kernel in $build is up to date"
	build_how="up to date"
else
	rm -f "$build_stamp"
	if [ "$config_up_to_date" = 1 ]; then
		build_how="make"
		cmd=(make all "ARCH=$linux_arch" "O=$build" "--jobs=$JOBS" "${make_vars[@]}")
		[ -n "$CROSS" ] && cmd+=("CROSS_COMPILE=$CROSS")
		echo "\$ ${cmd[*]}" >"$out/build.log"
		"${cmd[@]}" >>"$out/build.log" 2>&1
	else
		build_how="kunit.py build"
		"${kunit[@]}" build "${common[@]}" "${make_opts[@]}" --jobs "$JOBS" >"$out/build.log" 2>&1
	fi || {
		grep -E -m 10 '(error|Error [0-9]+)[: ]' "$out/build.log" >&2 || tail -n 15 "$out/build.log" >&2
		fail_phase build "kernel build failed for $arch (see $out/build.log)" "$out/build.log"
	}
	write_stamp "$build_stamp"
fi
t_build=$(elapsed "$t0")

# Two boots: the cases of normal speed (kernel.log) and the ones KUnit's
# speed attribute marks slow (kernel-slow.log), so that the first boot is
# what a default run shows and the slow cases (long runs, the exhaustive
# bad-free sweep with its 128 warnings) still run, on their own.  The two
# QEMUs run side by side, each with the vCPUs of the QEMU config: neither
# keeps the machine's CPUs busy all its time (QEMU's start-up, the kernel's
# boot, the cases that run on one CPU), so together they take less than
# one after the other.  kunit.py writes a boot's log into its build folder:
# the slow boot gets a folder of its own that links to the build's files.
# Extra kunit.py arguments with a filter of their own get one boot with it.
# kunit.py stops QEMU after --timeout seconds; the outer timeout is only a
# backstop in case kunit.py itself gets stuck.
# timeout(1) puts kunit.py and QEMU in a process group of their own, where a
# Ctrl-C on the terminal does not reach them: a signal to this script stops
# every boot's group (stop_boots), and the leg fails.
boot() {	# boot SUFFIX FOLDER [kunit.py exec arguments]: console$SUFFIX.log
	local suffix=$1 dir=$2 t0 pid
	shift 2
	t0=$(date +%s)
	rm -f "$dir/test.log" "$dir/.ida-kunit-boot-time"
	timeout -k 10 $((QEMU_TIMEOUT + 120)) "${kunit[@]}" exec --build_dir "$dir" "${boot_args[@]}" \
		--timeout "$QEMU_TIMEOUT" --raw_output=all "${kernel_args[@]}" "$@" "${extra[@]}" \
		>"$out/console$suffix.log" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/.ida-kunit-boot-pid"
	wait "$pid"
	rm -f "$dir/.ida-kunit-boot-pid"
	elapsed "$t0" >"$dir/.ida-kunit-boot-time"
}
# shellcheck disable=SC2317 # run by the traps below
stop_boots() {	# stop_boots SIGNAL: what a signal to this script does
	local f pid
	trap - INT TERM
	for f in "$build/.ida-kunit-boot-pid" "$build/.ida-kunit-slow-boot/.ida-kunit-boot-pid"; do
		pid=$(cat "$f" 2>/dev/null) || continue
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	done
	# The slow boot's timeout, also when its subshell had not written
	# its pid yet.
	[ -z "$slow_pid" ] || pkill -TERM -P "$slow_pid" 2>/dev/null
	wait
	die "kunit $name: stopped by SIG$1 during the boot"
}
boot_log() {	# boot_log SUFFIX FOLDER: kernel$SUFFIX.log, and whether the boot ran out of time
	local suffix=$1 dir=$2 t
	t=$(cat "$dir/.ida-kunit-boot-time" 2>/dev/null) || t=0
	cp "$dir/test.log" "$out/kernel$suffix.log" 2>/dev/null ||
		cp "$out/console$suffix.log" "$out/kernel$suffix.log"
	logs+=(--log "$out/kernel$suffix.log")
	if [ "$t" -ge "$QEMU_TIMEOUT" ] || grep -q "timed out after" "$out/console$suffix.log"; then
		timed_out=$t
	fi
}
# The boots' QEMU config: the arch's, or for a leak scan the arch's with the
# initramfs, its init, and "--" at the end of the command line, so that
# kunit.py's kunit_shutdown=reboot goes to init as an argument and the kernel
# runs init after the suites.
boot_args=("${leg_args[@]}" "${qemu_args[@]}")
if [ -n "$leak_scan" ]; then
	scan=$build/leak-scan
	{ rm -rf "$scan" && mkdir -p "$scan/root"; } || die "cannot create $scan"
	"$COMPILER" -static -Os -Wall -o "$scan/root/leak-scan" "$REPO/kunit/leak-scan/leak-scan.c" \
		>"$out/leak-scan-build.log" 2>&1 ||
		die "cannot build the leak-scan init (see $out/leak-scan-build.log; a static libc is in libc6-dev)"
	mkdir -p "$scan/root/users" || die "cannot create $scan/root/users"
	for u in "${users[@]}"; do
		"$COMPILER" -static -Os -Wall -o "$scan/root/users/$u" "$REPO/kunit/users/$u.c" \
			>"$out/users-$u-build.log" 2>&1 ||
			die "cannot build kunit/users/$u.c (see $out/users-$u-build.log)"
	done
	# Each program of "# users-bin:" goes in at its path (the file itself,
	# cp -L): an ELF program with a program interpreter with what ldd
	# names, where a library ldd cannot find stops the leg; one without (a
	# static program) alone; anything else (a script) is refused.
	for b in "${users_bin[@]}"; do
		if LC_ALL=C readelf -lW "$b" 2>/dev/null | grep -q 'program interpreter'; then
			libs=$(LC_ALL=C ldd "$b" 2>&1) || die "ldd $b: $libs"
			! grep -q 'not found' <<<"$libs" ||
				die "ldd $b: a library is missing: $(grep 'not found' <<<"$libs" | tr -s '[:space:]' ' ')"
			mapfile -t files < <(grep -o '/[^ ]*' <<<"$libs")
		elif LC_ALL=C readelf -h "$b" >/dev/null 2>&1; then
			files=()
		else
			die "'# users-bin: $b' in the kunitconfigs of $name: not an ELF program"
		fi
		for f in "$b" "${files[@]}"; do
			{ mkdir -p "$scan/root$(dirname "$f")" && cp -L "$f" "$scan/root$f"; } ||
				die "cannot copy $f (for $b) into the initramfs"
		done
	done
	(cd "$scan/root" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | cpio -o -H newc --quiet >"$scan/initrd.cpio") ||
		die "cannot write $scan/initrd.cpio"
	{ cat "$QEMU_CONFIG"
	  printf '\n# The leak scan (scripts/run-kunit.sh).\nimport dataclasses\n'
	  printf 'QEMU_ARCH = dataclasses.replace(QEMU_ARCH,\n'
	  printf '\tkernel_command_line=QEMU_ARCH.kernel_command_line + %s,\n' "' rdinit=/leak-scan --'"
	  printf '\textra_qemu_params=QEMU_ARCH.extra_qemu_params + [%s, %s])\n' "'-initrd'" "'$scan/initrd.cpio'"
	} >"$scan/qemu_config.py" || die "cannot write $scan/qemu_config.py"
	boot_args=("${leg_args[@]}" --qemu_config "$scan/qemu_config.py")
fi

t0=$(date +%s)
phase=run
timed_out=0
logs=()
slow_pid=
trap 'stop_boots INT' INT
trap 'stop_boots TERM' TERM
# A kunitconfig whose cases are all slow says "# boots: slow": the leg boots
# once, for them (kernel-slow.log).
boots=$(sed -n 's/^# boots:[[:space:]]*//p' "${kunitconfigs[@]}" | sort -u)
case "$boots" in
''|slow) ;;
*) die "unknown boots '$(echo "$boots" | tr '\n' ' ')' in the kunitconfigs of $name (known: slow)" ;;
esac
rm -f "$build/.ida-kunit-boot-pid" "$build/.ida-kunit-slow-boot/.ida-kunit-boot-pid"
# The users' programs run in one boot, the one given ida_kunit_users=1
# (of the cases of normal speed, when there are two): the kernel hands
# ida_kunit_users=1 to init, and /dev/kmsg takes every line they write.
users_args=()
[ "${#users[@]}" -eq 0 ] || users_args=(--kernel_args ida_kunit_users=1 --kernel_args printk.devkmsg=on)
users_boot=
if [ -n "$caller_filter" ]; then
	boot "" "$build" "${users_args[@]}"
	boot_log "" "$build"
	users_boot=""
elif [ "$boots" = slow ]; then
	boot -slow "$build" --filter "speed<=slow" "${users_args[@]}"
	boot_log -slow "$build"
	users_boot=-slow
else
	slow_dir=$build/.ida-kunit-slow-boot
	{ rm -rf "$slow_dir" && mkdir "$slow_dir" && ln -s "$build"/* "$build/.config" "$slow_dir/" &&
	  rm -f "$slow_dir/test.log"; } || die "cannot make the slow boot's folder $slow_dir"
	boot -slow "$slow_dir" --filter "speed<=slow" &
	slow_pid=$!
	boot "" "$build" --filter "speed>slow" "${users_args[@]}"
	wait "$slow_pid"
	boot_log "" "$build"
	boot_log -slow "$slow_dir"
	users_boot=""
fi
# Each program's KTAP, out of the kernel log of their boot, with the
# timestamps of its lines: users-NAME.log.
for u in "${users[@]}"; do
	# A boot that left no log leaves an empty one: results.py then
	# names the suite that did not run.
	sed -n "s/^\(\[ *[0-9]*\.[0-9]*\] \)\{0,1\}users-$u: /\1/p" "$out/kernel$users_boot.log" \
		>"$out/users-$u.log" 2>/dev/null || : >"$out/users-$u.log" ||
		die "cannot write $out/users-$u.log"
done
trap - INT TERM
t_run=$(elapsed "$t0")

# leg.json gets what the kernel is: word size and byte order from vmlinux's
# ELF header, the vCPUs from the QEMU config, for the per-leg table of
# kunit/report.py.
args=(--kunit-tool "$SRC/tools/testing/kunit" "${logs[@]}" --out "$out"
      --arch "$name" --timed-out "$timed_out"
      "${leg_info[@]}" --vmlinux "$build/vmlinux" --expect-banner-of "$build/vmlinux")
[ -z "$QEMU_CONFIG" ] || args+=(--qemu-config "$QEMU_CONFIG")
for s in "${suites[@]}"; do args+=(--expect-suite "$s"); done
[ -n "$leak_scan" ] && args+=(--expect-leak-scan)
for u in "${users[@]}"; do args+=(--program-log "$out/users-$u.log" --expect-suite "$u"); done
# The CPUs QEMU gives the guest (-smp in the QEMU config) must all come up.
[ "$vcpus" -gt 1 ] && args+=(--expect-cpus "$vcpus")
python3 "$REPO/kunit/results.py" "${args[@]}"
rc=$?
config_how=$([ "$config_up_to_date" = 1 ] && echo "up to date" || echo "kunit.py config")
echo "kunit $name: times: configure ${t_config}s ($config_how), build ${t_build}s ($build_how), run ${t_run}s; results in $out" >&2
printf '{"configure": %d, "build": %d, "run": %d, "configure_how": "%s", "build_how": "%s"}\n' \
	"$t_config" "$t_build" "$t_run" "$config_how" "$build_how" > "$out/times.json"
exit $rc
