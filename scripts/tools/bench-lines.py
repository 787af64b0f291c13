#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The "before -> after" lines of a commit message, from two userspace
benchmark results of scripts/tools/bench.sh (results/bench/userspace-REV.json):
IDA instructions per operation, rounded, for the rows named (default: all).

  bench-lines.py BEFORE.json AFTER.json [ROW...]

A result that cannot be read or a row that one of them lacks is one
"error:" line and exit 1; a bad command line, exit 2.
"""
import argparse
import os
import sys
from typing import Dict, List, Optional, Sequence

# The helpers the programs of kunit/ share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'kunit'))
from cli import ArgumentParser, load_json, run  # noqa: E402


class BenchLinesError(Exception):
	"""What stops the lines; the message is the "error:" line."""


def instructions_per_op(path: str) -> Dict[str, float]:
	"""The IDA's instructions per operation of every row of a userspace result."""
	result = load_json(path)
	per_op = result.get('instructions_per_op') if isinstance(result, dict) else None
	if not isinstance(per_op, dict):
		raise BenchLinesError(f'{path}: not a userspace benchmark result (no "instructions_per_op")')
	rows: Dict[str, float] = {}
	for row, allocators in per_op.items():
		ida = allocators.get('ida') if isinstance(allocators, dict) else None
		if not isinstance(ida, (int, float)):
			raise BenchLinesError(f'{path}: row {row} has no IDA figure')
		rows[str(row)] = float(ida)
	return rows


def lines(before: Dict[str, float], after: Dict[str, float], rows: Sequence[str]) -> List[str]:
	"""One line per row (every row of BEFORE when ROWS is empty)."""
	out = []
	for row in rows or list(before):
		if row not in before or row not in after:
			raise BenchLinesError(f'no row {row}')
		out.append(f'  {row:<24} {before[row]:.0f} -> {after[row]:.0f}')
	return out


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='bench-lines.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('before', metavar='BEFORE.json', help='the userspace result before the change')
	ap.add_argument('after', metavar='AFTER.json', help='the userspace result after it')
	ap.add_argument('rows', nargs='*', default=[], metavar='ROW', help='the rows to print (default: all)')
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)

	def show() -> int:
		for line in lines(instructions_per_op(args.before), instructions_per_op(args.after), args.rows):
			print(line)
		return 0
	return run(show, (BenchLinesError,))


if __name__ == '__main__':
	sys.exit(main())
