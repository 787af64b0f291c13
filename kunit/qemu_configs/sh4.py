# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: sh4 (32-bit little endian), Renesas R2D board.
# Uniprocessor: QEMU's r2d machine has one CPU.
# Build with --cross_compile sh4-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='sh',
			   kconfig='''
CONFIG_CPU_SUBTYPE_SH7751R=y
CONFIG_MEMORY_START=0x0c000000
CONFIG_SH_RTS7751R2D=y
CONFIG_RTS7751R2D_PLUS=y
CONFIG_SERIAL_SH_SCI=y
CONFIG_CMDLINE_EXTEND=y
''',
			   qemu_arch='sh4',
			   kernel_path='arch/sh/boot/zImage',
			   kernel_command_line='console=ttySC1 panic=-1 printk.time=1',
			   serial='null',
			   extra_qemu_params=['-machine', 'r2d',
					      '-serial', 'mon:stdio'])
