# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: ppc64 big endian, pseries, POWER8 (hash MMU),
# 2 vCPUs.  Build with --cross_compile powerpc64-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC64=y
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_HVC_CONSOLE=y''',
			   qemu_arch='ppc64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-M', 'pseries', '-cpu', 'power8',
					      '-smp', '2'])
