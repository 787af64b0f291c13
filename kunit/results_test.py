#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of results.py, on the recorded kernel logs of test_data/
(test_data/README.md says where each comes from).

  cd kunit && python3 -m unittest results_test
  python3 -m unittest discover -s kunit -p '*_test.py'

results.py parses with kunit_tool, which these tests take from the
environment: $KUNIT_TOOL, or else $IDA_KUNIT_SRC/tools/testing/kunit, or
else ${IDA_KUNIT_CACHE:-$HOME/.cache/ida-kunit}/linux-6.12/tools/testing/kunit
(the tree scripts/setup-tree.sh unpacks).  Without it they fail.
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import results

test_tmpdir = ''
abs_test_data_dir = ''

# What results.json and counts.json hold, read back.
JsonObject = dict[str, Any]


def kunit_tool_path() -> str:
	"""Where kunit_tool is, as the environment says."""
	if os.environ.get('KUNIT_TOOL'):
		return os.environ['KUNIT_TOOL']
	if os.environ.get('IDA_KUNIT_SRC'):
		return os.path.join(os.environ['IDA_KUNIT_SRC'], 'tools', 'testing', 'kunit')
	cache = os.environ.get('IDA_KUNIT_CACHE') or os.path.join(os.path.expanduser('~'), '.cache', 'ida-kunit')
	return os.path.join(cache, 'linux-6.12', 'tools', 'testing', 'kunit')


def setUpModule() -> None:
	global test_tmpdir, abs_test_data_dir
	path = kunit_tool_path()
	if not os.path.isfile(os.path.join(path, 'kunit_parser.py')):
		raise RuntimeError(f'no kunit_tool at {path}: set KUNIT_TOOL (or IDA_KUNIT_SRC) to a '
				   "kernel tree's tools/testing/kunit")
	# Nothing written into the kernel tree (its __pycache__).
	saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
	try:
		results.load_kunit_tool(path)
	finally:
		sys.dont_write_bytecode = saved
	test_tmpdir = tempfile.mkdtemp()
	abs_test_data_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), 'test_data'))


def tearDownModule() -> None:
	if test_tmpdir:
		shutil.rmtree(test_tmpdir)


def test_data_path(name: str) -> str:
	return os.path.join(abs_test_data_dir, name)


def read_lines(path: str) -> list[str]:
	with open(path, encoding='utf-8') as f:
		return f.readlines()


def fixture(name: str) -> list[str]:
	"""The lines of a recorded log of test_data/."""
	return read_lines(test_data_path(name))


def is_result_line(line: str) -> bool:
	return re.match(r'\s*(not )?ok \d+ ', line) is not None


def stamped(lines: Sequence[str]) -> list[str]:
	"""lines with a printk timestamp in front of each, as printk.time=1
	prints it ("[%5lu.%06lu] "): the first line at 0.000400 s, each line
	0.000400 s after the one before, and a KTAP result line 0.015 s +
	0.001 s x (its line number, from 0, mod 7) more, so that every case
	takes a few tens of milliseconds and a case with more lines longer.
	test_data/x86_64-pass-time.log is x86_64-pass.log made so
	(test_recorded_timestamped_log pins it)."""
	out = []
	t = 0
	for n, line in enumerate(lines):
		# In microseconds, so that the stamps are exact.
		t += 400
		if is_result_line(line):
			t += 15000 + 1000 * (n % 7)
		out.append(f'[{t // 1000000:5d}.{t % 1000000:06d}] {line}')
	return out


def stamp_of(line: str) -> float:
	m = re.match(r'\[\s*(\d+\.\d+)\] ', line)
	assert m, line
	return float(m.group(1))


@dataclass
class Run:
	"""A run of results.py's main(): its exit code, what it printed, and
	the results folder it wrote."""
	rc: int
	stdout: str
	stderr: str
	out: str

	def path(self, name: str) -> str:
		return os.path.join(self.out, name)

	@property
	def counts(self) -> results.Counts:
		with open(self.path('counts.json'), encoding='utf-8') as f:
			counts: results.Counts = json.load(f)
		return counts

	@property
	def results(self) -> JsonObject:
		with open(self.path('results.json'), encoding='utf-8') as f:
			doc: JsonObject = json.load(f)
		return doc

	@property
	def junit(self) -> ET.Element:
		return ET.parse(self.path('junit.xml')).getroot()

	def problems(self, kind: Optional[str] = None) -> list[str]:
		return [p['message'] for p in self.counts['problems'] if kind is None or p['kind'] == kind]

	def json_cases(self) -> list[tuple[str, JsonObject]]:
		"""The leaves of results.json in order, as "suite.case[.param]"."""
		return json_leaves(self.results, None)

	def junit_cases(self) -> list[tuple[str, ET.Element]]:
		"""The testcases of junit.xml in order, as "suite.case[.param]"."""
		return [(f'{ts.get("name")}.{tc.get("name")}', tc)
			for ts in self.junit.iter('testsuite') for tc in ts.iter('testcase')]


def json_leaves(group: JsonObject, suite: Optional[str], prefix: str = '') -> list[tuple[str, JsonObject]]:
	found: list[tuple[str, JsonObject]] = []
	for sub in group['sub_groups']:
		if suite is None:
			found += json_leaves(sub, sub['name'])
		else:
			found += json_leaves(sub, suite, f'{prefix}{sub["name"]}.')
	for case in group['test_cases']:
		found.append((f'{suite}.{prefix}{case["name"]}' if suite else case['name'], case))
	return found


