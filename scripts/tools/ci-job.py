#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one job of the CI workflow here, as a runner would: its run: steps
with bash -e in the current checkout, in order, each with its env, if: and
the job's timeout; the actions it uses stood in for by a store folder.

  ci-job.py --store DIR [--workflow FILE] [--matrix NAME] [--env NAME=VALUE]... JOB

The store stands in for what GitHub keeps between jobs and runs:
  STORE/cache/KEY/        actions/cache: save copies the path there (a key
                          is never overwritten), restore copies it back
                          (the key, else the newest of a restore-keys
                          prefix); lookup-only copies nothing
  STORE/artifacts/NAME/   upload-artifact and download-artifact
  STORE/outputs/JOB.json  a job's outputs, for the jobs that need it
actions/checkout does nothing: run this at the top of a fresh clone.

--matrix NAME picks the matrix row whose name is NAME.  One line per step
says what it did and its exit code; the last line says the job's verdict.
The steps run with a HOME of their own (STORE/home-JOB, made empty), as a
runner's container has no git identity and nothing in ~; --env NAME=VALUE
overrides a variable of the workflow's env (IDA_KUNIT_CACHE, to run on an
empty cache folder).  Exit 0 when every step that ran passed; 1 when one
failed or timed out, or an input cannot be used; 2 for a bad command line,
a job or matrix row that is not in the workflow, or a step or expression
this program cannot stand in for.
"""

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
from typing import Any, Dict, List, Optional, Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'kunit'))
from cli import ArgumentParser, InputError, run  # noqa: E402

import yaml  # type: ignore[import]  # noqa: E402  (Debian has no stubs for PyYAML)

# A mapping as the workflow's YAML gives it (YAML 1.1 reads the key "on"
# as True).
Mapping = Dict[Any, Any]


class Unsupported(Exception):
	"""A step or an expression this program cannot stand in for."""


class BadRequest(Exception):
	"""A job or matrix row that the workflow does not have."""


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


class Context:
	"""What the expressions of one job can see."""

	def __init__(self, env: Dict[str, str], matrix: Mapping, needs: Dict[str, Mapping],
		     inputs: Mapping) -> None:
		self.env = env
		self.matrix = matrix
		self.needs = needs
		self.inputs = inputs
		self.steps: Dict[str, Dict[str, str]] = {}
		self.failed = False

	def lookup(self, name: str) -> object:
		"""The value of a dotted context name (an unset one is '')."""
		parts = name.split('.')
		value: object
		if parts[0] == 'env':
			value = self.env
		elif parts[0] == 'matrix':
			value = self.matrix
		elif parts[0] == 'needs':
			value = {j: {'outputs': o} for j, o in self.needs.items()}
		elif parts[0] == 'steps':
			value = {s: {'outputs': o} for s, o in self.steps.items()}
		elif parts[0] == 'inputs':
			value = self.inputs
		elif parts[0] == 'github':
			value = {'ref': 'refs/heads/main', 'event_name': 'push'}
		else:
			raise Unsupported(f'the context {parts[0]} ({name})')
		for part in parts[1:]:
			value = value.get(part, '') if isinstance(value, dict) else ''
		return value

	def evaluate(self, expr: str) -> object:
		"""The value of a workflow expression: context names, string and
		boolean literals, ==, !=, !, &&, ||, always(), success(),
		failure(), cancelled() and hashFiles()."""
		out: List[str] = []
		pos = 0
		token = re.compile(r"\s+|'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|,|"
				   r'hashFiles\(([^)]*)\)|always\(\)|success\(\)|failure\(\)|cancelled\(\)|'
				   r'true|false|[A-Za-z_][A-Za-z0-9_.-]*')
		while pos < len(expr):
			m = token.match(expr, pos)
			if not m or m.end() == pos:
				raise Unsupported(f'the expression {expr!r}')
			t = m.group(0)
			pos = m.end()
			if t.isspace():
				continue
			if t.startswith("'"):
				out.append(repr(t[1:-1].replace("''", "'")))
			elif t == '&&':
				out.append(' and ')
			elif t == '||':
				out.append(' or ')
			elif t == '!':
				out.append(' not ')
			elif t in ('==', '!=', '(', ')', ','):
				out.append(t)
			elif t.startswith('hashFiles('):
				args = re.findall(r"'((?:[^']|'')*)'", m.group(1))
				out.append(repr(hash_files(args)))
			elif t == 'always()':
				out.append('True')
			elif t == 'success()':
				out.append(repr(not self.failed))
			elif t == 'failure()':
				out.append(repr(self.failed))
			elif t == 'cancelled()':
				out.append('False')
			elif t in ('true', 'false'):
				out.append(repr(t == 'true'))
			else:
				out.append(repr(self.lookup(t)))
		value: object = eval(''.join(out), {'__builtins__': {}}, {})  # pylint: disable=eval-used
		return value

	def substitute(self, text: str) -> str:
		"""TEXT with each ${{ EXPR }} replaced by its value as a string."""
		def one(m: 're.Match[str]') -> str:
			v = self.evaluate(m.group(1))
			if isinstance(v, bool):
				return 'true' if v else 'false'
			return str(v)
		return re.sub(r'\$\{\{(.*?)\}\}', one, text)

	def condition(self, cond: Optional[str]) -> bool:
		"""Whether a step (or job) with if: COND runs."""
		if cond is None:
			return not self.failed
		cond = cond.strip()
		if cond.startswith('${{') and cond.endswith('}}'):
			cond = cond[3:-2]
		status = re.search(r'\b(always|success|failure|cancelled)\(\)', cond)
		value = bool(self.evaluate(cond))
		return value if status else value and not self.failed


def copy_tree(src: str, dst: str) -> None:
	"""Copy the folder or file SRC to DST (made fresh), keeping times."""
	if os.path.isdir(src):
		if os.path.isdir(dst):
			shutil.rmtree(dst)
		shutil.copytree(src, dst, symlinks=True)
	else:
		os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
		shutil.copy2(src, dst)


def lines(value: object) -> List[str]:
	"""A with: value of one or more lines, as a list without blanks."""
	return [ln.strip() for ln in str(value or '').splitlines() if ln.strip()]


class Runner:
	"""One job of the workflow, run in the current folder."""

	def __init__(self, store: str, job: str, spec: Mapping, ctx: Context) -> None:
		self.store = store
		self.job = job
		self.spec = spec
		self.ctx = ctx
		self.deadline = time.monotonic() + 60 * float(spec.get('timeout-minutes', 360))
		self.home = os.path.join(store, f'home-{job}')
		if os.path.isdir(self.home):
			shutil.rmtree(self.home)
		os.makedirs(self.home)

	def cache_key_dir(self, key: str) -> str:
		return os.path.join(self.store, 'cache', key.replace('/', '%'))

	def action(self, uses: str, with_: Mapping) -> Dict[str, str]:
		"""Stand in for the action USES; its outputs."""
		name = uses.split('@')[0]
		w = {k: self.ctx.substitute(str(v)) for k, v in with_.items()}
		if name == 'actions/checkout':
			return {}
		if name in ('actions/cache/restore', 'actions/cache'):
			if name == 'actions/cache':
				raise Unsupported('actions/cache (restore and save in one): use cache/restore and cache/save')
			found = ''
			if os.path.isdir(self.cache_key_dir(w['key'])):
				found = w['key']
			else:
				for prefix in lines(w.get('restore-keys')):
					cands = sorted(glob.glob(self.cache_key_dir(prefix) + '*'), key=os.path.getmtime)
					if cands:
						found = os.path.basename(cands[-1]).replace('%', '/')
						break
			if found and w.get('lookup-only', 'false') != 'true':
				for i, p in enumerate(lines(w['path'])):
					src = os.path.join(self.cache_key_dir(found), str(i))
					if os.path.exists(src):
						copy_tree(src, p)
			print(f'  cache {"hit" if found == w["key"] else "restored " + found if found else "miss"}: {w["key"]}')
			return {'cache-hit': 'true' if found == w['key'] else 'false', 'cache-matched-key': found}
		if name == 'actions/cache/save':
			d = self.cache_key_dir(w['key'])
			if os.path.isdir(d):
				print(f'  cache {w["key"]} exists: not saved again')
				return {}
			tmp = d + '.partial'
			if os.path.isdir(tmp):
				shutil.rmtree(tmp)
			os.makedirs(tmp)
			for i, p in enumerate(lines(w['path'])):
				if os.path.exists(p):
					copy_tree(p, os.path.join(tmp, str(i)))
			os.rename(tmp, d)
			print(f'  cache saved: {w["key"]}')
			return {}
		if name == 'actions/upload-artifact':
			paths = [p.rstrip('/') for p in lines(w['path'])]
			present = [p for p in paths if os.path.exists(p)]
			if not present:
				if w.get('if-no-files-found', 'warn') == 'error':
					raise InputError(f'upload-artifact {w["name"]}: no files')
				print(f'  artifact {w["name"]}: no files, nothing uploaded')
				return {}
			# The root of the artifact: a single folder is its own, a
			# single file's is its folder, several paths' is the folder
			# they share.
			absolute = [os.path.abspath(p) for p in present]
			if len(absolute) > 1:
				root = os.path.commonpath(absolute)
			elif os.path.isdir(absolute[0]):
				root = absolute[0]
			else:
				root = os.path.dirname(absolute[0])
			dst = os.path.join(self.store, 'artifacts', w['name'])
			if os.path.isdir(dst):
				shutil.rmtree(dst)
			os.makedirs(dst)
			for p in present:
				rel = os.path.relpath(os.path.abspath(p), root)
				copy_tree(p, dst if rel == '.' else os.path.join(dst, rel))
			print(f'  artifact uploaded: {w["name"]}')
			return {}
		if name == 'actions/download-artifact':
			base = os.path.join(self.store, 'artifacts')
			if 'name' in w:
				src = os.path.join(base, w['name'])
				if not os.path.isdir(src):
					raise InputError(f'download-artifact: no artifact {w["name"]}')
				copy_tree(src, w.get('path') or '.')
				print(f'  artifact downloaded: {w["name"]}')
			else:
				got = sorted(glob.glob(os.path.join(base, w.get('pattern', '*'))))
				for src in got:
					copy_tree(src, os.path.join(w.get('path') or '.', os.path.basename(src)))
				print(f'  artifacts downloaded: {", ".join(os.path.basename(g) for g in got) or "none"}')
			return {}
		raise Unsupported(f'the action {uses}')

	def shell(self, script: str, env: Dict[str, str]) -> int:
		"""Run SCRIPT with bash -e in a process group of its own; its exit
		code, or 124 when the job's time ran out."""
		with tempfile.NamedTemporaryFile('w', suffix='.sh', delete=False) as f:
			f.write(script)
		try:
			proc = subprocess.Popen(['bash', '-e', f.name], env=env, start_new_session=True)
			try:
				return proc.wait(timeout=max(1.0, self.deadline - time.monotonic()))
			except subprocess.TimeoutExpired:
				os.killpg(proc.pid, signal.SIGKILL)
				proc.wait()
				return 124
		finally:
			os.unlink(f.name)

	def steps(self) -> int:
		summary = os.path.abspath(os.path.join(self.store, f'summary-{self.job}.md'))
		open(summary, 'w', encoding='utf-8').close()
		for n, step in enumerate(self.spec.get('steps', []), 1):
			label = step.get('name') or step.get('uses') or 'run'
			label = self.ctx.substitute(str(label))
			if not self.ctx.condition(step.get('if')):
				print(f'step {n}: {label}: skipped (if: {step.get("if", "success()")})', flush=True)
				continue
			start = time.monotonic()
			outputs: Dict[str, str] = {}
			if 'uses' in step:
				print(f'step {n}: {label}', flush=True)
				try:
					outputs = self.action(step['uses'], step.get('with') or {})
					rc = 0
				except (OSError, InputError) as e:
					print(f'  error: {e}', flush=True)
					rc = 1
			else:
				print(f'step {n}: {label}: run', flush=True)
				env = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
				       'HOME': self.home}
				env.update(self.ctx.env)
				env.update({k: self.ctx.substitute(str(v)) for k, v in (step.get('env') or {}).items()})
				with tempfile.NamedTemporaryFile('r', delete=False) as out:
					pass
				env.update({'GITHUB_OUTPUT': out.name, 'GITHUB_STEP_SUMMARY': summary,
					    'GITHUB_WORKSPACE': os.getcwd(), 'CI': 'true', 'GITHUB_ACTIONS': 'true'})
				rc = self.shell(self.ctx.substitute(str(step['run'])), env)
				with open(out.name, encoding='utf-8') as f:
					for ln in f:
						if '=' in ln:
							k, v = ln.rstrip('\n').split('=', 1)
							outputs[k] = v
				os.unlink(out.name)
			if 'id' in step:
				self.ctx.steps[step['id']] = outputs
			secs = time.monotonic() - start
			what = 'timed out (the job\'s timeout-minutes)' if rc == 124 else f'exit {rc}'
			print(f'step {n}: {label}: {what} ({secs:.0f}s)', flush=True)
			if rc != 0:
				self.ctx.failed = True
		return 1 if self.ctx.failed else 0


