#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: distro tree -> patched tree -> kunit.py in QEMU -> results,
# for each ARCH given (default: x86_64).  Installs what it needs.
# Usage: pipeline.sh [ARCH...]
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- x86_64
for arch in "$@"; do
	( arch_params "$arch" ) || exit 1
done
"$REPO/scripts/setup-tree.sh" || exit 1
"$REPO/scripts/apply-series.sh" || exit 1
rc=0
for arch in "$@"; do
	"$REPO/scripts/run-kunit.sh" --arch "$arch" || rc=1
done
exit $rc
