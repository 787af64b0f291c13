#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where a leg's kernel build spends its time: the leg's .config built again
# from nothing (no ccache) in a folder of its own, every compiler and linker
# call timed, then a table by folder and by kind of step (C, assembler,
# link) with the serial steps apart, and the floor that the compile work
# and the serial steps put on the build on this machine's CPUs.
#
# Usage: build-profile.sh [--name LEG] ARCH
#   The leg's build folder (scripts/run-kunit.sh --arch ARCH [--name LEG])
#   must hold a .config; its build folder is not touched.
# Writes $IDA_KUNIT_RESULTS/build-profile/LEG/{calls.tsv,profile.md,profile.json}.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

name=
while [ $# -gt 0 ]; do
	case "$1" in
	--name) [ $# -ge 2 ] || die "build-profile.sh: --name needs a value"; name=$2; shift 2 ;;
	-*) die "build-profile.sh: unknown option '$1' (usage: build-profile.sh [--name LEG] ARCH)" ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || die "usage: build-profile.sh [--name LEG] ARCH"
arch=$1
arch_params "$arch"
name=${name:-$arch}
leg_build=$(build_dir "$name")
[ -f "$leg_build/.config" ] ||
	die "no .config in $leg_build: run scripts/run-kunit.sh --arch $arch${name:+ --name $name} first"
command -v "$COMPILER" >/dev/null || die "no compiler $COMPILER (scripts/install-deps.sh $arch)"
linux_arch=$LINUX_ARCH

out=$RESULTS/build-profile/$name
build=$CACHE/build/profile-$name
mkdir -p "$out" "$build" || die "cannot create $out or $build"
# The profile's own build folder starts empty every time: a cold build.
find "$build" -mindepth 1 -delete
cp "$leg_build/.config" "$build/.config" || exit 1

# Each call of the compiler or linker appends "start end kind target".
calls=$out/calls.tsv
: >"$calls"
wrap=$out/wrap
mkdir -p "$wrap"
for tool in cc ld; do
	cat >"$wrap/$tool" <<EOF
#!/usr/bin/env bash
t0=\$(date +%s.%N)
"\$@"
rc=\$?
target=
prev=
for a in "\$@"; do
	[ "\$prev" = -o ] && target=\$a
	prev=\$a
done
echo "\$t0 \$(date +%s.%N) $tool \${target:-?}" >>"$calls"
exit \$rc
EOF
	chmod +x "$wrap/$tool"
done

make_args=(-C "$SRC" O="$build" ARCH="$linux_arch" -j"$JOBS")
[ -z "$CROSS" ] || make_args+=(CROSS_COMPILE="$CROSS")
make -s "${make_args[@]}" olddefconfig >"$out/make.log" 2>&1 || die "make olddefconfig failed (see $out/make.log)"
t0=$(date +%s.%N)
if ! make "${make_args[@]}" CC="$wrap/cc $COMPILER" LD="$wrap/ld ${CROSS}ld" >>"$out/make.log" 2>&1; then
	die "the build failed (see $out/make.log)"
fi
t1=$(date +%s.%N)
python3 - "$calls" "$t0" "$t1" "$JOBS" "$name" "$out" <<'EOF'
import json, os, sys
calls, t0, t1, jobs, name, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
rows = []
for line in open(calls):
    s, e, tool, target = line.split(None, 3)
    rows.append((float(s), float(e), tool, target.strip()))
wall = t1 - t0
def kind(tool, target):
    if tool == 'ld':
        return 'link (ld)'
    if target.endswith('.o') or target.endswith('.s'):
        return 'compile (cc)'
    return 'other cc (link, checks)'
def folder(target):
    t = target.lstrip('./')
    parts = t.split('/')
    if len(parts) == 1:
        return '(top: vmlinux)'
    if parts[0] in ('arch', 'drivers', 'fs') and len(parts) > 2:
        return '/'.join(parts[:2 if parts[0] != 'arch' else 3])
    return parts[0]
by_folder, by_kind = {}, {}
for s, e, tool, target in rows:
    d = e - s
    k = kind(tool, target)
    by_kind.setdefault(k, [0, 0.0])
    by_kind[k][0] += 1
    by_kind[k][1] += d
    if k == 'compile (cc)':
        f = folder(target)
        by_folder.setdefault(f, [0, 0.0])
        by_folder[f][0] += 1
        by_folder[f][1] += d
compile_s = by_kind.get('compile (cc)', [0, 0.0])[1]
# The serial tail: from the start of the first link of vmlinux to the end.
tail_start = min((s for s, e, tool, t in rows if tool == 'ld' and
                  os.path.basename(t) in ('vmlinux.o', '.tmp_vmlinux1', '.tmp_vmlinux0', 'vmlinux')),
                 default=t1)
tail = t1 - tail_start
floor = compile_s / jobs + tail
prof = {'leg': name, 'wall_s': round(wall, 1), 'jobs': jobs, 'objects': by_kind.get('compile (cc)', [0])[0],
        'compile_cpu_s': round(compile_s, 1), 'serial_tail_s': round(tail, 1), 'floor_s': round(floor, 1),
        'by_kind': {k: {'calls': v[0], 'cpu_s': round(v[1], 1)} for k, v in by_kind.items()},
        'by_folder': {k: {'objects': v[0], 'cpu_s': round(v[1], 1)} for k, v in by_folder.items()}}
json.dump(prof, open(os.path.join(out, 'profile.json'), 'w'), indent=1)
lines = [f'# Build profile: {name}', '',
         f'Cold build (no ccache), make -j{jobs}: {wall:.0f} s wall; {prof["objects"]} objects compiled, '
         f'{compile_s:.0f} s of compiler time; the serial tail (vmlinux link, kallsyms, image) {tail:.0f} s. '
         f'Floor on {jobs} CPUs (compiler time / {jobs} + serial tail): {floor:.0f} s.', '',
         '| kind | calls | CPU s |', '|---|---|---|']
for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1][1]):
    lines.append(f'| {k} | {v[0]} | {v[1]:.0f} |')
lines += ['', '| folder | objects | compiler s | share |', '|---|---|---|---|']
for k, v in sorted(by_folder.items(), key=lambda kv: -kv[1][1])[:25]:
    lines.append(f'| {k} | {v[0]} | {v[1]:.0f} | {100 * v[1] / compile_s if compile_s else 0:.0f}% |')
open(os.path.join(out, 'profile.md'), 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines[:3]))
EOF
echo "profile: $out/profile.md"
