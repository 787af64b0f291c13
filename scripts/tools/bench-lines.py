#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The "before -> after" lines of a commit message, from two userspace
benchmark results of scripts/tools/bench.sh (results/bench/userspace-REV.json):
IDA instructions per operation, rounded, for the rows named (default: all).

  bench-lines.py BEFORE.json AFTER.json [ROW...]
"""
import json
import sys


def main():
	if len(sys.argv) < 3:
		print('error: usage: bench-lines.py BEFORE.json AFTER.json [ROW...]', file=sys.stderr)
		return 2
	before, after = (json.load(open(p))['instructions_per_op'] for p in sys.argv[1:3])
	rows = sys.argv[3:] or list(before)
	for row in rows:
		if row not in before or row not in after:
			print(f'error: no row {row}', file=sys.stderr)
			return 1
		print(f'  {row:<24} {before[row]["ida"]:.0f} -> {after[row]["ida"]:.0f}')
	return 0


if __name__ == '__main__':
	sys.exit(main())
