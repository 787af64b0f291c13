#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/tools/ci-job.py: its expressions on the contexts
the workflow uses, the stand-ins of the actions, and whole jobs of a small
workflow (and of the project's own, for what it can check without a
build)."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
import unittest.mock
from typing import Any, List, Tuple

from tool_module import load_tool

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ci_job = load_tool('ci-job.py', 'ci_job')

WORKFLOW = textwrap.dedent('''\
	on:
	  push:
	  workflow_dispatch:
	    inputs:
	      bench:
	        type: boolean
	        default: false
	env:
	  TOP: top-value
	jobs:
	  first:
	    runs-on: x
	    outputs:
	      key: ${{ steps.k.outputs.key }}
	    steps:
	      - id: k
	        run: echo "key=k-$TOP" >> "$GITHUB_OUTPUT"
	      - run: mkdir -p out && echo payload > out/file && echo "## first" >> "$GITHUB_STEP_SUMMARY"
	      - uses: actions/cache/save@0123
	        with:
	          path: out
	          key: c-${{ steps.k.outputs.key }}
	      - uses: actions/upload-artifact@0123
	        with:
	          name: art-first
	          path: out/
	  second:
	    needs: first
	    runs-on: x
	    timeout-minutes: 1
	    strategy:
	      matrix:
	        include:
	          - {name: a, word: alpha}
	          - {name: b, word: beta, fail: now}
	    steps:
	      - uses: actions/checkout@0123
	      - id: r
	        uses: actions/cache/restore@0123
	        with:
	          path: back
	          key: c-${{ needs.first.outputs.key }}-more
	          restore-keys: c-${{ needs.first.outputs.key }}
	      - env:
	          WORD: ${{ matrix.word }}
	        run: |
	          test "$(cat back/file)" = payload
	          test -z "$(git config --global user.name || true)"
	          test ! -e "$HOME/.gitconfig"
	          echo "$WORD ${{ steps.r.outputs.cache-hit }}" > word
	      - if: matrix.fail == 'now'
	        run: exit 3
	      - name: after a failure
	        run: touch after
	      - name: always
	        if: always()
	        run: touch always
	      - if: steps.r.outputs.cache-hit != 'true' || inputs.bench
	        run: touch bench
	  third:
	    needs: [second]
	    if: always()
	    runs-on: x
	    steps:
	      - uses: actions/download-artifact@0123
	        with:
	          pattern: art-*
	          path: arts
	      - run: test "$(cat arts/art-first/file)" = payload
	''')


class ExpressionTest(unittest.TestCase):
	def ctx(self) -> Any:
		c = ci_job.Context({'IDA_KUNIT_CACHE': '/c'}, {'name': 'x86_64', 'xfail': ''},
				   {'tree': {'result': 'success', 'outputs': {'key': 'tree-v1'}}}, {'bench': False})
		c.steps['measured'] = {'outputs': {'cache-hit': 'true'}, 'outcome': 'success'}
		return c

	def test_contexts(self) -> None:
		c = self.ctx()
		self.assertEqual(c.substitute('${{ env.IDA_KUNIT_CACHE }}/linux-6.12'), '/c/linux-6.12')
		self.assertEqual(c.substitute('ccache-${{ matrix.name }}-${{ needs.tree.outputs.key }}'),
				 'ccache-x86_64-tree-v1')
		self.assertEqual(c.substitute('[${{ matrix.xfail }}]'), '[]')
		self.assertEqual(c.substitute('${{ matrix.missing }}'), '')

	def test_conditions(self) -> None:
		c = self.ctx()
		cond = c.condition
		self.assertTrue(cond("matrix.name == 'x86_64'"))
		self.assertFalse(cond("matrix.name == 'um'"))
		self.assertFalse(cond("steps.measured.outputs.cache-hit != 'true' || inputs.bench"))
		self.assertTrue(cond("${{ !inputs.bench }}"))
		self.assertTrue(cond(None))
		c.failed = True
		self.assertFalse(cond(None))
		self.assertFalse(cond("matrix.name == 'x86_64'"))
		self.assertTrue(cond('always()'))
		self.assertFalse(cond("steps.measured.outputs.cache-hit != 'true' && success()"))
		self.assertTrue(cond('failure()'))

	def test_hash_files(self) -> None:
		with tempfile.TemporaryDirectory() as d, contextlib.chdir(d):
			self.assertEqual(ci_job.hash_files(['a/**']), '')
			os.makedirs('a/b')
			with open('a/b/f', 'w', encoding='utf-8') as f:
				f.write('1')
			one = ci_job.hash_files(['a/**'])
			with open('a/b/f', 'w', encoding='utf-8') as f:
				f.write('2')
			self.assertNotIn(one, ('', ci_job.hash_files(['a/**'])))

	def test_unsupported(self) -> None:
		with self.assertRaises(ci_job.Unsupported):
			self.ctx().substitute('${{ secrets.TOKEN }}')
		with self.assertRaises(ci_job.Unsupported):
			self.ctx().substitute('${{ toJSON(matrix) }}')


