#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mutation testing of the IDA KUnit suite (and of the book3s64 MMU context suite).

Applies one small mutant at a time to the code under test in the patched
tree (the IDA functions of lib/idr.c; with --target book3s64-mmu-context,
arch/powerpc/mm/book3s64/mmu_context.c), rebuilds incrementally and runs the
suite (the KUnit leg in QEMU, with the kernel-log reader; for an IDA mutant
that survives that, also the userspace radix-tree harness and the debug leg),
and reports for each mutant whether the suite killed it.  The file is
restored afterwards, whatever happens.

Usage: scripts/tools/mutate.py [--target T] [--only NAME[,NAME...]] [--no-harness] [--kunitconfig F]
Writes $IDA_KUNIT_RESULTS/mutation[-T]/report.txt and report.json.  What
stops it (no patched tree, an unknown mutant, a red baseline) is one
"error:" line; a bad command line exits 2.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypedDict

# The helpers the programs of kunit/ share.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'kunit'))
from cli import ArgumentParser, os_error  # noqa: E402

# (name, what it breaks, exact text, replacement[, arch of the leg]).
Mutant = Tuple[str, ...]
# A leg's counts.json (kunit/results.py).
Counts = Dict[str, Any]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Mutants that cannot change what any caller sees: reported, not scored.
EQUIVALENT = {
	'min-check-dropped':
		'without the check, a minimum above INT_MAX starts the search past '
		'max / IDA_BITMAP_BITS and the range check returns -ENOSPC anyway',
	'value-start-le':
		'for bit == BITS_PER_XA_VALUE find_next_zero_bit() returns its size, '
		'so the mutant takes the same conversion path, only checking max '
		'before the conversion instead of after it',
}

