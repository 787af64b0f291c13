#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the generated blocks of the repository's documents.

A block is the text between "<!-- generated: NAME -->" and
"<!-- end generated -->" in a Markdown file; nothing outside them is touched.

  docs.py series [--check]   kernel-patches/README.md: the series table, from
                             the patch files (number, subject, files touched)
  docs.py last-run RESULTS [--block NAME]
                             README.md: a run of scripts/test-all.sh, from
                             RESULTS (times.json, checks/, <leg>/counts.json),
                             into the block NAME (default: last-run)

With --check nothing is written; the exit code says whether the block is up
to date.
"""

import email
import email.policy
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK_RE = r'(<!-- generated: {name} -->\n)(.*?)(<!-- end generated -->)'


def replace_block(path, name, body, check):
	with open(path, encoding='utf-8') as f:
		text = f.read()
	pattern = re.compile(BLOCK_RE.format(name=re.escape(name)), re.S)
	if not pattern.search(text):
		print(f'error: {path} has no generated block "{name}"', file=sys.stderr)
		return 1
	new = pattern.sub(lambda m: m.group(1) + body + m.group(3), text)
	if check:
		if new != text:
			print(f'error: the "{name}" block of {os.path.relpath(path, REPO)} is out of date: '
			      f'run scripts/docs.py {name}', file=sys.stderr)
			return 1
		print(f'{os.path.relpath(path, REPO)}: the "{name}" block is up to date')
		return 0
	if new != text:
		with open(path, 'w', encoding='utf-8') as f:
			f.write(new)
	return 0


def series_block(patches):
	rows = ['| # | patch | files |', '|---|---|---|']
	with open(os.path.join(patches, 'series'), encoding='utf-8') as f:
		names = [l.split('#')[0].strip() for l in f if l.split('#')[0].strip()]
	for n, name in enumerate(names, 1):
		with open(os.path.join(patches, name), encoding='utf-8') as f:
			msg = email.message_from_file(f, policy=email.policy.default)
		subject = re.sub(r'^\[[^]]*\]\s*', '', re.sub(r'\s+', ' ', str(msg['Subject'])))
		files = re.findall(r'^diff --git a/(\S+) b/', msg.get_content(), re.M)
		shown = ', '.join(f'`{x}`' for x in files[:4])
		if len(files) > 4:
			shown += f' and {len(files) - 4} more'
		rows.append(f'| {n} | {subject} | {shown} |')
	return '\n'.join(rows) + '\n'


def last_run_block(results):
	with open(os.path.join(results, 'times.json'), encoding='utf-8') as f:
		times = json.load(f)
	legs = []
	for name in sorted(os.listdir(results)):
		counts = os.path.join(results, name, 'counts.json')
		if os.path.isfile(counts) and os.path.isfile(os.path.join(results, name, 'times.json')):
			with open(counts, encoding='utf-8') as f:
				c = json.load(f)
			with open(os.path.join(results, name, 'times.json'), encoding='utf-8') as f:
				t = json.load(f)
			legs.append(f'| {name} | {c["verdict"]} | {c["passed"]} | {c["failed"]} | {c["skipped"]} | '
				    f'{len(c["problems"])} | {t["configure"]} s | {t["build"]} s | {t["run"]} s |')
	steps = times['steps']
	slow = sorted(steps.items(), key=lambda kv: -kv[1])[:6]
	out = ['| leg | verdict | passed | failed | skipped | problems | configure | build | run |',
	       '|---|---|---|---|---|---|---|---|---|'] + legs
	out.append('')
	out.append(f'Whole run: {times["total"]} s; the slowest steps: ' +
		   ', '.join(f'{k} {v} s' for k, v in slow) + '. '
		   f'The cache folder after it: {times.get("cache_mb", 0) / 1024:.1f} GiB.')
	out.append('')
	out.append('What the x86_64 leg printed (as `scripts/pipeline.sh` prints it), and how the run ended:')
	out.append('')
	out.append('```')
	try:
		with open(os.path.join(results, 'checks', 'kunit-x86_64.log'), encoding='utf-8') as f:
			out += [l.rstrip() for l in f if l.startswith('kunit x86_64')]
	except OSError:
		pass
	try:
		with open(os.path.join(results, 'summary.txt'), encoding='utf-8') as f:
			out += [l.rstrip() for l in f]
	except OSError:
		pass
	out.append('```')
	return '\n'.join(out) + '\n'


def main():
	args = sys.argv[1:]
	check = '--check' in args
	args = [a for a in args if a != '--check']
	block = 'last-run'
	if '--block' in args:
		i = args.index('--block')
		block = args[i + 1] if i + 1 < len(args) else ''
		del args[i:i + 2]
	if args[:1] == ['series']:
		patches = os.environ.get('IDA_KUNIT_PATCHES') or os.path.join(REPO, 'kernel-patches', 'linux-6.12')
		return replace_block(os.path.join(REPO, 'kernel-patches', 'README.md'), 'series',
				     series_block(os.path.abspath(patches)), check)
	if args[:1] == ['last-run'] and len(args) == 2:
		return replace_block(os.path.join(REPO, 'README.md'), block,
				     last_run_block(os.path.abspath(args[1])), check)
	print('error: usage: docs.py series [--check] | last-run RESULTS [--block NAME] [--check]',
	      file=sys.stderr)
	return 2


if __name__ == '__main__':
	sys.exit(main())