class ResultsTestCase(unittest.TestCase):
	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(dir=test_tmpdir)

	def write_log(self, name: str, lines: Sequence[str], folder: str = '') -> str:
		"""A log of the test's own (a variant of a recorded one)."""
		where = os.path.join(self.tmp, folder)
		os.makedirs(where, exist_ok=True)
		path = os.path.join(where, name)
		with open(path, 'w', encoding='utf-8') as f:
			f.writelines(lines)
		return path

	def run_main(self, *logs: str, args: Sequence[str] = (), out: str = 'out') -> Run:
		"""results.py's main() on the logs (paths, or names of test_data/)."""
		argv = ['--kunit-tool', kunit_tool_path(), '--arch', 'test', '--out', os.path.join(self.tmp, out)]
		for log in logs:
			argv += ['--log', log if os.sep in log else test_data_path(log)]
		stdout, stderr = io.StringIO(), io.StringIO()
		with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
			rc = results.main(argv + list(args))
		return Run(rc, stdout.getvalue(), stderr.getvalue(), os.path.join(self.tmp, out))

	def assertSameCases(self, run: Run) -> None:
		"""results.json and junit.xml name the same cases, in the same
		order, with the same message and log, and results.json has
		duration, message and log in each."""
		# kunit_json lists a group's sub-groups (parameterised cases)
		# before its cases: in name order, each list keeps its order.
		json_cases = sorted(run.json_cases(), key=lambda c: c[0])
		junit_cases = sorted(((n, tc) for n, tc in run.junit_cases() if not n.startswith('kunit-run.')),
				     key=lambda c: c[0])
		self.assertEqual([n for n, _ in json_cases], [n for n, _ in junit_cases])
		for (name, case), (_, tc) in zip(json_cases, junit_cases):
			self.assertEqual({'name', 'status', 'duration', 'message', 'log'}, set(case), name)
			outcome = tc.find('failure')
			if outcome is None:
				outcome = tc.find('error')
			if outcome is None:
				outcome = tc.find('skipped')
			self.assertEqual(case['message'], outcome.get('message') if outcome is not None else '', name)
			out = tc.find('system-out')
			self.assertEqual(case['log'], out.text if out is not None else '', name)
			want = {'PASS': None, 'SKIP': 'skipped', 'FAIL': 'failure', 'ERROR': 'error'}[case['status']]
			self.assertEqual(want, outcome.tag if outcome is not None else None, name)
			if case['duration'] is None:
				self.assertEqual('0.000', tc.get('time'), name)
			else:
				self.assertEqual(f'{case["duration"]:.3f}', tc.get('time'), name)


class PassTest(ResultsTestCase):
	def test_recorded_boot_passes(self) -> None:
		run = self.run_main('x86_64-pass.log', args=['--expect-suite', 'ida', '--expect-cpus', '2'])
		self.assertEqual(0, run.rc, run.stdout)
		counts = run.counts
		self.assertEqual((72, 0, 0, 0), (counts['passed'], counts['failed'], counts['skipped'], counts['not_run']))
		self.assertEqual('PASS', counts['verdict'])
		self.assertEqual('run', counts['phase'])
		self.assertEqual(3, counts['expected_warnings'])
		self.assertFalse(counts['hung'])
		self.assertFalse(counts['panicked'])
		self.assertEqual([], counts['problems'])
		self.assertEqual([], counts['failed_cases'])
		self.assertEqual('', run.stderr)

	def test_every_leaf_in_results_json_and_junit(self) -> None:
		run = self.run_main('x86_64-pass.log')
		names = [n for n, _ in run.json_cases()]
		self.assertEqual(72, len(names))
		# ida_test_boundary has two parameters "id 64" on a 64-bit kernel
		# (BITS_PER_XA_VALUE + 1 and BITS_PER_LONG): both are there.
		self.assertEqual(2, names.count('ida.ida_test_boundary.id 64'))
		self.assertEqual(71, len(set(names)))
		self.assertIn('ida.ida_test_alloc', names)
		self.assertIn('ida.ida_test_range.[0, 0]', names)
		self.assertIn('ida.ida_test_nomem.first ID, a value entry', names)
		self.assertIn('ida.ida_test_destroy_busy', names)
		self.assertEqual({'PASS'}, {c['status'] for _, c in run.json_cases()})
		self.assertEqual({''}, {c['message'] for _, c in run.json_cases()})
		# The case's own lines: a parameter of ida_test_nomem logs its count.
		logs = dict(run.json_cases())
		self.assertIn('slab allocations', logs['ida.ida_test_nomem.deep tree']['log'])
		self.assertEqual('', logs['ida.ida_test_alloc']['log'])
		self.assertSameCases(run)
		junit = run.junit
		self.assertEqual(('72', '0', '0', '0'), (junit.get('tests'), junit.get('failures'),
							  junit.get('errors'), junit.get('skipped')))
		self.assertEqual(['ida'], [ts.get('name') for ts in junit.iter('testsuite')])

	def test_the_other_files(self) -> None:
		run = self.run_main('x86_64-pass.log')
		with open(run.path('ktap.log'), encoding='utf-8') as f:
			ktap = f.read().splitlines()
		self.assertEqual('KTAP version 1', ktap[0])
		self.assertEqual(['ok 1 ida', 'reboot: Restarting system', 'reboot: machine restart'], ktap[-3:])
		self.assertIn('    ok 25 ida_test_destroy_busy', ktap)
		with open(run.path('summary.txt'), encoding='utf-8') as f:
			self.assertIn('Testing complete. Ran 72 tests: passed: 72', f.read())
		self.assertFalse(os.path.exists(run.path('leg.json')))
		# kunit_tool's own JSON, the cases aside.
		doc = run.results
		self.assertEqual('KUnit Test Group', doc['name'])
		self.assertEqual('test', doc['sub_groups'][0]['arch'])
		self.assertEqual('kunit', doc['sub_groups'][0]['defconfig'])

	def test_fixture_passes(self) -> None:
		run = self.run_main('pass.log', args=['--expect-suite', 'ida'])
		self.assertEqual(0, run.rc)
		self.assertEqual((8, 2), (run.counts['passed'], run.counts['expected_warnings']))
		self.assertSameCases(run)

	def test_two_boots_are_one_run(self) -> None:
		run = self.run_main('pass.log', 'skip.log')
		self.assertEqual(0, run.rc)
		self.assertEqual((15, 1), (run.counts['passed'], run.counts['skipped']))
		self.assertEqual(16, len(run.json_cases()))
		self.assertSameCases(run)


