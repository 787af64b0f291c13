#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of allno-base.py: its functions on kunitconfigs and .config
files (with kunit_tool's kunit_config, against what kunit_tool makes of the
same files), and the whole command with a stand-in for make.

  python3 -m unittest discover -s kunit -p 'allno_base_test.py'

kunit_tool comes from the tree: $IDA_KUNIT_SRC/tools/testing/kunit, or the
tree in the cache folder (as scripts/lib.sh finds it); without it the tests
fail, naming the folder.  Nothing runs make in that tree: the command's
tests give it a tree of links to kunit_tool and a make of their own.
"""

import contextlib
import importlib
import importlib.util
import io
import os
import shutil
import stat
import sys
import tempfile
import unittest
from typing import Any, List, Tuple
from unittest import mock

import qemu_params

# Nothing written into the tree by the imports below.
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KUNIT_TOOL = qemu_params.kunit_tool_of_environment()
SRC = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))
X86_CONFIG = os.path.join(HERE, 'qemu_configs', 'x86_64.py')
X86_KUNITCONFIGS = [os.path.join(REPO, 'kunitconfigs', 'ida.kunitconfig'),
		    os.path.join(REPO, 'kunitconfigs', 'x86_64-base.kunitconfig')]

test_tmpdir = ''
# allno-base.py (a file name that is no module name) and kunit_tool's
# kunit_config, loaded by setUpModule.
allno: Any = None
kunit_config: Any = None


def setUpModule() -> None:
	global test_tmpdir, allno, kunit_config
	if not os.path.isfile(os.path.join(KUNIT_TOOL, 'kunit_config.py')):
		raise AssertionError(f'no kunit_tool at {KUNIT_TOOL}: set IDA_KUNIT_SRC to a kernel tree '
				     '(or IDA_KUNIT_CACHE to the cache folder scripts/setup-tree.sh unpacked it in)')
	spec = importlib.util.spec_from_file_location('allno_base', os.path.join(HERE, 'allno-base.py'))
	assert spec is not None and spec.loader is not None
	allno = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(allno)
	allno.use_kunit_tool(SRC)
	kunit_config = importlib.import_module('kunit_config')
	test_tmpdir = tempfile.mkdtemp()


def tearDownModule() -> None:
	if test_tmpdir:
		shutil.rmtree(test_tmpdir)


def write(name: str, text: str) -> str:
	path = os.path.join(test_tmpdir, name)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w', encoding='utf-8') as f:
		f.write(text)
	return path


def kconfig(text: str) -> Any:
	return kunit_config.parse_from_string(text)


class KunitconfigTest(unittest.TestCase):

	def test_merged_as_kunit_tool_merges(self) -> None:
		kunit_kernel = importlib.import_module('kunit_kernel')
		merged = allno.read_kunitconfigs(X86_KUNITCONFIGS)
		self.assertEqual(merged, kunit_kernel.get_parsed_kunitconfig(test_tmpdir, X86_KUNITCONFIGS))
		v = allno.values(merged)
		self.assertEqual(v['IDA_KUNIT_TEST'], 'y')
		self.assertEqual(v['EXPERT'], 'y')
		self.assertEqual(v['NR_CPUS'], '2')

	def test_conflict(self) -> None:
		a = write('conflict/a.kunitconfig', '# suites: x\nCONFIG_A=y\nCONFIG_B=y\n')
		b = write('conflict/b.kunitconfig', 'CONFIG_B=y\n# CONFIG_A is not set\n')
		with self.assertRaises(allno.BaseError) as cm:
			allno.read_kunitconfigs([a, b])
		self.assertEqual(str(cm.exception),
				 f'{b}: "# CONFIG_A is not set" conflicts with "CONFIG_A=y" of an earlier kunitconfig')
		# The same value twice is no conflict.
		self.assertEqual(allno.values(allno.read_kunitconfigs([a, a])), {'A': 'y', 'B': 'y'})

	def test_bad_kunitconfig(self) -> None:
		bad = write('bad.kunitconfig', 'CONFIG_A=y\nA=y\n')
		with self.assertRaisesRegex(allno.BaseError, f'^{bad}: Failed to parse: A=y$'):
			allno.read_kunitconfigs([bad])
		with self.assertRaisesRegex(allno.BaseError, '^no kunitconfig /nonexistent$'):
			allno.read_kunitconfigs(['/nonexistent'])

	def test_wanted_as_kunit_tool_makes_it(self) -> None:
		"""The QEMU config's kconfig with the kunitconfigs on top, as
		kunit.py's make_arch_config() makes it."""
		qemu_config = importlib.import_module('qemu_config')
		kunit_kernel = importlib.import_module('kunit_kernel')
		smp_off = write('smp-off.kunitconfig', 'CONFIG_SMP=n\nCONFIG_FOO=m\n')
		kunitconfigs = allno.read_kunitconfigs(X86_KUNITCONFIGS + [smp_off])
		params = qemu_params.load(X86_CONFIG, KUNIT_TOOL)
		wanted = allno.wanted_config(params.kconfig, kunitconfigs)
		real = qemu_config.QemuArchParams(**{k: getattr(params, k) for k in
						      ('linux_arch', 'kconfig', 'qemu_arch', 'kernel_path',
						       'kernel_command_line', 'extra_qemu_params', 'serial')})
		ops = kunit_kernel.LinuxSourceTreeOperationsQemu(real, cross_compile=None)
		self.assertEqual(wanted, ops.make_arch_config(allno.read_kunitconfigs(X86_KUNITCONFIGS + [smp_off])))
		v = allno.values(wanted)
		self.assertEqual((v['SMP'], v['SERIAL_8250'], v['FOO'], v['IDA_KUNIT_TEST']), ('n', 'y', 'm', 'y'))

	def test_bad_qemu_kconfig(self) -> None:
		with self.assertRaisesRegex(allno.BaseError, 'the kconfig of the QEMU config: Failed to parse: SMP=y'):
			allno.wanted_config('\nSMP=y\n', kconfig(''))