class JobTest(unittest.TestCase):
	def setUp(self) -> None:
		self.dir = self.enterContext(tempfile.TemporaryDirectory())
		self.store = os.path.join(self.dir, 'store')
		self.wf = os.path.join(self.dir, 'wf.yml')
		with open(self.wf, 'w', encoding='utf-8') as f:
			f.write(WORKFLOW)

	def job(self, *args: str, where: str = 'work') -> Tuple[int, List[str]]:
		work = os.path.join(self.dir, where)
		os.makedirs(work, exist_ok=True)
		out, err = io.StringIO(), io.StringIO()
		with contextlib.chdir(work), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
			rc = ci_job.main(['--store', self.store, '--workflow', self.wf, *args])
		return rc, (out.getvalue() + err.getvalue()).splitlines()

	def test_jobs_in_order(self) -> None:
		rc, out = self.job('first', where='w1')
		self.assertEqual(rc, 0, out)
		self.assertEqual(out[-1].split(' (')[0], 'job first: success')
		with open(os.path.join(self.store, 'jobs', 'first', '-.json'), encoding='utf-8') as f:
			self.assertEqual(json.load(f), {'result': 'success', 'outputs': {'key': 'k-top-value'}})
		with open(os.path.join(self.store, 'jobs', 'first', '-', 'summary.md'), encoding='utf-8') as f:
			self.assertEqual(f.read(), '## first\n')

		rc, out = self.job('second', '--matrix', 'a', where='w2')
		self.assertEqual(rc, 0, out)
		self.assertIn('  cache restored c-k-top-value: c-k-top-value-more', out)
		w2 = os.path.join(self.dir, 'w2')
		with open(os.path.join(w2, 'word'), encoding='utf-8') as f:
			self.assertEqual(f.read(), 'alpha false\n')
		self.assertTrue(any(ln.startswith('step 4: run: skipped (if: ') for ln in out), out)
		for name in ('after', 'always', 'bench'):
			self.assertTrue(os.path.exists(os.path.join(w2, name)), name)

		rc, out = self.job('second', '--matrix', 'b', where='w3')
		self.assertEqual(rc, 1, out)
		self.assertTrue(any(ln.startswith('step 4: run: exit 3 (') for ln in out), out)
		self.assertIn('step 5: after a failure: skipped (if: success())', out)
		w3 = os.path.join(self.dir, 'w3')
		self.assertFalse(os.path.exists(os.path.join(w3, 'after')))
		self.assertTrue(os.path.exists(os.path.join(w3, 'always')))
		self.assertTrue(out[-1].startswith('job second (b): failure ('), out[-1])

		rc, out = self.job('third', where='w4')
		self.assertEqual(rc, 0, out)

	def test_timeout(self) -> None:
		with open(self.wf, 'w', encoding='utf-8') as f:
			f.write('on: push\njobs:\n  slow:\n    timeout-minutes: 0.02\n    steps:\n'
				'      - run: sleep 30\n      - if: always()\n        run: "true"\n')
		rc, out = self.job('slow')
		self.assertEqual(rc, 1, out)
		self.assertTrue(out[0].startswith('step 1: run: run'), out)
		self.assertTrue(out[1].startswith("step 1: run: timed out (the job's timeout-minutes): the job is cancelled"), out)
		self.assertTrue(out[3].startswith('step 2: run: exit 0'), out)
		self.assertTrue(out[-1].startswith('job slow: cancelled'), out)

	def test_bad_requests(self) -> None:
		rc, out = self.job('nojob')
		self.assertEqual((rc, out[-1]), (2, 'error: no job nojob in ' + self.wf + ' (the jobs: first, second, third)'))
		rc, out = self.job('second', '--matrix', 'c')
		self.assertEqual((rc, out[-1]), (2, "error: no matrix row named 'c' (the rows: a, b)"))
		rc, out = self.job('second')
		self.assertEqual((rc, out[-1]), (2, 'error: the job second has a matrix: pick a row with --matrix NAME (the rows: a, b)'))
		rc, out = self.job('first', '--matrix', 'a')
		self.assertEqual((rc, out[-1]), (2, 'error: the job first has no matrix'))
		with open(self.wf, 'w', encoding='utf-8') as f:
			f.write('on: push\njobs:\n  j:\n    steps:\n      - uses: someone/action@v1\n')
		rc, out = self.job('j')
		self.assertEqual((rc, out[-1]), (2, 'error: cannot stand in for the action someone/action@v1 (step 1)'))

	def write(self, text: str) -> None:
		with open(self.wf, 'w', encoding='utf-8') as f:
			f.write(textwrap.dedent(text))

	def test_nothing_of_the_checkout_is_lost(self) -> None:
		self.write('''\
			on: push
			jobs:
			  up:
			    steps:
			      - run: mkdir -p a/.hidden && echo 1 > a/one && echo 2 > a/.hidden/two && echo 3 > a/.three
			      - uses: actions/upload-artifact@0123
			        with:
			          name: art
			          path: |
			            a/
			            b/
			      - uses: actions/cache/save@0123
			        with:
			          path: nothing-here
			          key: empty
			      - uses: actions/cache/save@0123
			        with:
			          path: a
			          key: full
			  down:
			    needs: up
			    steps:
			      - uses: actions/download-artifact@0123
			        with:
			          name: art
			      - run: test "$(cat keep)" = mine && test "$(cat a/one)" = 1 && test ! -e a/.three && test ! -e a/.hidden
			  restore:
			    steps:
			      - uses: actions/cache/restore@0123
			        with:
			          path: a
			          key: full
			  nokey:
			    steps:
			      - uses: actions/cache/restore@0123
			        with:
			          path: a
			          key: ''
			''')
		rc, out = self.job('up', where='w1')
		self.assertEqual(rc, 0, out)
		self.assertIn('  warning: cache empty: none of its paths exists, nothing saved', out)
		self.assertFalse(os.path.exists(os.path.join(self.store, 'cache', 'empty')))
		# Several paths: the artifact's root is the folder they share,
		# also when one is missing; dotfiles stay out.
		self.assertEqual(sorted(os.listdir(os.path.join(self.store, 'artifacts', 'art'))), ['a'])
		os.makedirs(os.path.join(self.dir, 'w2'))
		with open(os.path.join(self.dir, 'w2', 'keep'), 'w', encoding='utf-8') as f:
			f.write('mine\n')
		rc, out = self.job('down', where='w2')
		self.assertEqual(rc, 0, out)
		# A restore never replaces what is there.
		os.makedirs(os.path.join(self.dir, 'w3', 'a'))
		with open(os.path.join(self.dir, 'w3', 'a', 'mine'), 'w', encoding='utf-8') as f:
			f.write('mine\n')
		rc, out = self.job('restore', where='w3')
		self.assertEqual(rc, 1, out)
		self.assertTrue(out[1].startswith('  error: cache restore onto a, which exists and is not empty'), out)
		self.assertEqual(os.listdir(os.path.join(self.dir, 'w3', 'a')), ['mine'])
		rc, out = self.job('nokey', where='w4')
		self.assertEqual((rc, out), (1, ['error: step 1: actions/cache/restore needs its input key']))

	def test_timeout_stops_the_whole_step(self) -> None:
		# timeout(1) puts itself in a process group of its own, as
		# scripts/run-kunit.sh runs kunit.py and QEMU.
		self.write('''\
			on: push
			jobs:
			  slow:
			    timeout-minutes: 0.03
			    steps:
			      - run: timeout -k 5 250 sh -c 'echo $$ > sleeper.pid; exec sleep 250'
			''')
		rc, out = self.job('slow')
		self.assertEqual(rc, 1, out)
		with open(os.path.join(self.dir, 'work', 'sleeper.pid'), encoding='utf-8') as f:
			pid = int(f.read())
		self.assertFalse(os.path.exists(f'/proc/{pid}'), 'the sleeper outlived the job')

	def test_needs_and_if(self) -> None:
		self.write('''\
			on: push
			jobs:
			  bad:
			    steps:
			      - run: exit 1
			  after:
			    needs: bad
			    steps:
			      - run: touch ran
			  anyway:
			    needs: [bad]
			    if: always()
			    steps:
			      - if: true
			        run: touch yes
			      - if: false
			        run: touch no
			      - if: needs.bad.result == 'failure'
			        run: touch saw-failure
			  broken:
			    steps:
			      - run: touch ran
			      - run: echo "${{ matrix.a == }}"
			''')
		rc, out = self.job('after', where='w0')
		self.assertEqual((rc, out[-1]), (1, f'error: the job after needs bad, which has not run in {self.store}'))
		self.assertEqual(self.job('bad')[0], 1)
		rc, out = self.job('after', where='w1')
		self.assertEqual((rc, out[-1]), (0, 'job after: skipped (if: success())'))
		self.assertFalse(os.path.exists(os.path.join(self.dir, 'w1', 'ran')))
		rc, out = self.job('anyway', where='w2')
		self.assertEqual(rc, 0, out)
		self.assertEqual(sorted(os.listdir(os.path.join(self.dir, 'w2'))), ['saw-failure', 'yes'])
		rc, out = self.job('broken', where='w3')
		self.assertEqual((rc, out[-1]), (2, "error: cannot stand in for the expression ' matrix.a == '"))
		self.assertEqual(os.listdir(os.path.join(self.dir, 'w3')), [], 'a step ran before the check')

	def test_step_files_env_and_yaml(self) -> None:
		self.write('''\
			on: push
			env:
			  WORD: yes
			  TIME: 1:30
			jobs:
			  j:
			    outputs:
			      many: ${{ steps.a.outputs.many }}
			    steps:
			      - id: a
			        run: |
			          printf 'many<<EOT\\none\\ntwo\\nEOT\\n' >> "$GITHUB_OUTPUT"
			          echo "ADDED=from-env-file" >> "$GITHUB_ENV"
			          mkdir -p bin && printf '#!/bin/sh\\necho tool\\n' > bin/mytool && chmod +x bin/mytool
			          echo "$PWD/bin" >> "$GITHUB_PATH"
			      - env:
			          OWN: own-${{ env.ADDED }}
			        run: |
			          test "$WORD $TIME" = "yes 1:30"
			          test "${{ env.ADDED }} ${{ env.OWN }}" = "from-env-file own-from-env-file"
			          test "$(mytool)" = tool
			          test "${{ steps.a.outputs.many }}" = "one
			          two"
			  tree:
			    steps:
			      - run: "true"
			  tree-extra:
			    steps:
			      - run: "true"
			  uses-tree:
			    needs: tree
			    steps:
			      - run: "true"
			  passed:
			    steps:
			      - run: |
			          test "$CI_JOB_TEST_CA" = /etc/proxy-ca.pem
			          test -z "${CI_JOB_TEST_OTHER+set}"
			''')
		rc, out = self.job('j')
		self.assertEqual(rc, 0, out)
		with open(os.path.join(self.store, 'jobs', 'j', '-.json'), encoding='utf-8') as f:
			self.assertEqual(json.load(f)['outputs'], {'many': 'one\ntwo'})
		# Another job whose name starts the same is not the one needed.
		self.assertEqual(self.job('tree-extra')[0], 0)
		rc, out = self.job('uses-tree')
		self.assertEqual((rc, out[-1]), (1, f'error: the job uses-tree needs tree, which has not run in {self.store}'))
		rc, out = self.job('j', '--env', 'NOT_THERE=1')
		self.assertEqual((rc, out[-1]), (2, f'error: --env NOT_THERE: not a variable of the env of {self.wf} or of the job'))
		# --pass gives a step one variable of this machine, and only that one.
		machine = {'CI_JOB_TEST_CA': '/etc/proxy-ca.pem', 'CI_JOB_TEST_OTHER': 'not for steps'}
		with unittest.mock.patch.dict(os.environ, machine):
			self.assertEqual(self.job('passed')[0], 1)
			rc, out = self.job('passed', '--pass', 'CI_JOB_TEST_CA')
			self.assertEqual(rc, 0, out)
		with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
			ci_job.main(['--store', self.store, '--workflow', self.wf, '--pass', 'CI_JOB_TEST_CA', 'passed'])
		self.assertEqual((e.exception.code, err.getvalue().splitlines()[-1]),
				 (2, 'error: --pass CI_JOB_TEST_CA: not set here (see ci-job.py --help)'))

	def test_interrupted(self) -> None:
		# A SIGTERM stops every process of the step (its SID), also when a second
		# one comes while it is being stopped, and the job's record says
		# it was cancelled, not what an earlier run said.
		self.write('''\
			on: push
			jobs:
			  slow:
			    steps:
			      - run: trap '' TERM; echo $$ > stubborn.pid; touch started; while :; do sleep 1; done
			''')
		work = os.path.join(self.dir, 'work')
		os.makedirs(work)
		record = os.path.join(self.store, 'jobs', 'slow', '-.json')
		os.makedirs(os.path.dirname(record))
		with open(record, 'w', encoding='utf-8') as f:
			json.dump({'result': 'success', 'outputs': {}}, f)
		proc = subprocess.Popen([sys.executable, os.path.join(REPO, 'scripts', 'tools', 'ci-job.py'),
					 '--store', self.store, '--workflow', self.wf, 'slow'], cwd=work,
					stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
		for _ in range(100):
			if os.path.exists(os.path.join(work, 'started')):
				break
			time.sleep(0.1)
		proc.send_signal(signal.SIGTERM)
		time.sleep(0.5)
		proc.send_signal(signal.SIGTERM)
		out, _ = proc.communicate(timeout=60)
		self.assertEqual(proc.returncode, 128 + signal.SIGTERM, out)
		self.assertIn('error: stopped by SIGTERM; the running step was stopped', out)
		with open(os.path.join(work, 'stubborn.pid'), encoding='utf-8') as f:
			self.assertFalse(os.path.exists(f'/proc/{int(f.read())}'), 'the step outlived the job')
		with open(record, encoding='utf-8') as f:
			self.assertEqual(json.load(f)['result'], 'cancelled')

	def test_project_workflow(self) -> None:
		# Every job and matrix row of the project's workflow passes the
		# check made before a job's first step: every key, action, input
		# and expression is one this program can stand in for.
		wf = ci_job.load_workflow(os.path.join(REPO, '.github', 'workflows', 'kunit.yml'))
		for name, spec in wf['jobs'].items():
			include = ((spec.get('strategy') or {}).get('matrix') or {}).get('include') or [{}]
			for row in include:
				c = ci_job.Context({'IDA_KUNIT_CACHE': '/c'}, row, {'tree': {'result': 'success', 'outputs': {'key': 'k'}}},
						   {'bench': False})
				with self.subTest(job=name, row=row.get('name')):
					ci_job.Runner(self.store, f'{name}-{row.get("name")}', spec, c).check()


if __name__ == '__main__':
	unittest.main()
