// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the IDA benchmark (lib/tests/ida_benchmark_kunit.c) in the userspace
 * radix-tree harness, through its KUnit emulation, with callgrind markers
 * around the measured part of each workload: callgrind (started with
 * --instr-atstart=no, so that the set-up runs fast) instruments and zeroes
 * its counters when a workload starts and dumps them, named
 * "workload/allocator", when it ends.  Built by scripts/tools/bench.sh inside tools/testing/radix-tree,
 * without sanitizers and with -O2.
 */
#include <linux/bitmap.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

#include "test.h"

#include <stdlib.h>
#include <time.h>

static u64 ida_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#define div_u64(a, b)		((a) / (b))
#define div64_u64(a, b)		((a) / (b))
#define kvcalloc(n, size, gfp)	calloc(n, size)
#define kvfree(p)		free(p)
#define swap(a, b)		do { typeof(a) t_ = (a); (a) = (b); (b) = t_; } while (0)

#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)

#define IDA_BENCH_BEGIN(workload, allocator) do {			\
	CALLGRIND_START_INSTRUMENTATION;				\
	CALLGRIND_ZERO_STATS;						\
} while (0)
#define IDA_BENCH_END(workload, allocator) do {				\
	char name_[64];							\
	snprintf(name_, sizeof(name_), "%s/%s", workload, allocator);	\
	CALLGRIND_DUMP_STATS_AT(name_);					\
	CALLGRIND_STOP_INSTRUMENTATION;					\
} while (0)

#include "../../../lib/tests/ida_benchmark_kunit.c"

int main(void)
{
	int failed;

	rcu_register_thread();
	radix_tree_init();
	failed = kunit_shim_run(&ida_bench_suite);
	radix_tree_cpu_dead(1);
	rcu_barrier();
	rcu_unregister_thread();
	return failed ? 1 : 0;
}