class OptionsTest(unittest.TestCase):

	full = ('CONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\nCONFIG_D="text"\n'
		'CONFIG_E=y\nCONFIG_F=0x10\nCONFIG_G=y\n')
	base = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_D="text"\nCONFIG_G=m\n'

	def test_off(self) -> None:
		"""On (y or m) with olddefconfig, off or absent with allnoconfig."""
		self.assertEqual(allno.options_off(kconfig(self.base), kconfig(self.full)), ['B', 'E'])
		self.assertEqual(allno.options_off(kconfig(self.full), kconfig(self.full)), [])

	def test_lost(self) -> None:
		wanted = kconfig('CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_N=2\nCONFIG_G=y\nCONFIG_H=n\n')
		self.assertEqual(allno.options_lost(wanted, kconfig(self.base)), ['N'])
		self.assertEqual(allno.options_lost(wanted, kconfig(self.full)), ['N'])
		self.assertEqual(allno.options_lost(kconfig(''), kconfig(self.base)), [])

	def test_read_config(self) -> None:
		path = write('dot-config', '#\n# Automatically generated file; DO NOT EDIT.\n#\n' + self.full +
			     'CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"\n\n')
		v = allno.values(allno.read_config(path))
		self.assertEqual((v['A'], v['C'], v['D'], v['CC_VERSION_TEXT']),
				 ('y', 'n', '"text"', '"gcc (Debian 12.2.0-14) 12.2.0"'))
		with self.assertRaisesRegex(allno.BaseError, '/nonexistent'):
			allno.read_config('/nonexistent')

	def test_fragment(self) -> None:
		text = allno.fragment(['B', 'E'], ['/x/ida.kunitconfig', 'x86_64-base.kunitconfig'], 'x86_64')
		self.assertEqual(text, '# Generated by kunit/allno-base.py: the options olddefconfig turns on and\n'
				 '# allnoconfig leaves off for ida.kunitconfig, x86_64-base.kunitconfig (x86_64).\n'
				 '# CONFIG_B is not set\n# CONFIG_E is not set\n')
		# kunit.py reads it as those options set to n.
		self.assertEqual(allno.values(kconfig(text)), {'B': 'n', 'E': 'n'})

	def test_make_command(self) -> None:
		self.assertEqual(allno.make_command('/src', '/b', 'powerpc', ['CC=ccache gcc', 'CROSS_COMPILE=p-'],
						    'allnoconfig'),
				 ['make', '-s', '-C', '/src', 'O=/b', 'ARCH=powerpc', 'CC=ccache gcc',
				  'CROSS_COMPILE=p-', 'allnoconfig'])


# A make for the command's tests: "allnoconfig" writes the CONFIG_ lines of
# KCONFIG_ALLCONFIG but those named in $FAKE_DROP; "olddefconfig" adds
# $FAKE_DEFAULTS to .config; $FAKE_FAIL fails every call.
FAKE_MAKE = r'''#!/bin/sh
build=
for a in "$@"; do
	case "$a" in O=*) build=${a#O=} ;; esac
	target=$a
done
echo "$*" >>"$FAKE_CALLS"
if [ -n "$FAKE_FAIL" ]; then
	echo "make: *** fake failure"
	exit 2
fi
case "$target" in
allnoconfig) grep '^CONFIG_' "$KCONFIG_ALLCONFIG" | grep -v -x -F -e "${FAKE_DROP:-none}" >"$build/.config" ;;
olddefconfig) printf "$FAKE_DEFAULTS" >>"$build/.config" ;;
esac
'''