def load_workflow(path: str) -> Mapping:
	with open(path, encoding='utf-8') as f:
		wf = yaml.safe_load(f)
	if not isinstance(wf, dict) or not isinstance(wf.get('jobs'), dict):
		raise InputError(f'{path}: not a workflow (no jobs)')
	return wf


def matrix_row(spec: Mapping, name: Optional[str]) -> Mapping:
	"""The matrix row named NAME of the job SPEC (none: the job has no
	matrix)."""
	include = ((spec.get('strategy') or {}).get('matrix') or {}).get('include')
	if include is None:
		if name:
			raise BadRequest('the job has no matrix')
		return {}
	rows = [r for r in include if r.get('name') == name]
	if not rows:
		raise BadRequest(f'no matrix row named {name!r} (the rows: '
				 f'{", ".join(str(r.get("name")) for r in include)})')
	return dict(rows[0])


def main(argv: Optional[Sequence[str]] = None) -> int:
	ap = ArgumentParser(prog='ci-job.py', description=__doc__.split('\n\n')[0])
	ap.add_argument('job')
	ap.add_argument('--workflow', default='.github/workflows/kunit.yml')
	ap.add_argument('--store', required=True, help='the folder that stands in for caches, artifacts and outputs')
	ap.add_argument('--matrix', metavar='NAME')
	ap.add_argument('--env', metavar='NAME=VALUE', action='append', default=[])
	args = ap.parse_args(argv)

	def work() -> int:
		wf = load_workflow(args.workflow)
		spec = wf['jobs'].get(args.job)
		if not isinstance(spec, dict):
			raise BadRequest(f'no job {args.job} in {args.workflow} (the jobs: {", ".join(wf["jobs"])})')
		store = os.path.abspath(args.store)
		needs_list = spec.get('needs') or []
		needs_list = [needs_list] if isinstance(needs_list, str) else list(needs_list)
		needs: Dict[str, Mapping] = {}
		for j in needs_list:
			path = os.path.join(store, 'outputs', f'{j}.json')
			if os.path.isfile(path):
				with open(path, encoding='utf-8') as f:
					needs[j] = json.load(f)
			else:
				needs[j] = {}
				print(f'note: no outputs of the job {j} in {store}: run it first', file=sys.stderr)
		on = wf.get('on', wf.get(True))
		dispatch = (on.get('workflow_dispatch') if isinstance(on, dict) else None) or {}
		inputs = {k: v.get('default', '') for k, v in (dispatch.get('inputs') or {}).items()}
		matrix = matrix_row(spec, args.matrix)
		ctx = Context({}, matrix, needs, inputs)
		for k, v in (wf.get('env') or {}).items():
			ctx.env[k] = ctx.substitute(str(v))
		for k, v in (spec.get('env') or {}).items():
			ctx.env[k] = ctx.substitute(str(v))
		for kv in args.env:
			k, _, v = kv.partition('=')
			ctx.env[k] = v
		label = f'{args.job}{" (" + args.matrix + ")" if args.matrix else ""}'
		if 'if' in spec and not ctx.condition(spec['if']):
			print(f'job {label}: skipped (if: {spec["if"]})')
			return 0
		for sub in ('cache', 'artifacts', 'outputs'):
			os.makedirs(os.path.join(store, sub), exist_ok=True)
		start = time.monotonic()
		rc = Runner(store, args.job, spec, ctx).steps()
		outputs = {k: ctx.substitute(str(v)) for k, v in (spec.get('outputs') or {}).items()}
		with open(os.path.join(store, 'outputs', f'{args.job}.json'), 'w', encoding='utf-8') as f:
			json.dump(outputs, f)
		print(f'job {label}: {"success" if rc == 0 else "failure"} ({time.monotonic() - start:.0f}s)')
		return rc

	for kv in args.env:
		if not re.match(r'[A-Za-z_][A-Za-z0-9_]*=', kv):
			ap.error(f'--env {kv}: not NAME=VALUE')
	try:
		return run(work)
	except Unsupported as e:
		print(f'error: cannot stand in for {e}', file=sys.stderr)
	except BadRequest as e:
		print(f'error: {e}', file=sys.stderr)
	return 2


if __name__ == '__main__':
	sys.exit(main())
