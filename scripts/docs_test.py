#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of docs.py, on the recorded inputs of kunit/test_data/."""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

import docs

TEST_DATA = os.path.join(docs.REPO, 'kunit', 'test_data')


class CcacheBytesTest(unittest.TestCase):
	def test_units(self) -> None:
		self.assertEqual(docs.ccache_bytes('100M'), 100 * 1000 ** 2)
		self.assertEqual(docs.ccache_bytes('5G'), 5 * 1000 ** 3)
		self.assertEqual(docs.ccache_bytes('5Gi'), 5 * 1024 ** 3)
		self.assertEqual(docs.ccache_bytes('1.5k'), 1500)
		self.assertEqual(docs.ccache_bytes('4096'), 4096)

	def test_not_a_size(self) -> None:
		for size in ('', 'M', '100 MB', '-1M', '100Q'):
			with self.subTest(size=size), self.assertRaises(docs.DocsError):
				docs.ccache_bytes(size)


class CiCachesBlockTest(unittest.TestCase):
	def setUp(self) -> None:
		self.dir = self.enterContext(tempfile.TemporaryDirectory())

	def block(self, **change: object) -> str:
		with open(os.path.join(TEST_DATA, 'ci-caches', 'ci-caches.json'), encoding='utf-8') as f:
			text = f.read()
		sizes = json.loads(text)
		sizes.update(change)
		sizes = {k: v for k, v in sizes.items() if v is not None}
		with open(os.path.join(self.dir, 'ci-caches.json'), 'w', encoding='utf-8') as f:
			json.dump(sizes, f)
		return docs.ci_caches_block(self.dir)

	def test_sizes(self) -> None:
		block = self.block()
		# 4 builds in 84 MB: 21 MB a build; 17 legs and the checks job.
		self.assertIn('| 84 MB, 21 MB a build |', block)
		self.assertIn('(17 legs and the checks job, about one build\'s share each) | about 871 MB |', block)
		# The tree and 18 entries at their 100 MB cap.
		self.assertIn('(100M each, `CCACHE_MAXSIZE` in the workflow) | at most 2293 MB |', block)
		# (10 GB - 493 MB) / (18 * 21 MB) and / (18 * 100 MB).
		self.assertIn('about 25 changes of the series (at least 5 with every entry at its cap)', block)

	def test_follows_the_matrix_and_the_cap(self) -> None:
		block = self.block(ci_legs=3, ccache_max_size='1G')
		self.assertIn('(3 legs and the checks job', block)
		self.assertIn('(1G each, `CCACHE_MAXSIZE` in the workflow) | at most 4493 MB |', block)

	def test_incomplete_input(self) -> None:
		for missing in ('tree_bytes', 'ccache_bytes', 'ci_legs', 'builds', 'ccache_max_size'):
			with self.subTest(missing=missing), self.assertRaises(docs.DocsError):
				self.block(**{missing: None})
		with self.assertRaises(docs.DocsError):
			self.block(builds=[])


class ReplaceBlockTest(unittest.TestCase):
	def setUp(self) -> None:
		self.dir = self.enterContext(tempfile.TemporaryDirectory())
		self.path = os.path.join(self.dir, 'README.md')
		with open(self.path, 'w', encoding='utf-8') as f:
			f.write('before\n<!-- generated: x -->\nold\n<!-- end generated -->\nafter\n')

	def text(self) -> str:
		with open(self.path, encoding='utf-8') as f:
			return f.read()

	def replace(self, name: str, check: bool) -> int:
		err = io.StringIO()
		with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
			rc = docs.replace_block(self.path, name, 'new\n', check, 'docs.py ' + name)
		self.err = err.getvalue()
		return rc

	def test_check_says_out_of_date_and_writes_nothing(self) -> None:
		before = self.text()
		self.assertEqual(self.replace('x', True), 1)
		self.assertIn('is out of date: run docs.py x', self.err)
		self.assertEqual(self.text(), before)

	def test_write_then_check(self) -> None:
		self.assertEqual(self.replace('x', False), 0)
		self.assertEqual(self.text(), 'before\n<!-- generated: x -->\nnew\n<!-- end generated -->\nafter\n')
		self.assertEqual(self.replace('x', True), 0)

	def test_missing_block(self) -> None:
		before = self.text()
		self.assertEqual(self.replace('y', False), 1)
		self.assertIn('has no generated block "y"', self.err)
		self.assertEqual(self.text(), before)


