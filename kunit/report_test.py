#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of report.py, on the recorded results folders of
test_data/results/ (test_data/results/README.md says how each was made).

  python3 -m unittest discover -s kunit -p 'report_test.py'
"""

import contextlib
import html.parser
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Optional

import report

test_tmpdir = ''
abs_test_data_dir = ''
# The legs of the recorded run (run.json), and the one an earlier run
# left in the same folder.
RUN_LEGS = ['pass', 'fail', 'skip', 'panic', 'build-fail']
EARLIER_LEG = 'earlier'


def setUpModule() -> None:
	global test_tmpdir, abs_test_data_dir
	test_tmpdir = tempfile.mkdtemp()
	abs_test_data_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), 'test_data'))


def tearDownModule() -> None:
	shutil.rmtree(test_tmpdir)


def test_data_path(*path: str) -> str:
	return os.path.join(abs_test_data_dir, *path)


def recorded(*path: str) -> str:
	return test_data_path('results', *path)


def copy_of_results(name: str) -> str:
	"""A copy of the recorded results root to write in."""
	dest = os.path.join(test_tmpdir, name)
	shutil.copytree(recorded(), dest)
	return dest


def run_report(*args: str) -> tuple[int, str, str]:
	"""report.py's main() with args: exit code, stdout, stderr."""
	out, err = io.StringIO(), io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
		try:
			rc = report.main(list(args))
		except SystemExit as e:
			rc = e.code if isinstance(e.code, int) else 1
	return rc, out.getvalue(), err.getvalue()


def load_json_file(path: str) -> report.JsonObject:
	with open(path, encoding='utf-8') as f:
		return report.as_object(json.load(f))


def by_path(doc: report.Kcidb) -> dict[str, report.KcidbTest]:
	"""The tests of a kcidb submission by "path@leg" (the leg is the end of
	the build id)."""
	tests = {}
	for t in doc['tests']:
		leg = t['build_id'].split(':', 1)[1].split('-', 2)[-1]
		tests[f'{t.get("path")}@{leg}'] = t
	return tests


def schema() -> object:
	with open(report.SCHEMA, encoding='utf-8') as f:
		value: object = json.load(f)
	return value