# (name, what it breaks, exact text in lib/idr.c, replacement).  Each text
# must occur exactly once in the file.
MUTANTS: List[Mutant] = [
	('min-check-dropped', 'a minimum above INT_MAX is no longer rejected',
	 '\tif ((int)min < 0)\n\t\treturn -ENOSPC;',
	 '\tif (0)\n\t\treturn -ENOSPC;'),
	('max-clamp-dropped', 'a maximum above INT_MAX is not clamped',
	 '\tif ((int)max < 0)\n\t\tmax = INT_MAX;',
	 '\tif (0)\n\t\tmax = INT_MAX;'),
	('max-clamp-wrong', 'a maximum above INT_MAX is clamped to INT_MAX - 1',
	 '\t\tmax = INT_MAX;',
	 '\t\tmax = INT_MAX - 1;'),
	('next-leaf-bit', 'the start bit is reset on the first leaf too',
	 '\tif (xas.xa_index > min / IDA_BITMAP_BITS)\n\t\tbit = 0;',
	 '\tif (xas.xa_index >= min / IDA_BITMAP_BITS)\n\t\tbit = 0;'),
	('leaf-max-off-by-one', 'the range check on a found leaf excludes max',
	 '\t\tbit = 0;\n\tif (xas.xa_index * IDA_BITMAP_BITS + bit > max)',
	 '\t\tbit = 0;\n\tif (xas.xa_index * IDA_BITMAP_BITS + bit >= max)'),
	('leaf-max-check-dropped', 'no range check on a found leaf',
	 '\t\tbit = 0;\n\tif (xas.xa_index * IDA_BITMAP_BITS + bit > max)\n\t\tgoto nospc;',
	 '\t\tbit = 0;\n\tif (0)\n\t\tgoto nospc;'),
	('value-start-le', 'a value entry is searched from the bit past its end',
	 '\t\tif (bit < BITS_PER_XA_VALUE) {\n\t\t\tbit = find_next_zero_bit(&tmp',
	 '\t\tif (bit <= BITS_PER_XA_VALUE) {\n\t\t\tbit = find_next_zero_bit(&tmp'),
	('value-search-short', 'the last bit of a value entry is never used',
	 'find_next_zero_bit(&tmp, BITS_PER_XA_VALUE, bit);',
	 'find_next_zero_bit(&tmp, BITS_PER_XA_VALUE - 1, bit);'),
	('value-max-check-dropped', 'no range check inside a value entry',
	 '\t\t\tif (xas.xa_index * IDA_BITMAP_BITS + bit > max)\n\t\t\t\tgoto nospc;\n\t\t\tif (bit < BITS_PER_XA_VALUE) {',
	 '\t\t\tif (0)\n\t\t\t\tgoto nospc;\n\t\t\tif (bit < BITS_PER_XA_VALUE) {'),
	('value-set-wrong-bit', 'the bit above the ID is set in a value entry',
	 '\t\t\t\ttmp |= 1UL << bit;',
	 '\t\t\t\ttmp |= 2UL << bit;'),
	('conversion-loses-ids', 'a value entry converted to a bitmap loses its IDs',
	 '\t\tbitmap->bitmap[0] = tmp;\n\t\txas_store(&xas, bitmap);',
	 '\t\tbitmap->bitmap[0] = 0;\n\t\txas_store(&xas, bitmap);'),
	('bitmap-search-short', 'the last word of a bitmap is never searched',
	 '\t\tif (++i == IDA_BITMAP_LONGS)\n\t\t\treturn IDA_BITMAP_BITS;',
	 '\t\tif (++i == IDA_BITMAP_LONGS - 1)\n\t\t\treturn IDA_BITMAP_BITS;'),
	('bitmap-search-below-start', 'the search in a bitmap starts at the start of the word of the start bit',
	 '\tunsigned long free = ~bitmap->bitmap[i] & BITMAP_FIRST_WORD_MASK(bit);',
	 '\tunsigned long free = ~bitmap->bitmap[i];'),
	('bitmap-search-next-word-wrong', 'the search in a bitmap looks at the start word again instead of the next',
	 '\t\tfree = ~bitmap->bitmap[i];\n\t}',
	 '\t\tfree = ~bitmap->bitmap[i - 1] & BITMAP_FIRST_WORD_MASK(bit);\n\t}'),
	('bitmap-max-off-by-one', 'the range check inside a bitmap excludes max',
	 '\t\tif (xas.xa_index * IDA_BITMAP_BITS + bit > max)\n\t\t\tgoto nospc;\n\t\tif (bit == IDA_BITMAP_BITS)',
	 '\t\tif (xas.xa_index * IDA_BITMAP_BITS + bit >= max)\n\t\t\tgoto nospc;\n\t\tif (bit == IDA_BITMAP_BITS)'),
	('full-bitmap-gives-up', 'a full bitmap ends the search instead of moving on',
	 '\t\tif (bit == IDA_BITMAP_BITS)\n\t\t\tgoto next;',
	 '\t\tif (bit == IDA_BITMAP_BITS)\n\t\t\tgoto nospc;'),
	('full-mark-kept', 'a full bitmap keeps its free mark',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL &&\n\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS))\n\t\t\txas_clear_mark(&xas, XA_FREE_MARK);',
	 '\t\tif (0)\n\t\t\txas_clear_mark(&xas, XA_FREE_MARK);'),
	('full-mark-set', 'a bitmap that becomes full is marked free instead of unmarked',
	 '\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS))\n\t\t\txas_clear_mark(&xas, XA_FREE_MARK);',
	 '\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS))\n\t\t\txas_set_mark(&xas, XA_FREE_MARK);'),
	('full-mark-early', 'a bitmap loses its free mark one ID before it is full',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL &&\n\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS))',
	 '\t\tif (bitmap_weight(bitmap->bitmap, IDA_BITMAP_BITS) >= IDA_BITMAP_BITS - 1)'),
	('full-word-check-inverted', 'a bitmap is only checked for full when the word of the new ID is not full',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL &&\n\t\t    bitmap_full(',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] != ~0UL &&\n\t\t    bitmap_full('),
	('full-check-short', 'a bitmap counts as full when all but its last word are full',
	 '\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS))',
	 '\t\t    bitmap_full(bitmap->bitmap, IDA_BITMAP_BITS - BITS_PER_LONG))'),
	('new-value-le', 'a new value entry is made for the bit past its end',
	 '\t\tif (bit < BITS_PER_XA_VALUE) {\n\t\t\tbitmap = xa_mk_value(1UL << bit);',
	 '\t\tif (bit <= BITS_PER_XA_VALUE) {\n\t\t\tbitmap = xa_mk_value(1UL << bit);'),
	('new-value-extra-bit', 'a new value entry also takes ID 0 of its leaf',
	 '\t\t\tbitmap = xa_mk_value(1UL << bit);',
	 '\t\t\tbitmap = xa_mk_value(1UL << bit | 1);'),
	('retry-keeps-bit', 'after waiting for memory the search restarts at the old bit',
	 '\t\txas.xa_index = min / IDA_BITMAP_BITS;\n\t\tbit = min % IDA_BITMAP_BITS;\n\t\tgoto retry;',
	 '\t\txas.xa_index = min / IDA_BITMAP_BITS;\n\t\tgoto retry;'),
	('spare-bitmap-leaked', 'an unused preallocated bitmap is not freed',
	 '\tif (bitmap != alloc)\n\t\tkfree(alloc);',
	 '\tif (bitmap != alloc)\n\t\t;'),
	('nomem-return-dropped', 'a failed allocation is reported as ID 0',
	 '\t\t\tida_trim(ida, trim);\n\t\treturn -ENOMEM;',
	 '\t\t\tida_trim(ida, trim);\n\t\treturn 0;'),
	('nospc-leaks', 'the preallocated bitmap leaks on -ENOSPC',
	 '\t\tida_trim(ida, trim);\n\tkfree(alloc);\n\treturn -ENOSPC;',
	 '\t\tida_trim(ida, trim);\n\treturn -ENOSPC;'),
	('failed-store-bitmap-lost', 'a bitmap the XArray could not store is dropped, not kept for the retry',
	 '\t\t\t__clear_bit(bit, bitmap->bitmap);\n\t\t\talloc = bitmap;\n\t\t}',
	 '\t\t\t__clear_bit(bit, bitmap->bitmap);\n\t\t}'),
	('failed-store-bit-kept', 'the bitmap kept for the retry keeps the bit of the failed store',
	 '\t\t\t__clear_bit(bit, bitmap->bitmap);\n\t\t\talloc = bitmap;',
	 '\t\t\talloc = bitmap;'),
	('nomem-error-leaks', 'the bitmap kept for the retry leaks on -ENOMEM',
	 '\tif (xas_error(&xas)) {\n\t\tkfree(alloc);\n\t\treturn xas_error(&xas);',
	 '\tif (xas_error(&xas)) {\n\t\treturn xas_error(&xas);'),
	('nomem-node-leaked', 'the node preallocated for a retry leaks when the bitmap allocation fails',
	 '\tif (!alloc) {\n\t\txas_destroy(&xas);',
	 '\tif (!alloc) {'),
	('nospc-node-leaked', 'the node preallocated for a retry leaks on -ENOSPC',
	 'nospc:\n\txas_unlock_irqrestore(&xas, flags);\n\txas_destroy(&xas);',
	 'nospc:\n\txas_unlock_irqrestore(&xas, flags);'),
	('nomem-nodes-dangle', 'the nodes of a store that ran out of memory stay',
	 '\tif (trim != ULONG_MAX)\n\t\tida_trim(ida, trim);\n\tif (xas_error(&xas)) {',
	 '\tif (xas_error(&xas)) {'),
	('nomem-trim-elsewhere-dropped',
	 'the nodes of a failed store stay when the retry fails at another index',
	 '\t\tif (trim != ULONG_MAX && trim != xas.xa_index)\n\t\t\tida_trim(ida, trim);',
	 '\t\tif (trim != ULONG_MAX && trim != xas.xa_index)\n\t\t\t;'),
	('nomem-alloc-trim-dropped',
	 'the nodes of a failed store stay when the retry cannot get a bitmap',
	 '\t\txas_destroy(&xas);\n\t\tif (trim != ULONG_MAX)\n\t\t\tida_trim(ida, trim);\n\t\treturn -ENOMEM;',
	 '\t\txas_destroy(&xas);\n\t\treturn -ENOMEM;'),
	('result-off-by-one', 'the returned ID is one too high',
	 '\treturn xas.xa_index * IDA_BITMAP_BITS + bit;',
	 '\treturn xas.xa_index * IDA_BITMAP_BITS + bit + 1;'),
	('free-int-check-dropped', 'ida_free() does not ignore IDs above INT_MAX',
	 '\tif ((int)id < 0)\n\t\treturn;',
	 '\tif (0)\n\t\treturn;'),
	('free-value-ge', 'ida_free() rejects the last bit of a value entry',
	 '\t\tif (bit >= BITS_PER_XA_VALUE)\n\t\t\tgoto err;',
	 '\t\tif (bit >= BITS_PER_XA_VALUE - 1)\n\t\t\tgoto err;'),
	('free-value-unchecked', 'a double free in a value entry is not noticed',
	 '\t\tif (!(v & (1UL << bit)))\n\t\t\tgoto err;',
	 '\t\tif (0)\n\t\t\tgoto err;'),
	('free-value-clears-neighbour', 'freeing in a value entry also clears the next ID',
	 '\t\tv &= ~(1UL << bit);',
	 '\t\tv &= ~(3UL << bit);'),
	('free-empty-value-kept', 'an empty value entry is kept',
	 '\t\tif (!v)\n\t\t\tgoto delete;',
	 '\t\tif (0)\n\t\t\tgoto delete;'),
	('free-bitmap-unchecked', 'a double free in a bitmap is not noticed',
	 '\t\tif (!bitmap || !test_bit(bit, bitmap->bitmap))',
	 '\t\tif (!bitmap)'),
	('free-mark-dropped', 'a freed ID in a full bitmap is not marked free',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL)\n\t\t\txas_set_mark(&xas, XA_FREE_MARK);',
	 '\t\tif (0)\n\t\t\txas_set_mark(&xas, XA_FREE_MARK);'),
	('free-mark-after-clear', 'ida_free() looks for a full word after clearing the bit, so never marks a bitmap free',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL)\n\t\t\txas_set_mark(&xas, XA_FREE_MARK);\n\t\t__clear_bit(bit, bitmap->bitmap);',
	 '\t\t__clear_bit(bit, bitmap->bitmap);\n\t\tif (bitmap->bitmap[BIT_WORD(bit)] == ~0UL)\n\t\t\txas_set_mark(&xas, XA_FREE_MARK);'),
	('free-clear-dropped', 'ida_free() of a bitmap ID does not clear it',
	 '\t\t__clear_bit(bit, bitmap->bitmap);\n\t\t/* Only a bitmap whose last set bit',
	 '\t\t/* Only a bitmap whose last set bit'),
	('free-empty-bitmap-kept', 'an empty bitmap is kept',
	 '\t\tif (!bitmap->bitmap[BIT_WORD(bit)] &&\n\t\t    ida_bitmap_empty(bitmap)) {',
	 '\t\tif (0) {'),
	('free-empty-check-inverted', 'a bitmap is only checked for empty when the word of the freed ID is not empty',
	 '\t\tif (!bitmap->bitmap[BIT_WORD(bit)] &&\n\t\t    ida_bitmap_empty(',
	 '\t\tif (bitmap->bitmap[BIT_WORD(bit)] &&\n\t\t    ida_bitmap_empty('),
	('empty-check-short', 'a bitmap counts as empty when all but its last word are empty',
	 '\tfor (i = 0; i < IDA_BITMAP_LONGS; i++)\n\t\tif (bitmap->bitmap[i])',
	 '\tfor (i = 0; i < IDA_BITMAP_LONGS - 1; i++)\n\t\tif (bitmap->bitmap[i])'),
	('free-warning-dropped', 'a bad free no longer warns',
	 '\tWARN(1, "ida_free called for id=%d which is not allocated.\\n", id);',
	 '\t(void)id;'),
	('destroy-leaks-bitmaps', 'ida_destroy() does not free the bitmaps',
	 '\t\tif (!xa_is_value(bitmap))\n\t\t\tkfree(bitmap);',
	 '\t\tif (!xa_is_value(bitmap))\n\t\t\t;'),
	('destroy-store-dropped', 'ida_destroy() leaves the entries in place',
	 '\t\t\tkfree(bitmap);\n\t\txas_store(&xas, NULL);',
	 '\t\t\tkfree(bitmap);'),
	('destroy-irqs-on', 'ida_destroy() takes the lock without disabling interrupts',
	 '\txas_lock_irqsave(&xas, flags);\n\txas_for_each(&xas, bitmap, ULONG_MAX) {',
	 '\txas_lock(&xas);\n\txas_for_each(&xas, bitmap, ULONG_MAX) {'),
	('free-use-after-free', 'ida_free() writes to the bitmap it has just freed',
	 '\t\t\tkfree(bitmap);\ndelete:',
	 '\t\t\tkfree(bitmap);\n\t\t\tbitmap->bitmap[0] = 0;\ndelete:'),
	('free-unlocked', 'ida_free() does not take the lock',
	 '\txas_lock_irqsave(&xas, flags);\n\tbitmap = xas_load(&xas);',
	 '\tlocal_irq_save(flags);\n\tbitmap = xas_load(&xas);'),
]

