#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results of the IDA benchmark (lib/tests/ida_benchmark_kunit.c).

  table.py userspace --label L --rev R --log LOG --out JSON DUMP...
      callgrind dumps (one per workload and allocator, named by the
      benchmark's CALLGRIND_DUMP_STATS_AT markers) -> instructions per op
  table.py kernel --log KERNEL_LOG --out JSON
      the "bench ..." lines of an in-kernel run -> ns per op, bytes per ID
  table.py table JSON...
      one markdown table of everything
"""

import argparse
import json
import re
import sys

OPS_RE = re.compile(r'bench (\S+): ops (\d+), ns/op ida ([\d.]+) idr ([\d.]+) bitmap ([\d.]+)')
MEM_RE = re.compile(r'bench memory (\S+): ids (\d+), bytes/id\*100 ida (\d+) idr (\d+)')
ALLOCATORS = ('ida', 'idr', 'bitmap')


def read_ops(log):
	ops, ns, mem = {}, {}, {}
	with open(log, errors='replace') as f:
		for line in f:
			m = OPS_RE.search(line)
			if m:
				ops[m.group(1)] = int(m.group(2))
				ns[m.group(1)] = dict(zip(ALLOCATORS, map(float, m.group(3, 4, 5))))
			m = MEM_RE.search(line)
			if m:
				mem[m.group(1)] = {'ids': int(m.group(2)),
						   'ida': int(m.group(3)) / 100, 'idr': int(m.group(4)) / 100}
	return ops, ns, mem


def userspace(args):
	ops, _, mem = read_ops(args.log)
	if not ops:
		sys.exit(f'error: no benchmark output in {args.log}')
	instr = {}
	for dump in args.dumps:
		name = total = None
		with open(dump) as f:
			for line in f:
				if line.startswith('desc: Trigger: Client Request: '):
					name = line[len('desc: Trigger: Client Request: '):].strip()
				elif line.startswith(('summary:', 'totals:')):
					total = int(line.split()[1])
		if name is None or '/' not in name or total is None:
			continue
		workload, allocator = name.split('/', 1)
		if workload not in ops:
			sys.exit(f'error: {dump}: workload {workload} has no operation count')
		instr.setdefault(workload, {})[allocator] = round(total / ops[workload], 1)
	missing = [w for w in ops if set(instr.get(w, {})) != set(ALLOCATORS)]
	if missing:
		sys.exit(f'error: no callgrind dump for {", ".join(missing)}')
	with open(args.out, 'w') as f:
		json.dump({'kind': 'userspace', 'label': args.label, 'rev': args.rev,
			   'ops': ops, 'instructions_per_op': instr, 'memory': mem}, f, indent=2)


def kernel(args):
	ops, ns, mem = read_ops(args.log)
	if not ops:
		sys.exit(f'error: no benchmark output in {args.log}')
	with open(args.out, 'w') as f:
		json.dump({'kind': 'kernel', 'ops': ops, 'ns_per_op': ns, 'memory': mem}, f, indent=2)


def table(args):
	users, kern = [], None
	for path in args.json:
		with open(path) as f:
			d = json.load(f)
		if d['kind'] == 'kernel':
			kern = d
		else:
			users.append(d)
	workloads = []
	for d in users + ([kern] if kern else []):
		for w in d['ops']:
			if w not in workloads:
				workloads.append(w)
	head = ['workload', 'ops']
	for u in users:
		head.append(f'IDA instr/op ({u["label"]})')
	if users:
		head += ['IDR instr/op', 'bitmap instr/op']
	if kern:
		head += ['kernel ns/op IDA', 'IDR', 'bitmap', 'IDA/IDR']
	if users:
		print('Userspace: callgrind instructions per operation (a churn row counts a pair),'
		      ' radix-tree harness, -O2, XA_CHUNK_SHIFT 6.')
	if kern:
		print('Kernel: x86_64 in QEMU (TCG), one boot; ratios matter, not absolute times.')
	print()
	print('| ' + ' | '.join(head) + ' |')
	print('|' + '---|' * len(head))
	for w in workloads:
		row = [w, str((users[0] if users else kern)['ops'].get(w, ''))]
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
		print('| ' + ' | '.join(row) + ' |')
	mems = [(u['label'], u['memory']) for u in users] + ([('kernel', kern['memory'])] if kern else [])
	if any(m for _, m in mems):
		print('\nBytes of slab per allocated ID (XArray nodes, and IDA bitmaps):\n')
		print('| fill | where | IDA | IDR |')
		print('|---|---|---|---|')
		for label, m in mems:
			for what, v in m.items():
				print(f'| {what} | {label} | {v["ida"]:.2f} | {v["idr"]:.2f} |')


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	sub = ap.add_subparsers(dest='cmd', required=True)
	u = sub.add_parser('userspace')
	u.add_argument('--label', required=True)
	u.add_argument('--rev', required=True)
	u.add_argument('--log', required=True)
	u.add_argument('--out', required=True)
	u.add_argument('dumps', nargs='+')
	k = sub.add_parser('kernel')
	k.add_argument('--log', required=True)
	k.add_argument('--out', required=True)
	t = sub.add_parser('table')
	t.add_argument('json', nargs='+')
	args = ap.parse_args()
	{'userspace': userspace, 'kernel': kernel, 'table': table}[args.cmd](args)


if __name__ == '__main__':
	main()
