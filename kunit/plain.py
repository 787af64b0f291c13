#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The plain kunit.py commands: the table of kunit/plain-commands.tsv, and
the check of what one of them printed.

  plain.py list                 the commands' names, one a line
  plain.py show NAME            one command: "name", "arch", "suites",
                                "announced", "other", "what" and "command"
                                lines
  plain.py check NAME --exit-code N --output FILE --log FILE --vmlinux FILE
                                what the command printed (--output: kunit.py's
                                output; --log: the kernel's, .kunit/test.log)
                                against what its row says; prints a verdict
                                line, exits 0 when it holds
  plain.py docs FILE...         every command appears in each FILE, word for
                                word (README.md, the cover letter)

A missing or unreadable input is one "error:" line and exit 1; a bad
command line, exit 2.
"""

import argparse
import dataclasses
import os
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from cli import ArgumentParser, InputError, run
import results

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, 'plain-commands.tsv')

# kunit.py's closing line, "Testing complete. Ran 91 tests: passed: 90, skipped: 1".
COMPLETE_RE = re.compile(r'Testing complete\. Ran (\d+) tests: (.*)$')
# A suite's result line, "=========== [PASSED] ida ===========".
SUITE_RE = re.compile(r'=+ \[([A-Z]+)\] (\S+) =+$')
# A case's announcement of the warnings it provokes on purpose, and its end.
BEGIN_RE = re.compile(r'expected warnings begin: (\d+)')
END_RE = re.compile(r'expected warnings end')
# The --arch= of a command (none: UML).
ARCH_RE = re.compile(r'\s--arch=(\S+)')
# A skipped case in KTAP, "ok 6 ida_test_bad_free # SKIP warns 128 times...".
SKIP_RE = re.compile(r'\bok \d+ (.+?) # SKIP ?(.*)$')


@dataclasses.dataclass
class Command:
	"""A row of the table."""
	name: str
	suites: List[str]
	announced: int
	other: int
	what: str
	command: str

	@property
	def arch(self) -> str:
		"""The arch the command runs on: its --arch=, or UML."""
		m = ARCH_RE.search(self.command)
		return m.group(1) if m else 'um'


def load(path: str = TABLE) -> List[Command]:
	"""The rows of the table at PATH; InputError for a malformed row."""
	rows = []
	with open(path, encoding='utf-8') as f:
		for n, line in enumerate(f, 1):
			line = line.rstrip('\n')
			if not line.strip() or line.lstrip().startswith('#'):
				continue
			cols = line.split('\t')
			if (len(cols) != 6 or not cols[2].isdigit() or not cols[3].isdigit()
			    or not cols[5].startswith('./tools/testing/kunit/kunit.py ')):
				raise InputError(f'{path}:{n}: not "name, suites, announced, other, what, kunit.py '
						 'command", separated by tabs')
			rows.append(Command(cols[0], cols[1].split(','), int(cols[2]), int(cols[3]),
					    cols[4], cols[5]))
	names = [r.name for r in rows]
	if len(set(names)) != len(names) or not rows:
		raise InputError(f'{path}: no commands, or two with one name')
	return rows


def find(name: str, path: str = TABLE) -> Command:
	for row in load(path):
		if row.name == name:
			return row
	raise InputError(f'no command "{name}" in {path} (known: {" ".join(r.name for r in load(path))})')


def read_lines(path: str) -> List[str]:
	with open(path, encoding='utf-8', errors='replace') as f:
		return [results.strip_time(line.rstrip('\n')) for line in f]


def counts(output: Sequence[str]) -> Optional[Dict[str, int]]:
	"""The counts of kunit.py's closing line ("passed", "failed", "skipped",
	...), None when it has none."""
	for line in reversed(output):
		m = COMPLETE_RE.search(line)
		if m:
			found = {'tests': int(m.group(1))}
			for part in m.group(2).split(','):
				key, _, value = part.strip().partition(': ')
				if value.strip().isdigit():
					found[key] = int(value)
			return found
	return None


def skip_reasons(log: Sequence[str]) -> Dict[str, int]:
	"""How many cases of LOG were skipped for each reason (a parameterised
	case that gives none is counted by its parameters)."""
	found: Dict[str, int] = {}
	for line in log:
		m = SKIP_RE.search(line)
		if m and m.group(2):
			found[m.group(2)] = found.get(m.group(2), 0) + 1
	return found


def check(row: Command, exit_code: int, output: Sequence[str], log: Sequence[str],
	  vmlinux: str) -> List[str]:
	"""What is wrong with a run of ROW: kunit.py's exit code and OUTPUT, the
	kernel's LOG, the image it built (VMLINUX)."""
	problems = []
	if exit_code != 0:
		problems.append(f'kunit.py exited with {exit_code}')
	found = counts(output)
	if found is None:
		problems.append('kunit.py printed no "Testing complete" line')
	else:
		for key in ('failed', 'crashed', 'errors'):
			if found.get(key, 0):
				problems.append(f'kunit.py says {key}: {found[key]}')
		if found.get('passed', 0) == 0:
			problems.append('kunit.py says no case passed')
	suites = {}
	for line in output:
		m = SUITE_RE.search(line)
		if m:
			suites[m.group(2)] = m.group(1)
	for suite in row.suites:
		if suite not in suites:
			problems.append(f'suite {suite} did not run')
		elif suites[suite] != 'PASSED':
			problems.append(f'suite {suite}: {suites[suite]}')
	want = results.built_banner(vmlinux)
	banners = [line[line.index('Linux version '):] for line in log if 'Linux version ' in line]
	if want is None:
		problems.append(f'no Linux version banner in {vmlinux}: cannot tell what was built')
	elif want not in banners:
		problems.append('booted a kernel other than the one built'
				if banners else 'the kernel log has no Linux version banner')
	said, inside, outside = warnings(log)
	if said != row.announced or len(inside) != row.announced:
		problems.append(f'the suites announced {said} warnings and provoked {len(inside)}, '
				f'not {row.announced}' + ''.join(f'\n  {w}' for w in inside))
	if len(outside) != row.other:
		problems.append(f'{len(outside)} warnings outside the announced ones, not {row.other}'
				+ ''.join(f'\n  {w}' for w in outside))
	return problems


