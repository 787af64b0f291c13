#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one job of the CI workflow here, as a runner would.

  ci-job.py --store DIR [--workflow FILE] [--matrix NAME] [--env NAME=VALUE]...
            [--pass NAME]... JOB

The job's run: steps run in order with bash -e in the current folder (the
top of a fresh clone: actions/checkout does nothing), each with its env:
and if:, under the job's timeout-minutes, with a HOME of their own (empty:
a runner's container has no git identity and nothing in ~), GITHUB_OUTPUT,
GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY and RUNNER_TEMP.  What GitHub
keeps between jobs is stood in for by the store, one per run of the
workflow:

  STORE/cache/KEY/           actions/cache/save and restore (a key is never
                             overwritten; restore takes the key, else the
                             newest key a restore-keys prefix starts)
  STORE/artifacts/NAME/      upload-artifact and download-artifact
  STORE/jobs/JOB/ROW.json    a job's result and outputs, for the jobs that
                             need it (ROW: the matrix row, "-" for none)
  STORE/jobs/JOB/ROW/        its HOME, RUNNER_TEMP and step summary

--matrix NAME picks the matrix row whose name is NAME; --env NAME=VALUE
overrides a variable of the workflow's env (IDA_KUNIT_CACHE: the workflow's
/root/.cache/ida-kunit is also the README's commands' cache folder, and a
cache restore refuses a path that exists and is not empty, as a runner
never has one).  --pass NAME gives every step this program's own NAME: a
machine that reaches the package registries through a proxy needs its CA
(NODE_EXTRA_CA_CERTS, SSL_CERT_FILE), which a runner has no use for; a
NAME this program's environment does not have is an error.  Run it as root on a machine or container that may be
changed: the steps install packages.

