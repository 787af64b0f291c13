#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What run-kunit.sh must give kunit.py for a fake leg of
scripts/checks/test-scripts.sh (its kunitconfig is named "fake"), argument
for argument: the calls the fake kunit.py recorded (calls.jsonl) against
the ones wanted, from the arch's row of the table the leg ran on
(IDA_KUNIT_ARCH_TABLE, by default kunit/arches.tsv).  Prints each
difference and exits 1 when there is one.

Usage: kunit-args.py CACHE TREE_VERSION ARCH KUNITCONFIG REPO TIMEOUT JOBS
"""

import json
import os
import sys
from typing import Dict, List


def wanted(cache: str, tree: str, arch: str, kunitconfig: str, repo: str, timeout: str,
	   jobs: str) -> Dict[str, List[str]]:
	# The table the leg ran on: run-kunit.sh's IDA_KUNIT_ARCH_TABLE, as lib.sh reads it.
	table = os.environ.get('IDA_KUNIT_ARCH_TABLE') or f'{repo}/kunit/arches.tsv'
	with open(table, encoding='utf-8') as f:
		row = next(r for r in (line.split() for line in f) if r and r[0] == arch)
	cross = '' if row[1] == '-' else row[1]
	build = f'{cache}/build/linux-{tree}-{arch}-fake'
	files = [kunitconfig] + [f'{repo}/kunitconfigs/{c}.kunitconfig'
				 for c in ([] if row[4] == '-' else row[4].split(','))]
	configs = []
	for path in files:
		configs += ['--kunitconfig', path]
	# The comments of the kunitconfigs: "# base: allnoconfig" adds the
	# generated base, "# kernel-args: ARG..." an argument of every boot.
	comments = []
	for path in files:
		with open(path, encoding='utf-8') as f:
			comments += [line.split(':', 1) for line in f if line.startswith('# ') and ':' in line]
	if any(k == '# base' for k, _ in comments):
		configs += ['--kunitconfig', f'{build}/allnoconfig-base.kunitconfig']
	kernel_args = []
	for a in [a for k, v in comments if k == '# kernel-args' for a in v.split()]:
		kernel_args += ['--kernel_args', a]
	if cross:
		configs += ['--cross_compile', cross]
	# A row without QEMU is UML: kunit.py's default, no QEMU config.
	qemu = [] if row[2] == '-' else ['--qemu_config', f'{os.path.dirname(table)}/qemu_configs/{arch}.py']
	make = ['--make_options', f'CC={cache}/bin/ccache-cc {cross}gcc',
		'--make_options', f'HOSTCC={cache}/bin/ccache-cc gcc']
	boot = ['--timeout', timeout, '--raw_output=all'] + kernel_args
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
