// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the series' ida-bench (tools/testing/radix-tree), for the
 * recorded input of kunit/bench_table_test.py: the same callgrind markers
 * (instrumentation on and counters zeroed when a measured loop starts, a
 * dump named "workload/allocator" when it ends) and the same "bench" lines,
 * around loops that only count.  README.md says how it was run.
 */
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile unsigned long sink;

static void work(unsigned int ops, unsigned int cost)
{
	unsigned int i, j;

	for (i = 0; i < ops; i++)
		for (j = 0; j < cost; j++)
			sink += i ^ j;
}

static void measure(const char *workload, const char *allocator,
		    unsigned int ops, unsigned int cost)
{
	char name[64];

	CALLGRIND_START_INSTRUMENTATION;
	CALLGRIND_ZERO_STATS;
	work(ops, cost);
	snprintf(name, sizeof(name), "%s/%s", workload, allocator);
	CALLGRIND_DUMP_STATS_AT(name);
	CALLGRIND_STOP_INSTRUMENTATION;
}

int main(void)
{
	static const char *const allocators[] = { "ida", "idr", "bitmap" };
	static const unsigned int cost[] = { 3, 5, 1 };
	int a;

	for (a = 0; a < 3; a++)
		measure("seq_alloc_1K", allocators[a], 1024, cost[a]);
	printf("    # ida_bench_seq_1k: bench seq_alloc_1K: ops 1024, ns/op ida 0.00 idr 0.00 bitmap 0.00, ida/idr 0%%, bitmap/idr 0%%\n");
	for (a = 0; a < 3; a++)
		measure("churn_min0", allocators[a], 2048, 2 * cost[a]);
	printf("    # ida_bench_churn: bench churn_min0: ops 2048, ns/op ida 0.00 idr 0.00 bitmap 0.00, ida/idr 0%%, bitmap/idr 0%%\n");
	printf("    # ida_bench_memory: bench memory dense_1M: ids 1048576, bytes/id*100 ida 13 idr 914, bytes ida 139264 idr 9584640\n");
	return 0;
}
