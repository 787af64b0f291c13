#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reports of a run of scripts/test-all.sh, made from its results folder.

  report.py kcidb RESULTS [--out FILE]   KernelCI's kcidb submission (schema v5):
                                         RESULTS/kcidb.json by default
  report.py validate KCIDB_JSON [--schema FILE]
                                         check a kcidb submission against
                                         kunit/kcidb-v5.schema.json (or FILE):
                                         exits 1 naming the first violation
  report.py summary LEG_DIR|RESULTS      Markdown for $GITHUB_STEP_SUMMARY: one
                                         leg's counts, times, failed and
                                         skipped cases (with their times), the
                                         start of a failure; or, for RESULTS,
                                         the checks
  report.py html RESULTS                 RESULTS/index.html, after appending
                                         this run to RESULTS/history.jsonl
  report.py all RESULTS                  kcidb and html
  report.py arches RESULTS [LEG...]      Markdown table, one row per leg: word
                                         size, byte order, vCPUs and CPUs up,
                                         cases passed/skipped/failed, times
  report.py line LEG_DIR                 the same for one leg, on one line
  report.py gather OUT DIR...            one results root OUT from separate
                                         legs' results folders and the results
                                         root of the checks (CI artifacts), for
                                         "report.py all OUT"

A leg is a folder of RESULTS with a counts.json (written by results.py); its
cases come from its results.json (kunit_tool's KernelCI-style JSON, each case
with the "duration", "message" and "log" results.py adds), and whatever went
wrong with the run beside failed cases (counts.json's problems) is one more
failed case, kunit-run.boot (or kunit-run.PHASE for a leg that stopped before
the boot).  The other checks come from RESULTS/checks/checks.txt, the run from
run.json and times.json (written by scripts/test-all.sh).  Only the standard
library is used (and jsonschema by "validate"), and the HTML needs nothing but
the file itself.  Each subcommand has --help.
"""

import argparse
import datetime
import glob
import html
import importlib
import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Iterable, Literal, Optional, Required, Sequence, TypedDict

from cli import run

ORIGIN = 'ida_kunit'
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, 'kcidb-v5.schema.json')
# kcidb caps every log excerpt at this many characters.
EXCERPT_MAX = 16384
# The suite of the case that stands for a run that went wrong.
RUN_SUITE = 'kunit-run'
# What "gather" leaves in a folder it made, naming what it put there.
GATHER_MARKER = '.ida-kunit-gathered'
# Files of a results root that its reports are made from again.
DERIVED = ('index.html', 'kcidb.json', 'report.png', 'history.jsonl')

Status = Literal['PASS', 'FAIL', 'SKIP', 'ERROR']
STATUS_OF: dict[str, Status] = {'PASS': 'PASS', 'FAIL': 'FAIL', 'SKIP': 'SKIP', 'ERROR': 'ERROR'}
# How the GitHub summary names a status.
STATUS_WORD: dict[Status, str] = {'PASS': 'passed', 'FAIL': 'failed', 'SKIP': 'skipped',
				  'ERROR': 'error'}


class ReportError(Exception):
	"""Something the caller must fix (a missing folder, nothing to
	report): printed as one "error:" line."""


# --- reading the results folder ------------------------------------------------

JsonObject = dict[str, object]


def read_json(path: str) -> object:
	"""The JSON document at path; ValueError or OSError when there is none."""
	with open(path, encoding='utf-8') as f:
		value: object = json.load(f)
	return value


def load_object(path: str) -> JsonObject:
	"""The JSON object at path, or an empty one when the file is missing
	or is not one."""
	try:
		return as_object(read_json(path))
	except (OSError, ValueError):
		return {}


def as_object(value: object) -> JsonObject:
	if isinstance(value, dict):
		return {str(k): v for k, v in value.items()}
	return {}


def as_list(value: object) -> list[object]:
	return list(value) if isinstance(value, list) else []


def get_str(obj: JsonObject, key: str, default: str = '') -> str:
	value = obj.get(key)
	return value if isinstance(value, str) else default


def get_int(obj: JsonObject, key: str, default: int = 0) -> int:
	value = obj.get(key)
	return value if isinstance(value, int) and not isinstance(value, bool) else default


def get_number(obj: JsonObject, key: str) -> Optional[float]:
	"""A number, int or float as the JSON has it, or None."""
	value = obj.get(key)
	if isinstance(value, (int, float)) and not isinstance(value, bool):
		return value
	return None


def get_bool(obj: JsonObject, key: str) -> bool:
	return obj.get(key) is True


def get_str_list(obj: JsonObject, key: str) -> Optional[list[str]]:
	value = obj.get(key)
	if not isinstance(value, list):
		return None
	return [x for x in value if isinstance(x, str)]


def seconds_text(value: Optional[float]) -> str:
	"""Seconds as the reports print them: "-" when unknown, whole
	seconds without a fraction."""
	if value is None:
		return '-'
	if float(value).is_integer():
		return str(int(value))
	return f'{value:.3f}'


@dataclass(frozen=True)
class Case:
	"""One case of a leg, or one parameter of a parameterised case."""
	suite: str
	# The case, then its parameter: ("ida_test_leaf", "base 1024").
	parts: tuple[str, ...]
	status: Status
	duration: Optional[float] = None
	message: str = ''
	log: str = ''

	@property
	def name(self) -> str:
		"""The case's name, "case.param" for a parameter."""
		return '.'.join(self.parts)

	@property
	def full_name(self) -> str:
		return f'{self.suite}.{self.name}' if self.parts else self.suite

	@property
	def base(self) -> str:
		return self.parts[0] if self.parts else ''

	@property
	def param(self) -> str:
		return '.'.join(self.parts[1:])

	@property
	def failed(self) -> bool:
		return self.status in ('FAIL', 'ERROR')


@dataclass(frozen=True)
class Problem:
	kind: str
	message: str


@dataclass
class Counts:
	"""A leg's counts.json."""
	passed: int = 0
	failed: int = 0
	skipped: int = 0
	not_run: int = 0
	verdict: Optional[str] = None
	phase: str = 'run'
	hung: bool = False
	panicked: bool = False
	problems: list[Problem] = field(default_factory=list)
	failed_cases: list[str] = field(default_factory=list)
	expected_warnings: int = 0

	@classmethod
	def from_json(cls, obj: JsonObject) -> 'Counts':
		problems = []
		for p in as_list(obj.get('problems')):
			po = as_object(p)
			problems.append(Problem(get_str(po, 'kind', 'problem'), get_str(po, 'message')))
		verdict = obj.get('verdict')
		return cls(passed=get_int(obj, 'passed'), failed=get_int(obj, 'failed'),
			   skipped=get_int(obj, 'skipped'), not_run=get_int(obj, 'not_run'),
			   verdict=verdict if isinstance(verdict, str) else None,
			   phase=get_str(obj, 'phase', 'run'), hung=get_bool(obj, 'hung'),
			   panicked=get_bool(obj, 'panicked'), problems=problems,
			   failed_cases=get_str_list(obj, 'failed_cases') or [],
			   expected_warnings=get_int(obj, 'expected_warnings'))

	@property
	def failed_with_problems(self) -> int:
		"""Failed cases, and whatever went wrong besides (a panic, a stop
		before the boot) as one failure more, as test-all.sh counts it."""
		return self.failed + (1 if self.problems else 0)


@dataclass
class LegInfo:
	"""A leg's leg.json: what the leg is."""
	name: str = ''
	arch: str = ''
	linux_arch: str = ''
	compiler: str = ''
	build_dir: str = ''
	kunitconfigs: list[str] = field(default_factory=list)
	word_size: Optional[int] = None
	endianness: Optional[str] = None
	vcpus: Optional[int] = None

	@classmethod
	def from_json(cls, obj: JsonObject) -> 'LegInfo':
		word = get_int(obj, 'word_size')
		vcpus = get_int(obj, 'vcpus')
		return cls(name=get_str(obj, 'name'), arch=get_str(obj, 'arch'),
			   linux_arch=get_str(obj, 'linux_arch'), compiler=get_str(obj, 'compiler'),
			   build_dir=get_str(obj, 'build_dir'),
			   kunitconfigs=get_str_list(obj, 'kunitconfigs') or [],
			   word_size=word or None, endianness=get_str(obj, 'endianness') or None,
			   vcpus=vcpus or None)


@dataclass
class LegTimes:
	"""A leg's times.json: seconds of each phase, None when not done."""
	configure: Optional[float] = None
	build: Optional[float] = None
	run: Optional[float] = None

	@classmethod
	def from_json(cls, obj: JsonObject) -> 'LegTimes':
		return cls(configure=get_number(obj, 'configure'), build=get_number(obj, 'build'),
			   run=get_number(obj, 'run'))


@dataclass
class Leg:
	name: str
	dir: str
	info: LegInfo
	counts: Counts
	times: LegTimes
	cases: list[Case]


@dataclass
class RunInfo:
	"""RESULTS/run.json (scripts/test-all.sh's run_info)."""
	run_id: str = ''
	start: int = 0
	package: str = ''
	version: str = ''
	# The Debian package version of the tree ("6.12.57-1") and what the
	# series was ("15 patches on ..., head ..."), as test-all.sh says.
	tree_version: str = ''
	series: str = ''
	pristine: str = ''
	branch_head: str = ''
	patchset_hash: str = ''
	patches: list[str] = field(default_factory=list)
	series_applied: bool = False
	# The legs of this run; None when run.json does not say.
	legs: Optional[list[str]] = None

	@classmethod
	def from_json(cls, obj: JsonObject) -> 'RunInfo':
		return cls(run_id=get_str(obj, 'run_id'), start=get_int(obj, 'start'),
			   package=get_str(obj, 'package'), version=get_str(obj, 'version'),
			   tree_version=get_str(obj, 'tree_version'), series=get_str(obj, 'series'),
			   pristine=get_str(obj, 'pristine'), branch_head=get_str(obj, 'branch_head'),
			   patchset_hash=get_str(obj, 'patchset_hash'),
			   patches=get_str_list(obj, 'patches') or [],
			   series_applied=get_bool(obj, 'series_applied'),
			   legs=get_str_list(obj, 'legs'))

	@property
	def debian_version(self) -> str:
		return self.tree_version or self.version


@dataclass(frozen=True)
class Check:
	"""One line of RESULTS/checks/checks.txt."""
	name: str
	status: Status
	seconds: int


@dataclass
class Run:
	results: str
	info: RunInfo
	legs: list[Leg]
	checks: list[Check]
	# RESULTS/times.json's total seconds, and the last line of
	# summary.txt ("N passed, N failed, N skipped").
	total_seconds: Optional[float]
	summary: str

	@property
	def empty(self) -> bool:
		return not self.legs and not self.checks


def group_cases(group: JsonObject, suite: Optional[str], prefix: tuple[str, ...]) -> list[Case]:
	"""The leaves below a group of results.json, in the file's order.  The
	groups of the top level are the suites; a group inside a suite is a
	parameterised case, whose leaves are its parameters."""
	cases: list[Case] = []
	for key, value in group.items():
		if key == 'sub_groups':
			for sub in as_list(value):
				so = as_object(sub)
				name = get_str(so, 'name')
				if suite is None:
					cases += group_cases(so, name, ())
				else:
					cases += group_cases(so, suite, prefix + (name,))
		elif key == 'test_cases':
			for tc in as_list(value):
				co = as_object(tc)
				name = get_str(co, 'name')
				# A case of the top level is a suite that ran no case.
				where, parts = (name, ()) if suite is None else (suite, prefix + (name,))
				cases.append(Case(where, parts, STATUS_OF.get(get_str(co, 'status'), 'ERROR'),
						  get_number(co, 'duration'), get_str(co, 'message'),
						  get_str(co, 'log')))
	return cases


def cases_of(leg_dir: str) -> list[Case]:
	"""The cases of a leg's results.json; none without one (a leg that
	stopped before the boot), one failed case for one that cannot be
	read."""
	path = os.path.join(leg_dir, 'results.json')
	if not os.path.exists(path):
		return []
	try:
		data = read_json(path)
	except (OSError, ValueError) as err:
		return [Case(RUN_SUITE, ('results',), 'FAIL', None, f'results.json cannot be read: {err}')]
	return group_cases(as_object(data), None, ())


def log_tail(path: str, lines: int = 40) -> str:
	try:
		with open(path, encoding='utf-8', errors='replace') as f:
			return ''.join(f.readlines()[-lines:])
	except OSError:
		return ''


def run_case(leg_dir: str, counts: Counts, cases: Sequence[Case]) -> Optional[Case]:
	"""Whatever went wrong with the run beside failed cases, as one failed
	case: kunit-run.boot with the end of the kernel logs, or, for a leg that
	stopped before the boot, kunit-run.PHASE with the end of that phase's
	log.  None when nothing did, or when results.json has one already."""
	if any(c.suite == RUN_SUITE for c in cases):
		return None
	if counts.phase == 'run' and not counts.problems:
		return None
	if counts.phase == 'run':
		name, logs = 'boot', ['kernel.log', 'kernel-slow.log']
	else:
		name, logs = counts.phase, [f'{counts.phase}.log']
	tails = [(n, log_tail(os.path.join(leg_dir, n))) for n in logs]
	tails = [(n, t) for n, t in tails if t]
	if len(tails) > 1:
		log = ''.join(f'==> {n} <==\n{t}' for n, t in tails)
	else:
		log = ''.join(t for _, t in tails)
	message = '; '.join(p.message for p in counts.problems) or f'the leg stopped in its {name} phase'
	return Case(RUN_SUITE, (name,), 'FAIL', None, message, log)


def load_leg(leg_dir: str) -> Leg:
	"""A leg's results folder.  A folder without a counts.json is a leg
	that left no result: one problem, and a failure."""
	counts_path = os.path.join(leg_dir, 'counts.json')
	if os.path.isfile(counts_path):
		counts = Counts.from_json(load_object(counts_path))
	else:
		counts = Counts(phase='setup', problems=[Problem('no-results', 'no counts.json: the leg left no result')])
	cases = cases_of(leg_dir)
	extra = run_case(leg_dir, counts, cases)
	if extra is not None:
		cases.append(extra)
	return Leg(name=os.path.basename(os.path.normpath(leg_dir)), dir=leg_dir,
		   info=LegInfo.from_json(load_object(os.path.join(leg_dir, 'leg.json'))),
		   counts=counts, times=LegTimes.from_json(load_object(os.path.join(leg_dir, 'times.json'))),
		   cases=cases)


def is_leg(path: str) -> bool:
	return os.path.isfile(os.path.join(path, 'counts.json'))


def run_leg_names(results: str, info: RunInfo) -> list[str]:
	"""The legs of this run: those run.json names (a results folder keeps
	the legs of earlier runs too), or, without a run.json that names them,
	every leg folder."""
	if info.legs is not None:
		return [n for n in info.legs if plain_name(n)]
	return sorted(os.path.basename(os.path.dirname(p))
		      for p in glob.glob(os.path.join(glob.escape(results), '*', 'counts.json')))


def load_checks(results: str) -> list[Check]:
	checks = []
	try:
		with open(os.path.join(results, 'checks', 'checks.txt'), encoding='utf-8') as f:
			for line in f:
				words = line.split()
				if len(words) == 3 and words[2].isdigit():
					checks.append(Check(words[0], STATUS_OF.get(words[1], 'ERROR'), int(words[2])))
	except OSError:
		pass
	return checks


def load_run(results: str) -> Run:
	info = RunInfo.from_json(load_object(os.path.join(results, 'run.json')))
	legs = [load_leg(os.path.join(results, n)) for n in run_leg_names(results, info)]
	summary = ''
	try:
		with open(os.path.join(results, 'summary.txt'), encoding='utf-8') as f:
			lines = f.read().strip().splitlines()
		summary = lines[-1] if lines else ''
	except OSError:
		pass
	times = load_object(os.path.join(results, 'times.json'))
	return Run(results=results, info=info, legs=legs, checks=load_checks(results),
		   total_seconds=get_number(times, 'total'), summary=summary)


# --- kcidb -------------------------------------------------------------------

class KcidbVersion(TypedDict):
	major: int
	minor: int


class KcidbCheckout(TypedDict, total=False):
	id: Required[str]
	origin: Required[str]
	tree_name: str
	git_commit_hash: str
	git_commit_name: str
	patchset_hash: str
	start_time: str
	valid: bool
	comment: str
	misc: JsonObject


class KcidbBuild(TypedDict, total=False):
	id: Required[str]
	checkout_id: Required[str]
	origin: Required[str]
	architecture: str
	config_name: str
	status: Status
	comment: str
	compiler: str
	duration: float
	log_excerpt: str
	misc: JsonObject


class KcidbEnvironment(TypedDict):
	comment: str


class KcidbTest(TypedDict, total=False):
	id: Required[str]
	build_id: Required[str]
	origin: Required[str]
	path: str
	status: Status
	environment: KcidbEnvironment
	duration: float
	comment: str
	log_excerpt: str


class Kcidb(TypedDict):
	version: KcidbVersion
	checkouts: list[KcidbCheckout]
	builds: list[KcidbBuild]
	tests: list[KcidbTest]


def path_part(text: str) -> str:
	"""A kcidb test path component: letters, digits, '_' and '-' only."""
	return re.sub(r'[^A-Za-z0-9_-]+', '_', text).strip('_') or '_'


def arch_part(text: str) -> str:
	"""A kcidb architecture: lower-case letters, digits and '_' only."""
	return re.sub(r'[^a-z0-9_]+', '_', text.lower()).strip('_')


def iso(ts: float) -> str:
	return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).isoformat()


