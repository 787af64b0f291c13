#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of qemu_params.py: every QEMU config of qemu_configs/ read
with kunit_tool's qemu_config.py and with the stand-in, against what
kunit_tool itself makes of it.

  python3 -m unittest discover -s kunit -p 'qemu_params_test.py'

kunit_tool comes from the tree: $IDA_KUNIT_SRC/tools/testing/kunit, or the
tree in the cache folder (as scripts/lib.sh finds it); without it the tests
fail, naming the folder.
"""

import contextlib
import dataclasses
import glob
import importlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List, Optional, Tuple

import qemu_params

# Nothing written into the tree or beside the configs by the imports below.
sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = sorted(glob.glob(os.path.join(HERE, 'qemu_configs', '*.py')))
KUNIT_TOOL = qemu_params.kunit_tool_of_environment()
test_tmpdir = ''


def setUpModule() -> None:
	global test_tmpdir
	if not os.path.isfile(os.path.join(KUNIT_TOOL, 'qemu_config.py')):
		raise AssertionError(f'no kunit_tool at {KUNIT_TOOL}: set IDA_KUNIT_SRC to a kernel tree '
				     '(or IDA_KUNIT_CACHE to the cache folder scripts/setup-tree.sh unpacked it in)')
	if KUNIT_TOOL not in sys.path:
		sys.path.insert(0, KUNIT_TOOL)
	test_tmpdir = tempfile.mkdtemp()


def tearDownModule() -> None:
	if test_tmpdir:
		shutil.rmtree(test_tmpdir)


def values(params: qemu_params.ArchParams) -> Dict[str, object]:
	return {name: getattr(params, name) for name in
		('linux_arch', 'kconfig', 'qemu_arch', 'kernel_path', 'kernel_command_line',
		 'extra_qemu_params', 'serial')}


def write(name: str, text: str) -> str:
	path = os.path.join(test_tmpdir, name)
	with open(path, 'w', encoding='utf-8') as f:
		f.write(text)
	return path


def run_main(*args: str) -> Tuple[int, str, str]:
	"""qemu_params.main(args): exit code, stdout, stderr."""
	out, err = io.StringIO(), io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
		try:
			rc = qemu_params.main(list(args))
		except SystemExit as e:
			rc = e.code if isinstance(e.code, int) else 1
	return rc, out.getvalue(), err.getvalue()


class LoadTest(unittest.TestCase):

	def test_every_arch_has_a_config(self) -> None:
		with open(os.path.join(HERE, 'arches.tsv'), encoding='utf-8') as f:
			rows = [l.split() for l in f if l.strip() and not l.lstrip().startswith('#')]
		# A row without QEMU (the qemu column is "-") is UML, which has none.
		arches = [r[0] for r in rows if r[2] != '-']
		self.assertEqual(sorted(arches), sorted(os.path.basename(c)[:-3] for c in CONFIGS))

	def test_every_config_loads_with_and_without_kunit_tool(self) -> None:
		self.assertGreater(len(CONFIGS), 0)
		for config in CONFIGS:
			with self.subTest(config=os.path.basename(config)):
				real = qemu_params.load(config, KUNIT_TOOL)
				stand_in = qemu_params.load(config)
				missing = qemu_params.load(config, os.path.join(test_tmpdir, 'no-such-folder'))
				self.assertEqual(values(real), values(stand_in))
				self.assertEqual(values(real), values(missing))
				self.assertEqual(qemu_params.vcpus(real), qemu_params.vcpus(stand_in))
				# The real one is kunit_tool's class, the others the stand-in.
				self.assertIsNot(type(real), qemu_params.QemuArchParams)
				self.assertTrue(type(real).__module__.endswith('.qemu_config'))
				self.assertIs(type(stand_in), qemu_params.QemuArchParams)
				self.assertIs(type(missing), qemu_params.QemuArchParams)

	def test_kunit_tool_reads_the_same(self) -> None:
		"""kunit_tool's own loading of --qemu_config gives the values load() gives."""
		# Imported by name: kunit_kernel is typed for kunit_tool's own mypy
		# settings, not for --strict.
		kunit_kernel = importlib.import_module('kunit_kernel')
		for config in CONFIGS:
			with self.subTest(config=os.path.basename(config)):
				params = qemu_params.load(config, KUNIT_TOOL)
				arch, ops = kunit_kernel._get_qemu_ops(config, None, None)
				assert isinstance(ops, kunit_kernel.LinuxSourceTreeOperationsQemu)
				self.assertEqual(arch, params.linux_arch)
				self.assertEqual(ops._kconfig, params.kconfig)
				self.assertEqual(ops._qemu_arch, params.qemu_arch)
				self.assertEqual(ops._kernel_path, params.kernel_path)
				self.assertEqual(ops._kernel_command_line,
						 params.kernel_command_line + ' kunit_shutdown=reboot')
				self.assertEqual(ops._extra_qemu_params, params.extra_qemu_params)
				self.assertEqual(ops._serial, params.serial)

	def test_kunit_tools_own_configs_load(self) -> None:
		own = sorted(glob.glob(os.path.join(KUNIT_TOOL, 'qemu_configs', '*.py')))
		self.assertGreater(len(own), 0)
		for config in own:
			with self.subTest(config=os.path.basename(config)):
				self.assertEqual(values(qemu_params.load(config, KUNIT_TOOL)),
						 values(qemu_params.load(config)))

	def test_stand_in_has_the_fields_of_kunit_tool(self) -> None:
		import qemu_config

		def fields(cls: type) -> List[Tuple[str, object, object]]:
			return [(f.name, f.type, f.default) for f in dataclasses.fields(cls)]
		self.assertEqual(fields(qemu_params.QemuArchParams), fields(qemu_config.QemuArchParams))
		for cls in (qemu_params.QemuArchParams, qemu_config.QemuArchParams):
			with self.subTest(cls=cls.__module__):
				params = getattr(cls, '__dataclass_params__')
				self.assertTrue(params.frozen)

	def test_values(self) -> None:
		x86 = qemu_params.load(os.path.join(HERE, 'qemu_configs', 'x86_64.py'), KUNIT_TOOL)
		self.assertEqual(qemu_params.linux_arch(x86), 'x86_64')
		self.assertEqual(qemu_params.vcpus(x86), 2)
		self.assertEqual(qemu_params.kconfig(x86),
				 'CONFIG_SMP=y\nCONFIG_SERIAL_8250=y\nCONFIG_SERIAL_8250_CONSOLE=y')
		self.assertEqual(x86.serial, 'stdio')
		expect = {'ppc64le': ('powerpc', 2), 'sh4': ('sh', 1), 'm68k': ('m68k', 1),
			  'riscv64': ('riscv', 2), 's390x': ('s390', 2)}
		for arch, (linux_arch, cpus) in expect.items():
			with self.subTest(arch=arch):
				params = qemu_params.load(os.path.join(HERE, 'qemu_configs', arch + '.py'))
				self.assertEqual(params.linux_arch, linux_arch)
				self.assertEqual(qemu_params.vcpus(params), cpus)
		sh4 = qemu_params.load(os.path.join(HERE, 'qemu_configs', 'sh4.py'), KUNIT_TOOL)
		self.assertEqual(sh4.serial, 'null')

	def test_leak_scan_config(self) -> None:
		"""The config scripts/run-kunit.sh writes for a leak scan (the arch's,
		with the initramfs and "--" on the command line), in a file named as
		run-kunit.sh names it."""
		with open(os.path.join(HERE, 'qemu_configs', 'x86_64.py'), encoding='utf-8') as f:
			text = f.read()
		initrd = os.path.join(test_tmpdir, 'initrd.cpio')
		text += ('\n# The leak scan (scripts/run-kunit.sh).\nimport dataclasses\n'
			 'QEMU_ARCH = dataclasses.replace(QEMU_ARCH,\n'
			 "\tkernel_command_line=QEMU_ARCH.kernel_command_line + ' rdinit=/leak-scan --',\n"
			 f"\textra_qemu_params=QEMU_ARCH.extra_qemu_params + ['-initrd', '{initrd}'])\n")
		os.makedirs(os.path.join(test_tmpdir, 'leak-scan'), exist_ok=True)
		config = os.path.join(test_tmpdir, 'leak-scan', 'qemu_config.py')
		with open(config, 'w', encoding='utf-8') as f:
			f.write(text)
		for kunit_tool in (KUNIT_TOOL, None):
			with self.subTest(kunit_tool=kunit_tool):
				params = qemu_params.load(config, kunit_tool)
				self.assertTrue(params.kernel_command_line.endswith(' printk.time=1 rdinit=/leak-scan --'))
				self.assertEqual(params.extra_qemu_params[-2:], ['-initrd', initrd])
				self.assertEqual(qemu_params.vcpus(params), 2)

	def test_nothing_left_behind(self) -> None:
		"""No module of a load stays in sys.modules, no bytecode is written."""
		folder = os.path.join(test_tmpdir, 'clean')
		os.makedirs(folder, exist_ok=True)
		shutil.copy(os.path.join(HERE, 'qemu_configs', 'arm64.py'), folder)
		before = sys.dont_write_bytecode
		sys.dont_write_bytecode = False
		try:
			qemu_params.load(os.path.join(folder, 'arm64.py'), KUNIT_TOOL)
			qemu_params.load(os.path.join(folder, 'arm64.py'))
		finally:
			sys.dont_write_bytecode = before
		self.assertEqual(os.listdir(folder), ['arm64.py'])
		self.assertEqual([m for m in sys.modules if m.startswith('_ida_kunit_qemu_params')], [])


