#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the series' cover letter text, with its figures taken from results,
into the tree's branch description (which scripts/export-series.sh turns
into kernel-patches/linux-6.12/0000-cover-letter.patch).

  cover-letter.py [--print | --bench | --bench-check FILE] RESULTS...

RESULTS are results folders (the first one's bench/ holds the userspace
benchmark of scripts/tools/bench.sh, run with --rev for the benchmark patch
and the branch; its mutation/ the mutation run).  Every leg found in them
(a folder with counts.json and leg.json) is a row of the test matrix.
Nothing in the letter is typed by hand but the prose.  Results without the
benchmark, and a git command that fails, give one "error:" line and exit 1;
a bad command line, exit 2.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

# The helpers the programs of kunit/ share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'kunit'))
from cli import ArgumentParser, InputError  # noqa: E402
import bench_table  # noqa: E402
import plain  # noqa: E402

# A JSON object of the results (counts.json, leg.json, a benchmark result).
JsonObject = Dict[str, Any]

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH_PATCH = 'ida: Add a benchmark against the IDR and a bitmap'
ROWS = [('seq_alloc_64K', 'sequential alloc of 64K IDs'),
	('seq_free_64K', 'sequential free of 64K IDs'),
	('random_churn_50pct_1M', 'random churn at 50% of 1M'),
	('churn_min0', 'alloc/free churn at min 0'),
	('churn_min1000', 'alloc/free churn at min 1000'),
	('narrow_range_sparse_1M', '32-ID windows, sparse 1M')]