class LoadLegTest(unittest.TestCase):

	def case(self, leg: report.Leg, full_name: str) -> report.Case:
		found = [c for c in leg.cases if c.full_name == full_name]
		self.assertEqual(len(found), 1, f'{full_name} in {[c.full_name for c in leg.cases]}')
		return found[0]

	def test_passing_leg(self) -> None:
		leg = report.load_leg(recorded('pass'))
		self.assertEqual(leg.name, 'pass')
		self.assertEqual(leg.counts.verdict, 'PASS')
		self.assertEqual(len(leg.cases), 10)
		self.assertEqual({c.status for c in leg.cases}, {'PASS'})
		self.assertTrue(all(c.duration is not None for c in leg.cases))
		# The cases of the slow boot are in the same suite.
		self.assertAlmostEqual(self.case(leg, 'ida.ida_test_random_long').duration or 0, 3.573)
		self.assertEqual(leg.info.vcpus, 2)
		self.assertEqual(leg.times.build, 231)

	def test_parameters_are_case_dot_param(self) -> None:
		leg = report.load_leg(recorded('pass'))
		params = [c for c in leg.cases if c.base == 'ida_test_leaf']
		self.assertEqual([c.name for c in params],
				 ['ida_test_leaf.base 0', 'ida_test_leaf.base 1024', 'ida_test_leaf.base 65536'])
		self.assertEqual([c.param for c in params], ['base 0', 'base 1024', 'base 65536'])
		self.assertEqual({c.suite for c in params}, {'ida'})

	def test_failing_leg_has_message_and_log(self) -> None:
		leg = report.load_leg(recorded('fail'))
		case = self.case(leg, 'ida.ida_test_max')
		self.assertEqual(case.status, 'FAIL')
		self.assertTrue(case.message.startswith('ida_test_max: EXPECTATION FAILED'), case.message)
		self.assertIn('Expected ida_alloc_min(ida, base, GFP_KERNEL) == -ENOSPC', case.log)
		self.assertAlmostEqual(case.duration or 0, 0.198)
		# A failed case is no failure of the run.
		self.assertNotIn(report.RUN_SUITE, {c.suite for c in leg.cases})

	def test_skip_has_its_reason(self) -> None:
		leg = report.load_leg(recorded('skip'))
		case = self.case(leg, 'ida.ida_test_max')
		self.assertEqual(case.status, 'SKIP')
		self.assertEqual(case.message, 'fault injection is not configured')
		self.assertEqual(leg.counts.skipped, 1)

	def test_crashed_leg(self) -> None:
		leg = report.load_leg(recorded('panic'))
		crashed = [c for c in leg.cases if c.status == 'ERROR']
		self.assertEqual([c.name for c in crashed], [f'case {n} never reported' for n in range(3, 7)])
		self.assertEqual({c.duration for c in crashed}, {None})
		run = self.case(leg, 'kunit-run.boot')
		self.assertEqual(run.status, 'FAIL')
		self.assertIn('the kernel panicked', run.message)
		self.assertIn('Kernel panic - not syncing', run.log)
		self.assertIsNone(run.duration)

	def test_stop_before_the_boot(self) -> None:
		leg = report.load_leg(recorded('build-fail'))
		self.assertEqual(leg.counts.phase, 'build')
		self.assertEqual([c.full_name for c in leg.cases], ['kunit-run.build'])
		self.assertIn('kernel build failed for sparc32', leg.cases[0].message)
		self.assertIn('BUILD_BUG_ON failed', leg.cases[0].log)

	def test_results_json_without_the_added_keys(self) -> None:
		# An older results.py wrote neither durations, messages nor logs.
		leg = report.load_leg(recorded(EARLIER_LEG))
		self.assertEqual(len([c for c in leg.cases if c.suite == 'ida']), 8)
		self.assertEqual({c.duration for c in leg.cases if c.suite == 'ida'}, {None})
		self.assertEqual({c.message for c in leg.cases if c.suite == 'ida'}, {''})
		self.assertIn('expected 2 warnings', self.case(leg, 'kunit-run.boot').message)

	def test_shapes_of_results_json(self) -> None:
		# A suite that ran no case is a case of the top level; a case
		# without the added keys, or with a status kunit_tool does not
		# write, is still a case.
		doc: report.JsonObject = {
			'name': 'KUnit Test Group',
			'sub_groups': [{'name': 'ida', 'sub_groups': [
				{'name': 'ida_test_range', 'sub_groups': [], 'test_cases': [
					{'name': '0..9', 'status': 'PASS', 'duration': 0.5, 'message': '', 'log': ''},
					{'name': 'max', 'status': 'SKIP', 'duration': None, 'message': 'why',
					 'log': ''}]}],
				'test_cases': [{'name': 'ida_test_alloc', 'status': 'CRASHED'},
					       {'name': 'ida_test_conv', 'status': 'PASS', 'duration': 2}]}],
			'test_cases': [{'name': 'empty_suite', 'status': 'FAIL', 'message': 'suite init failed'}]}
		cases = report.group_cases(doc, None, ())
		self.assertEqual([(c.full_name, c.status, c.duration, c.message) for c in cases], [
			('ida.ida_test_range.0..9', 'PASS', 0.5, ''),
			('ida.ida_test_range.max', 'SKIP', None, 'why'),
			('ida.ida_test_alloc', 'ERROR', None, ''),
			('ida.ida_test_conv', 'PASS', 2, ''),
			('empty_suite', 'FAIL', None, 'suite init failed')])
		self.assertEqual(cases[0].parts, ('ida_test_range', '0..9'))
		# A dot in a parameter stays in its path component.
		self.assertEqual(report.test_of(cases[0], report.load_leg(recorded('pass')), 'b')['path'],
				 'ida.ida_test_range.0_9')

	def test_unreadable_results_json_is_a_failure(self) -> None:
		leg_dir = os.path.join(test_tmpdir, 'unreadable')
		shutil.copytree(recorded('pass'), leg_dir)
		with open(os.path.join(leg_dir, 'results.json'), 'w', encoding='utf-8') as f:
			f.write('{"name": "KUnit Test Group", "sub_gr')
		leg = report.load_leg(leg_dir)
		self.assertEqual([(c.full_name, c.status) for c in leg.cases], [('kunit-run.results', 'FAIL')])

	def test_folder_without_counts(self) -> None:
		leg_dir = os.path.join(test_tmpdir, 'no-counts')
		os.makedirs(leg_dir)
		leg = report.load_leg(leg_dir)
		self.assertEqual(leg.counts.failed_with_problems, 1)
		self.assertEqual(leg.cases[0].status, 'FAIL')