class VcpusTest(unittest.TestCase):

	def params(self, *extra: str) -> qemu_params.QemuArchParams:
		return qemu_params.QemuArchParams(linux_arch='x86_64', kconfig='', qemu_arch='x86_64',
						   kernel_path='arch/x86/boot/bzImage',
						   kernel_command_line='console=ttyS0',
						   extra_qemu_params=list(extra))

	def test_smp(self) -> None:
		self.assertEqual(qemu_params.vcpus(self.params()), 1)
		self.assertEqual(qemu_params.vcpus(self.params('-m', '256')), 1)
		self.assertEqual(qemu_params.vcpus(self.params('-smp', '4')), 4)
		self.assertEqual(qemu_params.vcpus(self.params('--smp', '3')), 3)
		# QEMU takes the last one.
		self.assertEqual(qemu_params.vcpus(self.params('-smp', '2', '-M', 'virt', '-smp', '8')), 8)

	def test_smp_values(self) -> None:
		for value, cpus in (('2', 2), ('cpus=3', 3), ('cpus=4,maxcpus=8', 4), ('6,sockets=2', 6),
				    ('sockets=2,cores=2,threads=2', 8), ('cores=4', 4)):
			with self.subTest(value=value):
				self.assertEqual(qemu_params.smp_cpus(value), cpus)
		for value in ('', 'many', '0', 'maxcpus=4', 'cpus=two'):
			with self.subTest(value=value):
				with self.assertRaises(qemu_params.QemuConfigError):
					qemu_params.smp_cpus(value)

	def test_smp_without_value(self) -> None:
		with self.assertRaisesRegex(qemu_params.QemuConfigError, '-smp without a value'):
			qemu_params.vcpus(self.params('-M', 'virt', '-smp'))


