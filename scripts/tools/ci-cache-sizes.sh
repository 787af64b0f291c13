#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the CI caches (.github/README.md) weigh: the folders the workflow
# saves, measured in this machine's cache folder and compressed as
# actions/cache compresses them (tar, zstd --long=30).  The compiler cache
# here is shared by every leg built in this cache folder; the build folders
# present say which legs those were.
# Writes $IDA_KUNIT_RESULTS/ci-caches.json, for scripts/docs.py ci-caches.
# Usage: ci-cache-sizes.sh
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

command -v zstd >/dev/null || die "zstd is missing (apt-get install zstd)"
[ -d "$SRC/.git" ] || die "no distro tree in $SRC: run scripts/setup-tree.sh first"
[ -d "$CACHE/ccache" ] || die "no compiler cache in $CACHE/ccache: run a leg first"
compressed() {	# compressed DIR: bytes of DIR as a zstd-compressed tar
	tar -C "$(dirname "$1")" -cf - "$(basename "$1")" | zstd -q -T0 --long=30 -3 | wc -c
}
tree_bytes=$(compressed "$SRC") || die "cannot measure $SRC"
ccache_bytes=$(compressed "$CACHE/ccache") || die "cannot measure $CACHE/ccache"
mapfile -t legs < <(cd "$CACHE/build" 2>/dev/null && for d in "linux-$TREE_VERSION"-*/; do
	d=${d%/}; d=${d#"linux-$TREE_VERSION-"}
	[ -f "$CACHE/build/linux-$TREE_VERSION-$d/vmlinux" ] && echo "$d"; done)
mkdir -p "$RESULTS" || die "cannot create $RESULTS"
python3 - "$RESULTS/ci-caches.json" "$tree_bytes" "$ccache_bytes" "$REPO/.github/workflows/kunit.yml" "${legs[@]}" <<'PY'
import json, sys, yaml
out, tree, ccache, workflow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
builds = sys.argv[5:]
with open(workflow, encoding='utf-8') as f:
    flow = yaml.safe_load(f)
matrix = flow['jobs']['kunit']['strategy']['matrix']['include']
with open(out, 'w', encoding='utf-8') as f:
    json.dump({'tree_bytes': tree, 'ccache_bytes': ccache, 'builds': builds,
               'ci_legs': len(matrix), 'ccache_max_size': str(flow['env']['CCACHE_MAXSIZE'])},
              f, indent=2)
PY
echo "tree $tree_bytes bytes, ccache $ccache_bytes bytes (builds: ${legs[*]}); $RESULTS/ci-caches.json"