class LastRunBlockTest(unittest.TestCase):
	"""The recorded results root of a run (results/), with and without the
	kcidb.json the run's dashboards step writes."""

	def setUp(self) -> None:
		self.results = os.path.join(self.enterContext(tempfile.TemporaryDirectory()), 'results')
		shutil.copytree(os.path.join(TEST_DATA, 'results'), self.results)

	def write_kcidb(self, value: object) -> None:
		with open(os.path.join(self.results, 'kcidb.json'), 'w', encoding='utf-8') as f:
			json.dump(value, f)

	def test_legs_and_the_end_of_the_run(self) -> None:
		block = docs.last_run_block(self.results)
		self.assertRegex(block, r'\n\| pass \| PASS \| \d+ \| 0 \| 0 \| ')
		self.assertIn('Whole run: 1542 s; the slowest steps: kunit-pass 246 s, test-scripts 96 s,', block)
		self.assertIn('The cache folder after it: 2.3 GiB.', block)
		self.assertIn('245 passed, 5 failed, 2 skipped\n```\n', block)
		self.assertNotIn('The series it tested', block)

	def test_the_series_it_tested(self) -> None:
		series = '18 patches on linux-source-6.12 6.12.118-1~deb12u1 and 4 tree fixes, head 0123456789ab'
		self.write_kcidb({'version': {'major': 5, 'minor': 3}, 'checkouts': [{'misc': {'series': series}}]})
		self.assertIn(f'The series it tested (kcidb.json): {series}.\n', docs.last_run_block(self.results))

	def test_a_kcidb_without_the_series(self) -> None:
		for value in ({'checkouts': []}, {'checkouts': [{'misc': {}}]}, {'checkouts': [{'misc': {'series': 18}}]}, []):
			self.write_kcidb(value)
			with self.assertRaisesRegex(docs.DocsError, 'kcidb.json: '):
				docs.last_run_block(self.results)


class UsersLegBlockTest(unittest.TestCase):
	"""A leg's recorded counts.json and times.json (users-leg/) with the
	recorded KTAP of a users' program, passing and failing."""

	def setUp(self) -> None:
		self.leg = os.path.join(self.enterContext(tempfile.TemporaryDirectory()), 'x86_64-debug')
		shutil.copytree(os.path.join(TEST_DATA, 'users-leg', 'x86_64-debug'), self.leg)

	def add_log(self, name: str, recorded: str) -> None:
		shutil.copy(os.path.join(TEST_DATA, recorded), os.path.join(self.leg, f'users-{name}.log'))

	def test_counts_times_and_programs(self) -> None:
		self.add_log('sd', 'users-sd.log')
		block = docs.users_leg_block(self.leg)
		self.assertIn('| x86_64-debug | PASS | 101 | 0 | 0 | 12 s | 23 s | 192 s |', block)
		# 20.387736 to 191.507046 in the log.
		self.assertIn('| `sd` | 5 | 5 | 171 s |', block)

	def test_failed_cases_are_not_counted_as_passed(self) -> None:
		self.add_log('sd', 'users-sd-never-freed.log')
		self.assertRegex(docs.users_leg_block(self.leg), r'\| `sd` \| 5 \| 1 \| \d+ s \|')

	def test_a_program_that_did_not_run(self) -> None:
		open(os.path.join(self.leg, 'users-sd.log'), 'w', encoding='utf-8').close()
		with self.assertRaisesRegex(docs.DocsError, 'no timestamped lines'):
			docs.users_leg_block(self.leg)

	def test_a_leg_without_programs(self) -> None:
		with self.assertRaisesRegex(docs.DocsError, 'not a leg that runs kunit/users'):
			docs.users_leg_block(self.leg)


if __name__ == '__main__':
	unittest.main()
