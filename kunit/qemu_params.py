#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The QEMU configs of kunit/qemu_configs/, read the way kunit_tool reads them.

A QEMU config (kunit.py --qemu_config FILE) is a Python file that kunit_tool
executes as a module of its own: it names the module as if the file were in
tools/testing/kunit/qemu_configs/, so that the file's
"from ..qemu_config import QemuArchParams" is kunit_tool's qemu_config.py,
and it takes the module's QEMU_ARCH.  load() does the same: it executes the
file as module qemu_configs.NAME of a package whose folder is the kunit_tool
folder given (the tree's tools/testing/kunit), whose qemu_config module is
that folder's qemu_config.py, and returns QEMU_ARCH, checked.

Stand-in: without a kunit_tool folder, or when the folder given does not
exist (the scripts check an arch before the tree is unpacked), the package's
qemu_config module is a stand-in whose QemuArchParams (below) has the fields
and defaults of 6.12's tools/testing/kunit/qemu_config.py.  Whenever the
folder is given and exists, its own qemu_config.py is used;
qemu_params_test.py checks that both give the same values for every config
and that the stand-in's fields are the tree's.  Nothing is written: no
__pycache__ beside a config or in the tree.

  qemu_params.py [--kunit-tool DIR] CONFIG FIELD

prints one field of CONFIG's QEMU_ARCH: linux_arch, kconfig (its lines,
without the blank lines around them), vcpus (the vCPUs QEMU gives the
guest: the value of -smp in extra_qemu_params, 1 without one), qemu_arch,
kernel_path, kernel_command_line, serial, or extra_qemu_params (one per
line).  A config that cannot be read is one "error:" line and exit 1; a bad
command line, exit 2.
"""

import argparse
import dataclasses
import itertools
import os
import re
import sys
import types
from typing import Dict, List, Optional, Protocol, Sequence, cast

from cli import ArgumentParser

FIELDS = ('linux_arch', 'kconfig', 'vcpus', 'qemu_arch', 'kernel_path', 'kernel_command_line',
	  'serial', 'extra_qemu_params')
# The fields of QEMU_ARCH that are strings (extra_qemu_params is a list).
STRING_FIELDS = ('linux_arch', 'kconfig', 'qemu_arch', 'kernel_path', 'kernel_command_line', 'serial')


class QemuConfigError(Exception):
	"""A QEMU config that cannot be read; the message names it and says why."""


class ArchParams(Protocol):
	"""What load() returns: the QEMU_ARCH of a config, an instance of
	kunit_tool's qemu_config.QemuArchParams or of the stand-in below."""

	@property
	def linux_arch(self) -> str: ...

	@property
	def kconfig(self) -> str: ...

	@property
	def qemu_arch(self) -> str: ...

	@property
	def kernel_path(self) -> str: ...

	@property
	def kernel_command_line(self) -> str: ...

	@property
	def extra_qemu_params(self) -> List[str]: ...

	@property
	def serial(self) -> str: ...


@dataclasses.dataclass(frozen=True)
class QemuArchParams:
	"""The stand-in for kunit_tool's qemu_config.QemuArchParams: the fields
	of 6.12's tools/testing/kunit/qemu_config.py, in its order, with its
	default."""
	linux_arch: str
	kconfig: str
	qemu_arch: str
	kernel_path: str
	kernel_command_line: str
	extra_qemu_params: List[str]
	serial: str = 'stdio'


# Every load gets a package of its own, so that configs read with two
# kunit_tool folders (or with and without one) never share a module.
_packages = itertools.count()


def _module(name: str, package: str, path: Optional[str] = None) -> types.ModuleType:
	module = types.ModuleType(name)
	module.__package__ = package
	if path is not None:
		module.__file__ = path
	return module


def _execute(module: types.ModuleType, path: str) -> None:
	"""Runs the Python file PATH as MODULE's code (compiled here, so that no
	bytecode is written next to it)."""
	with open(path, encoding='utf-8') as f:
		source = f.read()
	exec(compile(source, path, 'exec', dont_inherit=True), module.__dict__)


def load(config: str, kunit_tool: Optional[str] = None) -> ArchParams:
	"""CONFIG's QEMU_ARCH, with kunit_tool's qemu_config.py from the folder
	KUNIT_TOOL when it is given and exists, with the stand-in otherwise.
	Raises QemuConfigError when the file is missing, does not run, does not
	define QEMU_ARCH, or defines something else."""
	if not os.path.isfile(config):
		raise QemuConfigError(f'no QEMU config {config}')
	real = kunit_tool is not None and os.path.isdir(kunit_tool)
	package = f'_ida_kunit_qemu_params{next(_packages)}'
	stem = re.sub(r'\W', '_', os.path.splitext(os.path.basename(config))[0]) or 'config'
	root = _module(package, package)
	root.__path__ = [kunit_tool] if kunit_tool is not None and real else []
	qemu_config = _module(f'{package}.qemu_config', package)
	configs = _module(f'{package}.qemu_configs', f'{package}.qemu_configs')
	configs.__path__ = []
	module = _module(f'{package}.qemu_configs.{stem}', f'{package}.qemu_configs', config)
	modules: Dict[str, types.ModuleType] = {m.__name__: m for m in (root, qemu_config, configs, module)}
	sys.modules.update(modules)
	try:
		if kunit_tool is not None and real:
			path = os.path.join(kunit_tool, 'qemu_config.py')
			if not os.path.isfile(path):
				raise QemuConfigError(f'no qemu_config.py in {kunit_tool}')
			qemu_config.__file__ = path
			try:
				_execute(qemu_config, path)
			except Exception as e:
				raise QemuConfigError(f'{path}: {type(e).__name__}: {e}') from e
		else:
			setattr(qemu_config, 'QemuArchParams', QemuArchParams)
		try:
			_execute(module, config)
		except Exception as e:
			raise QemuConfigError(f'{config}: {type(e).__name__}: {e}') from e
	finally:
		for name in modules:
			sys.modules.pop(name, None)
	return _checked(config, module, getattr(qemu_config, 'QemuArchParams', None))


