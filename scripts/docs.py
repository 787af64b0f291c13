#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the generated blocks of the repository's documents.

A block is the text between "<!-- generated: NAME -->" and
"<!-- end generated -->" in a Markdown file; nothing outside them is touched.

  docs.py series [--check]   kernel-patches/README.md: the series table, from
                             the patch files (number, subject, files touched)
  docs.py last-run RESULTS [--block NAME]
                             README.md: a run of scripts/test-all.sh, from
                             RESULTS (times.json, checks/, <leg>/counts.json,
                             and the series it tested from kcidb.json), into
                             the block NAME (default: last-run)
  docs.py plain-commands [--check]
                             README.md: the plain kunit.py commands, from
                             kunit/plain-commands.tsv
  docs.py ci-caches RESULTS  .github/README.md: what the CI caches weigh, from
                             RESULTS/ci-caches.json
                             (scripts/tools/ci-cache-sizes.sh)

With --check nothing is written; the exit code says whether the block is up
to date (1 when it is not).  A missing or unreadable input is one "error:"
line and exit 1; a bad command line, exit 2.
"""

import argparse
import email
import email.message
import email.policy
import os
import re
import sys
from typing import Dict, List, Optional, Sequence

# The helpers the programs of kunit/ share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'kunit'))
from cli import ArgumentParser, InputError, run  # noqa: E402
import plain  # noqa: E402
from cli import load_json as load_json_file  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK_RE = r'(<!-- generated: {name} -->\n)(.*?)(<!-- end generated -->)'


class DocsError(Exception):
	"""An input that cannot be read; the message is the "error:" line."""


def load_json(path: str) -> Dict[str, object]:
	"""A JSON object from PATH; DocsError for anything else."""
	value = load_json_file(path)
	if not isinstance(value, dict):
		raise DocsError(f'{path}: not a JSON object')
	return value


def replace_block(path: str, name: str, body: str, check: bool, how: str) -> int:
	"""Writes BODY into the block NAME of PATH (with CHECK, says whether it
	is there already); HOW is the command that writes it."""
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
			      f'run {how}', file=sys.stderr)
			return 1
		print(f'{os.path.relpath(path, REPO)}: the "{name}" block is up to date')
		return 0
	if new != text:
		with open(path, 'w', encoding='utf-8') as f:
			f.write(new)
	return 0


def series_block(patches: str) -> str:
	rows = ['| # | patch | files |', '|---|---|---|']
	with open(os.path.join(patches, 'series'), encoding='utf-8') as f:
		names = [l.split('#')[0].strip() for l in f if l.split('#')[0].strip()]
	for n, name in enumerate(names, 1):
		with open(os.path.join(patches, name), encoding='utf-8') as f:
			msg = email.message_from_file(f, policy=email.policy.default)
		if not isinstance(msg, email.message.EmailMessage):
			raise DocsError(f'{name}: not read as a mail')
		subject = re.sub(r'^\[[^]]*\]\s*', '', re.sub(r'\s+', ' ', str(msg['Subject'])))
		body = str(msg.get_content())
		files: List[str] = re.findall(r'^diff --git a/(\S+) b/', body, re.M)
		shown = ', '.join(f'`{x}`' for x in files[:4])
		if len(files) > 4:
			shown += f' and {len(files) - 4} more'
		rows.append(f'| {n} | {subject} | {shown} |')
	return '\n'.join(rows) + '\n'


def tested_series(results: str) -> Optional[str]:
	"""What RESULTS/kcidb.json says the run tested (its checkout's
	misc.series: the patches, the tree version and the series head), or
	None for a run that wrote no kcidb.json."""
	path = os.path.join(results, 'kcidb.json')
	if not os.path.exists(path):
		return None
	checkouts = load_json(path).get('checkouts')
	checkout = checkouts[0] if isinstance(checkouts, list) and checkouts else None
	misc = checkout.get('misc') if isinstance(checkout, dict) else None
	series = misc.get('series') if isinstance(misc, dict) else None
	if not isinstance(series, str):
		raise DocsError(f'{path}: no checkout with a misc.series')
	return series


def last_run_block(results: str) -> str:
	times = load_json(os.path.join(results, 'times.json'))
	legs = []
	for name in sorted(os.listdir(results)):
		counts = os.path.join(results, name, 'counts.json')
		if os.path.isfile(counts) and os.path.isfile(os.path.join(results, name, 'times.json')):
			c = load_json(counts)
			t = load_json(os.path.join(results, name, 'times.json'))
			problems = c.get('problems')
			try:
				legs.append(f'| {name} | {c["verdict"]} | {c["passed"]} | {c["failed"]} | {c["skipped"]} | '
					    f'{len(problems) if isinstance(problems, list) else "?"} | '
					    f'{t["configure"]} s | {t["build"]} s | {t["run"]} s |')
			except KeyError as e:
				raise DocsError(f'{os.path.join(results, name)}: no {e} in counts.json or times.json') from e
	steps = times.get('steps')
	if not isinstance(steps, dict) or not all(isinstance(v, (int, float)) for v in steps.values()):
		raise DocsError(f'{results}/times.json: no "steps" with their seconds')
	seconds: Dict[str, float] = steps
	slow = sorted(seconds.items(), key=lambda kv: -kv[1])[:6]
	cache_mb = times.get('cache_mb', 0)
	if not isinstance(cache_mb, (int, float)):
		raise DocsError(f'{results}/times.json: "cache_mb" is not a number')
	out = ['| leg | verdict | passed | failed | skipped | problems | configure | build | run |',
	       '|---|---|---|---|---|---|---|---|---|'] + legs
	out.append('')
	out.append(f'Whole run: {times.get("total", "?")} s; the slowest steps: ' +
		   ', '.join(f'{k} {v} s' for k, v in slow) + '. '
		   f'The cache folder after it: {cache_mb / 1024:.1f} GiB.')
	series = tested_series(results)
	if series:
		out.append('')
		out.append(f'The series it tested (kcidb.json): {series}.')
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


def cmd_series(args: argparse.Namespace) -> int:
	patches = os.environ.get('IDA_KUNIT_PATCHES') or os.path.join(REPO, 'kernel-patches', 'linux-6.12')
	return replace_block(os.path.join(REPO, 'kernel-patches', 'README.md'), 'series',
			     series_block(os.path.abspath(patches)), args.check, 'scripts/docs.py series')


def cmd_last_run(args: argparse.Namespace) -> int:
	return replace_block(os.path.join(REPO, 'README.md'), args.block,
			     last_run_block(os.path.abspath(args.results)), args.check,
			     f'scripts/docs.py last-run {args.results} --block {args.block}')


def plain_commands_block() -> str:
	try:
		rows = plain.load()
	except InputError as e:
		raise DocsError(str(e)) from e
	return ''.join(f'{r.what}:\n\n```sh\n{r.command}\n```\n\n' for r in rows).rstrip('\n') + '\n'


def cmd_plain_commands(args: argparse.Namespace) -> int:
	return replace_block(os.path.join(REPO, 'README.md'), 'plain-commands', plain_commands_block(),
			     args.check, 'scripts/docs.py plain-commands')


STAMP = re.compile(r'^\[ *(\d+\.\d+)\] ')


def users_leg_block(leg: str) -> str:
	"""A leg that runs the users' programs (kunit/users): its counts and
	times, and each program's cases and seconds, from the timestamps of
	the first and last lines of its users-NAME.log."""
	name = os.path.basename(os.path.normpath(leg))
	c = load_json(os.path.join(leg, 'counts.json'))
	t = load_json(os.path.join(leg, 'times.json'))
	try:
		row = (f'| {name} | {c["verdict"]} | {c["passed"]} | {c["failed"]} | {c["skipped"]} | '
		       f'{t["configure"]} s | {t["build"]} s | {t["run"]} s |')
	except KeyError as e:
		raise DocsError(f'{leg}: no {e} in counts.json or times.json') from e
	programs = []
	for f in sorted(os.listdir(leg)):
		m = re.fullmatch(r'users-([a-z0-9_]+)\.log', f)
		if not m:
			continue
		with open(os.path.join(leg, f), encoding='utf-8', errors='replace') as log:
			lines = log.read().splitlines()
		stamps = [float(s.group(1)) for s in map(STAMP.match, lines) if s]
		# The program's cases: its suite's results, indented once.
		results = [re.match(r'    (not )?ok \d+ ', STAMP.sub('', l)) for l in lines]
		cases = [r for r in results if r]
		passed = [r for r in cases if not r.group(1)]
		if len(stamps) < 2:
			raise DocsError(f'{leg}/{f}: no timestamped lines (a program that did not run)')
		programs.append(f'| `{m.group(1)}` | {len(cases)} | {len(passed)} | '
				f'{stamps[-1] - stamps[0]:.0f} s |')
	if not programs:
		raise DocsError(f'{leg}: no users-NAME.log: not a leg that runs kunit/users')
	return ('| leg | verdict | passed | failed | skipped | configure | build | run |\n'
		'|---|---|---|---|---|---|---|---|\n' + row + '\n\n'
		'| program | cases | passed | seconds in the boot |\n|---|---|---|---|\n' +
		'\n'.join(programs) + '\n')


def cmd_users_leg(args: argparse.Namespace) -> int:
	return replace_block(os.path.join(REPO, 'README.md'), 'users-leg',
			     users_leg_block(os.path.abspath(args.leg)), args.check,
			     f'scripts/docs.py users-leg {args.leg}')


GITHUB_CACHE_BYTES = 10 * 1000 ** 3	# what GitHub keeps per repository


# ccache's size units (ccache(1), "max_size"): decimal, or binary with "i".
CCACHE_UNITS = {'': 1, 'k': 1000, 'M': 1000 ** 2, 'G': 1000 ** 3, 'T': 1000 ** 4,
		'Ki': 1024, 'Mi': 1024 ** 2, 'Gi': 1024 ** 3, 'Ti': 1024 ** 4}


def ccache_bytes(size: str) -> int:
	"""The bytes of a ccache size such as "100M" or "5Gi"."""
	m = re.fullmatch(r'(\d+(?:\.\d+)?)([kMGT]i?|Ki)?', size.strip())
	if not m or (m.group(2) or '') not in CCACHE_UNITS:
		raise DocsError(f'not a ccache size: {size!r}')
	return int(float(m.group(1)) * CCACHE_UNITS[m.group(2) or ''])


def ci_caches_block(results: str) -> str:
	sizes = load_json(os.path.join(results, 'ci-caches.json'))
	tree, ccache, legs, builds, cap = (sizes.get(k) for k in
					   ('tree_bytes', 'ccache_bytes', 'ci_legs', 'builds', 'ccache_max_size'))
	if not (isinstance(tree, int) and isinstance(ccache, int) and isinstance(legs, int)
		and isinstance(builds, list) and builds and isinstance(cap, str)):
		raise DocsError(f'{results}/ci-caches.json: not what scripts/tools/ci-cache-sizes.sh writes')
	mb = 1000 ** 2
	per_build = ccache / len(builds)
	# One entry per matrix leg and one for the checks job, each about one
	# build's share of the compiler cache measured here.
	entries = legs + 1
	run = tree + entries * per_build
	# ... and at most the cap each, however many changes they saw.
	capped = tree + entries * ccache_bytes(cap)
	return (f'| what | compressed |\n|---|---|\n'
		f'| the distro tree (one entry per package version) | {tree / mb:.0f} MB |\n'
		f'| the compiler cache of {len(builds)} builds together ({", ".join(str(b) for b in builds)}) '
		f'| {ccache / mb:.0f} MB, {per_build / mb:.0f} MB a build |\n'
		f'| the tree and one set of compiler caches ({legs} legs and the checks job, about one '
		f'build\'s share each) | about {run / mb:.0f} MB |\n'
		f'| the tree and one set of compiler caches at their cap ({cap} each, '
		f'`CCACHE_MAXSIZE` in the workflow) | at most {capped / mb:.0f} MB |\n\n'
		f'The compiler cache measured also holds the per-patch builds of this cache folder\'s checks, '
		f'so a build\'s share is an upper bound for a leg.  '
		f'A job restores its compiler cache from the newest entry of its prefix (restore-keys) and '
		f'saves it again under the new key, so an entry grows with the changes it saw, up to the cap: '
		f'ccache then evicts its oldest objects.  '
		f'The 10 GB GitHub keeps hold the tree and the compiler caches of about '
		f'{int((GITHUB_CACHE_BYTES - tree) // (entries * per_build))} changes of the series '
		f'(at least {int((GITHUB_CACHE_BYTES - tree) // (entries * ccache_bytes(cap)))} with every '
		f'entry at its cap); older entries are evicted first, and a leg whose entry is gone builds '
		f'with ccache restored from the newest entry of its prefix, or from nothing.\n')


def cmd_ci_caches(args: argparse.Namespace) -> int:
	return replace_block(os.path.join(REPO, '.github', 'README.md'), 'ci-caches',
			     ci_caches_block(os.path.abspath(args.results)), args.check,
			     f'scripts/docs.py ci-caches {args.results}')


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='docs.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	sub = ap.add_subparsers(dest='cmd', required=True, metavar='COMMAND', parser_class=ArgumentParser)
	s = sub.add_parser('series', help='the series table of kernel-patches/README.md '
			   '(from $IDA_KUNIT_PATCHES, default kernel-patches/linux-6.12)')
	s.add_argument('--check', action='store_true', help='write nothing: exit 1 if the block is out of date')
	s.set_defaults(func=cmd_series)
	r = sub.add_parser('last-run', help="a run's block of README.md, from its results folder")
	r.add_argument('results', metavar='RESULTS', help='the results folder of scripts/test-all.sh')
	r.add_argument('--block', default='last-run', metavar='NAME',
		       help='the block to write (default: last-run)')
	r.add_argument('--check', action='store_true', help='write nothing: exit 1 if the block is out of date')
	r.set_defaults(func=cmd_last_run)
	p = sub.add_parser('plain-commands', help='the plain kunit.py commands of README.md')
	p.add_argument('--check', action='store_true', help='write nothing: exit 1 if the block is out of date')
	p.set_defaults(func=cmd_plain_commands)
	u = sub.add_parser('users-leg', help="the block of README.md on a leg that runs kunit/users, "
			   "from its results folder")
	u.add_argument('leg', metavar='LEG', help="the leg's results folder (results/<leg>)")
	u.add_argument('--check', action='store_true', help='write nothing: exit 1 if the block is out of date')
	u.set_defaults(func=cmd_users_leg)
	c = sub.add_parser('ci-caches', help='what the CI caches weigh, in .github/README.md')
	c.add_argument('results', metavar='RESULTS', help='the folder of ci-caches.json')
	c.add_argument('--check', action='store_true', help='write nothing: exit 1 if the block is out of date')
	c.set_defaults(func=cmd_ci_caches)
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	return run(lambda: int(args.func(args)), (DocsError,))


if __name__ == '__main__':
	sys.exit(main())