class FailureTest(ResultsTestCase):
	def test_failed_case(self) -> None:
		run = self.run_main('fail.log')
		self.assertEqual(1, run.rc)
		counts = run.counts
		self.assertEqual((7, 1, 'FAIL'), (counts['passed'], counts['failed'], counts['verdict']))
		self.assertEqual(['ida.ida_test_max (failure)'], counts['failed_cases'])
		self.assertEqual([], counts['problems'])
		case = dict(run.json_cases())['ida.ida_test_max']
		self.assertEqual('FAIL', case['status'])
		self.assertEqual('ida_test_max: EXPECTATION FAILED at lib/tests/ida_kunit.c:140: '
				 'Expected ida_alloc_min(ida, base, GFP_KERNEL) == -ENOSPC, but', case['message'])
		self.assertIn('-ENOSPC == -28', case['log'])
		failure = dict(run.junit_cases())['ida.ida_test_max'].find('failure')
		assert failure is not None
		self.assertEqual(case['message'], failure.get('message'))
		self.assertEqual(case['log'], failure.text)
		self.assertSameCases(run)
		self.assertIn('  FAILED ida.ida_test_max (failure)', run.stdout)

	def test_skipped_case_with_reason(self) -> None:
		run = self.run_main('skip.log')
		self.assertEqual(0, run.rc)
		counts = run.counts
		self.assertEqual((7, 0, 1, 'PASS'), (counts['passed'], counts['failed'], counts['skipped'],
						     counts['verdict']))
		case = dict(run.json_cases())['ida.ida_test_max']
		self.assertEqual(('SKIP', 'fault injection is not configured'), (case['status'], case['message']))
		skipped = dict(run.junit_cases())['ida.ida_test_max'].find('skipped')
		assert skipped is not None
		self.assertEqual('fault injection is not configured', skipped.get('message'))
		self.assertEqual('1', run.junit.get('skipped'))
		self.assertSameCases(run)

	def test_crash(self) -> None:
		"""The case the kernel stopped in failed, the rest of the plan did
		not run; results.json has them all, named as junit.xml names them."""
		run = self.run_main('panic.log')
		self.assertEqual(1, run.rc)
		counts = run.counts
		self.assertEqual((2, 1, 0, 3), (counts['passed'], counts['failed'], counts['skipped'], counts['not_run']))
		self.assertEqual(['ida.case 3 never reported (test_crashed)'], counts['failed_cases'])
		self.assertTrue(counts['panicked'])
		self.assertEqual(['report', 'report', 'panic', 'ktap'], [p['kind'] for p in counts['problems']])
		cases = dict(run.json_cases())
		unreported = [f'ida.case {n} never reported' for n in range(3, 7)]
		self.assertEqual(['ida.ida_test_alloc', 'ida.ida_test_destroy'] + unreported, list(cases))
		for name in unreported:
			self.assertEqual(('ERROR', 'case test_crashed', None),
					 (cases[name]['status'], cases[name]['message'], cases[name]['duration']))
		self.assertIn('Kernel panic - not syncing', cases['ida.case 3 never reported']['log'])
		self.assertSameCases(run)
		# Beside the cases, one failed kunit-run case with the end of the log.
		boot = dict(run.junit_cases())['kunit-run.boot'].find('failure')
		assert boot is not None
		self.assertIn('the kernel panicked', boot.get('message', ''))
		self.assertIn('Kernel panic - not syncing: Fatal exception', boot.text or '')

	def test_oops_is_not_a_panic(self) -> None:
		lines = fixture('pass.log')
		at = next(n for n, line in enumerate(lines) if 'ok 2 ida_test_destroy' in line) + 1
		lines[at:at] = ['BUG: kernel NULL pointer dereference, address: 0000000000000000\n',
				'Oops: 0002 [#1] SMP\n']
		run = self.run_main(self.write_log('oops.log', lines))
		self.assertEqual(1, run.rc)
		self.assertFalse(run.counts['panicked'])
		self.assertEqual(['the kernel oopsed: BUG: kernel NULL pointer'], run.problems('oops'))
		self.assertEqual([], run.problems('panic'))
		panic = self.run_main('panic.log', out='panic')
		self.assertEqual(['the kernel panicked'], panic.problems('panic'))
		self.assertEqual([], panic.problems('oops'))

	def test_truncated_ktap(self) -> None:
		run = self.run_main('truncated.log')
		self.assertEqual(1, run.rc)
		self.assertEqual(['5 KTAP parse errors (truncated or malformed output)'], run.problems('ktap'))
		self.assertEqual((3, 1, 2), (run.counts['passed'], run.counts['failed'], run.counts['not_run']))
		self.assertSameCases(run)

	def test_no_test(self) -> None:
		for log in ('empty.log', 'no-tests.log'):
			run = self.run_main(log, out=log)
			self.assertEqual(1, run.rc)
			self.assertEqual(['no test ran'], run.problems('no-tests'))
			self.assertEqual([], run.json_cases())

	def test_hung_boot(self) -> None:
		run = self.run_main('pass.log', args=['--timed-out', '300'])
		self.assertEqual(1, run.rc)
		self.assertTrue(run.counts['hung'])
		self.assertEqual('hung', run.counts['problems'][0]['kind'])

	def test_missing_suite(self) -> None:
		run = self.run_main('pass.log', args=['--expect-suite', 'ida', '--expect-suite', 'ida_mmu'])
		self.assertEqual(['suite ida_mmu did not run'], run.problems('suite-missing'))

	def test_dropped_messages(self) -> None:
		lines = fixture('pass.log')
		lines.insert(20, '** 3 printk messages dropped **\n')
		run = self.run_main(self.write_log('dropped.log', lines))
		self.assertEqual(1, run.rc)
		self.assertEqual(['3 printk messages dropped: the kernel log is incomplete'], run.problems('log'))


