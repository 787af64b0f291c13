#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the kernel logs of a leg's kunit.py boots into results files.

Parses each log (--log, once per boot: a leg boots once for the cases of
normal speed and once for the slow ones) with kunit_tool's own KTAP parser
(kunit_parser, from the kernel tree given with --kunit-tool), merges the
boots' results suite by suite, and writes into --out.  A --program-log is
KTAP a program printed from userspace in one of the boots (kunit/users):
its suites join the boots' with no check of a boot (banner, leak scan).
What it writes:

  ktap.log      the KTAP lines kunit_tool extracted from the kernel log
  results.json  kunit_tool's KernelCI-style JSON (kunit_json), each object
                of a "test_cases" list with three keys added:
                  "duration"  seconds the case took, from the printk
                              timestamps of the log (the time from the KTAP
                              line before its result line to that line), or
                              null when the log has none (and for a case
                              that never reported);
                  "message"   the failure, crash or skip reason junit.xml
                              gives the case ("" when it passed);
                  "log"       the case's log, as junit.xml carries it (""
                              when none).
                Characters XML does not allow are written as \\xNN in both,
                so that the two say the same.  The cases that never
                reported (a crash stopped the suite) are named "case N
                never reported", N their place in the plan, in both
  junit.xml     JUnit XML: one testsuite per KUnit suite, one testcase per
                case (per parameter for parameterised cases) with its time
                (0 without timestamps), failures and crashes with their
                messages, skips with their reasons; a run that went wrong
                beside its cases adds a failed kunit-run.boot case
  summary.txt   kunit_tool's human-readable report
  counts.json   {"passed": N, "failed": N, "skipped": N, "not_run": N (the
                cases of a suite's plan after the one the kernel stopped in,
                which count as one failure with it), "verdict": "PASS" or
                "FAIL", "phase": the phase the leg reached (config, build,
                run), "hung", "panicked": booleans, "problems": [{"kind",
                "message"}] for whatever went wrong beside failed cases,
                "failed_cases", "expected_warnings"}
  leg.json      what the leg is, for the reports: with --leg-arch, its name,
                arch, kernel arch, compiler, build folder and kunitconfigs;
                with --vmlinux and --qemu-config also the kernel's word size
                and byte order (from vmlinux's ELF header) and the vCPUs
                QEMU gives it (-smp)

Every check of the log reads it the same with or without printk timestamps
("[    1.234567] " in front of each line, printk.time=1).

It prints one summary line and exits 0 only when every case passed or was
skipped, at least one case ran, every --expect-suite ran, the boot
neither panicked nor timed out, and with --expect-leak-scan every boot's
kmemleak scan ran and reported nothing.  A path it cannot use (kunit_tool,
a QEMU config, the results folder) is one "error: " line and exit 2; a
kernel log that cannot be read is an "error: " line too, and a boot that
left no log in the results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import mmap
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import TYPE_CHECKING, IO, Iterator, Optional, Sequence, TypedDict

import qemu_params

if TYPE_CHECKING:
	# kunit_tool, typed upstream.  At run time the modules come from the
	# tree given with --kunit-tool: load_kunit_tool() imports them.
	import kunit_json
	import kunit_parser
	import kunit_printer
	from kunit_parser import Test, TestStatus

# printk could not keep up: what the log reader sees is incomplete.
DROPPED_RE = re.compile(r'\*\* (\d+) printk messages dropped \*\*')
PANIC_RE = re.compile(r'Kernel panic - not syncing')
# A report after which the kernel killed the task that made it (an Oops):
# the kernel may go on, and KUnit report the case, or not.
OOPS_RE = re.compile(r'kernel BUG at|\bBUG: kernel NULL pointer|\bOops: |general protection fault|'
		     r'Unable to handle kernel')

# Reports the kernel prints when something went wrong, whether or not a
# test case noticed.  "\bBUG: " is not the end of "PM: DEBUG: ".
SPLAT_RE = re.compile(
	r'\bWARNING: |\bBUG: |kernel BUG at|\bOops\b|general protection fault|'
	r'Unable to handle kernel|Kernel panic|-\[ cut here \]-|'
	r'possible recursive locking|inconsistent lock state|'
	r'circular locking dependency|lock held when returning|'
	r'suspicious RCU usage|rcu_.*detected stalls|soft lockup|hung_task|'
	r'blocked for more than|UBSAN:|KASAN:|KCSAN:|kmemleak:.*new suspected')
# How a case announces warnings it provokes on purpose: how many, and a
# text every one of them carries ("... begin: 2 \"not allocated\"").
EXPECT_BEGIN_RE = re.compile(r'# (\S+): expected warnings begin: (\d+)(?:\s+"([^"]*)")?')
EXPECT_END_RE = re.compile(r'# (\S+): expected warnings end')
CUT_RE = re.compile(r'-\[ cut here \]-')
WARN_RE = re.compile(r'WARNING: CPU: ')
# The timestamp printk puts in front of a line (CONFIG_PRINTK_TIME,
# printk.time=1), and the caller id after it with CONFIG_PRINTK_CALLER.
TIME_RE = re.compile(r'^\s*\[\s*(\d+\.\d+)\](?:\[\s*[TC]\d+\])?')
# Characters XML 1.0 does not allow, which a kernel log can contain (ESC of
# a colour sequence, NUL, BEL...): written as \xNN instead.
XML_BAD_RE = re.compile('[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]')
LEAK_SCAN_DONE_RE = re.compile(r'leak-scan: kmemleak done: (\d+) unreferenced objects')
# linux_banner as init/version-timestamp.c builds it, with the build's #N
# ("%s version %s" is linux_proc_banner, a format; init/version.c's weak
# linux_banner, which the kernel never prints, has "# " where #N goes).
BANNER_RE = re.compile(rb'Linux version [^\x00\n%]*\) #[^\s\x00][^\x00\n]*\n')
SMP_RE = re.compile(r'smp: Brought up \d+ nodes?, (\d+) CPUs?')


class InputError(Exception):
	"""A path given on the command line that cannot be used: one line."""


@dataclass(frozen=True)
class Problem:
	"""Something that went wrong with a run beside its failed cases."""
	kind: str
	message: str


@dataclass
class LogCheck:
	"""What read_log() found in the kernel log."""
	problems: list[Problem]
	expected_warnings: int


@dataclass(frozen=True)
class Leaf:
	"""A case of the results, or one parameter of a parameterised case."""
	suite: str
	# The case's name, "case.param" for a parameter.
	case: str
	test: Test


@dataclass
class KtapLine:
	"""A line kunit_tool extracted from a kernel log, with the printk
	timestamp of the kernel log's line (None without one)."""
	text: str
	time: Optional[float]


@dataclass
class CaseDetail:
	"""What a leaf's result line says beside its status."""
	duration: Optional[float] = None
	skip_reason: Optional[str] = None


@dataclass
class CaseResult:
	"""A leaf as junit.xml and results.json give it."""
	leaf: Leaf
	# The name of its kunit_parser.TestStatus: SUCCESS, FAILURE, ...
	status: str
	message: str
	log: str
	# Seconds, when the log has timestamps.
	duration: Optional[float]


class ProblemJson(TypedDict):
	kind: str
	message: str


class Counts(TypedDict):
	"""counts.json."""
	passed: int
	failed: int
	skipped: int
	not_run: int
	verdict: str
	expected_warnings: int
	phase: str
	hung: bool
	panicked: bool
	problems: list[ProblemJson]
	failed_cases: list[str]


class CaseFields(TypedDict):
	"""What results.py adds to each object of a "test_cases" list of
	results.json, beside kunit_json's "name" and "status"."""
	duration: Optional[float]
	message: str
	log: str


class _LegJson(TypedDict):
	name: str
	arch: str
	linux_arch: str
	compiler: str
	build_dir: str
	kunitconfigs: list[str]


class LegJson(_LegJson, total=False):
	"""leg.json: word_size and endianness with --vmlinux, vcpus with
	--qemu-config."""
	word_size: Optional[int]
	endianness: Optional[str]
	vcpus: int


@dataclass
class Options:
	"""The command line."""
	kunit_tool: str
	logs: list[str]
	program_logs: list[str]
	out: str
	arch: str
	expect_suites: list[str]
	expect_leak_scan: bool
	expect_cpus: int
	expect_banner_of: Optional[str]
	failed_phase: Optional[str]
	message: str
	timed_out: int
	leg_arch: Optional[str]
	linux_arch: str
	compiler: str
	build_dir: str
	kunitconfigs: list[str]
	vmlinux: Optional[str]
	qemu_config: Optional[str]


def load_kunit_tool(path: str) -> None:
	"""Import kunit_tool's modules from path (tools/testing/kunit of a
	kernel tree) as this module's kunit_json, kunit_parser and
	kunit_printer."""
	if not os.path.isfile(os.path.join(path, 'kunit_parser.py')):
		raise InputError(f'no kunit_tool at {path} (no kunit_parser.py)')
	if path not in sys.path:
		sys.path.insert(0, path)
	global kunit_json, kunit_parser, kunit_printer
	import kunit_json
	import kunit_parser
	import kunit_printer


def set_printer(printer: kunit_printer.Printer) -> None:
	"""Have kunit_tool print through printer."""
	kunit_printer.stdout = printer
	# kunit_parser prints through the name it imported from kunit_printer
	# ("from kunit_printer import stdout"): its own module global, which
	# mypy --strict counts as not exported.
	kunit_parser.stdout = printer  # type: ignore[attr-defined]


@contextlib.contextmanager
def kunit_output(out: IO[str]) -> Iterator[None]:
	"""Send what kunit_parser prints while it parses to out."""
	saved = kunit_printer.stdout
	set_printer(kunit_printer.Printer(out))
	try:
		yield
	finally:
		set_printer(saved)


def strip_time(line: str) -> str:
	"""A kernel log line without its printk timestamp, and stripped."""
	return TIME_RE.sub('', line).strip()


def line_time(line: str) -> Optional[float]:
	"""The printk timestamp of a kernel log line, in seconds."""
	m = TIME_RE.match(line)
	return float(m.group(1)) if m else None


def read_log(lines: Sequence[str]) -> LogCheck:
	"""Check the whole kernel log: the warnings each case announced must
	be there in the announced number, each carrying the announced text,
	and nothing else may go wrong, inside an announced window or outside."""
	problems: list[Problem] = []
	seen_total = 0
	case: Optional[str] = None
	want = seen = 0
	text_wanted: Optional[str] = None
	message: Optional[list[str]] = None	# the lines of a warning between "cut here" and "WARNING:"
	# A "WARNING:" line whose announced text was not before it: where
	# WARN() is not a trap instruction (arm, sh, ...), warn_slowpath_fmt()
	# prints the message on the line after it.
	pending: Optional[str] = None
	for line in lines:
		text = strip_time(line)
		if pending is not None:
			warning, pending = pending, None
			if text_wanted and text_wanted in text:
				seen += 1
				continue
			problems.append(Problem('report', f'unexpected kernel report in {case}\'s '
						f'expected-warnings window: {warning[:200]}'))
		m = EXPECT_BEGIN_RE.search(text)
		if m:
			if case is not None:
				problems.append(Problem('warnings', f'{case}: expected warnings never ended '
							f'(the next window, {m.group(1)}\'s, began)'))
			case, want, text_wanted, seen = m.group(1), int(m.group(2)), m.group(3), 0
			message = None
			continue
		if case is not None and EXPECT_END_RE.search(text):
			if seen != want:
				problems.append(Problem('warnings', f'{case}: expected {want} warnings, '
							f'the log has {seen}'))
			seen_total += seen
			case = None
			continue
		if case is None:
			if SPLAT_RE.search(text):
				problems.append(Problem('report', f'unexpected kernel report: {text[:200]}'))
			continue
		# Inside an announced window: only a warning that carries the
		# announced text is absorbed; any other report is a problem.
		if CUT_RE.search(text):
			message = []
			continue
		if WARN_RE.search(text):
			said = ' '.join(message or [])
			if text_wanted and text_wanted in said:
				seen += 1
			else:
				pending = said or text
			message = None
			continue
		if message is not None and len(message) < 5:
			message.append(text)
		if SPLAT_RE.search(text):
			problems.append(Problem('report', f'unexpected kernel report in {case}\'s '
						f'expected-warnings window: {text[:200]}'))
	if case is not None:
		problems.append(Problem('warnings', f'{case}: expected warnings never ended'))
	return LogCheck(problems, seen_total)


def parse_boot(boot: Sequence[str]) -> Test:
	"""kunit_tool's results of a boot's log (printing as kunit_output()
	says)."""
	return kunit_parser.parse_run_tests(boot)


def ktap_lines(boot: Sequence[str]) -> list[KtapLine]:
	"""The KTAP lines of a boot's log as kunit_parser extracts them, each
	with the timestamp of its line in the log."""
	found = []
	stream = kunit_parser.extract_tap_lines(boot)
	while stream:
		number = stream.line_number()
		text = stream.pop()
		found.append(KtapLine(text, line_time(boot[number - 1])))
	return found


@dataclass
class _Event:
	"""A KTAP line that starts a test (None) or reports one (its name)."""
	time: Optional[float]
	result: Optional[str]
	skip_reason: Optional[str] = None


def case_details(ktap: Sequence[KtapLine], boot_leaves: Sequence[Leaf]) -> dict[Test, CaseDetail]:
	"""Each leaf's duration and skip reason, from its result line in one
	boot's KTAP lines, the leaves in the boot's order.  A leaf took the
	time from the KTAP line before its result line (the previous result,
	or the header of its suite or parameterised case) to that line.  A
	leaf without a result line (it never reported) has neither."""
	events = []
	for line in ktap:
		result = kunit_parser.TEST_RESULT.match(line.text)
		if result:
			skip = kunit_parser.TEST_RESULT_SKIP.match(line.text)
			if skip:
				events.append(_Event(line.time, skip.group(4), skip.group(5).strip() or 'skipped'))
			else:
				events.append(_Event(line.time, result.group(4)))
		elif kunit_parser.KTAP_START.match(line.text) or kunit_parser.TEST_HEADER.match(line.text):
			events.append(_Event(line.time, None))
	# The time of the last KTAP line before each event that has one.
	before: list[Optional[float]] = []
	last: Optional[float] = None
	for event in events:
		before.append(last)
		last = event.time if event.time is not None else last
	details: dict[Test, CaseDetail] = {}
	pos = 0
	for leaf in boot_leaves:
		name = leaf.test.name
		if not name:
			continue
		at = next((i for i in range(pos, len(events)) if events[i].result == name), None)
		if at is None:
			continue
		event = events[at]
		detail = CaseDetail(skip_reason=event.skip_reason)
		start = before[at]
		if event.time is not None:
			detail.duration = max(0.0, event.time - start) if start is not None else 0.0
		details[leaf.test] = detail
		pos = at + 1
	return details


def xml_clean(text: str) -> str:
	return XML_BAD_RE.sub(lambda m: f'\\x{ord(m.group(0)):02x}', text)


def write_xml(root: ET.Element, path: str) -> None:
	"""Write an ElementTree with every text and attribute made valid XML."""
	for el in root.iter():
		if el.text:
			el.text = xml_clean(el.text)
		for k, v in el.attrib.items():
			el.set(k, xml_clean(v))
	ET.indent(root)
	ET.ElementTree(root).write(path, encoding='utf-8', xml_declaration=True)


def name_unreported(test: Test) -> None:
	"""Name the cases a plan announced that never reported (the kernel
	crashed first), which kunit_tool keeps nameless: "case N never
	reported", N their place in the plan."""
	for n, sub in enumerate(test.subtests, 1):
		if not sub.name:
			sub.name = f'case {n} never reported'
		name_unreported(sub)


def leaves(test: Test, suite: Optional[str] = None, prefix: str = '') -> Iterator[Leaf]:
	"""Every leaf below test: the cases of each suite (test is the top
	level), one per parameter for a parameterised case."""
	for sub in test.subtests:
		if suite is None:
			# Top level: the KUnit suites.
			yield from leaves(sub, sub.name, '')
		elif sub.subtests:
			# A parameterised case: one leaf per parameter.
			yield from leaves(sub, suite, prefix + sub.name + '.')
		else:
			yield Leaf(suite, prefix + sub.name, sub)


def failure_message(test: Test) -> str:
	"""The most telling line of a failed case's log."""
	where = what = ''
	for line in test.log:
		text = line.strip().lstrip('#').strip()
		if not where and ('ASSERTION FAILED' in text or 'EXPECTATION FAILED' in text):
			where = text
		elif not what and text.startswith('Expected'):
			what = text
	if where or what:
		return ': '.join(t for t in (where, what) if t)
	for line in test.log:
		text = line.strip().lstrip('#').strip()
		if text:
			return text
	return 'failed'


def case_message(test: Test, detail: Optional[CaseDetail]) -> str:
	"""What junit.xml says of a case: its failure, crash or skip reason."""
	status = test.status.name
	if status == 'SUCCESS':
		return ''
	if status == 'SKIPPED':
		return detail.skip_reason if detail and detail.skip_reason else 'skipped'
	if status == 'FAILURE':
		return failure_message(test)
	return f'case {status.lower()}'


def case_result(leaf: Leaf, detail: Optional[CaseDetail]) -> CaseResult:
	return CaseResult(leaf, leaf.test.status.name, case_message(leaf.test, detail),
			  '\n'.join(leaf.test.log), detail.duration if detail else None)


def write_junit(path: str, arch: str, cases: Sequence[CaseResult], run_error: str, log_tail: str) -> None:
	suites = ET.Element('testsuites', name=f'kunit-{arch}')
	by_suite: dict[str, list[Optional[CaseResult]]] = {}
	for result in cases:
		by_suite.setdefault(result.leaf.suite, []).append(result)
	if run_error:
		# A run that did not complete is a failure of its own, whatever
		# the cases that did report say.
		by_suite.setdefault('kunit-run', []).append(None)
	total = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
	total_time = 0.0
	for suite, suite_cases in by_suite.items():
		counts = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
		suite_time = 0.0
		ts = ET.SubElement(suites, 'testsuite', name=suite)
		for c in suite_cases:
			counts['tests'] += 1
			if c is None:
				tc = ET.SubElement(ts, 'testcase', classname=f'{arch}.{suite}', name='boot',
						   time='0.000')
				counts['failures'] += 1
				ET.SubElement(tc, 'failure', message=run_error, type='run').text = log_tail
				continue
			t = c.duration or 0.0
			suite_time += t
			tc = ET.SubElement(ts, 'testcase', classname=f'{arch}.{suite}', name=c.leaf.case,
					   time=f'{t:.3f}')
			if c.status == 'SUCCESS':
				pass
			elif c.status == 'SKIPPED':
				counts['skipped'] += 1
				ET.SubElement(tc, 'skipped', message=c.message)
			elif c.status == 'FAILURE':
				counts['failures'] += 1
				ET.SubElement(tc, 'failure', message=c.message, type='kunit').text = c.log
			else:
				counts['errors'] += 1
				ET.SubElement(tc, 'error', message=c.message, type='kunit').text = c.log
			if c.log:
				ET.SubElement(tc, 'system-out').text = c.log
		for k, v in counts.items():
			ts.set(k, str(v))
			total[k] += v
		ts.set('time', f'{suite_time:.3f}')
		total_time += suite_time
	for k, v in total.items():
		suites.set(k, str(v))
	suites.set('time', f'{total_time:.3f}')
	write_xml(suites, path)


def case_fields(test: Test, result: Optional[CaseResult]) -> CaseFields:
	"""What results.json adds to a case: result is None for a test case
	of kunit_json's that is no leaf (a suite that ran no case)."""
	r = result or case_result(Leaf('', test.name, test), None)
	duration = round(r.duration, 6) if r.duration is not None else None
	return {'duration': duration, 'message': xml_clean(r.message), 'log': xml_clean(r.log)}


def add_case_fields(group: kunit_json.JsonObj, test: Test, results: dict[Test, CaseResult]) -> None:
	"""Add duration, message and log to every case below a group of
	kunit_json's, the group made from test: kunit_json makes a sub-group
	of each subtest with subtests and a test case of each other one, in
	order."""
	groups = [t for t in test.subtests if t.subtests]
	singles = [t for t in test.subtests if not t.subtests]
	for sub, sub_group in zip(groups, group['sub_groups']):
		add_case_fields(sub_group, sub, results)
	for sub, case in zip(singles, group['test_cases']):
		case.update(case_fields(sub, results.get(sub)))


def results_json(root: Test, arch: str, results: Sequence[CaseResult]) -> str:
	"""results.json: kunit_json's, with each case's duration, message and log."""
	metadata = kunit_json.Metadata(arch=arch, build_dir='', def_config='kunit')
	doc: kunit_json.JsonObj = json.loads(kunit_json.get_json_result(root, metadata))
	add_case_fields(doc, root, {r.leaf.test: r for r in results})
	return json.dumps(doc, indent=4)


def leak_scan_problems(logs: Sequence[str], boots: Sequence[Sequence[str]]) -> list[Problem]:
	"""What the leak scan at the end of each boot found: every object
	kmemleak reports, a scan that failed, and a boot that never got to it."""
	problems = []
	for log, boot in zip(logs, boots):
		done = False
		for line in boot:
			if 'leak-scan: ' not in line:
				continue
			msg = line.split('leak-scan: ', 1)[1].strip()
			m = LEAK_SCAN_DONE_RE.search(line)
			if m:
				done = True
				if int(m.group(1)):
					problems.append(Problem('leak', f'kmemleak: {m.group(1)} unreferenced objects '
								f'in {os.path.basename(log)}'))
			elif msg.startswith('unreferenced object'):
				problems.append(Problem('leak', f'kmemleak: {msg}'))
			elif msg.startswith('error:'):
				problems.append(Problem('leak-scan', msg))
		if not done:
			problems.append(Problem('leak-scan', f'the leak scan did not finish in {os.path.basename(log)}'))
	return problems


def built_banner(path: str) -> Optional[str]:
	"""The Linux version banner of the kernel image at path (vmlinux), as
	the kernel prints it at boot, or None."""
	try:
		with open(path, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
			m = BANNER_RE.search(data)
			return m.group(0).decode('utf-8', 'replace').strip() if m else None
	except (OSError, ValueError):
		return None


def banner_short(banner: str) -> str:
	"""The release and the version (#N, options, date) of a banner, without
	who built it with what."""
	words = banner.split()
	release = words[2] if len(words) > 2 else banner
	at = banner.rfind(') #')
	return f'{release} {banner[at + 2:]}' if at >= 0 else banner[:160]


def banner_problems(logs: Sequence[str], boots: Sequence[Sequence[str]], image: str) -> list[Problem]:
	"""Every boot must print the banner of the kernel that was built: a
	boot of an older image (a stale object in the boot image, a folder
	another run rebuilt) says another version, or another build's #N and
	date."""
	want = built_banner(image)
	if want is None:
		return [Problem('stale-kernel', f'no Linux version banner in {image}: cannot tell what was built')]
	problems = []
	for log, boot in zip(logs, boots):
		said = [strip_time(line) for line in boot if 'Linux version ' in line]
		said = [t[t.index('Linux version '):] for t in said]
		name = os.path.basename(log)
		if not said:
			problems.append(Problem('no-boot', f'{name}: no Linux version banner: the kernel did not boot'))
		elif want not in said:
			problems.append(Problem('stale-kernel', f'booted a kernel other than the one built: {name} says '
						f'"{banner_short(said[0])}", {os.path.basename(image)} '
						f'"{banner_short(want)}"'))
	return problems


def boot_problems(logs: Sequence[str], boots: Sequence[Sequence[str]], ran: Sequence[bool]) -> list[Problem]:
	"""Every boot must run cases of its own: a leg boots once per set of
	cases (those of normal speed, the slow ones), and a boot that printed
	nothing, or no result, ran none of its set.  ran: whether each boot's
	results have a leaf."""
	problems = []
	for log, boot, ran_one in zip(logs, boots, ran):
		name = os.path.basename(log)
		if not boot:
			problems.append(Problem('no-tests', f'{name}: the boot left no log'))
		elif not ran_one:
			problems.append(Problem('no-tests', f'{name}: the boot ran no test'))
	return problems


def smp_problems(logs: Sequence[str], boots: Sequence[Sequence[str]], want: int) -> list[Problem]:
	"""A boot that did not bring up all the CPUs QEMU gave it."""
	problems = []
	for log, boot in zip(logs, boots):
		if not boot:
			continue
		m = SMP_RE.search(''.join(boot))
		if not m:
			problems.append(Problem('smp', f'{os.path.basename(log)}: no "smp: Brought up" line, '
						f'{want} CPUs expected'))
		elif int(m.group(1)) < want:
			problems.append(Problem('smp', f'{os.path.basename(log)}: {m.group(1)} of {want} CPUs up'))
	return problems


def worse(a: TestStatus, b: TestStatus) -> TestStatus:
	"""The worse of two statuses, as kunit_tool ranks them."""
	S = kunit_parser.TestStatus
	rank = [S.SUCCESS, S.SKIPPED, S.NO_TESTS, S.FAILURE, S.TEST_CRASHED, S.FAILURE_TO_PARSE_TESTS]
	if a == S.SUCCESS and b == S.NO_TESTS:
		return a
	return max(a, b, key=lambda s: rank.index(s) if s in rank else len(rank))


def merge_boots(roots: Sequence[Test]) -> Test:
	"""One result from the boots' results: the first boot's, with the
	cases of every later boot added to the suite of the same name (or its
	suites added).  A later boot that ran nothing adds nothing."""
	S = kunit_parser.TestStatus
	if not roots:
		return kunit_parser.parse_run_tests([])
	root = roots[0]
	for other in roots[1:]:
		if other.status == S.NO_TESTS and not other.subtests:
			continue
		for suite in other.subtests:
			same = [t for t in root.subtests if t.name == suite.name]
			if same:
				same[0].subtests.extend(suite.subtests)
				same[0].counts.add_subtest_counts(suite.counts)
				same[0].status = worse(same[0].status, suite.status)
			else:
				root.subtests.append(suite)
		root.counts.add_subtest_counts(other.counts)
		root.status = worse(root.status, other.status)
	return root


def read_text(path: str, what: str) -> str:
	try:
		with open(path, encoding='utf-8', errors='replace') as f:
			return f.read()
	except OSError as e:
		raise InputError(f'cannot read {what} {path}: {e.strerror}') from e


def write_text(path: str, text: str) -> None:
	with open(path, 'w', encoding='utf-8') as f:
		f.write(text)


def write_leg(opts: Options) -> None:
	"""leg.json: what the leg is, when the caller says (--leg-arch)."""
	if not opts.leg_arch:
		return
	leg: LegJson = {'name': opts.arch, 'arch': opts.leg_arch, 'linux_arch': opts.linux_arch,
			'compiler': opts.compiler, 'build_dir': opts.build_dir,
			'kunitconfigs': [os.path.basename(c) for c in opts.kunitconfigs]}
	if opts.vmlinux:
		try:
			with open(opts.vmlinux, 'rb') as f:
				ident = f.read(6).ljust(6, b'\0')
		except OSError:
			ident = b''
		elf = ident[:4] == b'\x7fELF'
		leg['word_size'] = {1: 32, 2: 64}.get(ident[4]) if elf else None
		leg['endianness'] = {1: 'little', 2: 'big'}.get(ident[5]) if elf else None
	if opts.qemu_config:
		try:
			params = qemu_params.load(opts.qemu_config, opts.kunit_tool)
			leg['vcpus'] = qemu_params.vcpus(params)
		except qemu_params.QemuConfigError as e:
			raise InputError(f'cannot read the QEMU config: {e}') from e
	elif opts.linux_arch == 'um':
		leg['vcpus'] = 1	# User Mode Linux has no SMP
	write_text(os.path.join(opts.out, 'leg.json'), json.dumps(leg, indent=2))


def write_counts(path: str, counts: Counts) -> None:
	write_text(path, json.dumps(counts, indent=2))


def phase_failure(opts: Options, phase: str) -> int:
	"""Results of a run that never booted: one failed case, the phase
	that failed."""
	try:
		with open(opts.logs[0], encoding='utf-8', errors='replace') as f:
			tail = f.read()[-20000:]
	except OSError:
		tail = ''
	suites = ET.Element('testsuites', name=f'kunit-{opts.arch}', tests='1', failures='1',
			    time='0.000')
	ts = ET.SubElement(suites, 'testsuite', name='kunit-run', tests='1', failures='1',
			   time='0.000')
	tc = ET.SubElement(ts, 'testcase', classname=f'{opts.arch}.kunit-run', name=phase,
			   time='0.000')
	ET.SubElement(tc, 'failure', message=opts.message, type=phase).text = tail
	write_xml(suites, os.path.join(opts.out, 'junit.xml'))
	write_counts(os.path.join(opts.out, 'counts.json'), {
		'passed': 0, 'failed': 0, 'skipped': 0, 'not_run': 0, 'verdict': 'FAIL',
		'expected_warnings': 0, 'phase': phase, 'hung': False, 'panicked': False,
		'problems': [{'kind': phase, 'message': opts.message}], 'failed_cases': []})
	print(f'kunit {opts.arch}: FAIL: {opts.message}')
	return 1


def read_boots(paths: Sequence[str]) -> list[list[str]]:
	"""The lines of each kernel log; none for one that cannot be read (a
	boot that left no log), with an error line."""
	boots = []
	for log in paths:
		try:
			with open(log, encoding='utf-8', errors='backslashreplace') as f:
				boots.append(f.readlines())
		except OSError as e:
			boots.append([])
			print(f'error: cannot read kernel log {log}: {e.strerror}', file=sys.stderr)
	return boots


def run_results(opts: Options) -> int:
	"""The results of a leg's boots (its kernel logs), with the KTAP of the
	programs that ran in them (--program-log)."""
	load_kunit_tool(opts.kunit_tool)
	boots = read_boots(opts.logs)
	lines = [line for boot in boots for line in boot]
	# The KTAP of programs (kunit/users) comes with the boots', without
	# the checks of a boot.
	programs = read_boots(opts.program_logs)

	ktaps = [ktap_lines(boot) for boot in boots + programs]
	write_text(os.path.join(opts.out, 'ktap.log'),
		   ''.join(line.text + '\n' for ktap in ktaps for line in ktap))

	# Each boot on its own first: the duration and skip reason of each
	# leaf come from the result lines of its own boot.
	details: dict[Test, CaseDetail] = {}
	roots = []
	boot_ran = []
	with open(os.path.join(opts.out, 'summary.txt'), 'w', encoding='utf-8') as f, kunit_output(f):
		for n, (boot, ktap) in enumerate(zip(boots + programs, ktaps)):
			if not boot:
				if n < len(boots):
					boot_ran.append(False)
				continue
			boot_root = parse_boot(boot)
			boot_leaves = list(leaves(boot_root))
			if n < len(boots):
				boot_ran.append(bool(boot_leaves))
			details.update(case_details(ktap, boot_leaves))
			roots.append(boot_root)
		root = merge_boots(roots)
	# Named once merged, so that a case of a later boot that never
	# reported is not named as one of an earlier boot.
	name_unreported(root)
	leaf_list = list(leaves(root))
	cases = [case_result(leaf, details.get(leaf.test)) for leaf in leaf_list]
	write_text(os.path.join(opts.out, 'results.json'), results_json(root, opts.arch, cases))

	passed = failed = skipped = not_run = 0
	failed_cases = []
	crashed_suites = set()
	for c in cases:
		leaf = c.leaf
		unreported = leaf.case.endswith(' never reported')
		if c.status == 'SUCCESS':
			passed += 1
		elif c.status == 'SKIPPED':
			skipped += 1
		elif unreported and leaf.suite in crashed_suites:
			# After the case the kernel stopped in, the rest of the
			# suite's plan never ran: one crash, not one per case.
			not_run += 1
		else:
			if unreported:
				crashed_suites.add(leaf.suite)
			failed += 1
			failed_cases.append(f'{leaf.suite}.{leaf.case} ({c.status.lower()})')

	check = read_log(lines)
	problems = check.problems
	text = ''.join(lines)
	if opts.timed_out:
		problems.append(Problem('hung', f'the kernel hung: QEMU killed after {opts.timed_out} s'))
	dropped = sum(int(n) for n in DROPPED_RE.findall(text))
	if dropped:
		problems.append(Problem('log', f'{dropped} printk messages dropped: the kernel log is incomplete'))
	if opts.expect_leak_scan:
		problems.extend(leak_scan_problems(opts.logs, boots))
	if opts.expect_cpus > 1:
		problems.extend(smp_problems(opts.logs, boots, opts.expect_cpus))
	if opts.expect_banner_of:
		problems.extend(banner_problems(opts.logs, boots, opts.expect_banner_of))
	if len(opts.logs) > 1:
		problems.extend(boot_problems(opts.logs, boots, boot_ran))
	oops = OOPS_RE.search(text)
	if PANIC_RE.search(text):
		problems.append(Problem('panic', 'the kernel panicked'))
	elif oops:
		problems.append(Problem('oops', 'the kernel oopsed: ' + oops.group(0)))
	if not leaf_list:
		problems.append(Problem('no-tests', 'no test ran'))
	if root.counts.errors:
		problems.append(Problem('ktap', f'{root.counts.errors} KTAP parse errors '
					'(truncated or malformed output)'))
	ran = {t.name for t in root.subtests}
	for suite in opts.expect_suites:
		if suite not in ran:
			problems.append(Problem('suite-missing', f'suite {suite} did not run'))
	if not root.ok_status() and not failed_cases and leaf_list:
		problems.append(Problem('verdict', f'kunit_tool verdict {root.status.name.lower()}'))

	run_error = '; '.join(p.message for p in problems)
	write_junit(os.path.join(opts.out, 'junit.xml'), opts.arch, cases, run_error, ''.join(lines[-40:]))

	ok = not failed_cases and not problems
	verdict = 'PASS' if ok else 'FAIL'
	write_counts(os.path.join(opts.out, 'counts.json'), {
		'passed': passed, 'failed': failed, 'skipped': skipped, 'not_run': not_run,
		'verdict': verdict, 'expected_warnings': check.expected_warnings, 'phase': 'run',
		'hung': any(p.kind == 'hung' for p in problems),
		'panicked': any(p.kind == 'panic' for p in problems),
		'problems': [{'kind': p.kind, 'message': p.message} for p in problems],
		'failed_cases': failed_cases})

	for case in failed_cases:
		print(f'  FAILED {case}')
	for p in problems:
		print(f'  ERROR  {p.message}')
	print(f'kunit {opts.arch}: {verdict}: {passed} passed, {failed} failed, {skipped} skipped'
	      f'{", " + str(not_run) + " not run" if not_run else ""} '
	      f'(suites: {", ".join(sorted(ran)) or "none"}; '
	      f'{check.expected_warnings} expected warnings)')
	return 0 if ok else 1


def parse_args(argv: Optional[Sequence[str]]) -> Options:
	ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('--kunit-tool', required=True, help='tools/testing/kunit of the tree')
	ap.add_argument('--log', required=True, action='append',
			help='raw kernel log of a boot (repeatable: one per boot)')
	ap.add_argument('--program-log', action='append', default=[],
			help='KTAP a program printed in a boot (kunit/users), its lines out of the '
			     'kernel log (repeatable): its cases count as the boots\' do')
	ap.add_argument('--out', required=True, help='folder for the results')
	ap.add_argument('--arch', required=True, help='the name of the leg')
	ap.add_argument('--expect-suite', action='append', default=[],
			help='a suite that must appear in the results (repeatable)')
	ap.add_argument('--expect-leak-scan', action='store_true',
			help='every boot ends with a kmemleak scan (kunit/leak-scan): '
			     'a report, or a boot without the scan, fails the run')
	ap.add_argument('--expect-cpus', type=int, default=0, metavar='N',
			help='every boot brings up N CPUs ("smp: Brought up ... N CPUs"): '
			     'fewer, or no such line when N > 1, fails the run')
	ap.add_argument('--expect-banner-of', metavar='IMAGE',
			help='every boot prints the Linux version banner of IMAGE (the vmlinux '
			     'that was built): another banner, or none, fails the run')
	ap.add_argument('--failed-phase', metavar='PHASE',
			help='the run stopped before booting: PHASE (config, build) failed, '
			     'with --message; --log is that phase\'s log')
	ap.add_argument('--message', default='', help='with --failed-phase: what failed')
	ap.add_argument('--timed-out', type=int, default=0, metavar='SECONDS',
			help='the boot was killed after this many seconds')
	leg = ap.add_argument_group('what the leg is (leg.json)')
	leg.add_argument('--leg-arch', help='the arch of kunit/arches.tsv the leg runs on')
	leg.add_argument('--linux-arch', default='', help="the kernel's ARCH")
	leg.add_argument('--compiler', default='', help="the compiler's version line")
	leg.add_argument('--build-dir', default='', help='the build folder')
	leg.add_argument('--kunitconfig', action='append', default=[],
			 help='a kunitconfig of the leg (repeatable)')
	leg.add_argument('--vmlinux', help='the kernel that was booted')
	leg.add_argument('--qemu-config', help='the QEMU config it was booted with')
	a = ap.parse_args(argv)
	return Options(kunit_tool=a.kunit_tool, logs=a.log, program_logs=a.program_log, out=a.out, arch=a.arch,
		       expect_suites=a.expect_suite, expect_leak_scan=a.expect_leak_scan,
		       expect_cpus=a.expect_cpus, expect_banner_of=a.expect_banner_of,
		       failed_phase=a.failed_phase, message=a.message, timed_out=a.timed_out,
		       leg_arch=a.leg_arch, linux_arch=a.linux_arch, compiler=a.compiler,
		       build_dir=a.build_dir, kunitconfigs=a.kunitconfig, vmlinux=a.vmlinux,
		       qemu_config=a.qemu_config)


def main(argv: Optional[Sequence[str]] = None) -> int:
	opts = parse_args(argv)
	try:
		if os.path.exists(opts.out) and not os.path.isdir(opts.out):
			raise InputError(f'the results folder {opts.out} is not a folder')
		try:
			os.makedirs(opts.out, exist_ok=True)
		except OSError as e:
			raise InputError(f'cannot create the results folder {opts.out}: {e.strerror}') from e
		write_leg(opts)
		if opts.failed_phase:
			return phase_failure(opts, opts.failed_phase)
		return run_results(opts)
	except InputError as e:
		print(f'error: {e}', file=sys.stderr)
	except OSError as e:
		print(f'error: {e.filename or ""}{": " if e.filename else ""}{e.strerror or e}', file=sys.stderr)
	return 2


if __name__ == '__main__':
	sys.exit(main())
