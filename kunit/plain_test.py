#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of plain.py, on a recorded run of the plain UML command
(test_data/plain/: kunit.py's output and the kernel's test.log).

  python3 -m unittest discover -s kunit -p 'plain_test.py'
"""

import contextlib
import io
import os
import tempfile
import unittest
from typing import List, Sequence, Tuple

import plain
from cli import InputError

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'test_data', 'plain')
OUTPUT = os.path.join(DATA, 'um-kunit.log')
LOG = os.path.join(DATA, 'um-test.log')


class PlainTestCase(unittest.TestCase):
	"""A test with a temporary folder of its own for the files it writes."""

	def setUp(self) -> None:
		self.tmp = self.enterContext(tempfile.TemporaryDirectory())

	def write(self, name: str, text: str) -> str:
		path = os.path.join(self.tmp, name)
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text)
		return path

	def image(self, banner: str) -> str:
		"""A stand-in vmlinux that holds BANNER, as a kernel image does."""
		return self.write('vmlinux', '\0\0ELF stand-in\0' + banner + '\0more\0')


def banner_of(log: str) -> str:
	with open(log, encoding='utf-8') as f:
		return next(line for line in f if line.startswith('Linux version '))


def run_main(args: Sequence[str]) -> Tuple[int, str, str]:
	out, err = io.StringIO(), io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
		try:
			rc = plain.main(list(args))
		except SystemExit as e:
			rc = e.code if isinstance(e.code, int) else 1
	return rc, out.getvalue(), err.getvalue()


class TableTest(PlainTestCase):

	def test_the_table_loads(self) -> None:
		rows = plain.load()
		self.assertGreater(len(rows), 0)
		for r in rows:
			with self.subTest(name=r.name):
				self.assertTrue(r.command.startswith('./tools/testing/kunit/kunit.py run'))
				self.assertTrue(r.suites and r.what)

	def test_the_arch_of_a_command(self) -> None:
		run = './tools/testing/kunit/kunit.py run'
		self.assertEqual(plain.Command('a', ['s'], 0, 0, 'w', f'{run} ida').arch, 'um')
		self.assertEqual(plain.Command('a', ['s'], 0, 0, 'w', f'{run} --arch=powerpc --cross_compile=x-').arch,
				 'powerpc')

	def test_a_row_without_six_columns_is_named(self) -> None:
		path = self.write('bad.tsv', '# comment\num\tida\t4\t1\tonly five columns\n')
		with self.assertRaisesRegex(InputError, r'bad\.tsv:2: '):
			plain.load(path)

	def test_a_command_that_is_not_kunit_py_is_refused(self) -> None:
		path = self.write('notkunit.tsv', 'um\tida\t4\t1\twhat\tmake run\n')
		with self.assertRaisesRegex(InputError, 'notkunit.tsv:1'):
			plain.load(path)

	def test_an_unknown_name_is_one_error_line(self) -> None:
		rc, out, err = run_main(['show', 'no-such-command'])
		self.assertEqual(rc, 1)
		self.assertEqual(out, '')
		self.assertRegex(err, r'^error: no command "no-such-command" in .* \(known: .*um')
		self.assertEqual(len(err.splitlines()), 1)


class CheckTest(PlainTestCase):

	def setUp(self) -> None:
		super().setUp()
		self.row = plain.Command('um', ['ida'], 4, 1, 'the IDA suite', './tools/testing/kunit/kunit.py run')
		with open(OUTPUT, encoding='utf-8') as f:
			self.output = [line.rstrip('\n') for line in f]
		self.log = plain.read_lines(LOG)
		self.vmlinux = self.image(banner_of(LOG))

	def problems(self, exit_code: int = 0, output: Sequence[str] = (), log: Sequence[str] = (),
		     vmlinux: str = '') -> List[str]:
		return plain.check(self.row, exit_code, output or self.output, log or self.log,
				   vmlinux or self.vmlinux)

	def test_the_recorded_run_holds(self) -> None:
		self.assertEqual(self.problems(), [])
		self.assertEqual(plain.counts(self.output), {'tests': 91, 'passed': 60, 'skipped': 31})

	def test_its_skips_are_counted_by_reason(self) -> None:
		reasons = plain.skip_reasons(self.log)
		self.assertEqual(sum(reasons.values()), 31)
		self.assertEqual(reasons['warns 128 times: boot with ida_kunit.bad_free_sweep=1 to run it'], 1)

	def test_a_non_zero_exit_code_fails(self) -> None:
		self.assertIn('kunit.py exited with 1', self.problems(exit_code=1))

	def test_a_failed_case_fails(self) -> None:
		output = [line.replace('passed: 60,', 'passed: 59, failed: 1,') for line in self.output]
		self.assertIn('kunit.py says failed: 1', self.problems(output=output))

	def test_no_closing_line_fails(self) -> None:
		output = [line for line in self.output if 'Testing complete' not in line]
		self.assertIn('kunit.py printed no "Testing complete" line', self.problems(output=output))

	def test_a_suite_that_did_not_run_fails(self) -> None:
		self.row.suites = ['ida', 'book3s64_mmu_context']
		self.assertEqual(self.problems(), ['suite book3s64_mmu_context did not run'])

	def test_a_suite_that_did_not_pass_fails(self) -> None:
		output = [line.replace('[PASSED] ida =', '[FAILED] ida =') for line in self.output]
		self.assertIn('suite ida: FAILED', self.problems(output=output))

	def test_another_kernel_fails(self) -> None:
		other = self.image(banner_of(LOG).replace(' #', ' #9'))
		self.assertEqual(self.problems(vmlinux=other), ['booted a kernel other than the one built'])

	def test_an_image_without_a_banner_fails(self) -> None:
		self.assertRegex(self.problems(vmlinux=self.write('empty', 'nothing'))[0], 'no Linux version banner in')

	def test_the_recorded_warnings(self) -> None:
		said, inside, outside = plain.warnings(self.log)
		self.assertEqual((said, len(inside)), (4, 4))
		self.assertTrue(all('at lib/idr.c:' in w for w in inside))
		self.assertEqual(len(outside), 1)
		self.assertIn('arch/um/drivers/virt-pci.c', outside[0])

	def test_a_warning_more_outside_fails_and_is_listed(self) -> None:
		log = list(self.log) + ['WARNING: CPU: 0 PID: 1 at lib/idr.c:613 ida_free+0x1/0x2']
		problems = self.problems(log=log)
		self.assertEqual(len(problems), 1)
		self.assertTrue(problems[0].startswith('2 warnings outside the announced ones, not 1\n'))
		self.assertIn('  WARNING: CPU: 0 PID: 1 at lib/idr.c:613', problems[0])

	def test_an_unexpected_warning_in_place_of_the_boot_one_fails(self) -> None:
		log = [line.replace('WARNING: CPU: 0 PID: 1 at arch/um/drivers/virt-pci.c',
				    'WARNING: CPU: 0 PID: 1 at lib/idr.c') for line in self.log]
		self.assertEqual(self.problems(log=log), [])	# one other warning, whatever it says
		log = [line for line in self.log if 'virt-pci' not in line]
		self.assertTrue(self.problems(log=log)[0].startswith('0 warnings outside the announced ones, not 1'))

	def test_an_announced_warning_missing_fails(self) -> None:
		first = next(i for i, line in enumerate(self.log) if 'WARNING:' in line and 'lib/idr.c' in line)
		log = self.log[:first] + self.log[first + 1:]
		self.assertTrue(self.problems(log=log)[0].startswith(
			'the suites announced 4 warnings and provoked 3, not 4'))

	def test_a_sweep_asked_for_is_not_a_plain_run(self) -> None:
		log = [line.replace('expected warnings begin: 1 ', 'expected warnings begin: 129 ') for line in self.log]
		self.assertTrue(self.problems(log=log)[0].startswith('the suites announced 132 warnings'))

	def test_the_command_line_check_says_pass_or_fail(self) -> None:
		args = ['check', 'um', '--exit-code', '0', '--output', OUTPUT, '--log', LOG,
			'--vmlinux', self.vmlinux]
		rc, out, _ = run_main(args)
		self.assertEqual(rc, 0)
		self.assertRegex(out, r'PASS plain um: passed 60, skipped 31; suites ida; 4 warnings announced '
				 r'and provoked, 1 other')
		self.assertIn('  skipped: 15 cases: needs CONFIG_FAILSLAB\n', out)
		args[3] = '2'
		rc, out, _ = run_main(args)
		self.assertEqual(rc, 1)
		self.assertIn('FAIL plain um: kunit.py exited with 2', out)


class DocsTest(PlainTestCase):

	def test_every_command_must_be_given(self) -> None:
		rows = plain.load()
		full = self.write('full.md', ''.join(f'    {r.command}\n' for r in rows))
		rc, out, _ = run_main(['docs', full])
		self.assertEqual(rc, 0)
		self.assertIn(f'{len(rows)} plain kunit.py commands, each given word for word', out)
		short = self.write('short.md', ''.join(f'{r.command} --more\n' for r in rows))
		rc, _, err = run_main(['docs', full, short])
		self.assertEqual(rc, 1)
		self.assertRegex(err, r'^error: a plain kunit.py command is not given word for word: .*short\.md')


if __name__ == '__main__':
	unittest.main()
