#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: distro tree -> patched tree -> kunit.py in QEMU -> results,
# for each ARCH given (default: x86_64).  Installs what it needs.
# Usage: pipeline.sh [--name NAME] [--kunitconfig FILE] [ARCH...]
#   --name, --kunitconfig   passed to scripts/run-kunit.sh (one ARCH only
#                           with --name)
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

leg=()
arches=()
while [ $# -gt 0 ]; do
	case "$1" in
	--name|--kunitconfig)
		[ $# -ge 2 ] || die "$1 needs a value"
		leg+=("$1" "$2"); shift 2 ;;
	-*)	die "pipeline.sh: unknown option '$1' (usage: pipeline.sh [--name NAME] [--kunitconfig FILE] [ARCH...])" ;;
	*)	arches+=("$1"); shift ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64)
for arch in "${arches[@]}"; do
	( arch_params "$arch" ) || exit 1
done
[[ " ${leg[*]} " != *" --name "* ]] || [ ${#arches[@]} -eq 1 ] || die "pipeline.sh: --name takes one ARCH"
"$REPO/scripts/setup-tree.sh" || exit 1
"$REPO/scripts/apply-series.sh" || exit 1
rc=0
for arch in "${arches[@]}"; do
	"$REPO/scripts/run-kunit.sh" --arch "$arch" "${leg[@]}" || rc=1
done
exit $rc