TEXT = '''IDA: a KUnit suite for the IDA contract and its powerpc and dmaengine users, the end of ida_simple_*, and a faster ida_alloc/ida_free

The IDA's self-test, test_ida, is a module that counts its checks with
printk() and prints one line that no test runner reads, and it checks a
handful of fixed sequences rather than what the kernel-doc promises.
And six years after the 2018 API rework, the deprecated ida_simple_get()
and ida_simple_remove() wrappers are still there.

The series applies on top of four fixes to Debian's tree that are not
part of it (their prerequisite-patch-ids are below): "xarray: Unlink a
node before handing it to call_rcu()", for a use-after-free that the
radix-tree harness's iteration test hits now and then, and every time
once the writer is held up after call_rcu(); "kunit: tool: Allow kernel
messages inside a subtest's header", without which a kernel message
printed between the two header lines of a parameterised case makes
kunit.py report a passing suite as crashed; "reboot: Wait for the
consoles before a restart or a halt", without which a PREEMPT_RT kernel
loses its last console messages at a reboot, kunit_shutdown=reboot's
included, and with them now and then the suite's last results; and
"maple_tree: Wait for a slow reader's first read in the RCU test", for
the harness's maple program, whose slow-reader test can fail on a busy
machine, and does every time once its readers' first read is held back.
Each goes to its maintainer on its own.

Patches 1-3 fix what the new tests found in ida_alloc_range() when
memory runs short, each with a regression test in the userspace harness
(tools/testing/radix-tree/idr-test.c) that fails without it.  Patch 1:
a bitmap the XArray could not store (a node allocation failed too) is
lost on the retry, for every caller, and on the -ENOMEM return, and the
bitmap kept for the retry could hand an ID to nobody.  Patch 2: the node
xas_nomem() preallocated for a retry leaks when the retry ends in
-ENOSPC or in a failed bitmap allocation.  Patch 3: the nodes a store
linked before it ran out of memory stay in the tree, so an IDA whose IDs
are all freed is not empty (a new xas_trim() removes them).  They come
first so that they can go to stable on their own.

Patch 4 gives the userspace harness programs of tools/testing a small
emulation of the KUnit API (tools/testing/shared/kunit/test.h), so that a
suite can be built both as a kernel KUnit suite and into a harness
program.  Patch 5 turns test_ida into a KUnit suite, lib/tests/ida_kunit.c,
one case per old check, which idr-test runs through that emulation.
Patches 6-8 extend the suite to the documented contract: inclusive
ranges, the INT_MAX clamp, -ENOSPC for impossible ranges,
value-entry/bitmap/tree boundaries, the free mark, destroy, one bad free
of each kind (the old exhaustive sweep, 128 warnings, runs only when
asked for with ida_kunit.bad_free_sweep=1), a seeded
randomised model test, -ENOMEM with fault injection (every allocation
failing from the n-th on, with a ledger of what the request allocated;
in the harness, also the IDA changing while a request waits for memory)
and the state of the IDA after it, use from atomic, softirq and
interrupt context (the one PREEMPT_RT allows), and concurrent use
including ida_destroy() while busy.  Patches 9-11 convert the last users of
ida_simple_get()/ida_simple_remove() (rpmb, the radix-tree test suite, an
nvmem comment) and patch 12 removes the wrappers.

Patch 13 adds a KUnit suite for the book3s64 MMU context ID allocation,
the IDA user the 2018 series converted to ida_alloc_range(); it takes
every free context ID for a moment, so it is opt-in.

Patch 14 adds a benchmark of the IDA against the IDR and a bitmap (its
own option, not in KUNIT_ALL_TESTS) and a "make SHIFT=6 ida-bench" target
in tools/testing/radix-tree that counts its instructions with callgrind;
patches 15-17 make ida_alloc_range() and ida_free() cheaper: look at the
word that changed before scanning a whole bitmap or setting a mark that
is already set, and scan a bitmap for a free bit or for emptiness a word
at a time, inline.  Instructions per operation (callgrind, -O2,
XA_CHUNK_SHIFT 6), before patch 15 -> after patch 17:

{bench}

IDs kept in a value entry (the churn at min 0, the narrow windows) never
reach the changed code and pay a few instructions more, most of them for
two registers ida_free() now saves.  Memory per ID and the size of
struct ida are unchanged.  Each of patches 15-17 gives its counts for
every workload and how to reproduce them; they are the same from run to
run, as the benchmark program frees a deleted node at once instead of
leaving it to liburcu's call_rcu thread.

Patch 18 adds a KUnit suite for the DMA engine core's device and
channel IDs, dma_ida and each device's chan_ida, another IDA user the
2018 series converted.  None of the machines kunit_tool boots has a DMA
controller with a driver in this tree, so it registers fake devices: it
pins the lowest free device ID and its reuse, channel IDs numbered from
0 and the dma<dev>chan<chan> names made of both, a removed channel's ID
going to the next channel, and every ID given back by unregistering.

This series is the 6.12 form.  Posted against mainline it would go as
six submissions: patches 1-3 alone, for mm-hotfixes and stable; patch 4
as an RFC to kunit-dev and the XArray maintainer, since it is new harness
infrastructure; the suite, patches 5-8 (patches 9-12 are done in
mainline already: rpmb in v6.13, the wrappers' removal in v6.18); patch
13 to linuxppc-dev; the allocator patches 14-17; and patch 18 to
dmaengine.  A rebase onto mainline meets timer_container_of() where
this uses from_timer(), the KUnit generate_params callback that now
takes the test, the suite's place in lib/tests/Makefile, and mainline's
own ida_find_first_range() tests, which the suite must keep.

To run the suites, with the series applied:

{plain}

A plain run of the IDA suite prints four warnings, one for each
condition ida_free() warns on, each announced by its case (on UML one
more, from kunit_tool's UML configuration: PCI over virtio without a
device ID); without CONFIG_FAILSLAB and CONFIG_TRACEPOINTS the
out-of-memory cases are skipped, saying so.  The series adds no
lib/tests/.kunitconfig: by kunit_tool's convention a directory's
.kunitconfig runs the tests of that directory, and lib/tests/ holds the
suites of many subsystems; the suite is on in KUNIT_ALL_TESTS, which is
kunit.py's default configuration.

Tested with kunit_tool on User Mode Linux and in QEMU (TCG), with the
bad-free sweep asked for in QEMU (UML's console drops a burst of output
its reader does not take in time); every leg boots twice, once for the
cases of normal speed and once for the slow ones.
x86_64-debug adds lockdep with the raw lock nesting check, KASAN, UBSAN
and a kmemleak scan once the suites have run (which found the leak patch
1 fixes):

{legs}
{warnings}
tools/testing/radix-tree: after every patch that touches what it
compiles, every target builds and idr-test, multiorder and xarray pass;
main and maple pass on the whole series.
{mutation}
Every patch builds on its own (the objects it touches and the suites,
W=1 and sparse, no new warnings).  checkpatch.pl --strict, ignoring
UNKNOWN_COMMIT_ID (Debian's source has no upstream history to look up a
Fixes: tag in) and FILE_PATH_CHANGES (instead, every file a patch adds
must be covered by a MAINTAINERS section):
{checkpatch}'''


class CoverLetterError(Exception):
	"""What stops the letter; the message is the "error:" line."""


def git(src: str, *args: str) -> str:
	return subprocess.run(['git', '-C', src, *args], check=True, capture_output=True,
			      text=True).stdout.strip()


