#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/tools/cover-letter.py, on the recorded results
folders of kunit/test_data/."""

import json
import os
import shutil
import tempfile
import unittest

from tool_module import load_tool

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, 'kunit', 'test_data', 'results')


cover_letter = load_tool('cover-letter.py', 'cover_letter')


class LegsBlockTest(unittest.TestCase):
	def setUp(self) -> None:
		self.dir = self.enterContext(tempfile.TemporaryDirectory())

	def legs(self, *names: str, as_name: str = '') -> str:
		for name in names:
			shutil.copytree(os.path.join(RESULTS, name), os.path.join(self.dir, as_name or name))
		block, self.warnings = cover_letter.legs_block([self.dir])
		return str(block)

	def test_a_row_per_leg_that_ran(self) -> None:
		lines = self.legs('pass', 'skip', 'fail').splitlines()
		self.assertEqual(lines[0].split(), ['leg', 'arch', 'word', 'end', 'vCPUs', 'cases'])
		self.assertEqual([ln.split() for ln in lines[1:]], [
			['fail', 'x86_64', '64-bit', 'LE', '2', '9', 'passed,', '1', 'failed', '(FAIL)'],
			['pass', 'x86_64', '64-bit', 'LE', '2', '10', 'passed'],
			['skip', 'x86_64', '64-bit', 'LE', '2', '7', 'passed,', '1', 'skipped'],
		])

	def test_a_leg_that_did_not_boot_has_no_row(self) -> None:
		self.assertEqual(len(self.legs('pass', 'build-fail').splitlines()), 2)

	def test_the_x86_64_legs_warnings(self) -> None:
		self.legs('pass', as_name='x86_64')
		self.assertEqual(self.warnings, [2])

	def test_counts_without_a_field(self) -> None:
		self.legs('pass')
		path = os.path.join(self.dir, 'pass', 'counts.json')
		with open(path, encoding='utf-8') as f:
			counts = json.load(f)
		del counts['passed']
		with open(path, 'w', encoding='utf-8') as f:
			json.dump(counts, f)
		with self.assertRaisesRegex(cover_letter.CoverLetterError, "counts.json: no 'passed'"):
			cover_letter.legs_block([self.dir])


class BlocksTest(unittest.TestCase):
	def setUp(self) -> None:
		self.dir = self.enterContext(tempfile.TemporaryDirectory())

	def test_default_boot_warnings(self) -> None:
		os.makedirs(os.path.join(self.dir, 'x86_64'))
		for log, counts in (('kernel.log', (1, 2)), ('kernel-slow.log', (128,))):
			with open(os.path.join(self.dir, 'x86_64', log), 'w', encoding='utf-8') as f:
				for n in counts:
					f.write(f'[    1.000000]     # case: expected warnings begin: {n}\n')
		text = cover_letter.default_boot_warnings(self.dir)
		self.assertIn('the default boot provokes 3 warnings', text)
		self.assertIn('the slow boot 128', text)

	def test_default_boot_warnings_without_logs(self) -> None:
		self.assertEqual(cover_letter.default_boot_warnings(self.dir), '')

	def test_mutation_block(self) -> None:
		self.assertEqual(cover_letter.mutation_block(self.dir), '')
		os.makedirs(os.path.join(self.dir, 'mutation'))
		with open(os.path.join(self.dir, 'mutation', 'report.json'), 'w', encoding='utf-8') as f:
			json.dump({'mutants': [{}] * 5, 'killed': 3, 'survived': 1, 'equivalent': 1, 'stillborn': 0}, f)
		text = cover_letter.mutation_block(self.dir)
		self.assertIn('5 mutants, 3 killed, 1 survived,\n1 equivalent (not scored), 0 did not build.', text)

	def test_plain_block_gives_every_command(self) -> None:
		text = cover_letter.plain_block()
		with open(os.path.join(REPO, 'kunit', 'plain-commands.tsv'), encoding='utf-8') as f:
			commands = [ln.rstrip('\n').split('\t')[-1] for ln in f
				    if ln.strip() and not ln.startswith('#')]
		self.assertTrue(commands)
		for command in commands:
			self.assertIn('\n  ' + command, '\n' + text)


if __name__ == '__main__':
	unittest.main()
