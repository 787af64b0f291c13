// SPDX-License-Identifier: GPL-2.0
/*
 * The XArray iteration test of the userspace radix-tree harness
 * (tools/testing/radix-tree/iteration_check.c) with the writer held up right
 * after each call_rcu().  Linked with -Wl,--wrap=urcu_memb_call_rcu, so that
 * every call_rcu() of lib/xarray.c (liburcu's call_rcu is that function)
 * comes here: the callback is queued, then the writer sleeps DELAY
 * microseconds before it goes on, with the xa_lock held.  A node that is
 * still linked into the tree when it is handed to call_rcu() can then be
 * found by a reader that began after the grace period did, and freed under
 * it: AddressSanitizer stops the program with a use-after-free.
 *
 * Usage: xa-rcu-race [DELAY_US [SECONDS]]   (default 2000 us, 10 s)
 * Built by scripts/checks/xarray-rcu-race.sh inside tools/testing/radix-tree.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static unsigned int delay_us = 2000;

void __real_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void __wrap_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

void __wrap_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	__real_urcu_memb_call_rcu(head, func);
	if (delay_us)
		usleep(delay_us);
}

int main(int argc, char **argv)
{
	unsigned int seconds = 10;

	if (argc > 1)
		delay_us = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		seconds = strtoul(argv[2], NULL, 0);
	rcu_register_thread();
	radix_tree_init();
	printf("iteration test, order 0, %u s, %u us after each call_rcu()\n", seconds, delay_us);
	iteration_test(0, seconds);
	radix_tree_cpu_dead(1);
	rcu_barrier();
	rcu_unregister_thread();
	printf("iteration test passed\n");
	return 0;
}
