#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of bench_table.py, on the recorded input of test_data/bench/
(its README.md says how it was made), fed as scripts/tools/bench.sh feeds it.

  python3 -m unittest discover -s kunit -p 'bench_table_test.py'
"""

import contextlib
import glob
import io
import json
import os
import shutil
import tempfile
import unittest
from typing import Tuple

import bench_table

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data', 'bench')
USERSPACE_LOG = os.path.join(DATA, 'userspace.log')
KERNEL_LOG = os.path.join(DATA, 'kernel-slow.log')
# Every dump of the userspace run, as bench.sh passes them ("cg-LABEL".*),
# and the one callgrind writes at the end.
DUMPS = sorted(glob.glob(os.path.join(DATA, 'cg.*'))) + [os.path.join(DATA, 'cg')]

test_tmpdir = ''


def setUpModule() -> None:
	global test_tmpdir
	test_tmpdir = tempfile.mkdtemp()


def tearDownModule() -> None:
	shutil.rmtree(test_tmpdir)


def tmp(name: str) -> str:
	return os.path.join(test_tmpdir, name)


def run_main(*args: str) -> Tuple[int, str, str]:
	"""bench_table.main(args): exit code, stdout, stderr."""
	out, err = io.StringIO(), io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
		try:
			rc = bench_table.main(list(args))
		except SystemExit as e:
			rc = e.code if isinstance(e.code, int) else 1
	return rc, out.getvalue(), err.getvalue()


def load(path: str) -> object:
	with open(path, encoding='utf-8') as f:
		result: object = json.load(f)
	return result


class ReadTest(unittest.TestCase):

	def test_userspace_log(self) -> None:
		bench = bench_table.read_log(USERSPACE_LOG)
		self.assertEqual(bench.ops, {'seq_alloc_1K': 1024, 'churn_min0': 2048})
		self.assertEqual(bench.memory, {'dense_1M': {'ids': 1048576, 'ida': 0.13, 'idr': 9.14}})

	def test_kernel_log(self) -> None:
		bench = bench_table.read_log(KERNEL_LOG)
		self.assertEqual(list(bench.ops), ['seq_alloc_64K', 'seq_free_64K', 'churn_min0'])
		self.assertEqual(bench.ops['churn_min0'], 200000)
		self.assertEqual(bench.ns_per_op['seq_alloc_64K'], {'ida': 285.31, 'idr': 222.08, 'bitmap': 41.57})

	def test_no_benchmark_lines(self) -> None:
		path = tmp('empty.log')
		with open(path, 'w', encoding='utf-8') as f:
			f.write('KTAP version 1\n1..0\n')
		with self.assertRaisesRegex(bench_table.BenchError, f'^no benchmark output in {path}$'):
			bench_table.read_log(path)

	def test_dumps(self) -> None:
		self.assertEqual(bench_table.read_dump(os.path.join(DATA, 'cg.1')), ('seq_alloc_1K', 'ida', 30600))
		self.assertEqual(bench_table.read_dump(os.path.join(DATA, 'cg.6')), ('churn_min0', 'bitmap', 43917))
		# The dump of the program's end has no marker.
		self.assertIsNone(bench_table.read_dump(os.path.join(DATA, 'cg')))

	def test_dumps_of_threads(self) -> None:
		# With --separate-threads=yes, only the dump of thread 1 counts.
		with open(os.path.join(DATA, 'cg.1'), encoding='utf-8') as f:
			text = f.read()
		for thread, want in (('1', ('seq_alloc_1K', 'ida', 30600)), ('2', None)):
			path = tmp(f'cg.1-0{thread}')
			with open(path, 'w', encoding='utf-8') as f:
				f.write(text.replace('part: 1\n', f'part: 1\nthread: {thread}\n'))
			self.assertEqual(bench_table.read_dump(path), want)


class UserspaceTest(unittest.TestCase):

	def test_userspace(self) -> None:
		out = tmp('userspace-abc.json')
		self.assertEqual(run_main('userspace', '--label', 'abc123', '--rev', 'ida-kunit', '--log', USERSPACE_LOG,
					  '--out', out, *DUMPS), (0, '', ''))
		self.assertEqual(load(out), {
			'kind': 'userspace', 'label': 'abc123', 'rev': 'ida-kunit',
			'ops': {'seq_alloc_1K': 1024, 'churn_min0': 2048},
			'instructions_per_op': {'seq_alloc_1K': {'ida': 29.9, 'idr': 45.9, 'bitmap': 13.9},
						'churn_min0': {'ida': 53.4, 'idr': 85.4, 'bitmap': 21.4}},
			'instructions': {'seq_alloc_1K': {'ida': 30600, 'idr': 46984, 'bitmap': 14231},
					 'churn_min0': {'ida': 109438, 'idr': 174974, 'bitmap': 43917}},
			'memory': {'dense_1M': {'ids': 1048576, 'ida': 0.13, 'idr': 9.14}}})

	def test_missing_dump(self) -> None:
		rc, out, err = run_main('userspace', '--label', 'a', '--rev', 'r', '--log', USERSPACE_LOG,
					'--out', tmp('missing.json'), *[d for d in DUMPS if not d.endswith('cg.5')])
		self.assertEqual((rc, out, err), (1, '', 'error: no callgrind dump for churn_min0\n'))
		self.assertFalse(os.path.exists(tmp('missing.json')))

	def test_dump_of_unknown_workload(self) -> None:
		dump = tmp('cg.7')
		with open(os.path.join(DATA, 'cg.1'), encoding='utf-8') as f:
			text = f.read().replace('seq_alloc_1K/ida', 'seq_alloc_1M/ida')
		with open(dump, 'w', encoding='utf-8') as f:
			f.write(text)
		rc, out, err = run_main('userspace', '--label', 'a', '--rev', 'r', '--log', USERSPACE_LOG,
					'--out', tmp('unknown.json'), *DUMPS, dump)
		self.assertEqual((rc, out, err), (1, '', f'error: {dump}: workload seq_alloc_1M has no operation count\n'))


class KernelTest(unittest.TestCase):

	def test_kernel(self) -> None:
		out = tmp('kernel.json')
		self.assertEqual(run_main('kernel', '--log', KERNEL_LOG, '--out', out), (0, '', ''))
		self.assertEqual(load(out), {
			'kind': 'kernel',
			'ops': {'seq_alloc_64K': 65536, 'seq_free_64K': 65536, 'churn_min0': 200000},
			'ns_per_op': {'seq_alloc_64K': {'ida': 285.31, 'idr': 222.08, 'bitmap': 41.57},
				      'seq_free_64K': {'ida': 188.2, 'idr': 124.66, 'bitmap': 17.03},
				      'churn_min0': {'ida': 589.44, 'idr': 1206.91, 'bitmap': 90.12}},
			'memory': {'dense_1M': {'ids': 1048576, 'ida': 0.13, 'idr': 9.14}}})


class TableTest(unittest.TestCase):

	def results(self) -> Tuple[str, str, str]:
		before, after, kernel = tmp('t-before.json'), tmp('t-after.json'), tmp('t-kernel.json')
		for label, out in (('before', before), ('after', after)):
			self.assertEqual(run_main('userspace', '--label', label, '--rev', label, '--log', USERSPACE_LOG,
						  '--out', out, *DUMPS)[0], 0)
		self.assertEqual(run_main('kernel', '--log', KERNEL_LOG, '--out', kernel)[0], 0)
		return before, after, kernel

	def test_table(self) -> None:
		before, after, kernel = self.results()
		rc, out, err = run_main('table', before, after, kernel)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(out, '''\
Userspace: callgrind instructions per operation (a churn row counts a pair), radix-tree harness, -O2, XA_CHUNK_SHIFT 6.
Kernel: x86_64 in QEMU (TCG), one boot; ratios matter, not absolute times.

| workload | ops | IDA instr/op (before) | IDA instr/op (after) | IDR instr/op | bitmap instr/op | kernel ns/op IDA | IDR | bitmap | IDA/IDR |
|---|---|---|---|---|---|---|---|---|---|
| seq_alloc_1K | 1024 | 29.9 | 29.9 | 45.9 | 13.9 |  |  |  |  |
| churn_min0 | 2048 | 53.4 | 53.4 | 85.4 | 21.4 | 589.4 | 1206.9 | 90.1 | 49% |
| seq_alloc_64K |  |  |  |  |  | 285.3 | 222.1 | 41.6 | 128% |
| seq_free_64K |  |  |  |  |  | 188.2 | 124.7 | 17.0 | 151% |

Bytes of slab per allocated ID (XArray nodes, and IDA bitmaps):

| fill | where | IDA | IDR |
|---|---|---|---|
| dense_1M | before | 0.13 | 9.14 |
| dense_1M | after | 0.13 | 9.14 |
| dense_1M | kernel | 0.13 | 9.14 |
''')

	def test_kernel_only(self) -> None:
		_, _, kernel = self.results()
		rc, out, err = run_main('table', kernel)
		self.assertEqual((rc, err), (0, ''))
		self.assertIn('| workload | ops | kernel ns/op IDA | IDR | bitmap | IDA/IDR |\n', out)
		self.assertIn('| seq_alloc_64K | 65536 | 285.3 | 222.1 | 41.6 | 128% |\n', out)
		self.assertNotIn('Userspace', out)

	def test_not_a_result(self) -> None:
		for name, text, want in (
			('list.json', '[1, 2]', 'not a benchmark result of bench_table.py'),
			('other.json', '{"kind": "other"}', 'not a benchmark result of bench_table.py'),
			('short.json', '{"kind": "kernel", "ops": {}}', 'a kernel result without its ops, ns_per_op, memory'),
			('nolabel.json', '{"kind": "userspace", "ops": {}, "instructions_per_op": {}, "memory": {}}',
			 'a userspace result without its ops, instructions_per_op, memory or label and rev'),
			('broken.json', '{"kind": ', 'not JSON'),
		):
			with self.subTest(name=name):
				path = tmp(name)
				with open(path, 'w', encoding='utf-8') as f:
					f.write(text)
				rc, out, err = run_main('table', path)
				self.assertEqual((rc, out), (1, ''))
				self.assertEqual(len(err.splitlines()), 1, err)
				self.assertTrue(err.startswith(f'error: {path}: {want}'), err)


def userspace_json(name: str, ida: Tuple[float, float], idr: float = 444.0) -> str:
	"""A userspace result with two rows, whose IDA figures are IDA."""
	path = tmp(name)
	result = {'kind': 'userspace', 'label': name, 'rev': name,
		  'ops': {'seq_alloc_1K': 1024, 'churn_min1000': 65536},
		  'instructions_per_op': {'seq_alloc_1K': {'ida': ida[0], 'idr': idr, 'bitmap': 93.9},
					  'churn_min1000': {'ida': ida[1], 'idr': 1265.0, 'bitmap': 103.0}},
		  'memory': {'dense_1M': {'ids': 1048576, 'ida': 0.13, 'idr': 9.14}}}
	with open(path, 'w', encoding='utf-8') as f:
		json.dump(result, f)
	return path


def message(name: str, *blocks: str) -> str:
	"""A commit message quoting BLOCKS between paragraphs of prose."""
	path = tmp(name)
	with open(path, 'w', encoding='utf-8') as f:
		f.write('ida: Do something\n\nWhy, before -> after:\n\n' + '\n\n'.join(blocks) +
			'\n\nSigned-off-by: A U Thor <a@example.org>\n')
	return path


AT = """\
  instructions/op             IDA    IDR bitmap
  seq_alloc_1K                450    444     94
  churn_min1000              1168   1265    103
  bytes/ID dense_1M          0.13   9.14"""
CHANGE = """\
  seq_alloc_1K             450 -> 368
  churn_min1000            1168 -> 1173"""


class LinesTest(unittest.TestCase):

	def test_table_of_one_result(self) -> None:
		rc, out, err = run_main('lines', userspace_json('l1', (450.1, 1168.0)))
		self.assertEqual((rc, err, out), (0, '', AT + '\n'))

	def test_change_of_two_results(self) -> None:
		rc, out, err = run_main('lines', userspace_json('l1', (450.1, 1168.0)),
					userspace_json('l2', (367.9, 1173.0)))
		self.assertEqual((rc, err, out), (0, '', CHANGE + '\n'))

	def test_not_userspace(self) -> None:
		kernel = tmp('l-kernel.json')
		self.assertEqual(run_main('kernel', '--log', KERNEL_LOG, '--out', kernel)[0], 0)
		rc, out, err = run_main('lines', kernel)
		self.assertEqual((rc, out), (1, ''))
		self.assertEqual(err, f'error: {kernel}: not a userspace result\n')

	def test_rounded_once(self) -> None:
		# 45146 instructions in 100 operations: 451.46 per operation, so
		# 451, though the stored figure (451.5) would round to 452.
		path = userspace_json('l3', (451.5, 1168.0))
		with open(path, encoding='utf-8') as f:
			result = json.load(f)
		result['instructions'] = {w: {a: round(v * result['ops'][w]) for a, v in per.items()}
					  for w, per in result['instructions_per_op'].items()}
		result['ops']['seq_alloc_1K'] = 100
		result['instructions']['seq_alloc_1K']['ida'] = 45146
		with open(path, 'w', encoding='utf-8') as f:
			json.dump(result, f)
		rc, out, err = run_main('lines', path)
		self.assertEqual((rc, err), (0, ''))
		self.assertIn('  seq_alloc_1K                451 ', out)

	def test_incomplete_result(self) -> None:
		path = userspace_json('l4', (450.1, 1168.0))
		with open(path, encoding='utf-8') as f:
			result = json.load(f)
		del result['instructions_per_op']['churn_min1000']['idr']
		with open(path, 'w', encoding='utf-8') as f:
			json.dump(result, f)
		rc, out, err = run_main('lines', path)
		self.assertEqual((rc, out), (1, ''))
		self.assertEqual(err, f'error: {path}: no figure for churn_min1000/idr\n')

	def test_three_results(self) -> None:
		one = userspace_json('l1', (450.1, 1168.0))
		for cmd in (('lines',), ('claims', '--message', message('m3', CHANGE))):
			with self.subTest(cmd=cmd[0]):
				rc, out, err = run_main(*cmd, one, one, one)
				self.assertEqual((rc, out), (2, ''))
				self.assertEqual(err, f'error: {cmd[0]} takes one userspace result or two, not 3'
						 ' (see bench_table.py --help)\n')


class ClaimsTest(unittest.TestCase):

	def setUp(self) -> None:
		self.before = userspace_json('c1', (450.1, 1168.0))
		self.after = userspace_json('c2', (367.9, 1173.0))

	def test_what_the_benchmark_gives(self) -> None:
		msg = message('ok', CHANGE)
		rc, out, err = run_main('claims', '--message', msg, self.before, self.after)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(out, f'{msg}: the 2 lines of its "before -> after" block are what the benchmark gives\n')
		msg = message('ok-at', AT, 'More prose.')
		rc, out, err = run_main('claims', '--message', msg, self.before)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(out, f'{msg}: the 4 lines of its table are what the benchmark gives\n')

	def test_a_figure_that_differs(self) -> None:
		for name, blocks, results, want in (
			('off-by-one', (CHANGE.replace('-> 368', '-> 367'),), (self.before, self.after),
			 "line 1 of its \"before -> after\" block says 'seq_alloc_1K             450 -> 367', "
			 "the benchmark gives 'seq_alloc_1K             450 -> 368'"),
			('idr', (AT.replace('444', '443'),), (self.before,),
			 "line 2 of its table says 'seq_alloc_1K                450    443     94', "
			 "the benchmark gives 'seq_alloc_1K                450    444     94'"),
			('a-row-short', (CHANGE.splitlines()[0],), (self.before, self.after),
			 'its "before -> after" block has 1 line, the benchmark gives 2'),
			('a-row-with-more', (CHANGE.replace('-> 368', '-> 368   (IDR 444)'),), (self.before, self.after),
			 "line 1 of its \"before -> after\" block says 'seq_alloc_1K             450 -> 368   (IDR 444)', "
			 "the benchmark gives 'seq_alloc_1K             450 -> 368'"),
			('split', tuple(CHANGE.splitlines()), (self.before, self.after),
			 '2 benchmark "before -> after" blocks, where one is checked'),
			('two-tables', (AT, AT.replace('1168', '1169')), (self.before,),
			 '2 benchmark tables, where one is checked'),
			('a-row-more', (CHANGE + '\n  narrow_range_sparse_1M   888 -> 888',), (self.before, self.after),
			 'its "before -> after" block has 3 lines, the benchmark gives 2'),
			('none', ('Faster.',), (self.before, self.after), 'no benchmark "before -> after" block to check'),
			('no-table', (CHANGE,), (self.before,), 'no benchmark table to check'),
		):
			with self.subTest(name=name):
				msg = message(name, *blocks)
				rc, out, err = run_main('claims', '--message', msg, *results)
				self.assertEqual((rc, out), (1, ''))
				self.assertEqual(err, f'error: {msg}: {want}\n')

	def test_no_message(self) -> None:
		rc, out, err = run_main('claims', '--message', '/nonexistent.msg', self.before)
		self.assertEqual((rc, out), (1, ''))
		self.assertEqual(err, 'error: /nonexistent.msg: No such file or directory\n')


class MainTest(unittest.TestCase):

	def test_errors(self) -> None:
		for args, rc, want in (
			(('kernel', '--log', '/nonexistent.log', '--out', tmp('x.json')), 1,
			 'error: /nonexistent.log: No such file or directory'),
			(('table', '/nonexistent.json'), 1, 'error: /nonexistent.json: No such file or directory'),
			(('kernel', '--log', USERSPACE_LOG), 2, 'error: the following arguments are required: --out'),
			(('sort',), 2, "error: argument COMMAND: invalid choice: 'sort'"),
			((), 2, 'error: the following arguments are required: COMMAND'),
		):
			with self.subTest(args=args):
				got_rc, out, err = run_main(*args)
				self.assertEqual((got_rc, out), (rc, ''))
				self.assertEqual(len(err.splitlines()), 1, err)
				self.assertTrue(err.startswith(want), err)

	def test_help(self) -> None:
		for args in (('--help',), ('userspace', '--help'), ('kernel', '--help'), ('table', '--help'),
			     ('lines', '--help'), ('claims', '--help')):
			with self.subTest(args=args):
				rc, out, err = run_main(*args)
				self.assertEqual((rc, err), (0, ''))
				self.assertTrue(out.startswith('usage: bench_table.py'), out)


if __name__ == '__main__':
	unittest.main()