def environment(info: LegInfo, name: str) -> str:
	"""Where a leg's cases ran, as leg.json says."""
	arch = info.arch or name
	where = 'User Mode Linux' if info.linux_arch == 'um' else 'QEMU'
	vcpus = info.vcpus
	return f'{where}, {arch}' + (f', {vcpus} vCPU{"s" if vcpus != 1 else ""}' if vcpus else '')


def checkout_of(info: RunInfo, checkout_id: str) -> KcidbCheckout:
	"""The run as a kcidb checkout: the Debian package version of the tree
	in git_commit_name, the series in comment (and both in misc)."""
	package = info.package or 'linux-source'
	checkout: KcidbCheckout = {
		'id': checkout_id, 'origin': ORIGIN,
		'tree_name': f'debian-{package}',
		'patchset_hash': info.patchset_hash if re.fullmatch(r'[0-9a-f]{64}', info.patchset_hash) else '',
		'start_time': iso(info.start),
		# Valid: the series applied (scripts/test-all.sh's series-apply).
		'valid': info.series_applied and bool(info.branch_head),
		'comment': info.series or f'{len(info.patches)} patches of kernel-patches/ on the distro tree',
		'misc': {'package': info.package, 'tree_version': info.debian_version,
			 'series': info.series, 'series_head': info.branch_head,
			 'patches': list(info.patches)}}
	if info.package or info.debian_version:
		checkout['git_commit_name'] = ' '.join(x for x in ('Debian', info.package, info.debian_version) if x)
	if re.fullmatch(r'[0-9a-f]{40}', info.pristine):
		checkout['git_commit_hash'] = info.pristine
	return checkout


