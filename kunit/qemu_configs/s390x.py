# SPDX-License-Identifier: GPL-2.0
# kunit_tool QEMU config: s390x (64-bit big endian), s390-ccw-virtio,
# 2 vCPUs.  Build with --cross_compile s390x-linux-gnu-.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='s390',
			   kconfig='''
CONFIG_EXPERT=y
CONFIG_SMP=y
CONFIG_TUNE_ZEC12=y
CONFIG_NUMA=y
CONFIG_MODULES=y''',
			   qemu_arch='s390x',
			   kernel_path='arch/s390/boot/bzImage',
			   kernel_command_line='console=ttyS0 panic=-1 printk.time=1',
			   extra_qemu_params=['-machine', 's390-ccw-virtio', '-cpu', 'qemu', '-smp', '2'])