Before a step runs, every step is checked: keys, actions and expressions
this program cannot stand in for are refused then.  Expressions compare
strings case-sensitively and have no loose equality (GitHub's '' == false).
A timed-out or interrupted step's processes (all with its SID) get
SIGTERM, then SIGKILL; steps whose if: says always() still run after a
timeout, with five minutes each.

One line per step says what it did and its exit code; the last line says
the job's result.  Exit 0 when every step that ran passed or the job was
skipped; 1 when a step failed or timed out, a job it needs has not run, or
an input cannot be used; 2 for a bad command line, a job or matrix row the
workflow does not have, or something it cannot stand in for; 128+N when
stopped by signal N.
"""

import argparse
import errno
import fnmatch
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from types import FrameType
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'kunit'))
from cli import ArgumentParser, InputError, run  # noqa: E402

import yaml  # type: ignore[import]  # noqa: E402  (Debian has no stubs for PyYAML)

# A mapping as the workflow's YAML gives it.
Mapping = Dict[Any, Any]

# What may stand where, and the with: inputs of each action stood in for.
JOB_KEYS = {'runs-on', 'container', 'timeout-minutes', 'needs', 'if', 'outputs', 'steps', 'strategy',
	    'env', 'permissions', 'name'}
STEP_KEYS = {'name', 'id', 'if', 'run', 'uses', 'with', 'env'}
ACTIONS: Dict[str, Set[str]] = {
	'actions/checkout': set(),
	'actions/cache/restore': {'path', 'key', 'restore-keys', 'lookup-only'},
	'actions/cache/save': {'path', 'key'},
	'actions/upload-artifact': {'name', 'path', 'if-no-files-found', 'include-hidden-files'},
	'actions/download-artifact': {'name', 'pattern', 'path'},
}
REQUIRED = {
	'actions/cache/restore': ('path', 'key'),
	'actions/cache/save': ('path', 'key'),
	'actions/upload-artifact': ('path',),
}
# Seconds an always() step may take once the job's time has run out, and
# between SIGTERM and SIGKILL.
GRACE_STEP = 300
GRACE_KILL = 10


class Unsupported(Exception):
	"""A step or an expression this program cannot stand in for."""


class BadRequest(Exception):
	"""A job or matrix row that the workflow does not have."""


class Interrupted(Exception):
	"""SIGINT or SIGTERM reached this program."""

	def __init__(self, signum: int) -> None:
		super().__init__(signal.Signals(signum).name)
		self.signum = signum


def to_str(value: object) -> str:
	"""A YAML or expression value as GitHub turns it into a string."""
	if isinstance(value, bool):
		return 'true' if value else 'false'
	if value is None:
		return ''
	if isinstance(value, float) and value.is_integer():
		return str(int(value))
	return str(value)


def hash_files(patterns: Sequence[str]) -> str:
	"""hashFiles(): the SHA-256 of the SHA-256s of the files the glob
	PATTERNS match (relative to the current folder), in path order; empty
	when none."""
	paths = sorted({p for pat in patterns for p in glob.glob(pat, recursive=True) if os.path.isfile(p)})
	if not paths:
		return ''
	outer = hashlib.sha256()
	for p in paths:
		with open(p, 'rb') as f:
			outer.update(hashlib.sha256(f.read()).digest())
	return outer.hexdigest()


TOKEN = re.compile(r"\s+|'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|,|"
		   r'hashFiles\(([^)]*)\)|always\(\)|success\(\)|failure\(\)|cancelled\(\)|'
		   r'true|false|null|[A-Za-z_][A-Za-z0-9_.-]*')
STATUS = re.compile(r'\b(always|success|failure|cancelled)\(\)')


class Context:
	"""What the expressions of one job can see."""

	def __init__(self, env: Dict[str, str], matrix: Mapping, needs: Dict[str, Mapping],
		     inputs: Mapping) -> None:
		self.env = env
		self.matrix = matrix
		self.needs = needs		# job -> {'result': ..., 'outputs': {...}}
		self.inputs = inputs
		self.steps: Dict[str, Mapping] = {}	# id -> {'outputs', 'outcome', 'conclusion'}
		self.failed = False
		self.cancelled = False
		# At job level, what success() says (every needed job succeeded).
		self.ok: Optional[bool] = None

	def lookup(self, name: str) -> object:
		"""The value of a dotted context name; a name GitHub would give
		null is ''."""
		parts = name.split('.')
		value: object
		if parts[0] == 'env':
			value = self.env
		elif parts[0] == 'matrix':
			value = self.matrix
		elif parts[0] == 'needs':
			value = self.needs
		elif parts[0] == 'steps':
			value = self.steps
		elif parts[0] == 'inputs':
			value = self.inputs
		elif parts[0] == 'github':
			known = {'ref': 'refs/heads/main', 'event_name': 'push', 'workspace': os.getcwd()}
			if len(parts) != 2 or parts[1] not in known:
				raise Unsupported(f'the name {name}')
			return known[parts[1]]
		else:
			raise Unsupported(f'the context {parts[0]} ({name})')
		for part in parts[1:]:
			value = value.get(part) if isinstance(value, dict) else None
		return value

	def evaluate(self, expr: str) -> object:
		"""The value of a workflow expression: context names, string,
		boolean and null literals, ==, !=, !, &&, ||, parentheses,
		always(), success(), failure(), cancelled() and hashFiles()."""
		out: List[str] = []
		pos = 0
		# Each "!" wraps the operand after it: a name or literal, or a
		# parenthesised expression (its depth is remembered).
		nots: List[int] = []
		depth = 0

		def operand(text: str) -> None:
			out.append(text)
			while nots and nots[-1] == depth:
				nots.pop()
				out.append(')')
		while pos < len(expr):
			m = TOKEN.match(expr, pos)
			if not m or m.end() == pos:
				raise Unsupported(f'the expression {expr!r}')
			t = m.group(0)
			pos = m.end()
			if t.isspace():
				continue
			if t == '!':
				out.append('(not ')
				nots.append(depth)
			elif t == '(':
				depth += 1
				out.append('(')
			elif t == ')':
				depth -= 1
				operand(')')
			elif t in ('&&', '||', '==', '!=', ','):
				out.append({'&&': ' and ', '||': ' or '}.get(t, t))
			elif t.startswith("'"):
				operand(repr(t[1:-1].replace("''", "'")))
			elif t.startswith('hashFiles('):
				operand(repr(hash_files(re.findall(r"'((?:[^']|'')*)'", m.group(1)))))
			elif t == 'always()':
				operand('True')
			elif t == 'success()':
				operand(repr(self.ok if self.ok is not None else not self.failed and not self.cancelled))
			elif t == 'failure()':
				operand(repr(self.failed))
			elif t == 'cancelled()':
				operand(repr(self.cancelled))
			elif t in ('true', 'false'):
				operand(repr(t == 'true'))
			elif t == 'null':
				operand('None')
			else:
				v = self.lookup(t)
				operand(repr(v if isinstance(v, (bool, int, float)) or v is None else to_str(v)))
		try:
			value: object = eval(''.join(out), {'__builtins__': {}}, {})  # pylint: disable=eval-used
		except SyntaxError as e:
			raise Unsupported(f'the expression {expr!r}') from e
		return value

	def substitute(self, value: object) -> str:
		"""VALUE (a YAML value) as a string, each ${{ EXPR }} in it
		replaced by its value."""
		text = to_str(value)
		return re.sub(r'\$\{\{(.*?)\}\}', lambda m: to_str(self.evaluate(m.group(1))), text, flags=re.S)

	def condition(self, cond: object) -> bool:
		"""Whether a step (or job) with if: COND runs (None: no if:)."""
		if cond is None:
			return not self.failed and not self.cancelled
		text = to_str(cond).strip()
		if text.startswith('${{') and text.endswith('}}'):
			text = text[3:-2]
		unquoted = re.sub(r"'(?:[^']|'')*'", "''", text)
		value = bool(self.evaluate(text))
		if STATUS.search(unquoted):
			return value
		if self.ok is not None:
			return value and self.ok
		return value and not self.failed and not self.cancelled


def files_under(path: str, hidden: bool) -> List[str]:
	"""The files at PATH (itself, or under it), without those whose name
	or folder starts with a dot unless HIDDEN."""
	if os.path.isfile(path):
		return [path]
	found = []
	for top, dirs, files in os.walk(path):
		if not hidden:
			dirs[:] = [d for d in dirs if not d.startswith('.')]
		found += [os.path.join(top, f) for f in files if hidden or not f.startswith('.')]
	return found


def copy_into(src: str, dst: str) -> None:
	"""Copy the folder SRC into DST (merged with what is there), keeping
	times."""
	shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)


def lines(value: object) -> List[str]:
	"""A with: value of one or more lines, as a list without blanks."""
	return [ln.strip() for ln in to_str(value).splitlines() if ln.strip()]


def session_pids(sid: int) -> List[int]:
	"""The processes whose SID is SID."""
	pids = []
	for entry in os.listdir('/proc'):
		if not entry.isdigit():
			continue
		try:
			with open(f'/proc/{entry}/stat', encoding='utf-8', errors='replace') as f:
				fields = f.read().rsplit(')', 1)[1].split()
		except OSError:
			continue
		if int(fields[3]) == sid:
			pids.append(int(entry))
	return pids


def stop_session(proc: 'subprocess.Popen[bytes]') -> None:
	"""SIGTERM every process with PROC's SID (timeout(1) and what it
	runs have process groups of their own), then SIGKILL what is left.
	A second SIGINT or SIGTERM meanwhile changes nothing."""
	old = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
	try:
		stop_session_now(proc)
	finally:
		for s, handler in old.items():
			signal.signal(s, handler)


def stop_session_now(proc: 'subprocess.Popen[bytes]') -> None:
	for sig, wait in ((signal.SIGTERM, GRACE_KILL), (signal.SIGKILL, 5)):
		for pid in session_pids(proc.pid):
			try:
				os.kill(pid, sig)
			except ProcessLookupError:
				pass
		end = time.monotonic() + wait
		while time.monotonic() < end:
			proc.poll()
			if not session_pids(proc.pid):
				break
			time.sleep(0.2)
	proc.wait()


class Runner:
	"""One job of the workflow, run in the current folder."""

	def __init__(self, store: str, label: str, spec: Mapping, ctx: Context) -> None:
		self.store = store
		self.spec = spec
		self.ctx = ctx
		self.deadline = time.monotonic() + 60 * float(spec.get('timeout-minutes', 360))
		self.own = os.path.join(store, 'jobs', label)
		# The job's own folder: made here, so emptied here.
		if os.path.isdir(self.own):
			shutil.rmtree(self.own)
		self.home = os.path.join(self.own, 'home')
		self.temp = os.path.join(self.own, 'temp')
		os.makedirs(self.home)
		os.makedirs(self.temp)
		self.summary = os.path.join(self.own, 'summary.md')
		self.added_env: Dict[str, str] = {}
		self.added_path: List[str] = []
		# --pass: variables of this machine every step gets, under the job's.
		self.passed: Dict[str, str] = {}

	def check(self) -> None:
		"""Refuse, before anything runs, a job with a key, an action, an
		input or an expression this program cannot stand in for."""
		for key in self.spec:
			if key not in JOB_KEYS:
				raise Unsupported(f'the job key {key}')
		strategy = self.spec.get('strategy') or {}
		if set(strategy) - {'matrix', 'fail-fast'} or set(strategy.get('matrix') or {}) - {'include'}:
			raise Unsupported('a strategy other than a matrix of include rows')
		probe = Context(dict(self.ctx.env), self.ctx.matrix, self.ctx.needs, self.ctx.inputs)
		for n, step in enumerate(self.spec.get('steps') or [], 1):
			for key in step:
				if key not in STEP_KEYS:
					raise Unsupported(f'the step key {key} (step {n})')
			if ('run' in step) == ('uses' in step):
				raise Unsupported(f'a step with {"both run: and uses:" if "run" in step else "neither run: nor uses:"} (step {n})')
			if 'uses' in step:
				name = to_str(step['uses']).split('@')[0]
				if name not in ACTIONS:
					raise Unsupported(f'the action {step["uses"]} (step {n})')
				with_ = step.get('with') or {}
				for key in with_:
					if key not in ACTIONS[name]:
						raise Unsupported(f'the input {key} of {name} (step {n})')
				for key in REQUIRED.get(name, ()):
					if not to_str(with_.get(key)).strip():
						raise InputError(f'step {n}: {name} needs its input {key}')
				if name == 'actions/upload-artifact':
					for p in lines(with_.get('path')):
						if p.startswith('!') or any(c in p for c in '*?['):
							raise Unsupported(f'the artifact path {p} (a pattern; step {n})')
			probe.condition(step.get('if'))
			for v in [step.get('name'), step.get('run')] + list((step.get('with') or {}).values()) + \
					list((step.get('env') or {}).values()):
				probe.substitute(v)
		for v in (self.spec.get('outputs') or {}).values():
			probe.substitute(v)

	def cache_dir(self, key: str) -> str:
		return os.path.join(self.store, 'cache', key.replace('/', '%'))

	def action(self, uses: str, with_: Mapping) -> Dict[str, str]:
		"""Stand in for the action USES; its outputs."""
		name = uses.split('@')[0]
		w = {k: self.ctx.substitute(v) for k, v in with_.items()}
		if name == 'actions/checkout':
			return {}
		if name == 'actions/cache/restore':
			return self.cache_restore(w)
		if name == 'actions/cache/save':
			self.cache_save(w)
			return {}
		if name == 'actions/upload-artifact':
			self.upload(w)
			return {}
		self.download(w)
		return {}

	def cache_restore(self, w: Dict[str, str]) -> Dict[str, str]:
		if not w.get('key'):
			raise InputError('cache restore: no key (Input required and not supplied: key)')
		found = ''
		if os.path.isdir(self.cache_dir(w['key'])):
			found = w['key']
		else:
			top = os.path.join(self.store, 'cache')
			for prefix in lines(w.get('restore-keys')):
				enc = prefix.replace('/', '%')
				cands = [os.path.join(top, e) for e in os.listdir(top) if e.startswith(enc)]
				if cands:
					found = os.path.basename(max(cands, key=os.path.getmtime)).replace('%', '/')
					break
		if found and w.get('lookup-only', 'false') != 'true':
			for i, p in enumerate(lines(w['path'])):
				src = os.path.join(self.cache_dir(found), str(i))
				if not os.path.exists(src):
					continue
				if os.path.exists(p) and (not os.path.isdir(p) or os.listdir(p)):
					raise InputError(f'cache restore onto {p}, which exists and is not empty '
							 '(a runner has none; give --env IDA_KUNIT_CACHE=<an empty folder>)')
				if os.path.isdir(src):
					copy_into(src, p)
				else:
					os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
					shutil.copy2(src, p)
		print(f'  cache {"hit" if found == w["key"] else "restored " + found if found else "miss"}: {w["key"]}')
		return {'cache-hit': 'true' if found == w['key'] else 'false', 'cache-matched-key': found}

	def cache_save(self, w: Dict[str, str]) -> None:
		if not w.get('key'):
			raise InputError('cache save: no key (Input required and not supplied: key)')
		d = self.cache_dir(w['key'])
		if os.path.isdir(d):
			print(f'  warning: cache {w["key"]} exists: not saved again')
			return
		paths = lines(w['path'])
		if not any(os.path.exists(p) for p in paths):
			print(f'  warning: cache {w["key"]}: none of its paths exists, nothing saved')
			return
		tmp_top = os.path.join(self.store, 'cache-tmp')
		os.makedirs(tmp_top, exist_ok=True)
		tmp = tempfile.mkdtemp(dir=tmp_top)
		try:
			for i, p in enumerate(paths):
				if os.path.isdir(p):
					copy_into(p, os.path.join(tmp, str(i)))
				elif os.path.exists(p):
					shutil.copy2(p, os.path.join(tmp, str(i)))
			try:
				os.rename(tmp, d)
			except OSError as e:
				if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
					raise
				print(f'  warning: cache {w["key"]} was saved meanwhile: not saved again')
				return
		finally:
			if os.path.isdir(tmp):
				shutil.rmtree(tmp)
		print(f'  cache saved: {w["key"]}')

	def upload(self, w: Dict[str, str]) -> None:
		art = w.get('name') or 'artifact'
		paths = [p.rstrip('/') or '/' for p in lines(w.get('path'))]
		if not paths:
			raise InputError(f'upload-artifact {art}: no path')
		for p in paths:
			if p.startswith('!') or any(c in p for c in '*?['):
				raise Unsupported(f'the artifact path {p} (a pattern)')
		hidden = w.get('include-hidden-files', 'false') == 'true'
		# The artifact's root: one folder is its own, one file's is its
		# folder, several paths' is the folder they share (present or
		# not).
		absolute = [os.path.abspath(p) for p in paths]
		if len(absolute) > 1:
			root = os.path.commonpath(absolute)
		elif os.path.isdir(absolute[0]):
			root = absolute[0]
		else:
			root = os.path.dirname(absolute[0])
		files = sorted({f for p in absolute if os.path.exists(p) for f in files_under(p, hidden)})
		if not files:
			if w.get('if-no-files-found', 'warn') == 'error':
				raise InputError(f'upload-artifact {art}: no files found')
			print(f'  artifact {art}: no files found, nothing uploaded')
			return
		dst = os.path.join(self.store, 'artifacts', art)
		if os.path.isdir(dst):
			# (GitHub refuses a second upload of a name in one run.)
			print(f'  warning: artifact {art} replaced')
			shutil.rmtree(dst)
		for f in files:
			to = os.path.join(dst, os.path.relpath(f, root))
			os.makedirs(os.path.dirname(to), exist_ok=True)
			shutil.copy2(f, to)
		print(f'  artifact uploaded: {art} ({len(files)} files)')

	def download(self, w: Dict[str, str]) -> None:
		base = os.path.join(self.store, 'artifacts')
		dest = w.get('path') or '.'
		if w.get('name'):
			src = os.path.join(base, w['name'])
			if not os.path.isdir(src):
				raise InputError(f'download-artifact: no artifact {w["name"]}')
			copy_into(src, dest)
			print(f'  artifact downloaded: {w["name"]}')
			return
		pattern = w.get('pattern', '*')
		got = sorted(e for e in os.listdir(base) if fnmatch.fnmatchcase(e, pattern))
		for e in got:
			copy_into(os.path.join(base, e), os.path.join(dest, e))
		print(f'  artifacts downloaded: {", ".join(got) or "none"}')

	def shell(self, script: str, env: Dict[str, str], limit: float) -> Tuple[int, bool]:
		"""Run SCRIPT with bash -e under a SID of its own (setsid) for at most
		LIMIT seconds; its exit code (-N: killed by signal N), and whether
		it ran out of time."""
		with tempfile.NamedTemporaryFile('w', suffix='.sh', dir=self.temp, delete=False) as f:
			f.write(script)
		proc = subprocess.Popen(['bash', '-e', f.name], env=env, stdin=subprocess.DEVNULL,
					start_new_session=True)
		try:
			return proc.wait(timeout=max(1.0, limit)), False
		except subprocess.TimeoutExpired:
			stop_session(proc)
			return proc.returncode, True
		except Interrupted:
			stop_session(proc)
			raise
		finally:
			os.unlink(f.name)

	def read_files(self, output: str, env_file: str, path_file: str) -> Dict[str, str]:
		"""What a step wrote to GITHUB_OUTPUT (its outputs, returned),
		GITHUB_ENV and GITHUB_PATH (kept for the later steps)."""
		def pairs(path: str) -> Dict[str, str]:
			got: Dict[str, str] = {}
			with open(path, encoding='utf-8', errors='replace') as f:
				text = f.read().split('\n')
			i = 0
			while i < len(text):
				ln = text[i]
				m = re.match(r'([^=<]+)<<(.+)$', ln)
				if m:
					if m.group(2) not in text[i + 1:]:
						raise InputError(f'{os.path.basename(path)}: no line {m.group(2)} ends {m.group(1)}')
					end = text.index(m.group(2), i + 1)
					got[m.group(1)] = '\n'.join(text[i + 1:end])
					i = end + 1
					continue
				if '=' in ln:
					k, v = ln.split('=', 1)
					got[k] = v
				i += 1
			return got
		self.added_env.update(pairs(env_file))
		with open(path_file, encoding='utf-8') as f:
			self.added_path = [ln.strip() for ln in f if ln.strip()][::-1] + self.added_path
		return pairs(output)

	def run_step(self, n: int, label: str, step: Mapping) -> Tuple[int, bool, Dict[str, str]]:
		"""Run step N; its exit code, whether it ran out of time, and its
		outputs."""
		if 'uses' in step:
			print(f'step {n}: {label}', flush=True)
			try:
				return 0, False, self.action(to_str(step['uses']), step.get('with') or {})
			except (OSError, InputError) as e:
				print(f'  error: {e}', flush=True)
				return 1, False, {}
		print(f'step {n}: {label}: run', flush=True)
		files = {k: os.path.join(self.temp, f'{k.lower()}-{n}') for k in ('GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH')}
		for path in files.values():
			open(path, 'w', encoding='utf-8').close()
		dirs = self.added_path + ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']
		env = dict(self.passed)
		env.update({'PATH': ':'.join(dirs), 'HOME': self.home, 'CI': 'true', 'GITHUB_ACTIONS': 'true',
			    'GITHUB_WORKSPACE': os.getcwd(), 'GITHUB_STEP_SUMMARY': self.summary,
			    'RUNNER_TEMP': self.temp})
		env.update(self.ctx.env)
		env.update(files)
		now = time.monotonic()
		limit = self.deadline - now if not self.ctx.cancelled else GRACE_STEP
		rc, late = self.shell(self.ctx.substitute(step['run']), env, limit)
		return rc, late, self.read_files(files['GITHUB_OUTPUT'], files['GITHUB_ENV'], files['GITHUB_PATH'])

	def steps(self) -> int:
		open(self.summary, 'w', encoding='utf-8').close()
		for n, step in enumerate(self.spec.get('steps') or [], 1):
			label = self.ctx.substitute(step.get('name') or step.get('uses') or 'run')
			if not self.ctx.condition(step.get('if')):
				print(f'step {n}: {label}: skipped (if: {to_str(step.get("if", "success()"))})', flush=True)
				if 'id' in step:
					self.ctx.steps[step['id']] = {'outputs': {}, 'outcome': 'skipped', 'conclusion': 'skipped'}
				continue
			start = time.monotonic()
			# The env context of a step: the workflow's and the job's,
			# what earlier steps added with GITHUB_ENV, and its own env:.
			job_env = self.ctx.env
			self.ctx.env = {**job_env, **self.added_env}
			self.ctx.env.update({to_str(k): self.ctx.substitute(v) for k, v in (step.get('env') or {}).items()})
			try:
				rc, late, outputs = self.run_step(n, label, step)
			finally:
				self.ctx.env = job_env
			if 'id' in step:
				outcome = 'success' if rc == 0 and not late else 'failure'
				self.ctx.steps[step['id']] = {'outputs': outputs, 'outcome': outcome, 'conclusion': outcome}
			secs = time.monotonic() - start
			if late and not self.ctx.cancelled:
				what = "timed out (the job's timeout-minutes): the job is cancelled"
				self.ctx.cancelled = True
			elif late:
				what = f'timed out (its {GRACE_STEP}s after the cancel)'
			elif rc < 0:
				what = f'killed by {signal.Signals(-rc).name}'
			else:
				what = f'exit {rc}'
			print(f'step {n}: {label}: {what} ({secs:.0f}s)', flush=True)
			if rc != 0 or late:
				self.ctx.failed = True
		return 1 if self.ctx.failed or self.ctx.cancelled else 0


class Yaml12Loader(yaml.SafeLoader):  # type: ignore[misc]
	"""PyYAML's safe loader (YAML 1.1) with the scalars GitHub reads as
	strings kept so: yes, no, on, off, sexagesimal and 0-prefixed octal
	numbers; only true and false are booleans (YAML 1.2's core schema)."""


Yaml12Loader.yaml_implicit_resolvers = {
	k: [(tag, rx) for tag, rx in v if tag not in ('tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int',
						      'tag:yaml.org,2002:float')]
	for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12Loader.add_implicit_resolver('tag:yaml.org,2002:bool', re.compile(r'^(?:true|True|TRUE|false|False|FALSE)$'),
				   list('tTfF'))
Yaml12Loader.add_implicit_resolver('tag:yaml.org,2002:int', re.compile(r'^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$'),
				   list('-+0123456789'))
Yaml12Loader.add_implicit_resolver(
	'tag:yaml.org,2002:float',
	re.compile(r'^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$'),
	list('-+0123456789.'))


def load_workflow(path: str) -> Mapping:
	try:
		with open(path, encoding='utf-8') as f:
			wf = yaml.load(f, Loader=Yaml12Loader)
	except yaml.YAMLError as e:
		raise InputError(f'{path}: not YAML ({str(e).splitlines()[0]})') from e
	if not isinstance(wf, dict) or not isinstance(wf.get('jobs'), dict):
		raise InputError(f'{path}: not a workflow (no jobs)')
	return wf


def matrix_row(job: str, spec: Mapping, name: Optional[str]) -> Mapping:
	"""The matrix row named NAME of the job SPEC (none: the job has no
	matrix)."""
	include = ((spec.get('strategy') or {}).get('matrix') or {}).get('include')
	if include is None:
		if name:
			raise BadRequest(f'the job {job} has no matrix')
		return {}
	names = ', '.join(to_str(r.get('name')) for r in include)
	if name is None:
		raise BadRequest(f'the job {job} has a matrix: pick a row with --matrix NAME (the rows: {names})')
	rows = [r for r in include if to_str(r.get('name')) == name]
	if not rows:
		raise BadRequest(f'no matrix row named {name!r} (the rows: {names})')
	return dict(rows[0])


def interrupted(signum: int, frame: Optional[FrameType]) -> None:
	raise Interrupted(signum)


def main(argv: Optional[Sequence[str]] = None) -> int:
	ap = ArgumentParser(prog='ci-job.py', description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('job', help='the job of the workflow to run')
	ap.add_argument('--store', required=True, help='the folder that stands in for caches, artifacts and job results')
	ap.add_argument('--workflow', default='.github/workflows/kunit.yml', help='the workflow (default: %(default)s)')
	ap.add_argument('--matrix', metavar='NAME', help='the matrix row to run (its name)')
	ap.add_argument('--env', metavar='NAME=VALUE', action='append', default=[],
			help="override a variable of the workflow's env")
	ap.add_argument('--pass', metavar='NAME', dest='passed', action='append', default=[],
			help="give every step this program's own variable NAME (a proxy's CA)")
	args = ap.parse_args(argv)
	for kv in args.env:
		if not re.match(r'[A-Za-z_][A-Za-z0-9_]*=', kv):
			ap.error(f'--env {kv}: not NAME=VALUE')
	for name in args.passed:
		if name not in os.environ:
			ap.error(f'--pass {name}: not set here')

	def work() -> int:
		wf = load_workflow(args.workflow)
		spec = wf['jobs'].get(args.job)
		if not isinstance(spec, dict):
			raise BadRequest(f'no job {args.job} in {args.workflow} (the jobs: {", ".join(wf["jobs"])})')
		matrix = matrix_row(args.job, spec, args.matrix)
		row = args.matrix or '-'
		if '/' in row or row.startswith('.'):
			raise BadRequest(f'the matrix row {row!r}: a name with "/" or a leading "." cannot name a folder')
		shown = args.job + (f' ({args.matrix})' if args.matrix else '')
		store = os.path.abspath(args.store)
		for sub in ('cache', 'artifacts', 'jobs'):
			os.makedirs(os.path.join(store, sub), exist_ok=True)
		# The jobs it needs: their result, the worst of their rows'.
		needs_list = spec.get('needs') or []
		needs_list = [needs_list] if isinstance(needs_list, str) else list(needs_list)
		needs: Dict[str, Mapping] = {}
		rank = {'success': 0, 'skipped': 1, 'cancelled': 2, 'failure': 3}
		for j in needs_list:
			if j not in wf['jobs']:
				raise BadRequest(f'the job {args.job} needs {j}, which is not a job of {args.workflow}')
			folder = os.path.join(store, 'jobs', j)
			results = sorted(os.path.join(folder, e) for e in os.listdir(folder)
					 if e.endswith('.json')) if os.path.isdir(folder) else []
			if not results:
				needs[j] = {'result': '', 'outputs': {}}
				continue
			recs = []
			for path in results:
				with open(path, encoding='utf-8') as f:
					recs.append(json.load(f))
			worst = max((r.get('result', 'failure') for r in recs), key=lambda r: rank.get(r, 3))
			outputs = {k: v for r in recs for k, v in (r.get('outputs') or {}).items()}
			needs[j] = {'result': worst, 'outputs': outputs}
		dispatch = wf.get('on', wf.get(True))
		dispatch = (dispatch.get('workflow_dispatch') if isinstance(dispatch, dict) else None) or {}
		inputs = {k: (v or {}).get('default') for k, v in (dispatch.get('inputs') or {}).items()}
		ctx = Context({}, matrix, needs, inputs)
		for k, v in (wf.get('env') or {}).items():
			ctx.env[to_str(k)] = ctx.substitute(v)
		for k, v in (spec.get('env') or {}).items():
			ctx.env[to_str(k)] = ctx.substitute(v)
		for kv in args.env:
			k, _, v = kv.partition('=')
			if k not in ctx.env:
				raise BadRequest(f'--env {k}: not a variable of the env of {args.workflow} or of the job')
			ctx.env[k] = v
		record = os.path.join(store, 'jobs', args.job, f'{row}.json')
		os.makedirs(os.path.dirname(record), exist_ok=True)
		# A record says how this run of the job ended, or nothing.
		if os.path.exists(record):
			os.unlink(record)

		def finish(result: str, outputs: Dict[str, str], rc: int, why: str = '') -> int:
			with open(record, 'w', encoding='utf-8') as f:
				json.dump({'result': result, 'outputs': outputs}, f)
			print(f'job {shown}: {result}{why}')
			return rc
		missing = [j for j, r in needs.items() if not r['result']]
		if missing:
			print(f'error: the job {args.job} needs {", ".join(missing)}, which has not run in {store}', file=sys.stderr)
			return 1
		# At job level, success() is every needed job's success and
		# failure() any one's failure; a job without if: runs on success().
		all_ok = all(r['result'] == 'success' for r in needs.values())
		ctx.ok = all_ok
		ctx.failed = any(r['result'] == 'failure' for r in needs.values())
		go = ctx.condition(spec['if']) if 'if' in spec else all_ok
		ctx.ok = None
		if not go:
			return finish('skipped', {}, 0, f' (if: {to_str(spec.get("if", "success()"))})')
		ctx.failed = ctx.cancelled = False
		start = time.monotonic()
		runner = Runner(store, os.path.join(args.job, row), spec, ctx)
		runner.passed = {name: os.environ[name] for name in args.passed}
		runner.check()
		try:
			rc = runner.steps()
		except Interrupted:
			finish('cancelled', {}, 1, ' (stopped by a signal)')
			raise
		except Exception:
			finish('failure', {}, 1, ' (stopped by an error)')
			raise
		outputs = {to_str(k): ctx.substitute(v) for k, v in (spec.get('outputs') or {}).items()}
		result = 'cancelled' if ctx.cancelled else 'failure' if rc else 'success'
		return finish(result, outputs, rc, f' ({time.monotonic() - start:.0f}s)')

	signal.signal(signal.SIGINT, interrupted)
	signal.signal(signal.SIGTERM, interrupted)
	try:
		return run(work)
	except Unsupported as e:
		print(f'error: cannot stand in for {e}', file=sys.stderr)
	except BadRequest as e:
		print(f'error: {e}', file=sys.stderr)
	except Interrupted as e:
		print(f'error: stopped by {e}; the running step was stopped', file=sys.stderr)
		return 128 + e.signum
	return 2


if __name__ == '__main__':
	sys.exit(main())
