# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: 32-bit big endian powerpc, QEMU's generic e500
# machine (ppce500) with an e500mc core, 2 CPUs.
# Build with --cross_compile powerpc-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC32=y
CONFIG_PPC_85xx=y
CONFIG_FSL_SOC_BOOKE=y
CONFIG_PHYS_64BIT=y
CONFIG_PPC_E500MC=y
CONFIG_PPC_QEMU_E500=y
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='ppc',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-M', 'ppce500', '-cpu', 'e500mc',
					      '-smp', '2'])
