#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results of the IDA benchmark (lib/tests/ida_benchmark_kunit.c).

  bench_table.py userspace --label L --rev R --log LOG --out JSON DUMP...
      callgrind dumps (one per workload and allocator, named by the
      benchmark's CALLGRIND_DUMP_STATS_AT markers) -> instructions per op
  bench_table.py kernel --log KERNEL_LOG --out JSON
      the "bench ..." lines of an in-kernel run -> ns per op, bytes per ID
  bench_table.py table JSON...
      one markdown table of everything
  bench_table.py lines RESULT [AFTER]
      the figures a commit message quotes: of one userspace result, the
      instructions per operation of each allocator and the bytes per ID;
      of two, the IDA's instructions per operation before -> after
  bench_table.py claims --message FILE RESULT [AFTER]
      whether the message FILE quotes exactly what "lines" prints

scripts/tools/bench.sh runs the first three, scripts/checks/bench-claims.sh
the last.  A file that cannot be read or holds
no benchmark output is one "error:" line and exit 1; a bad command line,
exit 2.
"""

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Literal, NotRequired, Optional, Sequence, Tuple, TypedDict, Union, cast

from cli import ArgumentParser, run

OPS_RE = re.compile(r'bench (\S+): ops (\d+), ns/op ida ([\d.]+) idr ([\d.]+) bitmap ([\d.]+)')
MEM_RE = re.compile(r'bench memory (\S+): ids (\d+), bytes/id\*100 ida (\d+) idr (\d+)')
ALLOCATORS = ('ida', 'idr', 'bitmap')
TRIGGER = 'desc: Trigger: Client Request: '

# Per workload, a number per allocator.
PerAllocator = Dict[str, Dict[str, float]]


class Memory(TypedDict):
	"""Slab bytes per allocated ID at one fill ("bench memory" lines)."""
	ids: int
	ida: float
	idr: float


class UserspaceResult(TypedDict):
	"""userspace-REV.json: one revision of the allocator under callgrind."""
	kind: Literal['userspace']
	label: str
	rev: str
	ops: Dict[str, int]
	instructions_per_op: PerAllocator
	# The instruction counts themselves, per workload and allocator (not
	# in the results of older versions of this script).
	instructions: NotRequired[Dict[str, Dict[str, int]]]
	memory: Dict[str, Memory]


class KernelResult(TypedDict):
	"""kernel.json: the in-kernel run."""
	kind: Literal['kernel']
	ops: Dict[str, int]
	ns_per_op: PerAllocator
	memory: Dict[str, Memory]


Result = Union[UserspaceResult, KernelResult]


class BenchError(Exception):
	"""What stops a command; the message is the "error:" line."""


@dataclass
class BenchLog:
	"""The "bench" lines of a run's output."""
	ops: Dict[str, int] = field(default_factory=dict)
	ns_per_op: PerAllocator = field(default_factory=dict)
	memory: Dict[str, Memory] = field(default_factory=dict)


def read_log(log: str) -> BenchLog:
	"""The benchmark lines of LOG (a kernel log, or what the userspace
	benchmark printed); BenchError when it has none."""
	out = BenchLog()
	with open(log, errors='replace') as f:
		for line in f:
			m = OPS_RE.search(line)
			if m:
				out.ops[m.group(1)] = int(m.group(2))
				out.ns_per_op[m.group(1)] = dict(zip(ALLOCATORS, map(float, m.group(3, 4, 5))))
			m = MEM_RE.search(line)
			if m:
				out.memory[m.group(1)] = {'ids': int(m.group(2)), 'ida': int(m.group(3)) / 100,
							  'idr': int(m.group(4)) / 100}
	if not out.ops:
		raise BenchError(f'no benchmark output in {log}')
	return out


def read_dump(path: str) -> Optional[Tuple[str, str, int]]:
	"""Workload, allocator and instruction count of a callgrind dump made at
	a "workload/allocator" marker; None for any other dump (the one callgrind
	writes when the program ends)."""
	name: Optional[str] = None
	total: Optional[int] = None
	with open(path, errors='replace') as f:
		for line in f:
			# With --separate-threads=yes each thread has its own dump:
			# only the benchmark's own thread (1) is counted, not one
			# that liburcu may start.
			if line.startswith('thread:') and line.split()[1:] != ['1']:
				return None
			if line.startswith(TRIGGER):
				name = line[len(TRIGGER):].strip()
			elif line.startswith(('summary:', 'totals:')):
				try:
					total = int(line.split()[1])
				except (IndexError, ValueError):
					raise BenchError(f'{path}: bad line {line.strip()!r}') from None
	if name is None or '/' not in name or total is None:
		return None
	workload, allocator = name.split('/', 1)
	return workload, allocator, total


def instruction_counts(ops: Dict[str, int], dumps: Sequence[str]) -> Dict[str, Dict[str, int]]:
	"""The instruction count of every workload and allocator, from one
	callgrind dump each."""
	counts: Dict[str, Dict[str, int]] = {}
	for dump in dumps:
		found = read_dump(dump)
		if found is None:
			continue
		workload, allocator, total = found
		if workload not in ops:
			raise BenchError(f'{dump}: workload {workload} has no operation count')
		counts.setdefault(workload, {})[allocator] = total
	missing = [w for w in ops if set(counts.get(w, {})) != set(ALLOCATORS)]
	if missing:
		raise BenchError(f'no callgrind dump for {", ".join(missing)}')
	return counts


def userspace_result(label: str, rev: str, log: str, dumps: Sequence[str]) -> UserspaceResult:
	bench = read_log(log)
	counts = instruction_counts(bench.ops, dumps)
	per_op = {w: {a: round(n / bench.ops[w], 1) for a, n in c.items()} for w, c in counts.items()}
	return {'kind': 'userspace', 'label': label, 'rev': rev, 'ops': bench.ops,
		'instructions_per_op': per_op, 'instructions': counts, 'memory': bench.memory}


def per_op(result: UserspaceResult, workload: str, allocator: str) -> float:
	"""Instructions per operation, from the count itself when the result
	has it (rounded once, where it is printed), else as stored."""
	counts = result.get('instructions')
	if counts is not None:
		return counts[workload][allocator] / result['ops'][workload]
	return result['instructions_per_op'][workload][allocator]


def kernel_result(log: str) -> KernelResult:
	bench = read_log(log)
	return {'kind': 'kernel', 'ops': bench.ops, 'ns_per_op': bench.ns_per_op, 'memory': bench.memory}


def _is_map(value: object, check: Union[type, Tuple[type, ...]]) -> bool:
	return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, check)
						   for k, v in value.items())