class KernelReportTest(ResultsTestCase):
	def test_unexpected_warning(self) -> None:
		run = self.run_main('splat.log')
		self.assertEqual(1, run.rc)
		self.assertEqual(['unexpected kernel report: ------------[ cut here ]------------',
				  'unexpected kernel report: WARNING: CPU: 1 PID: 50 at lib/idr.c:300 '
				  'ida_alloc_range+0x10/0x200'], run.problems('report'))
		self.assertEqual(8, run.counts['passed'])

	def test_pm_debug_is_no_report(self) -> None:
		"""The "BUG: " of "PM: DEBUG: " is not a kernel report."""
		lines = fixture('pass.log')
		at = next(n for n, line in enumerate(lines) if line.startswith('SMBIOS')) + 1
		lines.insert(at, 'PM: DEBUG: suspend entered\n')
		run = self.run_main(self.write_log('pm-debug.log', lines))
		self.assertEqual(0, run.rc, run.stdout)
		self.assertEqual([], run.counts['problems'])

	def test_expected_warnings(self) -> None:
		for log, rc, warnings, problem in [
				('warn-count.log', 1, 1, 'ida_test_bad_free: expected 2 warnings, the log has 1'),
				('warn-after.log', 0, 2, None),
				('warn-after-other.log', 1, 1, "in ida_test_bad_free's expected-warnings window: "
				 'WARNING: CPU: 0 PID: 46'),
				('kasan-in-window.log', 1, 2, "in ida_test_bad_free's expected-warnings window: "
				 'BUG: KASAN: slab-use-after-free'),
				('other-warning-in-window.log', 1, 1, "in ida_test_bad_free's expected-warnings window: "
				 'xa_store called with a bad index')]:
			with self.subTest(log=log):
				run = self.run_main(log, out=log)
				self.assertEqual(rc, run.rc, run.stdout)
				self.assertEqual(warnings, run.counts['expected_warnings'])
				if problem:
					self.assertTrue(any(problem in p for p in run.problems()), run.problems())
				else:
					self.assertEqual([], run.problems())

	def test_window_that_never_ends(self) -> None:
		lines = [re.sub(r'.*# ida_test_bad_free: expected warnings end.*',
				'    # ida_test_other: expected warnings begin: 0', line) for line in fixture('pass.log')]
		run = self.run_main(self.write_log('window-open.log', lines))
		self.assertEqual(1, run.rc)
		self.assertEqual(["ida_test_bad_free: expected warnings never ended (the next window, "
				  "ida_test_other's, began)", 'ida_test_other: expected warnings never ended'],
				 run.problems('warnings'))

	def test_read_log(self) -> None:
		check = results.read_log(fixture('warn-after.log'))
		self.assertEqual((2, []), (check.expected_warnings, check.problems))
		check = results.read_log(stamped(fixture('warn-count.log')))
		self.assertEqual(1, check.expected_warnings)
		self.assertEqual([results.Problem('warnings', 'ida_test_bad_free: expected 2 warnings, the log has 1')],
				 check.problems)