class KcidbTest(unittest.TestCase):

	def setUp(self) -> None:
		self.doc = report.kcidb(report.load_run(recorded()))

	def test_valid_against_the_schema(self) -> None:
		self.assertIsNone(report.schema_violation(json.loads(json.dumps(self.doc)), schema()))

	def test_builds_are_this_runs_legs(self) -> None:
		legs = [b.get('misc', {}).get('leg') for b in self.doc['builds'] if b.get('config_name') != 'checks']
		self.assertEqual(legs, RUN_LEGS)
		self.assertNotIn(EARLIER_LEG, json.dumps(self.doc['builds']))
		status = {b.get('misc', {}).get('leg'): b.get('status') for b in self.doc['builds']}
		self.assertEqual(status['build-fail'], 'FAIL')
		self.assertEqual(status['panic'], 'PASS')

	def test_statuses(self) -> None:
		t = by_path(self.doc)
		self.assertEqual(t['ida.ida_test_max@fail']['status'], 'FAIL')
		self.assertIn('EXPECTATION FAILED', t['ida.ida_test_max@fail'].get('log_excerpt', ''))
		self.assertIn('-ENOSPC == -28', t['ida.ida_test_max@fail'].get('log_excerpt', ''))
		self.assertEqual(t['ida.ida_test_max@skip']['status'], 'SKIP')
		self.assertEqual(t['ida.ida_test_max@skip'].get('comment'), 'fault injection is not configured')
		self.assertEqual(t['ida.ida_test_leaf.base_1024@fail']['status'], 'PASS')
		self.assertEqual(t['ida.case_3_never_reported@panic']['status'], 'ERROR')
		self.assertEqual(t['kunit-run.boot@panic']['status'], 'FAIL')
		self.assertIn('panicked', t['kunit-run.boot@panic'].get('log_excerpt', ''))
		self.assertEqual(t['kunit-run.build@build-fail']['status'], 'FAIL')
		self.assertEqual(t['checks.shellcheck@checks']['status'], 'FAIL')
		self.assertIn('SC2086', t['checks.shellcheck@checks'].get('log_excerpt', ''))
		self.assertEqual(t['checks.kunit-hang-is-failure@checks']['status'], 'SKIP')

	def test_durations(self) -> None:
		t = by_path(self.doc)
		self.assertAlmostEqual(t['ida.ida_test_max@fail'].get('duration', -1), 0.198)
		self.assertAlmostEqual(t['ida.ida_test_leaf.base_65536@pass'].get('duration', -1), 0.049)
		# Unknown: no duration at all, not 0.
		self.assertNotIn('duration', t['ida.case_4_never_reported@panic'])
		self.assertNotIn('duration', t['kunit-run.boot@panic'])
		self.assertEqual(t['checks.distro-tree@checks'].get('duration'), 41)

	def test_checkout_names_package_version_and_series(self) -> None:
		(checkout,) = self.doc['checkouts']
		self.assertEqual(checkout.get('git_commit_name'), 'Debian linux-source-6.12 6.12.57-1')
		self.assertEqual(checkout.get('comment'),
				 '15 patches on linux-source-6.12 6.12.57-1 and 1 tree fixes, head 1111111111aa')
		misc = checkout.get('misc', {})
		self.assertEqual(misc.get('tree_version'), '6.12.57-1')
		self.assertEqual(misc.get('series'), checkout.get('comment'))
		self.assertEqual(len(report.as_list(misc.get('patches'))), 15)
		self.assertEqual(checkout.get('tree_name'), 'debian-linux-source-6.12')
		self.assertEqual(checkout.get('git_commit_hash'), '0' * 40)
		self.assertEqual(checkout.get('patchset_hash'), 'a' * 64)
		self.assertIs(checkout.get('valid'), True)

	def test_checkout_without_the_new_run_json_keys(self) -> None:
		info = report.RunInfo(run_id='1-x', package='linux-source-6.12', version='6.12.38-1',
				      patches=['a.patch', 'b.patch'])
		checkout = report.checkout_of(info, 'ida_kunit:1-x')
		self.assertEqual(checkout.get('git_commit_name'), 'Debian linux-source-6.12 6.12.38-1')
		self.assertEqual(checkout.get('comment'), '2 patches of kernel-patches/ on the distro tree')
		self.assertIs(checkout.get('valid'), False)

	def test_ids(self) -> None:
		for kind, ids in (('checkouts', [x['id'] for x in self.doc['checkouts']]),
				  ('builds', [x['id'] for x in self.doc['builds']]),
				  ('tests', [x['id'] for x in self.doc['tests']])):
			self.assertEqual(len(ids), len(set(ids)), kind)
			self.assertTrue(all(i.startswith('ida_kunit:1796300000-0123456789ab') for i in ids), kind)

	def test_architecture_from_a_leg_name(self) -> None:
		# Without leg.json the architecture comes from the leg's name,
		# which may have characters kcidb does not allow there.
		self.assertEqual(report.arch_part('x86_64-debug'), 'x86_64_debug')


