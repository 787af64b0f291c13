# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: alpha (64-bit little endian, the weakest memory
# ordering Linux supports), QEMU's "clipper" (DP264) machine, 2 CPUs.
# Build with --cross_compile alpha-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='alpha',
			   kconfig='''
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='alpha',
			   kernel_path='arch/alpha/boot/vmlinux',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-smp', '2'])
