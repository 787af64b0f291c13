#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The userspace radix-tree harness on the patched tree: build idr-test (which
# runs the IDA KUnit suite through tools/testing/radix-tree/kunit/test.h)
# and run it.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

"$REPO/scripts/install-deps.sh" build checks || exit 1
dir=$SRC/tools/testing/radix-tree
[ -d "$dir" ] || die "no radix-tree harness in $SRC"
make -C "$dir" -j"$JOBS" idr-test >/dev/null || die "idr-test does not build"
cd "$dir" || exit 1
./idr-test || die "idr-test failed"
echo "idr-test passed"