def build_of(leg: Leg, checkout_id: str) -> KcidbBuild:
	c, t, info = leg.counts, leg.times, leg.info
	phase = c.phase
	status: Status = 'FAIL' if phase in ('config', 'build') else ('ERROR' if phase == 'setup' else 'PASS')
	build: KcidbBuild = {
		'id': f'{checkout_id}-{path_part(leg.name)}', 'checkout_id': checkout_id, 'origin': ORIGIN,
		'architecture': arch_part(info.arch or leg.name),
		'config_name': '+'.join(k.replace('.kunitconfig', '') for k in info.kunitconfigs) or 'kunit',
		'status': status, 'comment': f'kunit.py leg {leg.name}',
		'misc': {'leg': leg.name, 'phase': phase}}
	if info.compiler:
		build['compiler'] = info.compiler
	if t.build is not None:
		build['duration'] = (t.configure or 0) + t.build
	if status != 'PASS':
		build['log_excerpt'] = '\n'.join(p.message for p in c.problems)[:EXCERPT_MAX]
	return build


def test_of(case: Case, leg: Leg, build_id: str) -> KcidbTest:
	path = '.'.join(path_part(x) for x in (case.suite,) + case.parts)
	test: KcidbTest = {'id': f'{build_id}-{path}', 'build_id': build_id, 'origin': ORIGIN,
			   'path': path, 'status': case.status,
			   'environment': {'comment': environment(leg.info, leg.name)}}
	if case.duration is not None:
		test['duration'] = case.duration
	if case.failed:
		test['log_excerpt'] = (case.message + '\n' + case.log)[:EXCERPT_MAX]
	elif case.status == 'SKIP':
		test['comment'] = case.message
	return test


def read_tail(path: str, chars: int) -> Optional[str]:
	try:
		with open(path, encoding='utf-8', errors='replace') as f:
			return f.read()[-chars:]
	except OSError:
		return None


