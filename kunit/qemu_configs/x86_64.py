# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: x86_64, 2 vCPUs (the IDA suite has SMP cases).
# Loaded by kunit.py --qemu_config; the import below is resolved relative to
# the kernel tree's tools/testing/kunit/qemu_configs/.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SMP=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   # panic=-1: a panic reboots at once, and -no-reboot
			   # turns that into a QEMU exit instead of a hang.
			   # printk.time=1: every line gets its time, from which
			   # kunit/results.py takes each case's duration.
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
