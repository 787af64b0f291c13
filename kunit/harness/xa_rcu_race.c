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
 * Exits 0 when the test passed, 2 when a delay was asked for and no
 * call_rcu() came here (the wrapper did not take: then nothing was tested).
 * Built by scripts/checks/xarray-rcu-race.sh inside tools/testing/radix-tree.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static unsigned int delay_us = 2000;
static unsigned long held_up;

void __real_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void __wrap_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

void __wrap_urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	__real_urcu_memb_call_rcu(head, func);
	if (delay_us) {
		__atomic_add_fetch(&held_up, 1, __ATOMIC_RELAXED);
		usleep(delay_us);
	}
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
	if (delay_us && !held_up) {
		printf("error: no call_rcu() was held up: -Wl,--wrap=urcu_memb_call_rcu did not take\n");
		return 2;
	}
	printf("iteration test passed, call_rcu() held up %lu times\n", held_up);
	return 0;
}