def _checked(config: str, module: types.ModuleType, cls: object) -> ArchParams:
	"""MODULE's QEMU_ARCH, once it is known to be a QemuArchParams (CLS)
	with fields of the right types."""
	if not hasattr(module, 'QEMU_ARCH'):
		raise QemuConfigError(f'{config} does not define QEMU_ARCH')
	params: object = getattr(module, 'QEMU_ARCH')
	if not isinstance(cls, type) or not isinstance(params, cls):
		raise QemuConfigError(f'{config}: QEMU_ARCH is not a qemu_config.QemuArchParams '
				      f'(its type is {type(params).__name__})')
	for name in STRING_FIELDS:
		if not isinstance(getattr(params, name, None), str):
			raise QemuConfigError(f'{config}: QEMU_ARCH.{name} is not a string')
	extra = getattr(params, 'extra_qemu_params', None)
	if not isinstance(extra, list) or not all(isinstance(p, str) for p in extra):
		raise QemuConfigError(f'{config}: QEMU_ARCH.extra_qemu_params is not a list of strings')
	return cast(ArchParams, params)


def smp_cpus(value: str) -> int:
	"""The CPUs of a QEMU -smp VALUE: "N", "cpus=N,..." or, without a CPU
	count, the product of the topology's sockets, dies, clusters, cores and
	threads (each 1 when left out), as QEMU computes it."""
	opts: Dict[str, str] = {}
	for n, part in enumerate(value.split(',')):
		key, eq, val = part.partition('=')
		if not eq and n == 0:
			key, val = 'cpus', part
		opts[key.strip()] = val.strip()
	try:
		if opts.get('cpus'):
			cpus = int(opts['cpus'])
		else:
			topology = [int(opts[k]) for k in ('sockets', 'dies', 'clusters', 'cores', 'threads')
				    if opts.get(k)]
			if not topology:
				raise ValueError(value)
			cpus = 1
			for t in topology:
				cpus *= t
	except ValueError:
		raise QemuConfigError(f'cannot tell the vCPUs from -smp {value!r}') from None
	if cpus < 1:
		raise QemuConfigError(f'-smp {value!r} gives no vCPU')
	return cpus


def vcpus(params: ArchParams) -> int:
	"""The vCPUs QEMU gives the guest: from the last -smp of
	extra_qemu_params (QEMU takes the last one), 1 without one."""
	args = params.extra_qemu_params
	value: Optional[str] = None
	for i, arg in enumerate(args):
		if arg in ('-smp', '--smp'):
			if i + 1 >= len(args):
				raise QemuConfigError(f'{arg} without a value in extra_qemu_params')
			value = args[i + 1]
	return 1 if value is None else smp_cpus(value)


def linux_arch(params: ArchParams) -> str:
	"""Linux's name of the arch (make ARCH=)."""
	return params.linux_arch


def kconfig(params: ArchParams) -> str:
	"""The config's Kconfig fragment, without the blank lines around it."""
	return params.kconfig.strip('\n')


def field(params: ArchParams, name: str) -> str:
	"""One of FIELDS, as the command line prints it."""
	if name == 'vcpus':
		return str(vcpus(params))
	if name == 'kconfig':
		return kconfig(params)
	if name == 'extra_qemu_params':
		return '\n'.join(params.extra_qemu_params)
	if name in STRING_FIELDS:
		value: str = getattr(params, name)
		return value
	raise QemuConfigError(f'unknown field {name!r} (known: {", ".join(FIELDS)})')


def kunit_tool_of_environment() -> str:
	"""The kunit_tool folder of the tree the scripts use, as scripts/lib.sh
	finds it: $IDA_KUNIT_SRC/tools/testing/kunit, or that of the tree in the
	cache folder (IDA_KUNIT_CACHE, IDA_KUNIT_TREE).  It need not exist."""
	src = os.environ.get('IDA_KUNIT_SRC')
	if not src:
		cache = os.environ.get('IDA_KUNIT_CACHE') or os.path.join(
			os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'ida-kunit')
		src = os.path.join(cache, 'linux-' + (os.environ.get('IDA_KUNIT_TREE') or '6.12'))
	return os.path.join(os.path.abspath(src), 'tools', 'testing', 'kunit')


def parser() -> argparse.ArgumentParser:
	ap = ArgumentParser(prog='qemu_params.py', description=__doc__,
			    formatter_class=argparse.RawDescriptionHelpFormatter)
	ap.add_argument('--kunit-tool', metavar='DIR',
			help="the tree's tools/testing/kunit, whose qemu_config.py the config "
			     'imports (without it, or when DIR does not exist: the stand-in)')
	ap.add_argument('config', metavar='CONFIG', help='a QEMU config (kunit/qemu_configs/ARCH.py)')
	ap.add_argument('field', metavar='FIELD', choices=FIELDS,
			help='what to print: ' + ', '.join(FIELDS))
	return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
	args = parser().parse_args(argv)
	try:
		print(field(load(args.config, args.kunit_tool), args.field))
	except QemuConfigError as e:
		print(f'error: {e}', file=sys.stderr)
		return 1
	return 0


if __name__ == '__main__':
	sys.exit(main())