def kcidb(run: Run) -> Kcidb:
	"""The run as one kcidb submission: the run a checkout, each leg a
	build and each of its cases a test, the other checks the tests of a
	build of their own."""
	run_id = path_part(run.info.run_id or 'unknown')
	checkout_id = f'{ORIGIN}:{run_id}'
	builds: list[KcidbBuild] = []
	tests: list[KcidbTest] = []
	for leg in run.legs:
		build = build_of(leg, checkout_id)
		builds.append(build)
		tests += [test_of(case, leg, build['id']) for case in leg.cases]
	if run.checks:
		build_id = f'{checkout_id}-checks'
		failed = [c.name for c in run.checks if c.status == 'FAIL']
		builds.append({'id': build_id, 'checkout_id': checkout_id, 'origin': ORIGIN,
			       'architecture': 'x86_64', 'config_name': 'checks',
			       'status': 'FAIL' if failed else 'PASS',
			       'comment': 'series, bisect, harness, lints, hang' +
					  (f'; failed: {", ".join(failed)}' if failed else '')})
		for chk in run.checks:
			path = 'checks.' + path_part(chk.name)
			test: KcidbTest = {'id': f'{build_id}-{path}', 'build_id': build_id, 'origin': ORIGIN,
					   'path': path, 'status': chk.status, 'duration': chk.seconds}
			if chk.status == 'FAIL':
				tail = read_tail(os.path.join(run.results, 'checks', chk.name + '.log'), 4000)
				if tail is not None:
					test['log_excerpt'] = tail
			tests.append(test)
	return {'version': {'major': 5, 'minor': 0}, 'checkouts': [checkout_of(run.info, checkout_id)],
		'builds': builds, 'tests': tests}


def write_kcidb(run: Run, out: str) -> None:
	try:
		with open(out + '.tmp', 'w', encoding='utf-8') as f:
			json.dump(kcidb(run), f, indent=1)
		os.replace(out + '.tmp', out)
	except OSError as err:
		raise ReportError(f'cannot write {out}: {err.strerror or err}')


def schema_violation(doc: object, schema: object) -> Optional[str]:
	"""The first place where doc breaks schema (in the order of the
	document's paths), as "where: what", or None."""
	jsonschema = importlib.import_module('jsonschema')
	validator = jsonschema.validators.validator_for(schema)(schema)
	found: list[tuple[list[str], str]] = []
	for err in validator.iter_errors(doc):
		where = [f'[{p}]' if isinstance(p, int) else f'.{p}' for p in err.absolute_path]
		what = ' '.join(str(err.message).split())
		found.append((where, what if len(what) <= 200 else what[:197] + '...'))
	if not found:
		return None
	# Sorted by the numbers in the path, so that tests[2] comes before
	# tests[10].
	def key(item: tuple[list[str], str]) -> list[tuple[int, str]]:
		return [(int(p[1:-1]), '') if p.startswith('[') else (-1, p) for p in item[0]]
	where, what = min(found, key=key)
	return f'{"".join(where).lstrip(".") or "(top level)"}: {what}'


# --- GitHub summary ------------------------------------------------------------

def case_time(case: Case) -> str:
	return f' ({case.duration:.3f} s)' if case.duration is not None else ''


def summary(leg: Leg) -> str:
	c, t = leg.counts, leg.times
	out = [f'### KUnit leg `{leg.name}`: {c.verdict or "no result"}', '',
	       '| passed | failed | skipped | problems | configure | build | run |',
	       '|---|---|---|---|---|---|---|',
	       f'| {c.passed} | {c.failed} | {c.skipped} | {len(c.problems)} | '
	       f'{seconds_text(t.configure)} s | {seconds_text(t.build)} s | {seconds_text(t.run)} s |', '']
	for p in c.problems:
		out.append(f'- **{p.kind}**: {p.message}')
	for x in leg.cases:
		if not x.failed:
			continue
		out.append(f'- **{STATUS_WORD[x.status]}** `{x.full_name}`: {x.message}{case_time(x)}')
		lines = [line for line in x.log.splitlines() if line.strip()]
		# The start of a case's log; the end of the kernel's, for a run
		# that went wrong.
		shown = lines[-8:] if x.suite == RUN_SUITE else lines[:8]
		if shown:
			out += ['', '  ```', *('  ' + line for line in shown), '  ```']
	for x in leg.cases:
		if x.status == 'SKIP':
			out.append(f'- skipped `{x.full_name}`: {x.message}{case_time(x)}')
	return '\n'.join(out) + '\n'


def cpus_up(leg: Leg) -> Optional[int]:
	"""CPUs the kernel brought up, from its log (kernel/smp.c's line); 1 for
	a kernel that booted without it; None without a boot."""
	try:
		with open(os.path.join(leg.dir, 'kernel.log'), encoding='utf-8', errors='replace') as f:
			text = f.read()
	except OSError:
		return None
	m = re.search(r'smp: Brought up \d+ nodes?, (\d+) CPUs?', text)
	if m:
		return int(m.group(1))
	return 1 if re.search(r'KTAP version|TAP version', text) else None


@dataclass(frozen=True)
class ArchRow:
	"""One leg in the per-leg table, as the table prints it."""
	leg: str
	arch: str
	linux_arch: str
	word: str
	endian: str
	vcpus: str
	cpus_up: str
	passed: int
	skipped: int
	failed: int
	problem: str
	build: str
	run: str
	verdict: str


def arch_row(leg: Leg) -> ArchRow:
	info, c, t = leg.info, leg.counts, leg.times
	up = cpus_up(leg)
	return ArchRow(leg=leg.name, arch=info.arch or '-', linux_arch=info.linux_arch or '-',
		       word=f'{info.word_size}-bit' if info.word_size else '-',
		       endian=info.endianness or '-',
		       vcpus='-' if info.vcpus is None else str(info.vcpus),
		       cpus_up='-' if up is None else str(up),
		       passed=c.passed, skipped=c.skipped, failed=c.failed_with_problems,
		       problem=c.problems[0].message if c.problems else '',
		       build=seconds_text(t.build), run=seconds_text(t.run),
		       verdict=c.verdict or 'no result')


def arches_table(legs: Iterable[Leg]) -> str:
	out = ['| leg | Linux arch | word | byte order | vCPUs | CPUs up | passed | skipped | failed | build s | run s | verdict |',
	       '|---|---|---|---|---|---|---|---|---|---|---|---|']
	for leg in legs:
		r = arch_row(leg)
		out.append(f'| {r.leg} | {r.linux_arch} | {r.word} | {r.endian} | {r.vcpus} | '
			   f'{r.cpus_up} | {r.passed} | {r.skipped} | {r.failed} | {r.build} | '
			   f'{r.run} | {r.verdict} |')
	return '\n'.join(out) + '\n'


def arch_line(leg: Leg) -> str:
	r = arch_row(leg)
	return (f'{r.leg}: {r.verdict}: {r.passed} passed, {r.failed} failed, '
		f'{r.skipped} skipped; {r.word} {r.endian} endian, {r.cpus_up} of '
		f'{r.vcpus} vCPUs up; build {r.build} s, run {r.run} s' +
		(f'; {r.problem}' if r.problem else ''))


def checks_summary(run: Run) -> str:
	"""Markdown for a job that ran the checks (RESULTS/checks/checks.txt)."""
	out = [f'### Checks: {run.summary or "no summary"}', '', '| check | status | seconds |',
	       '|---|---|---|']
	out += [f'| {c.name} | {c.status} | {c.seconds} |' for c in run.checks]
	for c in run.checks:
		if c.status == 'FAIL':
			text = read_tail(os.path.join(run.results, 'checks', c.name + '.log'), 1 << 20) or ''
			tail = text.strip().splitlines()[-8:]
			out += ['', f'**{c.name}** failed:', '', '```', *tail, '```']
	return '\n'.join(out) + '\n'


# --- HTML ----------------------------------------------------------------------

CSS = '''
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
.PASS { background: #d8f5d8; } .FAIL, .ERROR { background: #f8d0d0; } .SKIP { background: #f3efc8; }
details { margin: 0; } summary { cursor: pointer; }
.msg { font-family: monospace; white-space: pre-wrap; font-size: 12px; }
svg text { font: 11px sans-serif; }
'''