# Mutants of the book3s64 MMU context ID allocation, run on the powerpc leg
# (POWER8, hash MMU) unless a fifth element names another arch.
PPC_MUTANTS: List[Mutant] = [
	('realloc-frees-failed-slot', 'the error path of realloc_context_ids() also frees the parent\'s ID of the slot that failed',
	 '\tfor (i--; i >= 0; i--) {',
	 '\tfor (; i >= 0; i--) {'),
	('realloc-error-leaks', 'the error path of realloc_context_ids() frees nothing',
	 '\t\tif (ctx->extended_id[i])\n\t\t\tida_free(&mmu_context_ida, ctx->extended_id[i]);',
	 '\t\tif (0)\n\t\t\tida_free(&mmu_context_ida, ctx->extended_id[i]);'),
	('realloc-skips-slot0', 'a new context gets no first ID',
	 '\t\tif (i == 0 || ctx->extended_id[i]) {',
	 '\t\tif (ctx->extended_id[i]) {'),
	('realloc-wrong-return', 'realloc_context_ids() returns 0 instead of the first ID',
	 '\treturn ctx->id;\n\nerror:',
	 '\treturn 0;\n\nerror:'),
	('hash-max-swapped', 'the hash window ends at the 65-bit VA limit on 68-bit VA CPUs',
	 '\t\tmax = MAX_USER_CONTEXT;\n\telse\n\t\tmax = MAX_USER_CONTEXT_65BIT_VA;',
	 '\t\tmax = MAX_USER_CONTEXT_65BIT_VA;\n\telse\n\t\tmax = MAX_USER_CONTEXT;'),
	('hash-min-low', 'the hash window starts one below MIN_USER_CONTEXT',
	 '\treturn alloc_context_id(MIN_USER_CONTEXT, max);',
	 '\treturn alloc_context_id(MIN_USER_CONTEXT - 1, max);'),
	('destroy-leaks', 'dropping a hash mm frees none of its IDs',
	 '\t\t\tif (context_id)\n\t\t\t\tida_free(&mmu_context_ida, context_id);',
	 '\t\t\tif (0)\n\t\t\t\tida_free(&mmu_context_ida, context_id);'),
	('destroy-context-noop', '__destroy_context() frees nothing',
	 'void __destroy_context(int context_id)\n{\n\tida_free(&mmu_context_ida, context_id);',
	 'void __destroy_context(int context_id)\n{\n\t(void)context_id;'),
	('reserve-ignored', 'hash__reserve_context_id() reserves nothing',
	 '\tint result = ida_alloc_range(&mmu_context_ida, id, id, GFP_KERNEL);',
	 '\tint result = id;'),
	('radix-min-low', 'the radix window starts one below mmu_base_pid (init_mm\'s PID)',
	 '\tindex = alloc_context_id(mmu_base_pid, max_id);',
	 '\tindex = alloc_context_id(mmu_base_pid - 1, max_id);', 'ppc64le'),
	('radix-free-leaks', 'dropping a radix mm does not free its PID',
	 '\tif (radix_enabled()) {\n\t\tida_free(&mmu_context_ida, ctx->id);',
	 '\tif (radix_enabled()) {\n\t\t;', 'ppc64le'),
]


