#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the kernel logs of a leg's kunit.py boots into results files.

Parses each log (--log, once per boot: a leg boots once for the cases of
normal speed and once for the slow ones) with kunit_tool's own KTAP parser
(kunit_parser, from the kernel tree given with --kunit-tool), merges the
boots' results suite by suite, and writes into --out:

  ktap.log      the KTAP lines kunit_tool extracted from the kernel log
  results.json  kunit_tool's KernelCI-style JSON
  junit.xml     JUnit XML: one testsuite per KUnit suite, one testcase per
                case (per parameter for parameterised cases), failures and
                crashes with their messages, skips with their reasons
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

It prints one summary line and exits 0 only when every case passed or was
skipped, at least one case ran, every --expect-suite ran, the boot
neither panicked nor timed out, and with --expect-leak-scan every boot's
kmemleak scan ran and reported nothing.
"""

import argparse
import json
import mmap
import os
import re
import sys
import xml.etree.ElementTree as ET

# printk could not keep up: what the log reader sees is incomplete.
DROPPED_RE = re.compile(r'\*\* (\d+) printk messages dropped \*\*')
PANIC_RE = re.compile(r'Kernel panic - not syncing')
# A report after which the kernel killed the task that made it (an Oops):
# the kernel may go on, and KUnit report the case, or not.
OOPS_RE = re.compile(r'kernel BUG at|\bBUG: kernel NULL pointer|\bOops: |general protection fault|'
		     r'Unable to handle kernel')

# Reports the kernel prints when something went wrong, whether or not a
# test case noticed.
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
# The timestamp printk puts in front of a line (CONFIG_PRINTK_TIME).
TIME_RE = re.compile(r'^\s*\[\s*(\d+\.\d+)\]')


def read_log(lines):
	"""Check the whole kernel log: the warnings each case announced must
	be there in the announced number, each carrying the announced text,
	and nothing else may go wrong, inside an announced window or outside.
	Returns (problems, expected warnings seen)."""
	problems = []
	seen_total = 0
	case, want, text_wanted, seen = None, 0, None, 0
	message = None	# the lines of a warning between "cut here" and "WARNING:"
	# A "WARNING:" line whose announced text was not before it: where
	# WARN() is not a trap instruction (arm, sh, ...), warn_slowpath_fmt()
	# prints the message on the line after it.
	pending = None
	for line in lines:
		text = TIME_RE.sub('', line.rstrip('\n')).strip()
		if pending is not None:
			warning, pending = pending, None
			if text_wanted and text_wanted in text:
				seen += 1
				continue
			problems.append(('report', f'unexpected kernel report in {case}\'s '
					 f'expected-warnings window: {warning[:200]}'))
		m = EXPECT_BEGIN_RE.search(text)
		if m:
			if case is not None:
				problems.append(('warnings', f'{case}: expected warnings never ended '
						 f'(the next window, {m.group(1)}\'s, began)'))
			case, want, text_wanted, seen = m.group(1), int(m.group(2)), m.group(3), 0
			message = None
			continue
		if case is not None and EXPECT_END_RE.search(text):
			if seen != want:
				problems.append(('warnings', f'{case}: expected {want} warnings, the log has {seen}'))
			seen_total += seen
			case = None
			continue
		if case is None:
			if SPLAT_RE.search(text):
				problems.append(('report', f'unexpected kernel report: {text[:200]}'))
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
			problems.append(('report', f'unexpected kernel report in {case}\'s '
					 f'expected-warnings window: {text[:200]}'))
	if case is not None:
		problems.append(('warnings', f'{case}: expected warnings never ended'))
	return problems, seen_total


def case_times(lines, leaf_list):
	"""Seconds each leaf took, from the printk timestamps of the KTAP
	result lines (the time since the previous KTAP line); None where the
	log has no timestamps."""
	events = []
	for line in lines:
		m = TIME_RE.match(line)
		body = TIME_RE.sub('', line).strip()
		r = re.match(r'(?:not )?ok \d+ (.*?)(?:\s+#.*)?$', body)
		if m and (r or body.startswith(('KTAP version', '# Subtest:'))):
			events.append((float(m.group(1)), r.group(1) if r else None))
	times = {}
	pos, last = 0, None
	for key in leaf_list:
		name = key[2].name
		while pos < len(events):
			ts, result = events[pos]
			pos += 1
			if result == name:
				times[id(key[2])] = max(0.0, ts - last) if last is not None else 0.0
				last = ts
				break
			last = ts
	return times


# Characters XML 1.0 does not allow, which a kernel log can contain (ESC of
# a colour sequence, NUL, BEL...): written as \xNN instead.
XML_BAD_RE = re.compile('[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]')


def xml_clean(text):
	return XML_BAD_RE.sub(lambda m: f'\\x{ord(m.group(0)):02x}', text)


def write_xml(root, path):
	"""Write an ElementTree with every text and attribute made valid XML."""
	for el in root.iter():
		if el.text:
			el.text = xml_clean(el.text)
		for k, v in el.attrib.items():
			el.set(k, xml_clean(v))
	ET.indent(root)
	ET.ElementTree(root).write(path, encoding='utf-8', xml_declaration=True)


def load_kunit_tool(path):
	sys.path.insert(0, path)
	import kunit_json
	import kunit_parser
	import kunit_printer
	return kunit_json, kunit_parser, kunit_printer


def leaves(test, suite=None, prefix=''):
	"""Yield (suite name, case name, Test) for every leaf below test."""
	for n, sub in enumerate(test.subtests, 1):
		if not sub.name:
			# A case the plan announced that never reported (the
			# kernel crashed first): kunit_tool keeps a nameless one.
			sub.name = f'case {n} never reported'
		if suite is None:
			# Top level: the KUnit suites.
			yield from leaves(sub, sub.name, '')
		elif sub.subtests:
			# A parameterised case: one leaf per parameter.
			yield from leaves(sub, suite, prefix + sub.name + '.')
		else:
			yield suite, prefix + sub.name, sub


def failure_message(test):
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


def write_junit(path, arch, leaves_list, status_names, skip_reasons, run_error, log_tail, times):
	suites = ET.Element('testsuites', name=f'kunit-{arch}')
	by_suite = {}
	for suite, case, test in leaves_list:
		by_suite.setdefault(suite, []).append((case, test))
	if run_error:
		# A run that did not complete is a failure of its own, whatever
		# the cases that did report say.
		by_suite.setdefault('kunit-run', []).append(('boot', None))
	total = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
	total_time = 0.0
	for suite, cases in by_suite.items():
		counts = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
		suite_time = 0.0
		ts = ET.SubElement(suites, 'testsuite', name=suite)
		for case, test in cases:
			counts['tests'] += 1
			t = times.get(id(test), 0.0) if test is not None else 0.0
			suite_time += t
			tc = ET.SubElement(ts, 'testcase', classname=f'{arch}.{suite}', name=case,
					   time=f'{t:.3f}')
			if test is None:
				counts['failures'] += 1
				f = ET.SubElement(tc, 'failure', message=run_error, type='run')
				f.text = log_tail
				continue
			status = status_names[test.status]
			log = '\n'.join(test.log)
			if status == 'SUCCESS':
				pass
			elif status == 'SKIPPED':
				counts['skipped'] += 1
				reason = skip_reasons.get(test.name, 'skipped')
				ET.SubElement(tc, 'skipped', message=reason)
			elif status == 'FAILURE':
				counts['failures'] += 1
				f = ET.SubElement(tc, 'failure', message=failure_message(test), type='kunit')
				f.text = log
			else:
				counts['errors'] += 1
				f = ET.SubElement(tc, 'error', message=f'case {status.lower()}', type='kunit')
				f.text = log
			if log:
				ET.SubElement(tc, 'system-out').text = log
		for k, v in counts.items():
			ts.set(k, str(v))
			total[k] += v
		ts.set('time', f'{suite_time:.3f}')
		total_time += suite_time
	for k, v in total.items():
		suites.set(k, str(v))
	suites.set('time', f'{total_time:.3f}')
	write_xml(suites, path)


LEAK_SCAN_DONE_RE = re.compile(r'leak-scan: kmemleak done: (\d+) unreferenced objects')


def leak_scan_problems(logs, boots):
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
					problems.append(('leak', f'kmemleak: {m.group(1)} unreferenced objects '
							 f'in {os.path.basename(log)}'))
			elif msg.startswith('unreferenced object'):
				problems.append(('leak', f'kmemleak: {msg}'))
			elif msg.startswith('error:'):
				problems.append(('leak-scan', msg))
		if not done:
			problems.append(('leak-scan', f'the leak scan did not finish in {os.path.basename(log)}'))
	return problems


# linux_banner as init/version-timestamp.c builds it, with the build's #N
# ("%s version %s" is linux_proc_banner, a format; init/version.c's weak
# linux_banner, which the kernel never prints, has "# " where #N goes).
BANNER_RE = re.compile(rb'Linux version [^\x00\n%]*\) #[^\s\x00][^\x00\n]*\n')


def built_banner(path):
	"""The Linux version banner of the kernel image at path (vmlinux), as
	the kernel prints it at boot, or None."""
	try:
		with open(path, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
			m = BANNER_RE.search(data)
			return m.group(0).decode('utf-8', 'replace').strip() if m else None
	except (OSError, ValueError):
		return None


def banner_short(banner):
	"""The release and the version (#N, options, date) of a banner, without
	who built it with what."""
	words = banner.split()
	release = words[2] if len(words) > 2 else banner
	at = banner.rfind(') #')
	return f'{release} {banner[at + 2:]}' if at >= 0 else banner[:160]


def banner_problems(logs, boots, image):
	"""Every boot must print the banner of the kernel that was built: a
	boot of an older image (a stale object in the boot image, a folder
	another run rebuilt) says another version, or another build's #N and
	date."""
	want = built_banner(image)
	if want is None:
		return [('stale-kernel', f'no Linux version banner in {image}: cannot tell what was built')]
	problems = []
	for log, boot in zip(logs, boots):
		said = [TIME_RE.sub('', line).strip() for line in boot if 'Linux version ' in line]
		said = [t[t.index('Linux version '):] for t in said]
		name = os.path.basename(log)
		if not said:
			problems.append(('no-boot', f'{name}: no Linux version banner: the kernel did not boot'))
		elif want not in said:
			problems.append(('stale-kernel', f'booted a kernel other than the one built: {name} says '
					 f'"{banner_short(said[0])}", {os.path.basename(image)} '
					 f'"{banner_short(want)}"'))
	return problems


def boot_problems(logs, boots, kunit_parser):
	"""Every boot must run cases of its own: a leg boots once per set of
	cases (those of normal speed, the slow ones), and a boot that printed
	nothing, or no result, ran none of its set."""
	problems = []
	for log, boot in zip(logs, boots):
		name = os.path.basename(log)
		if not boot:
			problems.append(('no-tests', f'{name}: the boot left no log'))
			continue
		root = kunit_parser.parse_run_tests(boot)
		if not list(leaves(root)):
			problems.append(('no-tests', f'{name}: the boot ran no test'))
	return problems


SMP_RE = re.compile(r'smp: Brought up \d+ nodes?, (\d+) CPUs?')


def smp_problems(logs, boots, want):
	"""A boot that did not bring up all the CPUs QEMU gave it."""
	problems = []
	for log, boot in zip(logs, boots):
		if not boot:
			continue
		m = SMP_RE.search(''.join(boot))
		if not m:
			problems.append(('smp', f'{os.path.basename(log)}: no "smp: Brought up" line, '
					 f'{want} CPUs expected'))
		elif int(m.group(1)) < want:
			problems.append(('smp', f'{os.path.basename(log)}: {m.group(1)} of {want} CPUs up'))
	return problems


def merge_boots(kunit_parser, roots):
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
				same[0].status = worse(S, same[0].status, suite.status)
			else:
				root.subtests.append(suite)
		root.counts.add_subtest_counts(other.counts)
		root.status = worse(S, root.status, other.status)
	return root


def worse(S, a, b):
	"""The worse of two statuses, as kunit_tool ranks them."""
	rank = [S.SUCCESS, S.SKIPPED, S.NO_TESTS, S.FAILURE, S.TEST_CRASHED, S.FAILURE_TO_PARSE_TESTS]
	if a == S.SUCCESS and b == S.NO_TESTS:
		return a
	return max(a, b, key=lambda s: rank.index(s) if s in rank else len(rank))


def write_leg(args):
	"""leg.json: what the leg is, when the caller says (--leg-arch)."""
	if not args.leg_arch:
		return
	leg = {'name': args.arch, 'arch': args.leg_arch, 'linux_arch': args.linux_arch,
	       'compiler': args.compiler, 'build_dir': args.build_dir,
	       'kunitconfigs': [os.path.basename(c) for c in args.kunitconfig]}
	if args.vmlinux:
		try:
			with open(args.vmlinux, 'rb') as f:
				ident = f.read(6).ljust(6, b'\0')
		except OSError:
			ident = b''
		elf = ident[:4] == b'\x7fELF'
		leg['word_size'] = {1: 32, 2: 64}.get(ident[4]) if elf else None
		leg['endianness'] = {1: 'little', 2: 'big'}.get(ident[5]) if elf else None
	if args.qemu_config:
		with open(args.qemu_config, encoding='utf-8') as f:
			smp = re.search(r"'-smp',\s*'(\d+)'", f.read())
		leg['vcpus'] = int(smp.group(1)) if smp else 1
	os.makedirs(args.out, exist_ok=True)
	with open(os.path.join(args.out, 'leg.json'), 'w', encoding='utf-8') as f:
		json.dump(leg, f, indent=2)


def phase_failure(args):
	"""Results of a run that never booted: one failed case, the phase."""
	os.makedirs(args.out, exist_ok=True)
	try:
		with open(args.log[0], encoding='utf-8', errors='replace') as f:
			tail = f.read()[-20000:]
	except OSError:
		tail = ''
	suites = ET.Element('testsuites', name=f'kunit-{args.arch}', tests='1', failures='1',
			    time='0.000')
	ts = ET.SubElement(suites, 'testsuite', name='kunit-run', tests='1', failures='1',
			   time='0.000')
	tc = ET.SubElement(ts, 'testcase', classname=f'{args.arch}.kunit-run', name=args.failed_phase,
			   time='0.000')
	ET.SubElement(tc, 'failure', message=args.message, type=args.failed_phase).text = tail
	write_xml(suites, os.path.join(args.out, 'junit.xml'))
	with open(os.path.join(args.out, 'counts.json'), 'w', encoding='utf-8') as f:
		json.dump({'passed': 0, 'failed': 0, 'skipped': 0, 'verdict': 'FAIL',
			   'phase': args.failed_phase, 'hung': False, 'panicked': False,
			   'expected_warnings': 0,
			   'problems': [{'kind': args.failed_phase, 'message': args.message}],
			   'failed_cases': []}, f, indent=2)
	print(f'kunit {args.arch}: FAIL: {args.message}')
	return 1


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	ap.add_argument('--kunit-tool', required=True, help='tools/testing/kunit of the tree')
	ap.add_argument('--log', required=True, action='append',
			help='raw kernel log of a boot (repeatable: one per boot)')
	ap.add_argument('--out', required=True, help='folder for the results')
	ap.add_argument('--arch', required=True)
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
	ap.add_argument('--timed-out', type=int, default=0,
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
	args = ap.parse_args()

	write_leg(args)
	if args.failed_phase:
		return phase_failure(args)
	if not os.path.isdir(args.kunit_tool):
		print(f'error: no kunit_tool at {args.kunit_tool}', file=sys.stderr)
		return 2
	kunit_json, kunit_parser, kunit_printer = load_kunit_tool(args.kunit_tool)
	os.makedirs(args.out, exist_ok=True)

	boots = []
	for log in args.log:
		try:
			with open(log, encoding='utf-8', errors='backslashreplace') as f:
				boots.append(f.readlines())
		except OSError as e:
			boots.append([])
			print(f'error: cannot read kernel log {log}: {e.strerror}', file=sys.stderr)
	lines = [line for boot in boots for line in boot]

	ktap = []
	for boot in boots:
		stream = kunit_parser.extract_tap_lines(boot)
		while stream:
			ktap.append(stream.pop().rstrip('\n'))
	with open(os.path.join(args.out, 'ktap.log'), 'w', encoding='utf-8') as f:
		f.writelines(line + '\n' for line in ktap)
	skip_reasons = {}
	for line in ktap:
		m = re.match(r'\s*ok \d+ (.*?)\s*# SKIP\s*(.*)$', line)
		if m:
			skip_reasons[m.group(1)] = m.group(2) or 'skipped'

	with open(os.path.join(args.out, 'summary.txt'), 'w', encoding='utf-8') as f:
		kunit_parser.stdout = kunit_printer.Printer(f)
		kunit_printer.stdout = kunit_parser.stdout
		roots = [kunit_parser.parse_run_tests(boot) for boot in boots if boot]
		root = merge_boots(kunit_parser, roots)

	# The leaves first: that names the cases that never reported, in
	# results.json as in junit.xml.
	leaf_list = list(leaves(root))
	metadata = kunit_json.Metadata(arch=args.arch, build_dir='', def_config='kunit')
	with open(os.path.join(args.out, 'results.json'), 'w', encoding='utf-8') as f:
		f.write(kunit_json.get_json_result(root, metadata))

	names = {s: s.name for s in kunit_parser.TestStatus}
	counts = {'passed': 0, 'failed': 0, 'skipped': 0, 'not_run': 0}
	failed_cases = []
	crashed_suites = set()
	for suite, case, test in leaf_list:
		status = names[test.status]
		if status == 'SUCCESS':
			counts['passed'] += 1
		elif status == 'SKIPPED':
			counts['skipped'] += 1
		elif case.endswith(' never reported') and suite in crashed_suites:
			# After the case the kernel stopped in, the rest of the
			# suite's plan never ran: one crash, not one per case.
			counts['not_run'] += 1
		else:
			if case.endswith(' never reported'):
				crashed_suites.add(suite)
			counts['failed'] += 1
			failed_cases.append(f'{suite}.{case} ({status.lower()})')

	problems, expected_warnings = read_log(lines)
	text = ''.join(lines)
	if args.timed_out:
		problems.append(('hung', f'the kernel hung: QEMU killed after {args.timed_out} s'))
	dropped = sum(int(n) for n in DROPPED_RE.findall(text))
	if dropped:
		problems.append(('log', f'{dropped} printk messages dropped: the kernel log is incomplete'))
	if args.expect_leak_scan:
		problems.extend(leak_scan_problems(args.log, boots))
	if args.expect_cpus > 1:
		problems.extend(smp_problems(args.log, boots, args.expect_cpus))
	if args.expect_banner_of:
		problems.extend(banner_problems(args.log, boots, args.expect_banner_of))
	if len(args.log) > 1:
		with open(os.devnull, 'w', encoding='utf-8') as devnull:
			kunit_parser.stdout = kunit_printer.Printer(devnull)
			kunit_printer.stdout = kunit_parser.stdout
			problems.extend(boot_problems(args.log, boots, kunit_parser))
	if PANIC_RE.search(text):
		problems.append(('panic', 'the kernel panicked'))
	elif OOPS_RE.search(text):
		problems.append(('oops', 'the kernel oopsed: ' + OOPS_RE.search(text).group(0)))
	if not leaf_list:
		problems.append(('no-tests', 'no test ran'))
	if root.counts.errors:
		problems.append(('ktap', f'{root.counts.errors} KTAP parse errors (truncated or malformed output)'))
	ran = {t.name for t in root.subtests}
	for suite in args.expect_suite:
		if suite not in ran:
			problems.append(('suite-missing', f'suite {suite} did not run'))
	if names[root.status] not in ('SUCCESS', 'SKIPPED') and not failed_cases and leaf_list:
		problems.append(('verdict', f'kunit_tool verdict {names[root.status].lower()}'))

	run_error = '; '.join(m for _, m in problems)
	tail = ''.join(lines[-40:])
	write_junit(os.path.join(args.out, 'junit.xml'), args.arch, leaf_list,
		    names, skip_reasons, run_error, tail, case_times(lines, leaf_list))

	ok = not failed_cases and not problems
	verdict = 'PASS' if ok else 'FAIL'
	counts['verdict'] = verdict
	counts['expected_warnings'] = expected_warnings
	counts['phase'] = 'run'
	counts['hung'] = any(k == 'hung' for k, _ in problems)
	counts['panicked'] = any(k == 'panic' for k, _ in problems)
	counts['problems'] = [{'kind': k, 'message': m} for k, m in problems]
	counts['failed_cases'] = failed_cases
	with open(os.path.join(args.out, 'counts.json'), 'w', encoding='utf-8') as f:
		json.dump(counts, f, indent=2)

	for case in failed_cases:
		print(f'  FAILED {case}')
	for _, m in problems:
		print(f'  ERROR  {m}')
	print(f'kunit {args.arch}: {verdict}: {counts["passed"]} passed, '
	      f'{counts["failed"]} failed, {counts["skipped"]} skipped'
	      f'{", " + str(counts["not_run"]) + " not run" if counts["not_run"] else ""} '
	      f'(suites: {", ".join(sorted(ran)) or "none"}; '
	      f'{expected_warnings} expected warnings)')
	return 0 if ok else 1


if __name__ == '__main__':
	sys.exit(main())