class ValidateTest(unittest.TestCase):

	def write(self, name: str, doc: object) -> str:
		path = os.path.join(test_tmpdir, name)
		with open(path, 'w', encoding='utf-8') as f:
			json.dump(doc, f)
		return path

	def test_valid(self) -> None:
		path = self.write('valid.json', report.kcidb(report.load_run(recorded())))
		rc, out, err = run_report('validate', path)
		self.assertEqual((rc, err), (0, ''))
		self.assertTrue(out.startswith('valid: '))

	def test_first_violation_named(self) -> None:
		doc = json.loads(json.dumps(report.kcidb(report.load_run(recorded()))))
		doc['tests'][12]['status'] = 'BROKEN'
		doc['tests'][3]['duration'] = '0.5'
		rc, out, err = run_report('validate', self.write('invalid.json', doc))
		self.assertEqual(rc, 1)
		self.assertEqual(len(err.splitlines()), 1)
		self.assertRegex(err, r'^error: .*invalid\.json: .*tests\[3\]\.duration: ')

	def test_not_json(self) -> None:
		path = os.path.join(test_tmpdir, 'not.json')
		with open(path, 'w', encoding='utf-8') as f:
			f.write('{')
		rc, _, err = run_report('validate', path)
		self.assertEqual(rc, 1)
		self.assertTrue(err.startswith('error: ') and len(err.splitlines()) == 1, err)


class ParsedPage(html.parser.HTMLParser):
	"""What a test needs of index.html: the legs' rows, the case rows, the
	headings, the text; and every element closed in order."""
	VOID = {'meta', 'br', 'hr', 'img', 'input', 'link', 'wbr'}

	def __init__(self) -> None:
		super().__init__()
		self.stack: list[str] = []
		self.errors: list[str] = []
		self.legs: dict[str, tuple[int, int, int]] = {}
		self.cases: list[dict[str, str]] = []
		self.checks: list[str] = []
		self.headings: list[str] = []
		self.text: list[str] = []

	def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
		a = {k: v or '' for k, v in attrs}
		if tag == 'tr' and 'data-passed' in a:
			self.legs[a['data-leg']] = (int(a['data-passed']), int(a['data-failed']),
						    int(a['data-skipped']))
		elif tag == 'tr' and 'data-case' in a:
			self.cases.append(a)
		elif tag == 'tr' and 'data-check' in a:
			self.checks.append(a['data-check'])
		if tag == 'h3':
			self.headings.append(a.get('id', ''))
		if tag not in self.VOID:
			self.stack.append(tag)

	def handle_endtag(self, tag: str) -> None:
		if not self.stack or self.stack[-1] != tag:
			self.errors.append(f'</{tag}> closes {self.stack[-1:] or "nothing"}')
			return
		self.stack.pop()

	def handle_data(self, data: str) -> None:
		self.text.append(data)


def parse_page(path: str) -> ParsedPage:
	page = ParsedPage()
	with open(path, encoding='utf-8') as f:
		page.feed(f.read())
	page.close()
	return page


def parse_page_text(text: str) -> list[str]:
	page = ParsedPage()
	page.feed(text)
	page.close()
	return page.text


class HtmlTest(unittest.TestCase):

	def test_page(self) -> None:
		results = copy_of_results('html')
		rc, out, err = run_report('html', results)
		self.assertEqual((rc, err), (0, ''))
		page = parse_page(os.path.join(results, 'index.html'))
		self.assertEqual(page.errors, [])
		self.assertEqual(page.stack, [])
		want = {}
		for name in RUN_LEGS:
			c = load_json_file(recorded(name, 'counts.json'))
			want[name] = (report.get_int(c, 'passed'), report.get_int(c, 'failed'),
				      report.get_int(c, 'skipped'))
		self.assertEqual(page.legs, want)
		self.assertEqual(page.headings, [f'leg-{n}' for n in RUN_LEGS])
		with open(recorded('checks', 'checks.txt'), encoding='utf-8') as f:
			self.assertEqual(page.checks, [line.split()[0] for line in f])
		text = ' '.join(page.text)
		self.assertIn('ida_test_max: EXPECTATION FAILED', text)
		self.assertIn('6.12.57-1', text)
		self.assertIn('15 patches on linux-source-6.12', text)

	def test_case_seconds(self) -> None:
		results = copy_of_results('html-seconds')
		run_report('html', results)
		page = parse_page(os.path.join(results, 'index.html'))
		seconds = {(r['data-leg'], r['data-case']): r['data-seconds'] for r in page.cases}
		self.assertEqual(seconds[('fail', 'ida.ida_test_max')], '0.198')
		# A parameterised case: its parameters' seconds together.
		self.assertEqual(seconds[('pass', 'ida.ida_test_leaf')], '0.114')
		self.assertEqual(seconds[('panic', 'ida.case 5 never reported')], '-')
		self.assertNotIn(EARLIER_LEG, {r['data-leg'] for r in page.cases})

	def test_history_one_line_per_run(self) -> None:
		results = copy_of_results('history')
		for _ in range(2):
			self.assertEqual(run_report('html', results)[0], 0)
		with open(os.path.join(results, 'history.jsonl'), encoding='utf-8') as f:
			lines = [json.loads(line) for line in f]
		self.assertEqual(len(lines), 1)
		self.assertEqual((lines[0]['passed'], lines[0]['failed'], lines[0]['skipped']), (245, 5, 2))

	def test_all_writes_both(self) -> None:
		results = copy_of_results('all')
		rc, _, _ = run_report('all', results)
		self.assertEqual(rc, 0)
		doc = load_json_file(os.path.join(results, 'kcidb.json'))
		self.assertIsNone(report.schema_violation(doc, schema()))
		self.assertTrue(os.path.isfile(os.path.join(results, 'index.html')))