class Target(TypedDict):
	"""What --target names: the file mutated, the arch of its leg, its
	mutants, the results folder."""
	file: str
	arch: str
	mutants: List[Mutant]
	out: str


TARGETS: Dict[str, Target] = {
	'ida': {'file': os.path.join('lib', 'idr.c'), 'arch': 'x86_64',
		'mutants': MUTANTS, 'out': 'mutation'},
	'book3s64-mmu-context': {'file': os.path.join('arch', 'powerpc', 'mm', 'book3s64', 'mmu_context.c'),
				 'arch': 'powerpc', 'mutants': PPC_MUTANTS,
				 'out': 'mutation-book3s64-mmu-context'},
}


def classify(rc: int, counts: Counts) -> str:
	"""What a leg's run of a mutant says: 'passed' (the mutant was not
	caught), 'killed' (the kernel booted and a case failed or the log shows
	a problem: a crash, a hang, a report), 'stillborn' (it does not build),
	or 'error' (the run stopped for a reason that has nothing to do with the
	mutant: a missing tool, a configuration that failed, no results)."""
	if rc == 0:
		return 'passed'
	phase = counts.get('phase')
	if phase == 'build':
		return 'stillborn'
	if phase == 'run':
		return 'killed'
	return 'error'


def problem_texts(counts: Counts) -> List[str]:
	return [p['message'] if isinstance(p, dict) else str(p) for p in counts.get('problems', [])]