def load(path: str) -> Optional[JsonObject]:
	"""The JSON object in PATH; None when there is none."""
	try:
		with open(path, encoding='utf-8') as f:
			value: object = json.load(f)
	except (OSError, ValueError):
		return None
	return value if isinstance(value, dict) else None


def bench_block(src: str, results: str) -> str:
	"""The IDA rows of the benchmark before the allocator patches and after
	the last patch that changes the allocator (lib/idr.c and
	include/linux/idr.h, what scripts/tools/bench.sh takes from a
	revision), with the IDR's for scale."""
	tip = git(src, 'log', '-1', '--format=%H', 'pristine..ida-kunit', '--', 'lib/idr.c', 'include/linux/idr.h')
	base = git(src, 'log', '--format=%H', '--fixed-strings', f'--grep={BENCH_PATCH}',
		   'pristine..ida-kunit')
	runs: Dict[str, JsonObject] = {}
	for path in glob.glob(os.path.join(results, 'bench', 'userspace-*.json')):
		d = load(path)
		if not d or not isinstance(d.get('label'), str) or not isinstance(d.get('instructions_per_op'), dict):
			continue
		try:
			runs[git(src, 'rev-parse', d['label'])] = d
		except subprocess.CalledProcessError:
			continue
	if tip not in runs or base not in runs:
		raise CoverLetterError(f'no userspace benchmark of the benchmark patch and the branch in '
				       f'{results}/bench: run scripts/tools/bench.sh --no-kernel --rev {base[:12]} '
				       f'--rev {tip[:12]}')
	before, after = runs[base]['instructions_per_op'], runs[tip]['instructions_per_op']
	b, a = (cast(bench_table.UserspaceResult, runs[r]) for r in (base, tip))
	lines = []
	for row, what in ROWS:
		if row not in before or row not in after:
			raise CoverLetterError(f'no row {row} in the userspace benchmark results of {results}/bench')
		lines.append(f'  {what:<31}{bench_table.per_op(b, row, "ida"):5.0f} -> '
			     f'{bench_table.per_op(a, row, "ida"):<5.0f} (IDR {bench_table.per_op(a, row, "idr"):.0f})')
	return '\n'.join(lines)


def legs_block(dirs: Sequence[str]) -> Tuple[str, List[int]]:
	"""The test matrix (a row per leg that ran), and the expected warnings
	of each x86_64 leg."""
	rows: List[str] = []
	warn: List[int] = []
	for results in dirs:
		for counts_path in sorted(glob.glob(os.path.join(results, '*', 'counts.json'))):
			leg_dir = os.path.dirname(counts_path)
			c, leg = load(counts_path), load(os.path.join(leg_dir, 'leg.json'))
			if not c or not leg or c.get('phase') != 'run':
				continue
			name = os.path.basename(leg_dir)
			word = f'{leg.get("word_size")}-bit' if leg.get('word_size') else '?'
			endian = {'little': 'LE', 'big': 'BE'}.get(str(leg.get('endianness')), '?')
			try:
				result = f'{c["passed"]} passed'
				if c['skipped']:
					result += f', {c["skipped"]} skipped'
				if c['failed']:
					result += f', {c["failed"]} failed'
				if c['verdict'] != 'PASS':
					result += ' (FAIL)'
			except KeyError as e:
				raise CoverLetterError(f'{counts_path}: no {e}') from e
			rows.append(f'  {name:<14} {leg.get("linux_arch", "?"):<8} {word:<7} {endian:<3} '
				    f'{leg.get("vcpus", "?"):>5}  {result}')
			if name == 'x86_64':
				warn.append(c.get('expected_warnings', 0))
	head = f'  {"leg":<14} {"arch":<8} {"word":<7} {"end":<3} {"vCPUs":>5}  cases'
	return '\n'.join([head] + rows), warn


def default_boot_warnings(results: str) -> str:
	"""Expected warnings of the x86_64 leg's default boot and of its slow boot."""
	counts = []
	for log in ('kernel.log', 'kernel-slow.log'):
		try:
			with open(os.path.join(results, 'x86_64', log), encoding='utf-8', errors='replace') as f:
				text = f.read()
		except OSError:
			return ''
		counts.append(sum(int(n) for n in re.findall(r'expected warnings begin: (\d+)', text)))
	return (f'\nOn x86_64 the default boot provokes {counts[0]} warnings on purpose (one per kind\n'
		f'of bad free), the slow boot {counts[1]} (the exhaustive bad-free sweep); the\n'
		f'cases announce them and the log reader counts them.\n')


