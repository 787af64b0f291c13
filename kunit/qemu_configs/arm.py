# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: 32-bit arm (ARMv7, little endian), "virt" machine,
# 2 vCPUs.  Build with --cross_compile arm-linux-gnueabihf-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_SMP=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0 panic=-1 printk.time=1',
			   extra_qemu_params=['-machine', 'virt', '-smp', '2'])
