#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What run-kunit.sh must give kunit.py for a fake leg of
scripts/checks/test-scripts.sh (its kunitconfig is named "fake"), argument
for argument: the calls the fake kunit.py recorded (calls.jsonl) against
the ones wanted, from the arch's row of kunit/arches.tsv.  Prints each
difference and exits 1 when there is one.

Usage: kunit-args.py CACHE TREE_VERSION ARCH KUNITCONFIG REPO TIMEOUT JOBS
"""

import json
import sys
from typing import Dict, List


def wanted(cache: str, tree: str, arch: str, kunitconfig: str, repo: str, timeout: str,
	   jobs: str) -> Dict[str, List[str]]:
	with open(f'{repo}/kunit/arches.tsv', encoding='utf-8') as f:
		row = next(r for r in (line.split() for line in f) if r and r[0] == arch)
	cross = '' if row[1] == '-' else row[1]
	build = f'{cache}/build/linux-{tree}-{arch}-fake'
	configs = ['--kunitconfig', kunitconfig]
	for c in ([] if row[4] == '-' else row[4].split(',')):
		configs += ['--kunitconfig', f'{repo}/kunitconfigs/{c}.kunitconfig']
	# Every arch's base kunitconfig asks for the allnoconfig base.
	configs += ['--kunitconfig', f'{build}/allnoconfig-base.kunitconfig']
	if cross:
		configs += ['--cross_compile', cross]
	qemu = ['--qemu_config', f'{repo}/kunit/qemu_configs/{arch}.py']
	make = ['--make_options', f'CC={cache}/bin/ccache-cc {cross}gcc',
		'--make_options', f'HOSTCC={cache}/bin/ccache-cc gcc']
	boot = ['--timeout', timeout, '--raw_output=all']
	return {
		'config': ['config', '--build_dir', build] + configs + qemu + make,
		'build': ['build', '--build_dir', build] + configs + qemu + make + ['--jobs', jobs],
		'exec': ['exec', '--build_dir', build] + configs + qemu + boot + ['--filter', 'speed>slow'],
		'exec-slow': ['exec', '--build_dir', f'{build}/.ida-kunit-slow-boot'] + configs + qemu + boot
			     + ['--filter', 'speed<=slow'],
	}


def main() -> int:
	if len(sys.argv) != 8:
		print('error: usage: kunit-args.py CACHE TREE_VERSION ARCH KUNITCONFIG REPO TIMEOUT JOBS',
		      file=sys.stderr)
		return 2
	cache, tree, arch = sys.argv[1:4]
	want = wanted(*sys.argv[1:])
	got: Dict[str, List[str]] = {}
	with open(f'{cache}/build/linux-{tree}-{arch}-fake/calls.jsonl', encoding='utf-8') as f:
		for line in f:
			call = json.loads(line)
			got['exec-slow' if call[0] == 'exec' and 'speed<=slow' in call else call[0]] = call
	problems = [f'{k}: got {got.get(k)}, wanted {v}' for k, v in want.items() if got.get(k) != v]
	problems += [f'unexpected call {k}: {v}' for k, v in got.items() if k not in want]
	for p in problems:
		print(p)
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main())