def load_result(path: str) -> Result:
	"""A result that userspace or kernel wrote, its shape checked."""
	with open(path, encoding='utf-8') as f:
		try:
			d: object = json.load(f)
		except ValueError as e:
			raise BenchError(f'{path}: not JSON ({e})') from e
	kind = d.get('kind') if isinstance(d, dict) else None
	per_op = {'userspace': 'instructions_per_op', 'kernel': 'ns_per_op'}.get(str(kind))
	if not isinstance(d, dict) or per_op is None:
		raise BenchError(f'{path}: not a benchmark result of bench_table.py (no "kind")')
	ok = (_is_map(d.get('ops'), int) and _is_map(d.get(per_op), dict) and
	      all(_is_map(v, (int, float)) for v in d[per_op].values()) and
	      (kind == 'kernel' or 'instructions' not in d or
	       (_is_map(d['instructions'], dict) and all(_is_map(v, int) for v in d['instructions'].values()))) and
	      _is_map(d.get('memory'), dict) and
	      (kind == 'kernel' or (isinstance(d.get('label'), str) and isinstance(d.get('rev'), str))))
	if not ok:
		raise BenchError(f'{path}: a {kind} result without its ops, {per_op}, memory'
				 f'{" or label and rev" if kind == "userspace" else ""}')
	return cast(Result, d)