class LeakScanTest(ResultsTestCase):
	def test_clean_scan(self) -> None:
		run = self.run_main('leak-clean.log', args=['--expect-leak-scan'])
		self.assertEqual(0, run.rc, run.stdout)

	def test_reported_object(self) -> None:
		run = self.run_main('leak-report.log', args=['--expect-leak-scan'])
		self.assertEqual(1, run.rc)
		self.assertTrue(any(p.startswith('kmemleak: unreferenced object 0xffff888004a1c800')
				    for p in run.problems('leak')), run.problems())

	def test_count_without_objects(self) -> None:
		"""A scan that counts objects it does not list fails the run."""
		lines = [line.replace('kmemleak done: 0 unreferenced', 'kmemleak done: 3 unreferenced')
			 for line in fixture('leak-clean.log')]
		run = self.run_main(self.write_log('leak-count.log', lines), args=['--expect-leak-scan'])
		self.assertEqual(1, run.rc)
		self.assertEqual(['kmemleak: 3 unreferenced objects in leak-count.log'], run.problems('leak'))

	def test_no_scan(self) -> None:
		run = self.run_main('pass.log', args=['--expect-leak-scan'])
		self.assertEqual(['the leak scan did not finish in pass.log'], run.problems('leak-scan'))


class ProgramLogTest(ResultsTestCase):
	"""The KTAP of a program of kunit/users, out of a boot's log."""

	def test_program_suite_joins_the_boot(self) -> None:
		run = self.run_main('leak-clean.log', args=['--expect-leak-scan', '--expect-suite', 'ida',
							   '--program-log', test_data_path('users-sd.log'),
							   '--expect-suite', 'sd'])
		self.assertEqual(0, run.rc, run.stdout)
		boot = self.run_main('leak-clean.log', args=['--expect-leak-scan'], out='boot-only')
		self.assertEqual(boot.counts['passed'] + 5, run.counts['passed'])
		sd = [(n, c) for n, c in run.json_cases() if n.startswith('sd.')]
		self.assertEqual(['sd.sequential_names', 'sd.lowest_free_name', 'sd.restart_at_sda',
				  'sd.add_remove_cycles', 'sd.probe_fails_on_enomem'], [n for n, _ in sd])
		# Its lines keep the kernel's timestamps: each case has its time.
		self.assertTrue(all(c['status'] == 'PASS' and c['duration'] > 0 for _, c in sd), sd)
		self.assertIn('sd', [ts.get('name') for ts in run.junit.iter('testsuite')])
		self.assertSameCases(run)
		# No check of a boot reads it: it has no banner, no leak scan.
		self.assertEqual([], run.counts['problems'])

	def test_failed_program_case(self) -> None:
		run = self.run_main('leak-clean.log', args=['--expect-leak-scan', '--program-log',
							   test_data_path('users-sd-never-freed.log'),
							   '--expect-suite', 'sd'])
		self.assertEqual(1, run.rc)
		self.assertEqual(['sd.lowest_free_name (failure)', 'sd.restart_at_sda (failure)',
				  'sd.add_remove_cycles (failure)', 'sd.probe_fails_on_enomem (failure)'],
				 run.counts['failed_cases'])
		message = dict(run.json_cases())['sd.lowest_free_name']['log']
		self.assertIn("new disk 1 is 'sdab' (Success), expected sdc", message)

	def test_program_that_printed_nothing(self) -> None:
		run = self.run_main('leak-clean.log', args=['--expect-leak-scan', '--program-log',
							   test_data_path('empty.log'), '--expect-suite', 'sd'])
		self.assertEqual(1, run.rc)
		self.assertEqual(['suite sd did not run'], run.problems('suite-missing'))

	def test_program_cut_short(self) -> None:
		lines = fixture('users-sd.log')
		cut = self.write_log('users-sd-cut.log', lines[:lines.index(next(
			line for line in lines if 'ok 3 restart_at_sda' in line))])
		run = self.run_main('leak-clean.log', args=['--expect-leak-scan', '--program-log', cut,
							   '--expect-suite', 'sd'])
		self.assertEqual(1, run.rc)
		self.assertEqual(['sd.case 3 never reported (test_crashed)'], run.counts['failed_cases'])