def e(x: object) -> str:
	return html.escape(str(x), quote=True)


def status_cell(status: str, text: Optional[str] = None) -> str:
	return f'<td class="{e(status)}" data-status="{e(status)}">{e(text or status)}</td>'


def duration_text(cases: Sequence[Case]) -> str:
	"""The seconds of some cases together: "-" when none is known."""
	known = [x.duration for x in cases if x.duration is not None]
	return f'{sum(known):.3f}' if known else '-'


def case_rows(leg: Leg) -> str:
	"""One row per case, with its seconds; the parameters of a
	parameterised case folded into one row that opens."""
	groups: dict[tuple[str, str], list[Case]] = {}
	for x in leg.cases:
		groups.setdefault((x.suite, x.base), []).append(x)
	rows = []
	for (suite, base), xs in groups.items():
		name = base or '(the suite)'
		attrs = f'data-leg="{e(leg.name)}" data-case="{e(suite + ("." + base if base else ""))}"'
		if len(xs) == 1 and not xs[0].param:
			x = xs[0]
			msg = f'<div class="msg">{e(x.message)}</div>' if x.message else ''
			rows.append(f'<tr {attrs} data-seconds="{duration_text(xs)}">'
				    f'<td>{e(suite)}</td><td>{e(name)}{msg}</td>'
				    f'{status_cell(x.status)}<td>{duration_text(xs)}</td></tr>')
			continue
		worst = 'FAIL' if any(x.failed for x in xs) else (
			'SKIP' if all(x.status == 'SKIP' for x in xs) else 'PASS')
		inner = ''.join(f'<li>{e(x.param)}: {x.status}'
				f'{" (" + duration_text([x]) + " s)" if x.duration is not None else ""}'
				f'{" - " + e(x.message) if x.message else ""}</li>' for x in xs)
		n = {s: sum(x.status == s for x in xs) for s in ('PASS', 'FAIL', 'SKIP')}
		n['FAIL'] += sum(x.status == 'ERROR' for x in xs)
		rows.append(f'<tr {attrs} data-seconds="{duration_text(xs)}">'
			    f'<td>{e(suite)}</td><td><details><summary>{e(name)} ({len(xs)} parameters: '
			    f'{n["PASS"]} passed, {n["FAIL"]} failed, {n["SKIP"]} skipped)</summary>'
			    f'<ul>{inner}</ul></details></td>{status_cell(worst)}'
			    f'<td>{duration_text(xs)}</td></tr>')
	return ''.join(rows)


def bar_chart(rows: Sequence[tuple[str, Sequence[Optional[float]]]], revs: Sequence[str]) -> str:
	"""An SVG bar chart: instructions per operation for each workload, one
	bar per allocator (the IDA at each revision, the IDR, the bitmap)."""
	series = [f'IDA {r}' for r in revs] + ['IDR', 'bitmap']
	blues = ['#1f4e8c', '#4a7ab5', '#7aa6d6', '#a9c8ea']
	colours = [blues[i % len(blues)] for i in range(len(revs))] + ['#d98c3a', '#7f7f7f']
	vmax = max([v for row in rows for v in row[1] if v] or [1.0])
	bw, gap, left = 10, 14, 180
	height = 16 + len(rows) * (len(series) * bw + gap)
	width = left + 420
	out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 40}" role="img" '
	       f'aria-label="instructions per operation">']
	y = 10
	for name, values in rows:
		out.append(f'<text x="4" y="{y + len(series) * bw / 2 + 4}">{e(name)}</text>')
		for i, v in enumerate(values):
			if v is None:
				continue
			w = 400 * v / vmax
			out.append(f'<rect x="{left}" y="{y + i * bw}" width="{w:.1f}" height="{bw - 1}" '
				   f'fill="{colours[i % len(colours)]}"><title>{e(series[i])}: {v:.0f}</title></rect>')
		y += len(series) * bw + gap
	for i, s in enumerate(series):
		out.append(f'<rect x="{left + i * 90}" y="{y + 6}" width="10" height="10" '
			   f'fill="{colours[i % len(colours)]}"/><text x="{left + i * 90 + 14}" y="{y + 15}">{e(s)}</text>')
	out.append('</svg>')
	return ''.join(out)


@dataclass
class BenchRun:
	"""One userspace benchmark file (scripts/tools/bench.sh): instructions
	per operation of each workload, per allocator (ida, idr, bitmap)."""
	label: str
	per_op: dict[str, dict[str, float]]

	@classmethod
	def load(cls, path: str) -> 'BenchRun':
		obj = load_object(path)
		per_op: dict[str, dict[str, float]] = {}
		for workload, values in as_object(obj.get('instructions_per_op')).items():
			vo = as_object(values)
			per_op[workload] = {k: v for k in vo if (v := get_number(vo, k)) is not None}
		return cls(get_str(obj, 'label') or get_str(obj, 'rev') or os.path.basename(path), per_op)


def bench_section(results: str) -> str:
	"""The benchmark's userspace JSON files (scripts/tools/bench.sh)."""
	files = sorted(glob.glob(os.path.join(glob.escape(results), 'bench', 'userspace-*.json')))
	if not files:
		return '<p>No benchmark in this results folder (<code>scripts/tools/bench.sh</code> writes one).</p>'
	runs = [BenchRun.load(f) for f in files]
	workloads: list[str] = []
	for r in runs:
		workloads += [w for w in r.per_op if w not in workloads]
	rows: list[tuple[str, list[Optional[float]]]] = []
	for w in workloads:
		per = [r.per_op.get(w, {}) for r in runs]
		rows.append((w, [p.get('ida') for p in per] + [per[-1].get('idr'), per[-1].get('bitmap')]))
	return bar_chart(rows, [r.label for r in runs])


class HistoryEntry(TypedDict):
	"""One line of RESULTS/history.jsonl: one run."""
	run_id: str
	start: int
	seconds: float
	passed: int
	failed: int
	skipped: int


def history_entry(line: str) -> Optional[HistoryEntry]:
	try:
		obj = as_object(json.loads(line))
	except ValueError:
		return None
	if not isinstance(obj.get('run_id'), str):
		return None
	return {'run_id': get_str(obj, 'run_id'), 'start': get_int(obj, 'start'),
		'seconds': get_number(obj, 'seconds') or 0, 'passed': get_int(obj, 'passed'),
		'failed': get_int(obj, 'failed'), 'skipped': get_int(obj, 'skipped')}


def history_chart(hist: Sequence[HistoryEntry]) -> str:
	"""Pass counts and run times of the last runs, as two SVG polylines."""
	hist = hist[-30:]
	if len(hist) < 2:
		return '<p>History: this is the first recorded run.</p>'
	w, h = 480, 120

	def line(values: Sequence[float], colour: str) -> str:
		vmax = max(values) or 1
		pts = ' '.join(f'{10 + i * (w - 20) / (len(values) - 1):.1f},{h - 10 - (h - 20) * v / vmax:.1f}'
			       for i, v in enumerate(values))
		return f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>'
	return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h + 20}" role="img" '
		f'aria-label="history">{line([x["passed"] for x in hist], "#2a8a2a")}'
		f'{line([x["seconds"] for x in hist], "#4a7ab5")}'
		f'<text x="10" y="{h + 15}">passed (green) and seconds (blue), last {len(hist)} runs; '
		f'latest {hist[-1]["passed"]} passed in {seconds_text(hist[-1]["seconds"])} s</text></svg>')