def table(results: Sequence[Result]) -> str:
	"""The Markdown table of the userspace results (one IDA column each, the
	IDR and bitmap of the last) and of the kernel one (the last given)."""
	users: List[UserspaceResult] = []
	kern: Optional[KernelResult] = None
	for d in results:
		if d['kind'] == 'kernel':
			kern = d
		else:
			users.append(d)
	workloads: List[str] = []
	for ops in [u['ops'] for u in users] + ([kern['ops']] if kern else []):
		for w in ops:
			if w not in workloads:
				workloads.append(w)
	head = ['workload', 'ops']
	for u in users:
		head.append(f'IDA instr/op ({u["label"]})')
	if users:
		head += ['IDR instr/op', 'bitmap instr/op']
	if kern:
		head += ['kernel ns/op IDA', 'IDR', 'bitmap', 'IDA/IDR']
	out: List[str] = []
	if users:
		out.append('Userspace: callgrind instructions per operation (a churn row counts a pair),'
			   ' radix-tree harness, -O2, XA_CHUNK_SHIFT 6.')
	if kern:
		out.append('Kernel: x86_64 in QEMU (TCG), one boot; ratios matter, not absolute times.')
	out.append('')
	out.append('| ' + ' | '.join(head) + ' |')
	out.append('|' + '---|' * len(head))
	first_ops = users[0]['ops'] if users else kern['ops'] if kern else {}
	for w in workloads:
		row = [w, str(first_ops.get(w, ''))]
		for u in users:
			row.append(str(u['instructions_per_op'].get(w, {}).get('ida', '')))
		if users:
			last = users[-1]['instructions_per_op'].get(w, {})
			row += [str(last.get('idr', '')), str(last.get('bitmap', ''))]
		if kern:
			k = kern['ns_per_op'].get(w)
			if k:
				ratio = f'{100 * k["ida"] / k["idr"]:.0f}%' if k['idr'] else ''
				row += [f'{k["ida"]:.1f}', f'{k["idr"]:.1f}', f'{k["bitmap"]:.1f}', ratio]
			else:
				row += [''] * 4
		out.append('| ' + ' | '.join(row) + ' |')
	mems = [(u['label'], u['memory']) for u in users] + ([('kernel', kern['memory'])] if kern else [])
	if any(m for _, m in mems):
		out.append('\nBytes of slab per allocated ID (XArray nodes, and IDA bitmaps):\n')
		out.append('| fill | where | IDA | IDR |')
		out.append('|---|---|---|---|')
		for label, m in mems:
			for what, v in m.items():
				out.append(f'| {what} | {label} | {v["ida"]:.2f} | {v["idr"]:.2f} |')
	return '\n'.join(out) + '\n'


# How a commit message quotes the benchmark: a table of one revision, under
# its header line, and the lines of a change.
AT_HEAD = f'  {"instructions/op":<24} {"IDA":>6} {"IDR":>6} {"bitmap":>6}'
# A line of a block that quotes a change: a figure and an arrow.
CHANGE_LIKE_RE = re.compile(r'\d.*->|->.*\d')


def userspace(path: str) -> UserspaceResult:
	"""The userspace result in PATH, with a figure for every workload and
	allocator (BenchError otherwise, or for a kernel result)."""
	d = load_result(path)
	if d['kind'] != 'userspace':
		raise BenchError(f'{path}: not a userspace result')
	counts = d.get('instructions')
	for w in d['ops']:
		for a in ALLOCATORS:
			if a not in d['instructions_per_op'].get(w, {}) or (counts is not None and a not in counts.get(w, {})):
				raise BenchError(f'{path}: no figure for {w}/{a}')
	for fill, m in d['memory'].items():
		if not isinstance(m.get('ida'), (int, float)) or not isinstance(m.get('idr'), (int, float)):
			raise BenchError(f'{path}: no IDA or IDR figure for memory {fill}')
	return d


def lines_at(result: UserspaceResult) -> List[str]:
	"""Every allocator's instructions per operation, and the bytes of slab
	per ID, of one revision."""
	out = [AT_HEAD]
	for w in result['ops']:
		out.append(f'  {w:<24} ' + ' '.join(f'{per_op(result, w, a):>6.0f}' for a in ALLOCATORS))
	for fill, m in result['memory'].items():
		out.append(f'  {"bytes/ID " + fill:<24} {m["ida"]:>6.2f} {m["idr"]:>6.2f}')
	return out


def lines_change(before: UserspaceResult, after: UserspaceResult, after_path: str) -> List[str]:
	"""The IDA's instructions per operation before -> after, every row."""
	out = []
	for w in before['ops']:
		if w not in after['ops']:
			raise BenchError(f'{after_path}: no workload {w}')
		out.append(f'  {w:<24} {per_op(before, w, "ida"):.0f} -> {per_op(after, w, "ida"):.0f}')
	return out


def lines(paths: Sequence[str]) -> List[str]:
	results = [userspace(p) for p in paths]
	return lines_at(results[0]) if len(results) == 1 else lines_change(results[0], results[1], paths[1])


def indented_blocks(message: str) -> List[List[str]]:
	"""The runs of consecutive indented lines of MESSAGE."""
	blocks: List[List[str]] = []
	run: List[str] = []
	for line in message.splitlines() + ['']:
		if line.startswith('  ') and line.strip():
			run.append(line)
		elif run:
			blocks.append(run)
			run = []
	return blocks