class BootTest(ResultsTestCase):
	def vmlinux(self, banner: str) -> str:
		"""A file with the banner as a built vmlinux holds it."""
		path = os.path.join(self.tmp, 'vmlinux')
		with open(path, 'wb') as f:
			f.write(b'\x7fELF junk\0%s version %s\0' + banner.encode() + b'\n\0more')
		return path

	def test_banner_of_the_built_kernel(self) -> None:
		run = self.run_main('pass.log', args=['--expect-banner-of', self.vmlinux(fixture('pass.log')[0].strip())])
		self.assertEqual(0, run.rc, run.stdout)

	def test_stale_banner(self) -> None:
		other = fixture('pass.log')[0].strip().replace('#2 SMP', '#3 SMP')
		run = self.run_main('pass.log', args=['--expect-banner-of', self.vmlinux(other)])
		self.assertEqual(1, run.rc)
		[problem] = run.problems('stale-kernel')
		self.assertEqual('booted a kernel other than the one built: pass.log says "6.12.118-g4256d50bccbe '
				 '#2 SMP PREEMPT_DYNAMIC Thu Dec  3 07:43:56 UTC 2026", vmlinux "6.12.118-g4256d50bccbe '
				 '#3 SMP PREEMPT_DYNAMIC Thu Dec  3 07:43:56 UTC 2026"', problem)

	def test_no_banner(self) -> None:
		lines = [line for line in fixture('pass.log') if 'Linux version' not in line]
		run = self.run_main(self.write_log('no-banner.log', lines),
				    args=['--expect-banner-of', self.vmlinux(fixture('pass.log')[0].strip())])
		self.assertEqual(['no-banner.log: no Linux version banner: the kernel did not boot'], run.problems('no-boot'))
		image = os.path.join(self.tmp, 'vmlinux-none')
		run = self.run_main('pass.log', args=['--expect-banner-of', image], out='none')
		self.assertEqual([f'no Linux version banner in {image}: cannot tell what was built'],
				 run.problems('stale-kernel'))

	def test_second_boot_without_test(self) -> None:
		run = self.run_main('pass.log', 'no-tests.log')
		self.assertEqual(1, run.rc)
		self.assertEqual(['no-tests.log: the boot ran no test'], run.problems('no-tests'))
		self.assertEqual(8, run.counts['passed'])
		empty = self.write_log('empty-boot.log', [])
		run = self.run_main('pass.log', empty, out='empty')
		self.assertEqual(['empty-boot.log: the boot left no log'], run.problems('no-tests'))

	def test_cpus(self) -> None:
		def with_smp(cpus: str) -> list[str]:
			lines = fixture('pass.log')
			at = next(n for n, line in enumerate(lines) if line.startswith('SMBIOS')) + 1
			lines.insert(at, f'smp: Brought up 1 node, {cpus}\n')
			return lines
		run = self.run_main(self.write_log('smp2.log', with_smp('2 CPUs')), args=['--expect-cpus', '2'], out='2')
		self.assertEqual(0, run.rc, run.stdout)
		run = self.run_main(self.write_log('smp1.log', with_smp('1 CPU')), args=['--expect-cpus', '2'], out='1')
		self.assertEqual(['smp1.log: 1 of 2 CPUs up'], run.problems('smp'))
		run = self.run_main('pass.log', args=['--expect-cpus', '2'], out='0')
		self.assertEqual(['pass.log: no "smp: Brought up" line, 2 CPUs expected'], run.problems('smp'))


class DurationTest(ResultsTestCase):
	def test_recorded_timestamped_log(self) -> None:
		"""x86_64-pass-time.log is x86_64-pass.log stamped by stamped()."""
		self.assertEqual(stamped(fixture('x86_64-pass.log')), fixture('x86_64-pass-time.log'))

	def test_durations_with_timestamps(self) -> None:
		run = self.run_main('x86_64-pass-time.log', args=['--expect-suite', 'ida', '--expect-cpus', '2'])
		self.assertEqual(0, run.rc, run.stdout)
		cases = run.json_cases()
		self.assertEqual(72, len(cases))
		for name, case in cases:
			self.assertIsInstance(case['duration'], float, name)
			self.assertGreater(case['duration'], 0.0, name)
		for name, tc in run.junit_cases():
			self.assertGreater(float(tc.get('time', '0')), 0.0, name)
		self.assertSameCases(run)
		# A case took the time from the KTAP line before its result to
		# its result: ida_test_double_free's two warnings are in it.
		lines = fixture('x86_64-pass-time.log')
		before = next(line for line in lines if 'ok 15 ida_test_destroy_tree' in line)
		result = next(line for line in lines if 'ok 16 ida_test_double_free' in line)
		self.assertAlmostEqual(stamp_of(result) - stamp_of(before),
				       dict(cases)['ida.ida_test_double_free']['duration'], places=6)
		# The first parameter of a parameterised case: from its header.
		header = next(line for line in lines if '# Subtest: ida_test_leaf' in line)
		param = next(line for line in lines if 'ok 1 base 0' in line)
		self.assertAlmostEqual(stamp_of(param) - stamp_of(header),
				       dict(cases)['ida.ida_test_leaf.base 0']['duration'], places=6)
		suite = run.junit.find('testsuite')
		assert suite is not None
		total = sum(case['duration'] for _, case in cases)
		self.assertAlmostEqual(total, float(suite.get('time', '0')), places=2)

	def test_no_durations_without_timestamps(self) -> None:
		run = self.run_main('x86_64-pass.log')
		self.assertEqual({None}, {case['duration'] for _, case in run.json_cases()})
		self.assertEqual({'0.000'}, {tc.get('time') for _, tc in run.junit_cases()})

	def test_durations_of_a_second_boot_after_a_crash(self) -> None:
		"""The cases a crash kept from reporting have no duration, and
		take none from the cases of the next boot."""
		panic = self.write_log('panic.log', stamped(fixture('panic.log')))
		run = self.run_main(panic, 'x86_64-pass-time.log')
		cases = run.json_cases()
		self.assertEqual(2 + 4 + 72, len(cases))
		for name, case in cases:
			if name.endswith(' never reported'):
				self.assertIsNone(case['duration'], name)
			else:
				self.assertGreater(case['duration'], 0.0, name)
		self.assertSameCases(run)

	def test_case_details(self) -> None:
		"""Each boot's leaves are matched with its own result lines, in
		order; a skip reason comes from the result line."""
		lines = stamped(['KTAP version 1\n', '1..1\n', '    # Subtest: s\n', '    1..3\n',
				 '    ok 1 a\n', '    ok 2 b # SKIP no reason given\n', '    ok 3 a\n', 'ok 1 s\n'])
		with open(os.devnull, 'w', encoding='utf-8') as devnull, results.kunit_output(devnull):
			root = results.parse_boot(lines)
		leaves = list(results.leaves(root))
		self.assertEqual(['a', 'b', 'a'], [leaf.case for leaf in leaves])
		details = results.case_details(results.ktap_lines(lines), leaves)
		self.assertEqual([stamp_of(lines[n]) - stamp_of(lines[n - 1 if n > 4 else 2]) for n in (4, 5, 6)],
				 [details[leaf.test].duration for leaf in leaves])
		self.assertEqual([None, 'no reason given', None], [details[leaf.test].skip_reason for leaf in leaves])

	def test_timestamps_prefixes(self) -> None:
		self.assertEqual(1.5, results.line_time('[    1.500000] ok 1 a'))
		self.assertEqual(2.25, results.line_time('[    2.250000][    T1] ok 1 a'))
		self.assertIsNone(results.line_time('ok 1 a [    1.500000]'))
		self.assertEqual('PM: DEBUG: x', results.strip_time('[   12.000001][  C0] PM: DEBUG: x\n'))