def plain_block() -> str:
	"""The plain kunit.py commands (kunit/plain-commands.tsv), each after
	what it runs."""
	try:
		rows = plain.load()
	except InputError as e:
		raise CoverLetterError(str(e)) from e
	return '\n\n'.join('\n'.join(textwrap.wrap(r.what, 70, initial_indent='  # ', subsequent_indent='  # '))
			   + f'\n  {r.command}' for r in rows)


def mutation_block(results: str) -> str:
	m = load(os.path.join(results, 'mutation', 'report.json'))
	if not m:
		return ''
	return (f'\nMutation testing of ida_alloc_range(), ida_free(), ida_destroy() and the\n'
		f'bitmap scans on the final tree: {len(m["mutants"])} mutants, {m["killed"]} killed, '
		f'{m["survived"]} survived,\n{m["equivalent"]} equivalent (not scored), '
		f'{m["stillborn"]} did not build.\n')


def checkpatch_block(src: str) -> str:
	"""What checkpatch.pl --strict says of each patch of the branch."""
	lines = []
	revs = git(src, 'rev-list', '--reverse', 'tree-fixes..ida-kunit').split()
	for i, rev in enumerate(revs, 1):
		patch = git(src, 'format-patch', '-1', '--stdout', rev)
		# As scripts/checks/check-series.sh runs it, with its two ignores.
		r = subprocess.run(['perl', os.path.join(src, 'scripts', 'checkpatch.pl'), '--strict', '--no-color',
				    '--ignore', 'FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID', '-'], input=patch, cwd=src,
				   capture_output=True, text=True, check=False,
				   env={**os.environ, 'PATH': '/usr/bin:' + os.environ.get('PATH', '')})
		m = re.search(r'total: (\d+) errors, (\d+) warnings, (\d+) checks', r.stdout)
		if not m:
			raise CoverLetterError(f'checkpatch.pl gave no totals for patch {i}')
		what = f'{m[1]} errors, {m[2]} warnings, {m[3]} checks'
		if m[2] != '0' or m[1] != '0' or m[3] != '0':
			said = [ln.strip() for ln in r.stdout.splitlines()
				if ln.startswith(('ERROR:', 'WARNING:', 'CHECK:'))]
			what += ' (' + '; '.join(said) + ')'
		lines.append(f'  patch {i:>2}: {what}')
	return '\n'.join(lines)


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='cover-letter.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	what = ap.add_mutually_exclusive_group()
	what.add_argument('--print', dest='show', action='store_true',
			  help='print the text instead of setting the branch description')
	what.add_argument('--bench', action='store_true', help='print only the benchmark block')
	what.add_argument('--bench-check', metavar='FILE',
			  help='whether FILE (the exported cover letter) quotes the benchmark block exactly, once')
	ap.add_argument('results', nargs='+', metavar='RESULTS',
			help='results folders (the first one with bench/ and mutation/)')
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	dirs = [os.path.abspath(a) for a in args.results]
	try:
		src = subprocess.run(['bash', '-c', f'. {REPO}/scripts/lib.sh && echo "$SRC"'],
				     capture_output=True, text=True, check=True).stdout.strip()
		if args.bench:
			print(bench_block(src, dirs[0]))
			return 0
		if args.bench_check:
			block = bench_block(src, dirs[0]).splitlines()
			with open(args.bench_check, encoding='utf-8') as f:
				cover = f.read().splitlines()
			at = [i for i in range(len(cover)) if cover[i:i + len(block)] == block]
			if len(at) != 1:
				raise CoverLetterError(f'{args.bench_check} quotes the benchmark block {len(at)} times, '
						       'not once: ' + ' / '.join(ln.strip() for ln in block))
			print(f'{args.bench_check}: the {len(block)} lines of its benchmark block are what the benchmark gives')
			return 0
		legs, _ = legs_block(dirs)
		text = TEXT.format(bench=bench_block(src, dirs[0]), legs=legs, plain=plain_block(),
				   warnings=default_boot_warnings(dirs[0]), mutation=mutation_block(dirs[0]),
				   checkpatch=checkpatch_block(src))
		if args.show:
			print(text)
			return 0
		git(src, 'config', 'branch.ida-kunit.description', text)
	except CoverLetterError as e:
		print(f'error: {e}', file=sys.stderr)
		return 1
	except subprocess.CalledProcessError as e:
		why = (e.stderr or '').strip().splitlines()
		print(f'error: {" ".join(map(str, e.cmd[:4]))} failed' + (f': {why[-1]}' if why else ''),
		      file=sys.stderr)
		return 1
	print('cover letter text set: run scripts/export-series.sh')
	return 0


if __name__ == '__main__':
	sys.exit(main())