def quoted(message: str, at: bool) -> List[List[str]]:
	"""The blocks of MESSAGE that quote the benchmark: tables under their
	header line (AT), or blocks with a figure and an arrow in a line."""
	if at:
		return [b for b in indented_blocks(message) if b[0] == AT_HEAD]
	return [b for b in indented_blocks(message) if any(CHANGE_LIKE_RE.search(ln) for ln in b)]


def claims(message_path: str, paths: Sequence[str]) -> str:
	"""What the message quotes against what the benchmark gives: one line
	saying they agree, or BenchError naming the first difference."""
	with open(message_path, encoding='utf-8') as f:
		message = f.read()
	want = lines(paths)
	blocks = quoted(message, len(paths) == 1)
	what = 'table' if len(paths) == 1 else '"before -> after" block'
	if not blocks:
		raise BenchError(f'{message_path}: no benchmark {what} to check')
	if len(blocks) > 1:
		raise BenchError(f'{message_path}: {len(blocks)} benchmark {what}s, where one is checked')
	got = blocks[0]
	for i, (g, w) in enumerate(zip(got, want)):
		if g != w:
			raise BenchError(f'{message_path}: line {i + 1} of its {what} says {g.strip()!r}, '
					 f'the benchmark gives {w.strip()!r}')
	if len(got) != len(want):
		raise BenchError(f'{message_path}: its {what} has {len(got)} line{"s" if len(got) != 1 else ""}, '
				 f'the benchmark gives {len(want)}')
	return f'{message_path}: the {len(got)} lines of its {what} are what the benchmark gives'


def write_json(path: str, result: Result) -> None:
	with open(path, 'w', encoding='utf-8') as f:
		json.dump(result, f, indent=2)


def cmd_userspace(args: argparse.Namespace) -> None:
	write_json(args.out, userspace_result(args.label, args.rev, args.log, args.dumps))


def cmd_kernel(args: argparse.Namespace) -> None:
	write_json(args.out, kernel_result(args.log))


def cmd_table(args: argparse.Namespace) -> None:
	sys.stdout.write(table([load_result(p) for p in args.json]))


def cmd_lines(args: argparse.Namespace) -> None:
	print('\n'.join(lines(args.json)))


def cmd_claims(args: argparse.Namespace) -> None:
	print(claims(args.message, args.json))


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='bench_table.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	sub = ap.add_subparsers(dest='cmd', required=True, metavar='COMMAND',
				parser_class=ArgumentParser)
	u = sub.add_parser('userspace', help='callgrind dumps and the log of a userspace run -> JSON')
	u.add_argument('--label', required=True, help='the column name of the revision (its short hash)')
	u.add_argument('--rev', required=True, help='the revision measured')
	u.add_argument('--log', required=True, help='what the userspace benchmark printed')
	u.add_argument('--out', required=True, help='the JSON to write')
	u.add_argument('dumps', nargs='+', metavar='DUMP', help='callgrind dumps of the run')
	u.set_defaults(func=cmd_userspace)
	k = sub.add_parser('kernel', help='the kernel log of an in-kernel run -> JSON')
	k.add_argument('--log', required=True, help='the kernel log (kernel-slow.log of bench-kernel)')
	k.add_argument('--out', required=True, help='the JSON to write')
	k.set_defaults(func=cmd_kernel)
	t = sub.add_parser('table', help='JSON results -> a Markdown table, on stdout')
	t.add_argument('json', nargs='+', metavar='JSON', help='results of userspace and kernel')
	t.set_defaults(func=cmd_table)
	for name, what in (('lines', 'userspace results -> the lines a commit message quotes, on stdout'),
			   ('claims', 'whether a commit message quotes the userspace results exactly')):
		c = sub.add_parser(name, help=what)
		if name == 'claims':
			c.add_argument('--message', required=True, help='the commit message')
		c.add_argument('json', nargs='+', metavar='JSON',
			       help='one userspace result (a table), or two (before -> after)')
		c.set_defaults(func=cmd_lines if name == 'lines' else cmd_claims)
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	ap = parser()
	args = ap.parse_args(argv)

	if getattr(args, 'func', None) in (cmd_lines, cmd_claims) and len(args.json) > 2:
		ap.error(f'{args.cmd} takes one userspace result or two, not {len(args.json)}')

	def work() -> int:
		args.func(args)
		return 0
	return run(work, (BenchError,))


if __name__ == '__main__':
	sys.exit(main())