SUMMARY_COUNTS_RE = re.compile(r'(\d+) passed, (\d+) failed, (\d+) skipped')


def append_history(run: Run) -> list[HistoryEntry]:
	legs = run.legs
	entry: HistoryEntry = {
		'run_id': run.info.run_id, 'start': run.info.start,
		'seconds': run.total_seconds or 0,
		'passed': sum(leg.counts.passed for leg in legs) + sum(c.status == 'PASS' for c in run.checks),
		'failed': sum(leg.counts.failed_with_problems for leg in legs) +
			  sum(c.status == 'FAIL' for c in run.checks),
		'skipped': sum(leg.counts.skipped for leg in legs)}
	# The run's own closing line, when it has one, is what it counted.
	m = SUMMARY_COUNTS_RE.search(run.summary)
	if m:
		entry['passed'], entry['failed'], entry['skipped'] = (int(m.group(1)), int(m.group(2)),
								      int(m.group(3)))
	path = os.path.join(run.results, 'history.jsonl')
	hist: list[HistoryEntry] = []
	try:
		with open(path, encoding='utf-8') as f:
			hist = [h for h in (history_entry(line) for line in f if line.strip()) if h is not None]
	except OSError:
		hist = []
	# One line per run: a report written again for the same run replaces
	# its line.
	if hist and hist[-1]['run_id'] == entry['run_id']:
		hist[-1] = entry
	else:
		hist.append(entry)
	with open(path + '.tmp', 'w', encoding='utf-8') as f:
		f.writelines(json.dumps(h) + '\n' for h in hist)
	os.replace(path + '.tmp', path)
	return hist


LEG_FILES = ('kernel.log', 'kernel-slow.log', 'ktap.log', 'junit.xml', 'results.json', 'build.log',
	     'config.log')


def html_report(run: Run) -> str:
	results = run.results
	hist = append_history(run)
	r = run.info
	parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
		 '<title>ida-kunit: results</title>', f'<style>{CSS}</style></head><body>',
		 '<h1>ida-kunit: results</h1>']
	series = r.series or f'{len(r.patches)} patches'
	parts.append(f'<p id="run">Run <code>{e(r.run_id or "?")}</code> on '
		     f'<span id="tree">{e(r.package)} {e(r.debian_version)}</span>, '
		     f'<span id="series">{e(series)}</span>; '
		     f'<span id="summary">{e(run.summary)}</span></p>')
	parts.append('<h2>Legs</h2><table id="legs"><tr><th>leg</th><th>verdict</th><th>passed</th>'
		     '<th>failed</th><th>skipped</th><th>problems</th><th>configure</th><th>build</th>'
		     '<th>run</th><th>logs</th></tr>')
	for leg in run.legs:
		c, t = leg.counts, leg.times
		links = ' '.join(f'<a href="{e(leg.name)}/{f}">{f}</a>' for f in LEG_FILES
				 if os.path.isfile(os.path.join(leg.dir, f)))
		parts.append(f'<tr data-leg="{e(leg.name)}" data-passed="{c.passed}" '
			     f'data-failed="{c.failed}" data-skipped="{c.skipped}">'
			     f'<td>{e(leg.name)}</td>{status_cell(c.verdict or "FAIL")}'
			     f'<td>{c.passed}</td><td>{c.failed}</td><td>{c.skipped}</td>'
			     f'<td class="msg">{e("; ".join(p.message for p in c.problems))}</td>'
			     f'<td>{seconds_text(t.configure)} s</td><td>{seconds_text(t.build)} s</td>'
			     f'<td>{seconds_text(t.run)} s</td><td>{links}</td></tr>')
	parts.append('</table>')
	for leg in run.legs:
		parts.append(f'<h3 id="leg-{e(leg.name)}">{e(leg.name)}</h3><table class="cases"><tr><th>suite</th>'
			     f'<th>case</th><th>status</th><th>seconds</th></tr>{case_rows(leg)}</table>')
	if run.checks:
		parts.append('<h2>Other checks</h2><table id="checks"><tr><th>check</th><th>status</th>'
			     '<th>seconds</th><th>log</th></tr>')
		for chk in run.checks:
			log = f'checks/{chk.name}.log'
			link = f'<a href="{e(log)}">log</a>' if os.path.isfile(os.path.join(results, log)) else ''
			parts.append(f'<tr data-check="{e(chk.name)}"><td>{e(chk.name)}</td>'
				     f'{status_cell(chk.status)}<td>{chk.seconds}</td><td>{link}</td></tr>')
		parts.append('</table>')
	cov = os.path.join(results, 'coverage', 'summary.txt')
	if os.path.isfile(cov):
		with open(cov, encoding='utf-8', errors='replace') as f:
			total = [line for line in f if line.startswith('coverage total')]
		parts.append(f'<h2>Coverage</h2><p id="coverage">{e(total[0].strip() if total else "")} '
			     f'(<a href="coverage/summary.txt">per function</a>)</p>')
	parts.append('<h2>Benchmark</h2>' + bench_section(results))
	parts.append('<h2>History</h2>' + history_chart(hist))
	parts.append('</body></html>\n')
	out = os.path.join(results, 'index.html')
	with open(out + '.tmp', 'w', encoding='utf-8') as f:
		f.write('\n'.join(parts))
	os.replace(out + '.tmp', out)
	return out


# --- gather: one results root from CI artifacts ----------------------------------

@dataclass
class Gathering:
	"""What "gather" takes: leg folders by the name they get in OUT, the
	results root of the checks (at most one) and the legs its run.json
	names, a benchmark folder."""
	legs: dict[str, str] = field(default_factory=dict)
	root: Optional[str] = None
	root_legs: list[str] = field(default_factory=list)
	bench: Optional[str] = None


def is_root(path: str) -> bool:
	return (os.path.isfile(os.path.join(path, 'run.json')) or
		os.path.isfile(os.path.join(path, 'checks', 'checks.txt')))


def is_bench(path: str) -> bool:
	return (os.path.basename(os.path.normpath(path)) == 'bench' and
		bool(glob.glob(os.path.join(glob.escape(path), 'userspace-*.json'))))


def gathered_leg_name(path: str) -> str:
	"""The name of a leg folder in OUT: the name its leg.json gives it, or
	its folder's name without the "kunit-" of the workflow's artifacts."""
	name = get_str(load_object(os.path.join(path, 'leg.json')), 'name')
	if not plain_name(name):
		name = os.path.basename(os.path.normpath(path))
		name = name[len('kunit-'):] if name.startswith('kunit-') and len(name) > 6 else name
	return name


def plain_name(name: str) -> bool:
	"""A name that is one entry of a folder, and not a hidden one."""
	return bool(name) and '/' not in name and not name.startswith('.') and name not in DERIVED