def warnings(log: Sequence[str]) -> Tuple[int, List[str], List[str]]:
	"""How many warnings the cases of LOG announced, the WARNING lines
	between their "expected warnings begin" and "end" lines, and the
	WARNING lines elsewhere."""
	said = 0
	inside: List[str] = []
	outside: List[str] = []
	window = False
	for line in log:
		m = BEGIN_RE.search(line)
		if m:
			said += int(m.group(1))
			window = True
		elif END_RE.search(line):
			window = False
		elif 'WARNING:' in line:
			(inside if window else outside).append(line[line.index('WARNING:'):])
	return said, inside, outside


def cmd_list(args: argparse.Namespace) -> int:
	for row in load(args.table):
		print(row.name)
	return 0


def cmd_show(args: argparse.Namespace) -> int:
	row = find(args.name, args.table)
	print(f'name {row.name}\narch {row.arch}\nsuites {" ".join(row.suites)}\n'
	      f'announced {row.announced}\nother {row.other}\nwhat {row.what}\ncommand {row.command}')
	return 0


def cmd_check(args: argparse.Namespace) -> int:
	row = find(args.name, args.table)
	output = read_lines(args.output)
	log = read_lines(args.log)
	problems = check(row, args.exit_code, output, log, args.vmlinux)
	found = counts(output) or {}
	said = ', '.join(f'{k} {v}' for k, v in found.items() if k != 'tests')
	for reason, n in skip_reasons(log).items():
		print(f'  skipped: {n} case{"s" if n > 1 else ""}: {reason}')
	if problems:
		print(f'FAIL plain {row.name}: {problems[0]}' + ''.join(f'\n  {p}' for p in problems[1:]))
		return 1
	print(f'PASS plain {row.name}: {said}; suites {", ".join(row.suites)}; '
	      f'{row.announced} warnings announced and provoked, {row.other} other; '
	      'booted the kernel it built')
	return 0


def cmd_docs(args: argparse.Namespace) -> int:
	rows = load(args.table)
	missing = []
	for path in args.files:
		with open(path, encoding='utf-8') as f:
			text = f.read()
		lines = {line.strip() for line in text.splitlines()}
		missing += [f'{path}: {r.command}' for r in rows if r.command not in lines]
	for m in missing[1:]:
		print(f'  {m}')
	if missing:
		print(f'error: a plain kunit.py command is not given word for word: {missing[0]}'
		      + (f' (and {len(missing) - 1} more, above)' if len(missing) > 1 else ''), file=sys.stderr)
		return 1
	print(f'{len(rows)} plain kunit.py commands, each given word for word in {", ".join(args.files)}')
	return 0


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='plain.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('--table', default=TABLE, help='the table (default: kunit/plain-commands.tsv)')
	sub = ap.add_subparsers(dest='cmd', required=True, metavar='COMMAND', parser_class=ArgumentParser)
	sub.add_parser('list', help="the commands' names").set_defaults(func=cmd_list)
	s = sub.add_parser('show', help='one command')
	s.add_argument('name', metavar='NAME')
	s.set_defaults(func=cmd_show)
	c = sub.add_parser('check', help='what a run of one command printed')
	c.add_argument('name', metavar='NAME')
	c.add_argument('--exit-code', type=int, required=True, help="kunit.py's exit code")
	c.add_argument('--output', required=True, help="kunit.py's output")
	c.add_argument('--log', required=True, help="the kernel's log (.kunit/test.log)")
	c.add_argument('--vmlinux', required=True, help='the kernel kunit.py built (.kunit/vmlinux)')
	c.set_defaults(func=cmd_check)
	d = sub.add_parser('docs', help='every command is given in each file')
	d.add_argument('files', nargs='+', metavar='FILE')
	d.set_defaults(func=cmd_docs)
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	return run(lambda: int(args.func(args)))


if __name__ == '__main__':
	sys.exit(main())