def cases_but_durations(run: Run) -> list[tuple[str, JsonObject]]:
	return [(n, {k: v for k, v in c.items() if k != 'duration'}) for n, c in run.json_cases()]


def junit_but_times(run: Run) -> list[tuple[str, list[tuple[str, Optional[str], Optional[str]]]]]:
	"""Each testcase of junit.xml with what it holds, but its time and the
	end of the kernel log that the failed kunit-run case carries."""
	return [(n, [(e.tag, e.get('message'), None if n.startswith('kunit-run.') else e.text) for e in tc])
		for n, tc in run.junit_cases()]


class TimestampedLogTest(ResultsTestCase):
	"""Every check reads a log with printk timestamps as the same log
	without: the same counts, problems, cases, messages and logs."""

	def assertSameRun(self, name: str, lines: list[str], args: Sequence[str] = (),
			  second: Optional[list[str]] = None) -> None:
		runs = []
		for folder, stamp in (('plain', False), ('time', True)):
			logs = [self.write_log(name, stamped(lines) if stamp else lines, folder)]
			if second is not None:
				logs.append(self.write_log('second.log', stamped(second) if stamp else second, folder))
			runs.append(self.run_main(*logs, args=args, out=f'{folder}-{name}'))
		plain, timed = runs
		self.assertEqual(plain.rc, timed.rc, name)
		self.assertEqual(plain.stdout, timed.stdout, name)
		self.assertEqual(plain.counts, timed.counts, name)
		self.assertEqual(cases_but_durations(plain), cases_but_durations(timed), name)
		self.assertEqual(junit_but_times(plain), junit_but_times(timed), name)


	def test_fixtures(self) -> None:
		for log in ('pass.log', 'fail.log', 'skip.log', 'panic.log', 'truncated.log', 'splat.log',
			    'warn-count.log', 'warn-after.log', 'warn-after-other.log', 'kasan-in-window.log',
			    'other-warning-in-window.log', 'control-chars.log', 'x86_64-pass.log'):
			with self.subTest(log=log):
				self.assertSameRun(log, fixture(log), ['--expect-suite', 'ida'])

	def test_leak_scan(self) -> None:
		self.assertSameRun('leak-clean.log', fixture('leak-clean.log'), ['--expect-leak-scan'])
		self.assertSameRun('leak-report.log', fixture('leak-report.log'), ['--expect-leak-scan'])
		lines = [line.replace('done: 0 unreferenced', 'done: 3 unreferenced') for line in fixture('leak-clean.log')]
		self.assertSameRun('leak-count.log', lines, ['--expect-leak-scan'])

	def test_banner_smp_and_the_rest(self) -> None:
		lines = fixture('pass.log')
		at = next(n for n, line in enumerate(lines) if line.startswith('SMBIOS')) + 1
		lines[at:at] = ['smp: Brought up 1 node, 1 CPU\n', 'PM: DEBUG: suspend entered\n',
				'** 2 printk messages dropped **\n']
		image = os.path.join(self.tmp, 'vmlinux')
		with open(image, 'wb') as f:
			f.write(b'\x7fELF\0' + lines[0].replace('#2 SMP', '#3 SMP').encode() + b'\0')
		self.assertSameRun('boot.log', lines, ['--expect-cpus', '2', '--expect-banner-of', image])
		self.assertSameRun('second.log', fixture('x86_64-pass.log'), ['--expect-banner-of', image],
				   second=fixture('no-tests.log'))
		oops = fixture('pass.log')
		oops.insert(at + 8, 'BUG: kernel NULL pointer dereference, address: 0000000000000000\n')
		self.assertSameRun('oops.log', oops)