def inside(path: str, folder: str) -> bool:
	path, folder = os.path.realpath(path), os.path.realpath(folder)
	return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def classify(dirs: Sequence[str], out: str) -> Gathering:
	"""Sort the folders given to gather: a leg's results folder (it has a
	counts.json), a results root (run.json or checks/checks.txt), a
	benchmark folder, or a folder of those, up to two levels down (a
	download of every artifact: one folder per artifact, the benchmark's
	holding bench/ and bench-kernel/)."""
	g = Gathering()

	def add(path: str, depth: int) -> bool:
		if is_leg(path):
			name = gathered_leg_name(path)
			if name in g.legs:
				raise ReportError(f'two legs named {name}: {g.legs[name]} and {path}')
			g.legs[name] = path
		elif is_root(path):
			if g.root is not None:
				raise ReportError(f'two results roots: {g.root} and {path}')
			g.root = path
		elif is_bench(path):
			if g.bench is not None:
				raise ReportError(f'two benchmark folders: {g.bench} and {path}')
			g.bench = path
		elif depth < 2:
			subs = [os.path.join(path, n) for n in sorted(os.listdir(path))]
			found = [s for s in subs if os.path.isdir(s) and not inside(s, out) and add(s, depth + 1)]
			return bool(found)
		else:
			return False
		return True

	for d in dirs:
		if not os.path.exists(d):
			raise ReportError(f'{d}: no such folder')
		if not os.path.isdir(d):
			raise ReportError(f'{d} is a file, not a results folder')
		# OUT may be inside a folder of artifacts or a results root (it is
		# left out of what is copied), never inside a leg, nor the other way.
		if inside(d, out) or (inside(out, d) and is_leg(d)):
			raise ReportError(f'{d} and {out} overlap')
		if not add(os.path.abspath(d), 0):
			raise ReportError(f'{d} holds no leg results folder (counts.json), no results root '
					  f'(run.json, checks/checks.txt) and no benchmark')
	if g.root is not None:
		info = RunInfo.from_json(load_object(os.path.join(g.root, 'run.json')))
		for name in run_leg_names(g.root, info):
			if name in g.legs:
				raise ReportError(f'two legs named {name}: {g.legs[name]} and {os.path.join(g.root, name)}')
			g.root_legs.append(name)
	return g


def summary_lines(root: Optional[str], legs: Sequence[Leg]) -> list[str]:
	"""summary.txt of the whole run: the root's lines, the failed legs
	added to its "failed:" line, and the closing counts with every leg's
	cases in them, as test-all.sh counts them."""
	lines: list[str] = []
	if root is not None:
		try:
			with open(os.path.join(root, 'summary.txt'), encoding='utf-8', errors='replace') as f:
				lines = f.read().strip().splitlines()
		except OSError:
			lines = []
	passed = failed = skipped = 0
	m = SUMMARY_COUNTS_RE.fullmatch(lines[-1].strip()) if lines else None
	if m:
		lines.pop()
		passed, failed, skipped = int(m.group(1)), int(m.group(2)), int(m.group(3))
	failures = [f'kunit-{leg.name}' for leg in legs if leg.counts.failed_with_problems]
	named = [i for i, line in enumerate(lines) if line.startswith('failed: ')]
	if named and failures:
		lines[named[0]] += ' ' + ' '.join(failures)
	elif failures:
		lines.append('failed: ' + ' '.join(failures))
	passed += sum(leg.counts.passed for leg in legs)
	failed += sum(leg.counts.failed_with_problems for leg in legs)
	skipped += sum(leg.counts.skipped for leg in legs)
	lines.append(f'{passed} passed, {failed} failed, {skipped} skipped')
	return lines


def prepare_out(out: str) -> None:
	"""Make OUT ready for gather: a new or empty folder, or one gather made
	before, from which what it put there then is removed (and nothing
	else)."""
	marker = os.path.join(out, GATHER_MARKER)
	if os.path.exists(out) and not os.path.isdir(out):
		raise ReportError(f'{out} is a file, not a folder to gather into')
	if not os.path.isdir(out):
		os.makedirs(out)
		return
	if not os.listdir(out):
		return
	if not os.path.isfile(marker):
		raise ReportError(f'{out} exists, is not empty and was not made by "report.py gather": '
				  f'move it away or give another folder')
	made = get_str_list(load_object(marker), 'created') or []
	for name in made:
		path = os.path.join(out, name)
		if not plain_name(name):
			continue
		if os.path.isdir(path) and not os.path.islink(path):
			shutil.rmtree(path)
		elif os.path.lexists(path):
			os.remove(path)


def gather(out: str, dirs: Sequence[str]) -> tuple[str, list[str]]:
	"""Copy the folders given into OUT as one results root, and write its
	run.json naming the legs gathered.  Returns OUT and the legs."""
	out = os.path.abspath(out)
	g = classify(dirs, out)
	if not g.legs and g.root is None:
		raise ReportError('nothing to gather')
	# What of the results root is copied: not the reports made from it,
	# nor its run.json and summary.txt (written anew), nor an earlier
	# run's legs.
	root_entries: list[str] = []
	if g.root is not None:
		root_legs = set(g.root_legs)
		for name in sorted(os.listdir(g.root)):
			path = os.path.join(g.root, name)
			if name in DERIVED or name in ('run.json', 'summary.txt') or name.startswith('.'):
				continue
			if os.path.isdir(path) and is_leg(path) and name not in root_legs:
				continue	# an earlier run's leg
			if inside(out, path):
				continue
			root_entries.append(name)
	leg_names = g.root_legs + [n for n in g.legs]
	entries = root_entries + [n for n in g.legs] + (['bench'] if g.bench is not None else [])
	clash = sorted({n for n in entries if entries.count(n) > 1})
	if clash:
		raise ReportError(f'{", ".join(clash)}: given twice (a leg and a folder of the results root?)')
	prepare_out(out)
	# Everything gather puts in OUT, named in the marker before it is
	# copied, so that a gather stopped half way is cleaned up by the next.
	made = entries + ['run.json', 'summary.txt']
	with open(os.path.join(out, GATHER_MARKER), 'w', encoding='utf-8') as f:
		json.dump({'created': made}, f, indent=1)
	if g.root is not None:
		for name in root_entries:
			src = os.path.join(g.root, name)
			if os.path.isdir(src) and not os.path.islink(src):
				shutil.copytree(src, os.path.join(out, name), symlinks=True)
			else:
				shutil.copy2(src, os.path.join(out, name), follow_symlinks=False)
	for name, src in g.legs.items():
		shutil.copytree(src, os.path.join(out, name), symlinks=True)
	if g.bench is not None:
		shutil.copytree(g.bench, os.path.join(out, 'bench'), symlinks=True)
	run = load_object(os.path.join(g.root, 'run.json')) if g.root is not None else {}
	if not get_str(run, 'run_id'):
		now = int(time.time())
		run.setdefault('start', now)
		run['run_id'] = f'{get_int(run, "start", now)}-gathered'
	run['legs'] = leg_names
	run['gathered_from'] = ([g.root] if g.root is not None else []) + list(g.legs.values())
	with open(os.path.join(out, 'run.json'), 'w', encoding='utf-8') as f:
		json.dump(run, f, indent=2)
		f.write('\n')
	legs = [load_leg(os.path.join(out, n)) for n in leg_names]
	with open(os.path.join(out, 'summary.txt'), 'w', encoding='utf-8') as f:
		f.writelines(line + '\n' for line in summary_lines(g.root, legs))
	return out, leg_names


# --- command line ----------------------------------------------------------------

def existing_dir(path: str, what: str) -> str:
	"""path, made absolute, when it is a folder; a ReportError else."""
	if not os.path.exists(path):
		raise ReportError(f'{path}: no such {what}')
	if not os.path.isdir(path):
		raise ReportError(f'{path} is a file, not a {what}')
	return os.path.abspath(path)


def nonempty_run(results: str, nothing: str) -> Run:
	run = load_run(existing_dir(results, 'results folder'))
	if run.empty:
		raise ReportError(f'no leg and no check in {results}: {nothing}')
	return run