def read_counts(path: str) -> Counts:
	"""A leg's counts.json; empty when there is none."""
	try:
		with open(path) as f:
			counts: object = json.load(f)
	except (OSError, ValueError):
		return {}
	return counts if isinstance(counts, dict) else {}


def harness_failure(log: str) -> str:
	"""Which harness programs failed, from radix-tree-test.sh's output."""
	try:
		with open(log, errors='replace') as f:
			lines = f.read().splitlines()
	except OSError:
		return 'no log'
	failed = [l.split()[1] for l in lines if l.startswith('radix-tree: ') and l.endswith(')')
		  and ' FAILED ' in l]
	if failed:
		return ', '.join(failed) + ' failed'
	errors = [l for l in lines if l.startswith('error: ')]
	return errors[-1][len('error: '):] if errors else 'failed'


def harness_verdict(rc: int, log: str) -> Tuple[str, str]:
	"""A KUnit survivor's verdict from radix-tree-test.sh's exit code: 1 is a
	harness program that failed or did not build (killed), 2 or anything
	else a harness that could not be run (an error, not scored)."""
	if rc == 0:
		return 'survived', ''
	if rc == 1:
		return 'killed', 'radix-tree harness: ' + harness_failure(log)
	return 'error', f'radix-tree harness could not run (exit {rc}, see {log})'