MARKDOWN_ROW_RE = re.compile(r'^\|(.*)\|$')


def markdown_table(text: str) -> list[list[str]]:
	"""The rows of the first Markdown table in text, cells stripped."""
	rows = []
	for line in text.splitlines():
		m = MARKDOWN_ROW_RE.match(line)
		if m:
			rows.append([c.strip() for c in m.group(1).split('|')])
		elif rows:
			break
	return [r for r in rows if not all(set(c) <= {'-'} for c in r)]


CASE_BULLET_RE = re.compile(r'^- (?:\*\*(\w+)\*\*|(skipped)) `([^`]*)`: (.*?)(?: \((\d+\.\d+) s\))?$')


def case_bullets(text: str) -> dict[str, tuple[str, str, Optional[float]]]:
	"""The case lines of a leg's summary: case -> (status word, message,
	seconds)."""
	found = {}
	for line in text.splitlines():
		m = CASE_BULLET_RE.match(line)
		if m:
			found[m.group(3)] = (m.group(1) or m.group(2), m.group(4),
					     float(m.group(5)) if m.group(5) else None)
	return found


class SummaryTest(unittest.TestCase):

	def test_failed_leg(self) -> None:
		rc, out, _ = run_report('summary', recorded('fail'))
		self.assertEqual(rc, 0)
		header, row = markdown_table(out)
		self.assertEqual(dict(zip(header, row)),
				 {'passed': '9', 'failed': '1', 'skipped': '0', 'problems': '0',
				  'configure': '0 s', 'build': '14 s', 'run': '9 s'})
		status, message, seconds = case_bullets(out)['ida.ida_test_max']
		self.assertEqual(status, 'failed')
		self.assertTrue(message.startswith('ida_test_max: EXPECTATION FAILED'))
		self.assertEqual(seconds, 0.198)
		first_lines = [line.strip() for line in out.split('```')[1].splitlines()]
		self.assertIn('Expected ida_alloc_min(ida, base, GFP_KERNEL) == -ENOSPC, but', first_lines)

	def test_skip(self) -> None:
		_, out, _ = run_report('summary', recorded('skip'))
		self.assertEqual(case_bullets(out)['ida.ida_test_max'],
				 ('skipped', 'fault injection is not configured', 0.027))

	def test_crash_shows_the_end_of_the_kernel_log(self) -> None:
		_, out, _ = run_report('summary', recorded('panic'))
		bullets = case_bullets(out)
		self.assertEqual(bullets['ida.case 3 never reported'][0], 'error')
		self.assertEqual(bullets['kunit-run.boot'][0], 'failed')
		self.assertIsNone(bullets['kunit-run.boot'][2])
		self.assertTrue(out.split('```')[-2].strip().endswith('Kernel panic - not syncing: Fatal exception'))

	def test_checks(self) -> None:
		rc, out, _ = run_report('summary', recorded())
		self.assertEqual(rc, 0)
		self.assertTrue(out.startswith('### Checks: 245 passed, 5 failed, 2 skipped'))
		rows = markdown_table(out)
		self.assertEqual(rows[0], ['check', 'status', 'seconds'])
		self.assertIn(['shellcheck', 'FAIL', '2'], rows)
		self.assertIn('**shellcheck** failed:', out.splitlines())


LINE_RE = re.compile(r'^(?P<leg>\S+): (?P<verdict>[^:]+): (?P<passed>\d+) passed, (?P<failed>\d+) failed, '
		     r'(?P<skipped>\d+) skipped; (?P<word>\S+) (?P<endian>\S+) endian, (?P<up>\S+) of '
		     r'(?P<vcpus>\S+) vCPUs up; build (?P<build>\S+) s, run (?P<run>\S+) s(?:; (?P<problem>.*))?$')