class ErrorTest(unittest.TestCase):

	def load_error(self, text: Optional[str], kunit_tool: Optional[str] = KUNIT_TOOL,
		       name: str = 'bad.py') -> str:
		path = write(name, text) if text is not None else os.path.join(test_tmpdir, 'missing.py')
		with self.assertRaises(qemu_params.QemuConfigError) as cm:
			qemu_params.load(path, kunit_tool)
		return str(cm.exception)

	def test_errors(self) -> None:
		header = 'from ..qemu_config import QemuArchParams\n'
		cases = [
			(None, 'no QEMU config .*missing.py'),
			('X = 1\n', 'bad.py does not define QEMU_ARCH'),
			(header, 'bad.py does not define QEMU_ARCH'),
			('QEMU_ARCH = (\n', 'bad.py: SyntaxError'),
			('QEMU_ARCH = 1\n', r'QEMU_ARCH is not a qemu_config.QemuArchParams \(its type is int\)'),
			(header + 'QEMU_ARCH = QemuArchParams(linux_arch="x86_64")\n', 'bad.py: TypeError: .*missing'),
			(header + 'QEMU_ARCH = QemuArchParams(linux_arch=3, kconfig="", qemu_arch="x", kernel_path="k",'
			 ' kernel_command_line="", extra_qemu_params=[])\n', 'QEMU_ARCH.linux_arch is not a string'),
			(header + 'QEMU_ARCH = QemuArchParams(linux_arch="x", kconfig="", qemu_arch="x", kernel_path="k",'
			 ' kernel_command_line="", extra_qemu_params=["-smp", 2])\n',
			 'extra_qemu_params is not a list of strings'),
			('from ..qemu_config import Nope\n', 'bad.py: ImportError'),
			('import qemu_configs_nowhere\n', 'bad.py: ModuleNotFoundError'),
		]
		for text, want in cases:
			for kunit_tool in (KUNIT_TOOL, None):
				with self.subTest(text=text, kunit_tool=kunit_tool):
					self.assertRegex(self.load_error(text, kunit_tool), want)

	def test_kunit_tool_without_qemu_config(self) -> None:
		empty = os.path.join(test_tmpdir, 'empty-kunit-tool')
		os.makedirs(empty, exist_ok=True)
		with self.assertRaises(qemu_params.QemuConfigError) as cm:
			qemu_params.load(os.path.join(HERE, 'qemu_configs', 'x86_64.py'), empty)
		self.assertEqual(str(cm.exception), f'no qemu_config.py in {empty}')


