# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: riscv64 (RVWMO, weakly ordered), "virt" machine
# with OpenSBI, 2 harts.  Build with --cross_compile riscv64-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='riscv',
			   kconfig='''
CONFIG_SMP=y
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='riscv64',
			   kernel_path='arch/riscv/boot/Image',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'rv64', '-smp', '2',
					      '-bios', '/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin'])
