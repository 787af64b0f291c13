#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A kernel that does not finish in time must be reported as a failure: boot
# the already built x86_64 kernel in a QEMU whose CPUs never start (-S), so
# it hangs whatever the speed of the machine, with a 2-second limit, and
# check that the run fails and says the kernel hung.
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if IDA_KUNIT_TIMEOUT=2 IDA_KUNIT_RESULTS=$tmp "$REPO/scripts/run-kunit.sh" --arch x86_64 --name hang -- --qemu_args=-S; then
	die "a boot killed after 2 s was reported as passing"
fi
python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["hung"] else 1)' "$tmp/hang/counts.json" ||
	die "the run failed but its counts.json does not say the kernel hung"
grep -q '<failure' "$tmp/hang/junit.xml" || die "the JUnit file shows no failure for the hung boot"
echo "hung boot reported as failed"