class ArchesTest(unittest.TestCase):

	def line(self, leg: str) -> dict[str, Optional[str]]:
		rc, out, err = run_report('line', recorded(leg))
		self.assertEqual((rc, err), (0, ''))
		m = LINE_RE.match(out.rstrip('\n'))
		assert m is not None, out
		return m.groupdict()

	def test_line_of_a_crashed_leg(self) -> None:
		f = self.line('panic')
		# One failure for the crashed case, one for the run.
		self.assertEqual((f['verdict'], f['passed'], f['failed']), ('FAIL', '2', '2'))
		self.assertEqual(f['problem'],
				 'unexpected kernel report: BUG: kernel NULL pointer dereference, address: 0000000000000000')

	def test_line_of_a_passing_leg(self) -> None:
		f = self.line('pass')
		self.assertEqual((f['verdict'], f['failed'], f['word'], f['endian'], f['up'], f['vcpus']),
				 ('PASS', '0', '64-bit', 'little', '2', '2'))
		self.assertIsNone(f['problem'])

	def test_line_of_a_build_failure(self) -> None:
		f = self.line('build-fail')
		self.assertEqual((f['failed'], f['build']), ('1', '-'))
		self.assertIn('kernel build failed', f['problem'] or '')

	def test_table(self) -> None:
		rc, out, _ = run_report('arches', recorded())
		self.assertEqual(rc, 0)
		rows = markdown_table(out)
		self.assertEqual([r[0] for r in rows[1:]], RUN_LEGS)
		table = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
		self.assertEqual(table['skip']['skipped'], '1')
		self.assertEqual(table['build-fail']['Linux arch'], 'sparc')

	def test_table_of_named_legs(self) -> None:
		rc, out, _ = run_report('arches', recorded(), 'skip', EARLIER_LEG, 'never-ran')
		self.assertEqual(rc, 0)
		rows = markdown_table(out)
		self.assertEqual([r[0] for r in rows[1:]], ['skip', EARLIER_LEG, 'never-ran'])
		self.assertEqual(rows[3][-1], 'no result')


class CommandLineTest(unittest.TestCase):

	def test_help_everywhere(self) -> None:
		commands: list[list[str]] = [[], ['kcidb'], ['validate'], ['summary'], ['html'], ['all'],
					     ['arches'], ['line'], ['gather']]
		for args in commands:
			rc, out, _ = run_report(*args, '--help')
			self.assertEqual(rc, 0, args)
			self.assertTrue(out.startswith('usage: report.py'), args)

	def test_unknown_option(self) -> None:
		bad: list[list[str]] = [['--bogus'], ['kcidb', recorded(), '--bogus'],
					['line', '-x', recorded('pass')], [], ['frobnicate']]
		for args in bad:
			rc, _, err = run_report(*args)
			self.assertEqual(rc, 2, args)
			self.assertIn('error:', err)

	def test_missing_or_file_path(self) -> None:
		missing = os.path.join(test_tmpdir, 'does-not-exist')
		a_file = recorded('run.json')
		for args in (['kcidb', missing], ['summary', missing], ['html', missing], ['all', missing],
			     ['arches', missing], ['line', missing], ['kcidb', a_file], ['line', a_file],
			     ['summary', a_file], ['gather', os.path.join(test_tmpdir, 'g-missing'), missing]):
			rc, out, err = run_report(*args)
			self.assertEqual(rc, 1, args)
			self.assertEqual(len(err.splitlines()), 1, (args, err))
			self.assertTrue(err.startswith('error: '), (args, err))

	def test_no_traceback(self) -> None:
		# As a command: one line on stderr, no traceback.
		script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'report.py')
		r = subprocess.run([sys.executable, script, 'line', os.path.join(test_tmpdir, 'nothing-here')],
				   capture_output=True, text=True, check=False)
		self.assertEqual(r.returncode, 1)
		self.assertEqual(r.stderr.splitlines(), [f'error: {test_tmpdir}/nothing-here: no such leg results folder'])

	def test_empty_results_root(self) -> None:
		empty = os.path.join(test_tmpdir, 'empty-results')
		os.makedirs(empty)
		for args in (['kcidb', empty], ['all', empty], ['html', empty], ['arches', empty]):
			rc, _, err = run_report(*args)
			self.assertEqual(rc, 1, args)
			self.assertTrue(err.startswith('error: no leg'), err)
		self.assertEqual(os.listdir(empty), [])

	def test_earlier_legs_are_not_reported(self) -> None:
		run = report.load_run(recorded())
		self.assertEqual([leg.name for leg in run.legs], RUN_LEGS)

	def test_without_legs_in_run_json_every_leg_folder(self) -> None:
		results = copy_of_results('no-legs-key')
		info = load_json_file(os.path.join(results, 'run.json'))
		del info['legs']
		with open(os.path.join(results, 'run.json'), 'w', encoding='utf-8') as f:
			json.dump(info, f)
		run = report.load_run(results)
		self.assertEqual([leg.name for leg in run.legs], sorted(RUN_LEGS + [EARLIER_LEG]))

	def test_kcidb_out(self) -> None:
		out = os.path.join(test_tmpdir, 'kcidb-out.json')
		rc, _, _ = run_report('kcidb', recorded(), '--out', out)
		self.assertEqual(rc, 0)
		self.assertIsNone(report.schema_violation(load_json_file(out), schema()))
		self.assertFalse(os.path.exists(recorded('kcidb.json')))


