// SPDX-License-Identifier: GPL-2.0
/*
 * The RCU tests of the maple tree's userspace harness (check_rcu_threaded()
 * of tools/testing/radix-tree/maple.c) with the slow readers' first read
 * held back.  Linked with -Wl,--wrap=usleep: the first usleep() of a thread
 * that asks for READER_SLEEP us (the val_sleep of run_check_rcu_slowread()'s
 * rcu_val() readers, which sleep before each read) sleeps DELAY us instead,
 * as a reader does on a machine too busy to run it before the writer is
 * done.  run_check_rcu_slowread() asserts that a reader saw the range
 * before the first store changed it; unless the writer waits for a first
 * read, it fails every time here ("run_check_rcu_slowread: Assertion").
 *
 * Usage: maple-slowread [DELAY_US]   (default 500000 us; 0: no delay)
 * Exits 0 when the tests passed; a failed test aborts (exit 134).  Prints
 * "held back: a reader's first read" once the wrapper has delayed a read,
 * and exits 2 when a delay was asked for and none was (the wrapper did not
 * take: then nothing was tested).
 * Built by scripts/checks/maple-slowread-race.sh inside
 * tools/testing/radix-tree, from maple.c itself (its tests are static).
 */
#define main maple_harness_main
#include "maple.c"
#undef main

#define READER_SLEEP 400

/* One sleep of each slow reader: long, so that a busy machine cannot hide it. */
static unsigned int delay_us = 500000;
static unsigned long held_back;

int __real_usleep(useconds_t usec);
int __wrap_usleep(useconds_t usec);

int __wrap_usleep(useconds_t usec)
{
	static __thread bool first_done;

	if (usec == READER_SLEEP && !first_done) {
		first_done = true;
		if (delay_us) {
			if (__atomic_add_fetch(&held_back, 1, __ATOMIC_RELAXED) == 1)
				printf("held back: a reader's first read, %u us\n", delay_us);
			usec = delay_us;
		}
	}
	return __real_usleep(usec);
}

int main(int argc, char **argv)
{
	struct maple_tree tree;

	if (argc > 1)
		delay_us = strtoul(argv[1], NULL, 0);
	maple_tree_init();
	printf("maple RCU tests, each slow reader's first read %u us late\n", delay_us);
	mt_init_flags(&tree, MT_FLAGS_ALLOC_RANGE);
	check_rcu_threaded(&tree);
	mtree_destroy(&tree);
	rcu_barrier();
	if (delay_us && !held_back) {
		printf("error: no reader was held back: -Wl,--wrap=usleep did not take\n");
		return 2;
	}
	printf("maple RCU tests passed, %lu readers held back\n", held_back);
	return 0;
}