class MainTest(unittest.TestCase):

	x86 = os.path.join(HERE, 'qemu_configs', 'x86_64.py')

	def test_fields(self) -> None:
		self.assertEqual(run_main('--kunit-tool', KUNIT_TOOL, self.x86, 'vcpus'), (0, '2\n', ''))
		self.assertEqual(run_main(self.x86, 'linux_arch'), (0, 'x86_64\n', ''))
		self.assertEqual(run_main(self.x86, 'kconfig'),
				 (0, 'CONFIG_SMP=y\nCONFIG_SERIAL_8250=y\nCONFIG_SERIAL_8250_CONSOLE=y\n', ''))
		self.assertEqual(run_main(self.x86, 'extra_qemu_params'), (0, '-bios\nqboot.rom\n-smp\n2\n', ''))
		self.assertEqual(run_main(self.x86, 'kernel_path'), (0, 'arch/x86/boot/bzImage\n', ''))
		self.assertEqual(run_main(self.x86, 'qemu_arch'), (0, 'x86_64\n', ''))
		self.assertEqual(run_main(self.x86, 'kernel_command_line'),
				 (0, 'console=ttyS0 panic=-1 printk.time=1\n', ''))
		self.assertEqual(run_main(os.path.join(HERE, 'qemu_configs', 'm68k.py'), 'vcpus'), (0, '1\n', ''))

	def test_every_field_prints(self) -> None:
		for name in qemu_params.FIELDS:
			with self.subTest(field=name):
				rc, out, err = run_main('--kunit-tool', KUNIT_TOOL, self.x86, name)
				self.assertEqual((rc, err), (0, ''))
				self.assertTrue(out.strip())

	def one_error_line(self, want_rc: int, want: str, *args: str) -> None:
		rc, out, err = run_main(*args)
		self.assertEqual(rc, want_rc)
		self.assertEqual(out, '')
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertRegex(err, '^error: ' + want)

	def test_errors(self) -> None:
		self.one_error_line(1, 'no QEMU config /nonexistent.py', '/nonexistent.py', 'vcpus')
		self.one_error_line(1, '.*empty.py does not define QEMU_ARCH', write('empty.py', '# nothing\n'),
				    'linux_arch')
		self.one_error_line(2, "argument FIELD: invalid choice: 'cpus'", self.x86, 'cpus')
		self.one_error_line(2, 'the following arguments are required', self.x86)
		self.one_error_line(1, "cannot tell the vCPUs from -smp 'two'",
				    write('two.py', 'from ..qemu_config import QemuArchParams\n'
					  'QEMU_ARCH = QemuArchParams(linux_arch="x", kconfig="", qemu_arch="x",'
					  ' kernel_path="k", kernel_command_line="", extra_qemu_params=["-smp", "two"])\n'),
				    'vcpus')

	def test_help(self) -> None:
		rc, out, err = run_main('--help')
		self.assertEqual((rc, err), (0, ''))
		self.assertIn('usage: qemu_params.py [-h] [--kunit-tool DIR] CONFIG FIELD', out)
		self.assertIn('stand-in', out)

	def test_script(self) -> None:
		"""As the scripts run it."""
		r = subprocess.run([sys.executable, os.path.join(HERE, 'qemu_params.py'), '--kunit-tool', KUNIT_TOOL,
				    self.x86, 'vcpus'], capture_output=True, text=True, check=False)
		self.assertEqual((r.returncode, r.stdout, r.stderr), (0, '2\n', ''))


if __name__ == '__main__':
	unittest.main()