class GatherTest(unittest.TestCase):
	"""The CI artifacts of a run: the results root of the checks (no legs)
	and one folder per leg, named kunit-LEG, as one results root."""

	def artifacts(self, name: str) -> str:
		where = os.path.join(test_tmpdir, name)
		checks = os.path.join(where, 'checks')
		os.makedirs(checks)
		for entry in ('checks', 'times.json'):
			src = recorded(entry)
			if os.path.isdir(src):
				shutil.copytree(src, os.path.join(checks, entry))
			else:
				shutil.copy(src, checks)
		info = load_json_file(recorded('run.json'))
		info['legs'] = []
		with open(os.path.join(checks, 'run.json'), 'w', encoding='utf-8') as f:
			json.dump(info, f)
		with open(os.path.join(checks, 'summary.txt'), 'w', encoding='utf-8') as f:
			f.write('total time 320s\nfailed: shellcheck\n217 passed, 1 failed, 1 skipped\n')
		for leg in RUN_LEGS:
			shutil.copytree(recorded(leg), os.path.join(where, f'kunit-{leg}'))
		return where

	def listing(self, top: str) -> list[str]:
		return sorted(os.path.relpath(os.path.join(d, f), top)
			      for d, _, files in os.walk(top) for f in files)

	def test_gather_then_all(self) -> None:
		art = self.artifacts('art-all')
		before = self.listing(art)
		out = os.path.join(test_tmpdir, 'gathered')
		dirs = [os.path.join(art, 'checks')] + [os.path.join(art, f'kunit-{leg}') for leg in RUN_LEGS]
		rc, _, err = run_report('gather', out, *dirs)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(self.listing(art), before)
		info = load_json_file(os.path.join(out, 'run.json'))
		self.assertEqual(info['legs'], RUN_LEGS)
		self.assertEqual(info['tree_version'], '6.12.57-1')
		rc, _, err = run_report('all', out)
		self.assertEqual((rc, err), (0, ''))
		doc = load_json_file(os.path.join(out, 'kcidb.json'))
		self.assertIsNone(report.schema_violation(doc, schema()))
		builds = [report.as_object(b) for b in report.as_list(doc.get('builds'))]
		self.assertEqual([report.as_object(b.get('misc')).get('leg') for b in builds],
				 RUN_LEGS + [None])
		self.assertEqual(builds[-1].get('config_name'), 'checks')
		page = parse_page(os.path.join(out, 'index.html'))
		self.assertEqual(sorted(page.legs), sorted(RUN_LEGS))
		self.assertEqual(page.errors, [])
		# The whole run's counts: the checks' and every leg's.
		with open(os.path.join(out, 'summary.txt'), encoding='utf-8') as f:
			lines = f.read().splitlines()
		self.assertEqual(lines[-1], '245 passed, 5 failed, 2 skipped')
		self.assertEqual(lines[-2], 'failed: shellcheck kunit-fail kunit-panic kunit-build-fail')

	def test_folder_of_artifacts(self) -> None:
		# A download of every artifact: one folder holding them all,
		# and OUT may be in it.
		art = self.artifacts('art-folder')
		out = os.path.join(art, 'all')
		rc, _, err = run_report('gather', out, art)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(sorted(report.load_run(out).info.legs or []), sorted(RUN_LEGS))

	def test_benchmark_artifact(self) -> None:
		# The benchmark's artifact: bench/ and the bench-kernel leg.
		art = self.artifacts('art-bench')
		bench = os.path.join(art, 'bench')
		os.makedirs(os.path.join(bench, 'bench'))
		for rev, ida in (('pristine', 610), ('ida-kunit', 500)):
			with open(os.path.join(bench, 'bench', f'userspace-{rev}.json'), 'w', encoding='utf-8') as f:
				json.dump({'kind': 'userspace', 'label': rev, 'rev': rev, 'instructions_per_op':
					   {'seq_alloc_64K': {'ida': ida, 'idr': 520, 'bitmap': 93}}}, f)
		shutil.copytree(recorded('pass'), os.path.join(bench, 'bench-kernel'))
		with open(os.path.join(bench, 'bench-kernel', 'leg.json'), 'w', encoding='utf-8') as f:
			json.dump({'name': 'bench-kernel', 'arch': 'x86_64'}, f)
		out = os.path.join(test_tmpdir, 'gathered-bench')
		rc, _, err = run_report('gather', out, art)
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(sorted(report.load_run(out).info.legs or []), sorted(RUN_LEGS + ['bench-kernel']))
		self.assertEqual(report.BenchRun.load(os.path.join(out, 'bench', 'userspace-ida-kunit.json')).per_op,
				 {'seq_alloc_64K': {'ida': 500, 'idr': 520, 'bitmap': 93}})
		self.assertEqual(run_report('html', out)[0], 0)
		with open(os.path.join(out, 'index.html'), encoding='utf-8') as f:
			self.assertIn('IDA ida-kunit', ' '.join(parse_page_text(f.read())))

	def test_leg_name_without_leg_json(self) -> None:
		art = self.artifacts('art-names')
		os.remove(os.path.join(art, 'kunit-build-fail', 'leg.json'))
		os.rename(os.path.join(art, 'kunit-pass'), os.path.join(art, 'x86_64-artifact'))
		out = os.path.join(test_tmpdir, 'gathered-names')
		self.assertEqual(run_report('gather', out, art)[0], 0)
		# leg.json names a leg; without it, the folder without "kunit-".
		self.assertEqual(sorted(report.load_run(out).info.legs or []), sorted(RUN_LEGS))

	def test_refuses_a_folder_it_did_not_make(self) -> None:
		art = self.artifacts('art-refuse')
		out = os.path.join(test_tmpdir, 'not-gathered')
		os.makedirs(out)
		with open(os.path.join(out, 'notes.txt'), 'w', encoding='utf-8') as f:
			f.write('mine\n')
		rc, _, err = run_report('gather', out, art)
		self.assertEqual(rc, 1)
		self.assertTrue(err.startswith('error: ') and len(err.splitlines()) == 1, err)
		self.assertEqual(os.listdir(out), ['notes.txt'])
		rc, _, err = run_report('gather', os.path.join(out, 'notes.txt'), art)
		self.assertEqual(rc, 1)

	def test_again_replaces_only_its_own(self) -> None:
		art = self.artifacts('art-again')
		out = os.path.join(test_tmpdir, 'gathered-again')
		self.assertEqual(run_report('gather', out, art)[0], 0)
		self.assertEqual(run_report('all', out)[0], 0)
		with open(os.path.join(out, 'notes.txt'), 'w', encoding='utf-8') as f:
			f.write('mine\n')
		rc, _, err = run_report('gather', out, os.path.join(art, 'checks'), os.path.join(art, 'kunit-pass'))
		self.assertEqual((rc, err), (0, ''))
		self.assertEqual(report.load_run(out).info.legs, ['pass'])
		entries = set(os.listdir(out))
		self.assertNotIn('fail', entries)
		self.assertTrue({'notes.txt', 'kcidb.json', 'index.html', 'history.jsonl'} <= entries)

	def test_two_legs_of_one_name(self) -> None:
		art = self.artifacts('art-twice')
		shutil.copytree(os.path.join(art, 'kunit-pass'), os.path.join(art, 'kunit-pass-again'))
		rc, _, err = run_report('gather', os.path.join(test_tmpdir, 'gathered-twice'), art)
		self.assertEqual(rc, 1)
		self.assertIn('two legs named pass', err)
		self.assertFalse(os.path.exists(os.path.join(test_tmpdir, 'gathered-twice')))

	def test_legs_without_the_checks(self) -> None:
		art = self.artifacts('art-legs-only')
		out = os.path.join(test_tmpdir, 'gathered-legs-only')
		rc, _, _ = run_report('gather', out, os.path.join(art, 'kunit-fail'), os.path.join(art, 'kunit-skip'))
		self.assertEqual(rc, 0)
		run = report.load_run(out)
		self.assertEqual([leg.name for leg in run.legs], ['fail', 'skip'])
		self.assertEqual(run.checks, [])
		self.assertIsNone(report.schema_violation(json.loads(json.dumps(report.kcidb(run))), schema()))


if __name__ == '__main__':
	unittest.main()