class OutputTest(ResultsTestCase):
	def test_xml_control_characters(self) -> None:
		run = self.run_main('control-chars.log')
		self.assertEqual(1, run.rc)
		with open(run.path('junit.xml'), 'rb') as f:
			raw = f.read()
		for c in (b'\x1b', b'\x00', b'\x07'):
			self.assertNotIn(c, raw)
		failure = dict(run.junit_cases())['ida.ida_test_max'].find('failure')
		assert failure is not None
		self.assertIn('\\x1b[31m\\x00\\x07Expected', failure.text or '')
		case = dict(run.json_cases())['ida.ida_test_max']
		self.assertEqual(failure.text, case['log'])
		self.assertSameCases(run)
		self.assertEqual('a\\x1bb\\x00', results.xml_clean('a\x1bb\x00'))

	def test_leg_json(self) -> None:
		vmlinux = os.path.join(self.tmp, 'vmlinux')
		with open(vmlinux, 'wb') as f:
			f.write(b'\x7fELF\x02\x01\x01\x00')
		# The x86_64 leg's own QEMU config, read as kunit_tool reads it
		# (kunit/qemu_params.py): 2 vCPUs.
		qemu = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'qemu_configs', 'x86_64.py')
		run = self.run_main('pass.log', args=['--leg-arch', 'x86_64', '--linux-arch', 'x86_64',
						      '--compiler', 'gcc 12', '--build-dir', '/build',
						      '--kunitconfig', 'kunitconfigs/ida.kunitconfig',
						      '--vmlinux', vmlinux, '--qemu-config', qemu])
		with open(run.path('leg.json'), encoding='utf-8') as f:
			leg: results.LegJson = json.load(f)
		self.assertEqual({'name': 'test', 'arch': 'x86_64', 'linux_arch': 'x86_64', 'compiler': 'gcc 12',
				  'build_dir': '/build', 'kunitconfigs': ['ida.kunitconfig'], 'word_size': 64,
				  'endianness': 'little', 'vcpus': 2}, leg)

	def test_leg_json_of_uml(self) -> None:
		# User Mode Linux has no QEMU config, and one CPU.
		run = self.run_main('pass.log', args=['--leg-arch', 'um', '--linux-arch', 'um'])
		with open(run.path('leg.json'), encoding='utf-8') as f:
			leg: results.LegJson = json.load(f)
		self.assertEqual(('um', 1), (leg['linux_arch'], leg.get('vcpus')))

	def test_failed_phase(self) -> None:
		build_log = self.write_log('build.log', ['make: *** [Makefile:1] Error 2\n'])
		run = self.run_main(build_log, args=['--failed-phase', 'build', '--message', 'the build failed'])
		self.assertEqual(1, run.rc)
		self.assertEqual({'passed': 0, 'failed': 0, 'skipped': 0, 'not_run': 0, 'verdict': 'FAIL',
				  'expected_warnings': 0, 'phase': 'build', 'hung': False, 'panicked': False,
				  'problems': [{'kind': 'build', 'message': 'the build failed'}], 'failed_cases': []},
				 run.counts)
		[(name, tc)] = run.junit_cases()
		self.assertEqual('kunit-run.build', name)
		failure = tc.find('failure')
		assert failure is not None
		self.assertEqual(('the build failed', 'make: *** [Makefile:1] Error 2\n'), (failure.get('message'), failure.text))
		self.assertFalse(os.path.exists(run.path('results.json')))


class CommandLineTest(ResultsTestCase):
	def assertOneError(self, run: Run, rc: int, message: str) -> None:
		self.assertEqual(rc, run.rc)
		self.assertEqual([message], run.stderr.splitlines())

	def test_help(self) -> None:
		p = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results.py'),
				    '--help'], capture_output=True, text=True, check=False)
		self.assertEqual(0, p.returncode, p.stderr)
		self.assertIn('--expect-banner-of IMAGE', p.stdout)

	def test_no_kunit_tool(self) -> None:
		missing = os.path.join(self.tmp, 'no-tree')
		argv = ['--kunit-tool', missing, '--arch', 'test', '--out', os.path.join(self.tmp, 'out'),
			'--log', test_data_path('pass.log')]
		stderr = io.StringIO()
		with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
			rc = results.main(argv)
		self.assertOneError(Run(rc, '', stderr.getvalue(), ''), 2,
				    f'error: no kunit_tool at {missing} (no kunit_parser.py)')

	def test_results_folder_is_a_file(self) -> None:
		path = self.write_log('a-file', ['x\n'])
		stderr = io.StringIO()
		with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(stderr):
			rc = results.main(['--kunit-tool', kunit_tool_path(), '--arch', 'test', '--out', path,
					   '--log', test_data_path('pass.log')])
		self.assertOneError(Run(rc, '', stderr.getvalue(), ''), 2, f'error: the results folder {path} is not a folder')

	def test_missing_qemu_config(self) -> None:
		qemu = os.path.join(self.tmp, 'qemu.py')
		run = self.run_main('pass.log', args=['--leg-arch', 'x86_64', '--qemu-config', qemu])
		self.assertOneError(run, 2, f'error: cannot read the QEMU config: no QEMU config {qemu}')

	def test_missing_log(self) -> None:
		"""A kernel log that cannot be read is a boot that left none: the
		results say so."""
		log = os.path.join(self.tmp, 'does-not-exist.log')
		run = self.run_main(log)
		self.assertOneError(run, 1, f'error: cannot read kernel log {log}: No such file or directory')
		self.assertEqual(['no test ran'], run.problems('no-tests'))
		self.assertEqual('FAIL', run.counts['verdict'])


if __name__ == '__main__':
	unittest.main()
