# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: m68k (32-bit big endian, 68040), QEMU's "virt"
# machine.  Uniprocessor: Linux has no SMP support on m68k.
# Build with --cross_compile m68k-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='m68k',
			   kconfig='''
CONFIG_VIRT=y''',
			   qemu_arch='m68k',
			   kernel_path='vmlinux',
			   kernel_command_line='console=hvc0 panic=-1 printk.time=1',
			   extra_qemu_params=['-machine', 'virt'])
