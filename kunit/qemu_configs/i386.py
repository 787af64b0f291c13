# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: i386 (32-bit x86: BITS_PER_XA_VALUE is 31), 2 vCPUs.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='i386',
			   kconfig='''
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='i386',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-smp', '2'])