class MainTest(unittest.TestCase):

	def setUp(self) -> None:
		self.dir = tempfile.mkdtemp(dir=test_tmpdir)
		# A tree with kunit_tool and nothing else: make must not run in the real one.
		tool = os.path.join(self.dir, 'tree', 'tools', 'testing', 'kunit')
		os.makedirs(tool)
		for name in os.listdir(KUNIT_TOOL):
			if name.endswith('.py'):
				os.symlink(os.path.join(KUNIT_TOOL, name), os.path.join(tool, name))
		bin_dir = os.path.join(self.dir, 'bin')
		os.makedirs(bin_dir)
		make = os.path.join(bin_dir, 'make')
		with open(make, 'w', encoding='utf-8') as f:
			f.write(FAKE_MAKE)
		os.chmod(make, os.stat(make).st_mode | stat.S_IXUSR)
		self.env = {'PATH': bin_dir + os.pathsep + os.environ.get('PATH', ''),
			    'FAKE_CALLS': os.path.join(self.dir, 'calls'), 'FAKE_DROP': '', 'FAKE_FAIL': '',
			    'FAKE_DEFAULTS': 'CONFIG_BLOCK=y\\nCONFIG_IO_URING=y\\n# CONFIG_X is not set\\n'}
		self.out = os.path.join(self.dir, 'base.kunitconfig')

	def run_main(self, *args: str, **env: str) -> Tuple[int, str, str]:
		out, err = io.StringIO(), io.StringIO()
		with mock.patch.dict(os.environ, {**self.env, **env}), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
			try:
				rc = allno.main(list(args))
			except SystemExit as e:
				rc = e.code if isinstance(e.code, int) else 1
		return rc, out.getvalue(), err.getvalue()

	def leg(self, *kunitconfigs: str) -> List[str]:
		return ['--src', os.path.join(self.dir, 'tree'), '--arch', 'x86_64', '--qemu-config', X86_CONFIG,
			'--out', self.out, '--make-var', 'CC=gcc', *(kunitconfigs or X86_KUNITCONFIGS)]

	def calls(self) -> List[str]:
		with open(os.path.join(self.dir, 'calls'), encoding='utf-8') as f:
			return [' '.join(l.split()[5:]) for l in f]

	def test_base(self) -> None:
		rc, out, err = self.run_main(*self.leg())
		self.assertEqual((rc, err), (0, ''))
		self.assertRegex(out, r'^allnoconfig base: 2 options off, \d+ on\n$')
		with open(self.out, encoding='utf-8') as f:
			text = f.read()
		self.assertTrue(text.endswith('(x86_64).\n# CONFIG_BLOCK is not set\n# CONFIG_IO_URING is not set\n'), text)
		self.assertEqual(self.calls(), ['CC=gcc allnoconfig', 'CC=gcc olddefconfig'])
		self.assertFalse(os.path.exists(self.out + '.tmp'))

	def test_lost_option(self) -> None:
		rc, out, err = self.run_main(*self.leg(), FAKE_DROP='CONFIG_FAILSLAB=y')
		self.assertEqual((rc, out), (1, ''))
		self.assertEqual(err, 'error: allnoconfig for x86_64 drops options the kunitconfigs ask for: '
				 'CONFIG_FAILSLAB (a dependency is missing from them)\n')
		self.assertFalse(os.path.exists(self.out))

	def test_make_fails(self) -> None:
		rc, out, err = self.run_main(*self.leg(), FAKE_FAIL='1')
		self.assertEqual((rc, out), (1, ''))
		self.assertEqual(err, 'make: *** fake failure\n'
				 'error: make allnoconfig for x86_64 failed (its output above)\n')

	def test_errors(self) -> None:
		for args, want in (
			(self.leg('/nonexistent.kunitconfig'), 'error: no kunitconfig /nonexistent.kunitconfig\n'),
			(['--src', self.dir] + self.leg()[2:],
			 f'error: no kunit_tool in {os.path.join(self.dir, "tools", "testing", "kunit")}\n'),
			(self.leg()[:5] + ['/nonexistent.py'] + self.leg()[6:],
			 'error: no QEMU config /nonexistent.py\n'),
		):
			with self.subTest(args=args):
				self.assertEqual(self.run_main(*args), (1, '', want))

	def test_command_line(self) -> None:
		rc, out, err = self.run_main('--src', self.dir)
		self.assertEqual((rc, out), (2, ''))
		self.assertRegex(err, r'^error: the following arguments are required: .*\(see allno-base.py --help\)\n$')
		rc, out, err = self.run_main('--help')
		self.assertEqual((rc, err), (0, ''))
		self.assertIn('usage: allno-base.py', out)


if __name__ == '__main__':
	unittest.main()