def cmd_kcidb(args: argparse.Namespace) -> int:
	run = nonempty_run(args.results, 'nothing to submit')
	out = args.out or os.path.join(run.results, 'kcidb.json')
	write_kcidb(run, out)
	print(f'kcidb: {out}')
	return 0


def cmd_validate(args: argparse.Namespace) -> int:
	try:
		doc = read_json(args.kcidb_json)
	except OSError as err:
		raise ReportError(f'{args.kcidb_json}: {err.strerror or err}')
	except ValueError as err:
		raise ReportError(f'{args.kcidb_json}: not JSON: {err}')
	try:
		schema = read_json(args.schema)
	except (OSError, ValueError) as err:
		raise ReportError(f'schema {args.schema}: {err}')
	try:
		problem = schema_violation(doc, schema)
	except ImportError:
		raise ReportError('validate needs the jsonschema module (Debian: python3-jsonschema)')
	if problem is not None:
		raise ReportError(f'{args.kcidb_json}: not a valid kcidb submission: {problem}')
	obj = as_object(doc)
	print(f'valid: {args.kcidb_json}: ' + ', '.join(f'{len(as_list(obj.get(k)))} {k}'
							for k in ('checkouts', 'builds', 'tests')))
	return 0


def cmd_summary(args: argparse.Namespace) -> int:
	where = existing_dir(args.where, 'results folder')
	if is_leg(where):
		sys.stdout.write(summary(load_leg(where)))
	else:
		sys.stdout.write(checks_summary(load_run(where)))
	return 0


def cmd_html(args: argparse.Namespace) -> int:
	run = nonempty_run(args.results, 'nothing to report')
	print(f'report: {html_report(run)}')
	return 0


def cmd_all(args: argparse.Namespace) -> int:
	run = nonempty_run(args.results, 'nothing to report')
	write_kcidb(run, os.path.join(run.results, 'kcidb.json'))
	print(f'report: {html_report(run)}')
	return 0


def cmd_arches(args: argparse.Namespace) -> int:
	results = existing_dir(args.results, 'results folder')
	if args.legs:
		legs = [load_leg(os.path.join(results, n)) for n in args.legs]
	else:
		legs = load_run(results).legs
		if not legs:
			raise ReportError(f'no leg in {args.results}')
	sys.stdout.write(arches_table(legs))
	return 0


def cmd_line(args: argparse.Namespace) -> int:
	print(arch_line(load_leg(existing_dir(args.leg_dir, 'leg results folder'))))
	return 0


def cmd_gather(args: argparse.Namespace) -> int:
	out, legs = gather(args.out, args.dirs)
	print(f'gather: {out}: {len(legs)} legs ({", ".join(legs) or "none"})')
	return 0


def parser() -> argparse.ArgumentParser:
	ap = argparse.ArgumentParser(
		prog='report.py', description=(__doc__ or '').split('\n')[0],
		epilog='Each command has its own --help.  Exits 1 with one "error:" line when a '
		       'folder is missing or there is nothing to report, 2 on a bad command line.')
	sub = ap.add_subparsers(dest='command', required=True, metavar='COMMAND')

	p = sub.add_parser('kcidb', help="KernelCI's kcidb submission (schema v5) of a run",
			   description='Write the kcidb v5 submission of the run in RESULTS: the run is one '
				       'checkout (git_commit_name: the Debian package version of the tree; '
				       'comment: the series; misc: both, and the patches), each leg a build, '
				       'each case a test with its duration, the other checks a build of '
				       'their own.')
	p.add_argument('results', metavar='RESULTS', help='the results folder of the run')
	p.add_argument('--out', metavar='FILE', help='where to write it (default: RESULTS/kcidb.json)')
	p.set_defaults(func=cmd_kcidb)

	p = sub.add_parser('validate', help='check a kcidb submission against the schema',
			   description='Validate KCIDB_JSON against the kcidb v5 JSON schema; exit 1 '
				       'with one line naming the first violation.')
	p.add_argument('kcidb_json', metavar='KCIDB_JSON', help='a kcidb submission (kcidb.json)')
	p.add_argument('--schema', metavar='FILE', default=SCHEMA,
		       help='the JSON schema (default: kcidb-v5.schema.json beside this script)')
	p.set_defaults(func=cmd_validate)

	p = sub.add_parser('summary', help='Markdown of a leg, or of the checks, for $GITHUB_STEP_SUMMARY',
			   description="Markdown of one leg (a folder with a counts.json): counts, times, "
				       "failed and skipped cases with their times and the start of each "
				       "failure; or of the checks of a results root.")
	p.add_argument('where', metavar='LEG_DIR|RESULTS', help="a leg's results folder or a results root")
	p.set_defaults(func=cmd_summary)

	p = sub.add_parser('html', help='RESULTS/index.html, and a line of RESULTS/history.jsonl',
			   description='Write RESULTS/index.html (legs, cases with their seconds, checks, '
				       'coverage, benchmark, history), after adding this run to '
				       'RESULTS/history.jsonl.')
	p.add_argument('results', metavar='RESULTS', help='the results folder of the run')
	p.set_defaults(func=cmd_html)

	p = sub.add_parser('all', help='kcidb and html',
			   description='Write RESULTS/kcidb.json and RESULTS/index.html.')
	p.add_argument('results', metavar='RESULTS', help='the results folder of the run')
	p.set_defaults(func=cmd_all)

	p = sub.add_parser('arches', help='Markdown table, one row per leg',
			   description='A Markdown table with one row per leg: word size, byte order, '
				       'vCPUs and CPUs up, cases passed, skipped and failed, times, verdict.')
	p.add_argument('results', metavar='RESULTS', help='the results folder')
	p.add_argument('legs', metavar='LEG', nargs='*',
		       help='legs (folders of RESULTS) in this order; default: the legs of the run')
	p.set_defaults(func=cmd_arches)

	p = sub.add_parser('line', help='one leg on one line',
			   description="One leg on one line: verdict, counts (whatever went wrong beside "
				       "failed cases is one failure more), word size, byte order, CPUs, "
				       "times, and the first problem.")
	p.add_argument('leg_dir', metavar='LEG_DIR', help="the leg's results folder")
	p.set_defaults(func=cmd_line)

	p = sub.add_parser('gather', help='one results root from separate legs (CI artifacts)',
			   description='Copy into OUT the legs\' results folders and the results root of '
				       'the checks given, as one results root, and write OUT/run.json naming '
				       'the legs gathered and OUT/summary.txt counting them; then '
				       '"report.py all OUT" reports the whole run.  A DIR is a leg\'s folder '
				       '(it has a counts.json; named in OUT as its leg.json says, or as the '
				       'folder without a "kunit-" prefix), a results root (run.json or '
				       'checks/checks.txt: its checks, logs and this run\'s legs), a "bench" '
				       'folder, or a folder holding any of those up to two levels down.  OUT must be '
				       'new, empty, or made by gather before (its ' + GATHER_MARKER + ' names '
				       'what gather put there, and only that is replaced).')
	p.add_argument('out', metavar='OUT', help='the results root to make')
	p.add_argument('dirs', metavar='DIR', nargs='+', help='a folder to gather')
	p.set_defaults(func=cmd_gather)
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	return run(lambda: int(args.func(args)), (ReportError,))


if __name__ == '__main__':
	sys.exit(main())