def run(cmd: List[str], env: Dict[str, str], log: str) -> int:
	with open(log, 'w') as f:
		return subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT).returncode


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='mutate.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('--target', default='ida', choices=sorted(TARGETS),
			help='the code to mutate (default: ida, lib/idr.c)')
	ap.add_argument('--only', help='comma-separated mutant names')
	ap.add_argument('--no-harness', action='store_true',
			help='do not try the userspace harness on survivors')
	ap.add_argument('--no-debug-leg', action='store_true',
			help='do not try the x86_64 debug leg (lockdep, KASAN) on survivors')
	ap.add_argument('--list', action='store_true', help="list the target's mutants and stop")
	ap.add_argument('--kunitconfig', default=os.path.join(REPO, 'kunitconfigs', 'ida.kunitconfig'),
			help='the leg to run each mutant in (default: kunitconfigs/ida.kunitconfig)')
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	try:
		return mutate(args)
	except OSError as e:
		print(os_error(e), file=sys.stderr)
		return 1


def mutate(args: argparse.Namespace) -> int:
	"""The baseline, then every mutant of ARGS; the exit code."""
	target = TARGETS[args.target]
	all_mutants = target['mutants']
	rel = target['file']
	if args.list:
		for name, what, *_ in all_mutants:
			print(f'{name:32} {what}')
		return 0
	if args.target != 'ida':
		args.no_harness = args.no_debug_leg = True

	cache = os.path.abspath(os.environ.get('IDA_KUNIT_CACHE') or os.path.join(
		os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'ida-kunit'))
	src = os.path.abspath(os.environ.get('IDA_KUNIT_SRC') or
			      os.path.join(cache, 'linux-' + os.environ.get('IDA_KUNIT_TREE', '6.12')))
	results = os.path.abspath(os.environ.get('IDA_KUNIT_RESULTS') or os.path.join(REPO, 'results'))
	out = os.path.join(results, target['out'])
	os.makedirs(out, exist_ok=True)
	path = os.path.join(src, rel)
	if not os.path.isfile(path):
		print(f'error: no patched tree at {src}: run scripts/pipeline.sh first', file=sys.stderr)
		return 1
	status = subprocess.run(['git', '-C', src, 'status', '--porcelain', '--untracked-files=no'],
				capture_output=True, text=True).stdout
	if status.strip():
		print(f'error: {src} has uncommitted changes; mutation testing needs a clean tree',
		      file=sys.stderr)
		return 1
	with open(path) as f:
		original = f.read()

	mutants = all_mutants
	if args.only:
		names = set(args.only.split(','))
		unknown = names - {m[0] for m in all_mutants}
		if unknown:
			print(f'error: unknown mutants: {", ".join(sorted(unknown))}', file=sys.stderr)
			return 1
		mutants = [m for m in all_mutants if m[0] in names]
	for name, _, old, *_ in mutants:
		if original.count(old) != 1:
			print(f'error: mutant {name}: its text occurs {original.count(old)} times in {rel}',
			      file=sys.stderr)
			return 1

	def restore(*_: object) -> None:
		with open(path, 'w') as f:
			f.write(original)
		if _:
			sys.exit(1)
	signal.signal(signal.SIGTERM, restore)
	signal.signal(signal.SIGINT, restore)

	env = dict(os.environ, IDA_KUNIT_RESULTS=os.path.join(out, 'runs'),
		   IDA_KUNIT_TIMEOUT=os.environ.get('IDA_KUNIT_TIMEOUT', '120'))
	run_kunit = os.path.join(REPO, 'scripts', 'run-kunit.sh')
	harness = os.path.join(REPO, 'scripts', 'checks', 'radix-tree-test.sh')

	# The unmutated tree first: a mutant can only be killed by a suite
	# that passes without it.
	t0 = time.time()
	for arch in sorted({m[4] if len(m) > 4 else target['arch'] for m in mutants}):
		leg = 'baseline-' + arch
		rc = run([run_kunit, '--arch', arch, '--kunitconfig', args.kunitconfig,
			  '--name', leg], env, os.path.join(out, leg + '.log'))
		if rc != 0:
			counts = read_counts(os.path.join(out, 'runs', leg, 'counts.json'))
			why = (', '.join(counts.get('failed_cases', [])[:3] + problem_texts(counts)[:2]) or
			       f'exit {rc}')
			print(f'error: the unmutated tree fails on {arch} ({why}): no mutant can be scored '
			      f'(see {os.path.join(out, leg + ".log")})', file=sys.stderr)
			return 2
	if not args.no_harness and run([harness], env, os.path.join(out, 'baseline.harness.log')) != 0:
		print('error: the unmutated tree fails in the userspace harness: no mutant can be scored',
		      file=sys.stderr)
		return 2
	print(f'baseline  {"unmutated":30} {time.time() - t0:4.0f}s  passes', flush=True)

	rows: List[Dict[str, Any]] = []
	try:
		for name, what, old, new, *leg_arch in mutants:
			arch = leg_arch[0] if leg_arch else target['arch']
			t0 = time.time()
			with open(path, 'w') as f:
				f.write(original.replace(old, new))
			log = os.path.join(out, name + '.log')
			rc = run([run_kunit, '--arch', arch,
				  '--kunitconfig', args.kunitconfig, '--name', name], env, log)
			counts = read_counts(os.path.join(out, 'runs', name, 'counts.json'))
			verdict = classify(rc, counts)
			by = ''
			if verdict == 'passed':
				verdict = 'survived'
				if not args.no_harness:
					hlog = os.path.join(out, name + '.harness.log')
					hrc = run([harness, '--working-tree'], env, hlog)
					verdict, by = harness_verdict(hrc, hlog)
					if verdict == 'killed':
						# A kill must repeat: the harness's threaded
						# programs (main's iteration_check) can fail
						# once for reasons of their own.
						again = os.path.join(out, name + '.harness-again.log')
						v2, by2 = harness_verdict(run([harness, '--working-tree'], env, again), again)
						if v2 == 'survived':
							verdict, by = 'survived', f'the harness failed once ({by}), then passed'
						elif v2 == 'error':
							verdict, by = v2, by2
				if verdict == 'survived' and not args.no_debug_leg and name not in EQUIVALENT:
					debug = os.path.join(REPO, 'kunitconfigs', 'ida-debug.kunitconfig')
					drc = run([run_kunit, '--arch', 'x86_64',
						   '--kunitconfig', debug, '--name', name + '-debug'], env,
						  os.path.join(out, name + '.debug.log'))
					dc = read_counts(os.path.join(out, 'runs', name + '-debug', 'counts.json'))
					dverdict = classify(drc, dc)
					if dverdict == 'killed':
						verdict = 'killed'
						by = 'debug leg: ' + ', '.join(dc.get('failed_cases', [])[:2] +
									      problem_texts(dc)[:2])
					elif dverdict in ('error', 'stillborn'):
						verdict, by = 'error', f'debug leg: {dverdict} (see {name}.debug.log)'
				if verdict == 'survived' and name in EQUIVALENT:
					verdict, by = 'equivalent', EQUIVALENT[name]
			elif verdict == 'stillborn':
				by = 'does not build'
			elif verdict == 'killed':
				by = ', '.join(counts.get('failed_cases', [])[:3] +
					       problem_texts(counts)[:2]) or 'kunit'
			else:
				by = (f'phase {counts.get("phase", "unknown")}: ' +
				      ', '.join(problem_texts(counts)[:2])) or f'exit {rc}'
			secs = time.time() - t0
			rows.append({'name': name, 'what': what, 'verdict': verdict, 'by': by,
				     'seconds': round(secs)})
			print(f'{verdict:9} {name:30} {secs:4.0f}s  {by[:150]}', flush=True)
	finally:
		restore()

	killed = sum(r['verdict'] == 'killed' for r in rows)
	survived = [r for r in rows if r['verdict'] == 'survived']
	stillborn = sum(r['verdict'] == 'stillborn' for r in rows)
	equivalent = sum(r['verdict'] == 'equivalent' for r in rows)
	errors = sum(r['verdict'] == 'error' for r in rows)
	scored = killed + len(survived)
	score = 100.0 * killed / scored if scored else 0.0
	summary = (f'mutation score: {killed}/{scored} killed ({score:.1f}%), '
		   f'{len(survived)} survived, {equivalent} equivalent (not scored), '
		   f'{stillborn} did not build, {errors} could not be run (not scored)')
	with open(os.path.join(out, 'report.json'), 'w') as f:
		json.dump({'mutants': rows, 'killed': killed, 'survived': len(survived),
			   'equivalent': equivalent, 'errors': errors,
			   'stillborn': stillborn, 'score': round(score, 1)}, f, indent=2)
	with open(os.path.join(out, 'report.txt'), 'w') as f:
		for r in rows:
			f.write(f'{r["verdict"]:9} {r["name"]:30} {r["what"]}  [{r["by"]}]\n')
		f.write(summary + '\n')
	for r in survived:
		print(f'survivor: {r["name"]}: {r["what"]}')
	print(summary)
	return 0 if not survived and not errors else 1


if __name__ == '__main__':
	sys.exit(main())
