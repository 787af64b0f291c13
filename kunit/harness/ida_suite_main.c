// SPDX-License-Identifier: GPL-2.0
/*
 * Runs only the IDA KUnit suite (lib/tests/ida_kunit.c) in the userspace
 * radix-tree harness, through its KUnit emulation, so that gcov measures
 * what the suite alone covers of lib/idr.c.  Built by scripts/tools/coverage.sh
 * inside tools/testing/radix-tree.
 */
#include <linux/bitmap.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/errno.h>

#include "test.h"

#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)
#define MODULE_PARM_DESC(...)

#include "../../../lib/tests/ida_kunit.c"

int main(void)
{
	int failed;

	rcu_register_thread();
	radix_tree_init();
	failed = kunit_shim_run(&ida_test_suite);
	radix_tree_cpu_dead(1);
	rcu_barrier();
	rcu_unregister_thread();
	return failed ? 1 : 0;
}
