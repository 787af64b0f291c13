// SPDX-License-Identifier: GPL-2.0
/*
 * sd: the disk names of the SCSI disk driver, which come from an IDA
 * (sd_index_ida in drivers/scsi/sd.c), driven from userspace as an
 * administrator drives them: scsi_debug hosts added and removed through
 * /sys/bus/pseudo/drivers/scsi_debug/add_host, disks deleted through
 * /sys/block/sdX/device/delete.  Run by the leak-scan init
 * (kunit/leak-scan) before its kmemleak scan, in a kernel with SCSI,
 * BLK_DEV_SD and SCSI_DEBUG built in and scsi_debug.add_host=0.
 *
 * It prints KTAP, each line to /dev/kmsg with a "users-sd: " prefix, which
 * scripts/run-kunit.sh takes out of the kernel log for kunit/results.py:
 * one suite, "sd", and a case for each contract.
 *
 * Every disk is the one logical unit of one scsi_debug host (scsi_debug's
 * defaults), so adding a host adds a disk; sd probes asynchronously, so the
 * program waits for the disk's name to show in /sys/block.
 */
#define USERS_SUITE	"sd"

#include <dirent.h>
#include <stdlib.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "ktap.h"

#define SDEBUG		"/sys/bus/pseudo/drivers/scsi_debug"
#define FAILSLAB	"/sys/kernel/debug/failslab"
#define MAX_DISKS	256
#define NAME_LEN	16
#define WAIT_MS		20000
/*
 * The add/remove cycles of the leak check: about 0.5 s each in the debug
 * leg's kernel under QEMU without KVM, so that the boot stays well within
 * its time limit.
 */
#define CYCLES		100
/*
 * The IDs an IDA keeps in the entry of its first bitmap before it needs
 * memory for one (BITS_PER_XA_VALUE on a 64-bit kernel).
 */
#define VALUE_IDS	63
/* SCSI peripheral types (scsi_debug's ptype): a disk, and a CD-ROM. */
#define TYPE_DISK	0
#define TYPE_ROM	5

/*
 * The name sd gives the disk of index @index: the index written in base 26
 * with the letters a-z as digits, where every length has all its names
 * (sda..sdz, then sdaa..sdzz, then sdaaa...).
 */
static void disk_name(long index, char *name)
{
	char rev[NAME_LEN];
	int n = 0, i;

	do {
		rev[n++] = 'a' + index % 26;
		index = index / 26 - 1;
	} while (index >= 0 && n < NAME_LEN - 4);
	name[0] = 's';
	name[1] = 'd';
	for (i = 0; i < n; i++)
		name[2 + i] = rev[n - 1 - i];
	name[2 + n] = '\0';
}

/* The sd disks in /sys/block; their number, or -errno. */
static int list_disks(char names[][NAME_LEN], int max)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "sd", 2) || strlen(e->d_name) >= NAME_LEN)
			continue;
		if (n < max)
			memcpy(names[n], e->d_name, strlen(e->d_name) + 1);
		n++;
	}
	closedir(d);
	return n;
}

static bool has_disk(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%s", name);
	return stat(path, &st) == 0;
}

static int count_disks(void)
{
	static char names[MAX_DISKS][NAME_LEN];

	return list_disks(names, MAX_DISKS);
}

static int hosts(void)
{
	char buf[32];
	int n = read_text(SDEBUG "/add_host", buf, sizeof(buf));

	return n > 0 ? atoi(buf) : n < 0 ? n : -EIO;
}

/* Whether sd's probe of the disk is done: its device is bound to sd. */
static bool probed(const char *name)
{
	char path[NAME_LEN + 32];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/block/%.*s/device/driver", NAME_LEN, name);
	return stat(path, &st) == 0;
}

/*
 * Add one scsi_debug host and wait until sd has probed its disk: the new
 * disk's name in @name; -ETIMEDOUT when none came within WAIT_MS.
 */
static int add_disk(char *name)
{
	static char before[MAX_DISKS][NAME_LEN], after[MAX_DISKS][NAME_LEN];
	int nb, na, i, j, err;
	long end = now_ms() + WAIT_MS;

	name[0] = '\0';
	nb = list_disks(before, MAX_DISKS);
	if (nb < 0 || nb >= MAX_DISKS)
		return nb < 0 ? nb : -ENOSPC;
	err = write_int(SDEBUG "/add_host", 1);
	if (err)
		return err;
	do {
		na = list_disks(after, MAX_DISKS);
		if (na < 0)
			return na;
		for (i = 0; i < na && i < MAX_DISKS; i++) {
			for (j = 0; j < nb; j++)
				if (!strcmp(after[i], before[j]))
					break;
			if (j == nb && probed(after[i])) {
				memcpy(name, after[i], NAME_LEN);
				return 0;
			}
		}
		usleep(2000);
	} while (now_ms() < end);
	return -ETIMEDOUT;
}

static bool wait_gone(const char *name)
{
	long end = now_ms() + WAIT_MS;

	while (has_disk(name)) {
		if (now_ms() >= end)
			return false;
		usleep(2000);
	}
	return true;
}

/* Delete a disk's SCSI device, as "echo 1 > /sys/block/sdX/device/delete". */
static int delete_disk(const char *name)
{
	char path[80];
	int err;

	snprintf(path, sizeof(path), "/sys/block/%s/device/delete", name);
	err = write_file(path, "1");
	if (err)
		return err;
	return wait_gone(name) ? 0 : -ETIMEDOUT;
}

/* Remove every scsi_debug host, and so every disk. */
static int remove_all(void)
{
	int n = hosts(), err;
	long end = now_ms() + WAIT_MS;

	if (n < 0)
		return n;
	if (n > 0) {
		err = write_int(SDEBUG "/add_host", -n);
		if (err)
			return err;
	}
	while (count_disks() > 0) {
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(2000);
	}
	return 0;
}

/* 27 disks added one at a time are sda..sdz, then sdaa. */
static void sequential_names(void)
{
	char got[NAME_LEN], want[NAME_LEN];
	int i, err;

	/* The helper's names, where a new letter comes in. */
	disk_name(25, want);
	expect(!strcmp(want, "sdz"), "name of index 25 is %s", want);
	disk_name(26, want);
	expect(!strcmp(want, "sdaa"), "name of index 26 is %s", want);
	disk_name(VALUE_IDS, want);
	expect(!strcmp(want, "sdbl"), "name of index %d is %s", VALUE_IDS, want);
	disk_name(26 + 26 * 26, want);
	expect(!strcmp(want, "sdaaa"), "name of index %d is %s", 26 + 26 * 26, want);

	expect(count_disks() == 0, "%d sd disks before the first was added", count_disks());
	for (i = 0; i < 27; i++) {
		disk_name(i, want);
		err = add_disk(got);
		expect(!err, "adding disk %d: %s", i + 1, strerror(-err));
		expect(!strcmp(got, want), "disk %d is '%s', expected %s", i + 1, got, want);
		if (err || strcmp(got, want))
			break;
	}
	end_case("sequential_names");
}

/*
 * With sda..sdaa present, deleting sdc and sdk frees their names: the next
 * two disks are sdc, then sdk, and the one after them sdab.
 */
static void lowest_free_name(void)
{
	static const char * const want[] = { "sdc", "sdk", "sdab" };
	char got[NAME_LEN];
	unsigned int i;
	int err;

	expect(count_disks() == 27, "%d disks, expected sda..sdaa", count_disks());
	err = delete_disk("sdk");
	expect(!err, "deleting sdk: %s", strerror(-err));
	err = delete_disk("sdc");
	expect(!err, "deleting sdc: %s", strerror(-err));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		err = add_disk(got);
		expect(!err && !strcmp(got, want[i]), "new disk %u is '%s' (%s), expected %s",
		       i + 1, got, strerror(-err), want[i]);
	}
	end_case("lowest_free_name");
}

/* Once every disk is gone, the next one is sda again. */
static void restart_at_sda(void)
{
	char got[NAME_LEN];
	int err;

	err = remove_all();
	expect(!err, "removing every host: %s", strerror(-err));
	err = add_disk(got);
	expect(!err && !strcmp(got, "sda"),
	       "first disk after all were removed is '%s' (%s), expected sda", got, strerror(-err));
	err = remove_all();
	expect(!err, "removing every host: %s", strerror(-err));
	end_case("restart_at_sda");
}

/*
 * Beside one disk that stays (sda), a disk added and removed CYCLES times
 * is sdb every time; the kmemleak scan after the users checks that the
 * cycles left nothing behind.
 */
static void add_remove_cycles(void)
{
	char got[NAME_LEN], first[NAME_LEN];
	int i, err;

	err = add_disk(first);
	expect(!err && !strcmp(first, "sda"), "first disk '%s' (%s), expected sda",
	       first, strerror(-err));
	for (i = 0; i < CYCLES && !case_failed; i++) {
		err = add_disk(got);
		expect(!err && !strcmp(got, "sdb"), "cycle %d: new disk '%s' (%s), expected sdb",
		       i + 1, got, strerror(-err));
		/* scsi_debug removes the host it added last: sdb's. */
		err = write_int(SDEBUG "/add_host", -1);
		expect(!err, "cycle %d: removing the last host: %s", i + 1, strerror(-err));
		expect(wait_gone("sdb"), "cycle %d: sdb still there after its host was removed",
		       i + 1);
	}
	out("    # %s: %d cycles", __func__, i);
	expect(count_disks() == 1 && has_disk("sda"), "%d disks left, expected sda alone",
	       count_disks());
	err = remove_all();
	expect(!err, "removing every host: %s", strerror(-err));
	end_case("add_remove_cycles");
}

/*
 * The SCSI devices of peripheral type @type; with @unbound, only those no
 * driver took, the H:C:T:L name of the last one in @id.  -errno on error.
 */
static int scsi_devices(int type, bool unbound, char *id, size_t size)
{
	DIR *d = opendir("/sys/bus/scsi/devices");
	char path[300], buf[16];
	struct dirent *e;
	struct stat st;
	int n = 0, fd;
	ssize_t len;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!strchr(e->d_name, ':') || strncmp(e->d_name, "target", 6) == 0)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%s/type", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (atoi(buf) != type)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%s/driver", e->d_name);
		if (unbound && stat(path, &st) == 0)
			continue;
		if (id)
			snprintf(id, size, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Where a kernel symbol starts and the next one begins, from /proc/kallsyms. */
static int symbol_range(const char *symbol, unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long addr, next = ~0UL;
	char type, name[256];
	bool found = false;

	if (!f)
		return -errno;
	*start = 0;
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (!strcmp(name, symbol) && (type == 't' || type == 'T')) {
			*start = addr;
			found = true;
		}
	}
	if (!found || !*start) {
		fclose(f);
		return found ? -EPERM : -ENOENT;
	}
	rewind(f);
	while (fscanf(f, "%lx %c %255s%*[^\n]", &addr, &type, name) == 3)
		if (addr > *start && addr < next)
			next = addr;
	fclose(f);
	*end = next;
	return 0;
}

/* The kernel log from the last line holding @marker on, in @buf. */
static char *log_since(const char *marker, char *buf, int size)
{
	int n = klogctl(3, buf, size - 1);	/* SYSLOG_ACTION_READ_ALL */
	char *p, *last = NULL;

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	for (p = strstr(buf, marker); p; p = strstr(p + 1, marker))
		last = p;
	return last;
}

static int failslab(const char *file, const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), FAILSLAB "/%s", file);
	return write_file(path, value);
}

/*
 * Every allocation made inside ida_alloc_range() fails while the fault is
 * armed (failslab, with a stack-trace filter on ida_alloc_range).
 */
static int arm(unsigned long start, unsigned long end)
{
	char buf[32];
	int err = 0;

	snprintf(buf, sizeof(buf), "%lu", start);
	err = err ?: failslab("require-start", buf);
	snprintf(buf, sizeof(buf), "%lu", end);
	err = err ?: failslab("require-end", buf);
	err = err ?: failslab("stacktrace-depth", "32");
	err = err ?: failslab("ignore-gfp-wait", "N");
	err = err ?: failslab("verbose", "1");
	err = err ?: failslab("interval", "1");
	err = err ?: failslab("times", "-1");
	err = err ?: failslab("space", "0");
	err = err ?: failslab("task-filter", "N");
	err = err ?: failslab("cache-filter", "N");
	err = err ?: failslab("reject-start", "0");
	err = err ?: failslab("reject-end", "0");
	err = err ?: failslab("probability", "100");
	return err;
}

static int disarm(void)
{
	return failslab("probability", "0");
}

/*
 * When the IDA cannot get memory in sd's probe, the probe fails with its
 * message ("sd_probe: memory exhausted."), no disk appears and no name is
 * used up: once the fault is gone, the next disk gets the lowest free name.
 *
 * The IDA needs memory only when an ID does not fit the entry it has (the
 * first VALUE_IDS IDs need none), so VALUE_IDS disks are held first: the
 * next disk's index needs a bitmap.  The SCSI host number and the request
 * queue ID of a new disk come from IDAs too, and would need their first
 * bitmap at the same time; VALUE_IDS + 1 CD-ROMs, which get both but no sd
 * name, are added before the disks so that those two IDAs have theirs.
 * The filter covers every IDA, so any other allocation of an ID that needs
 * memory in that moment fails too: only sd's message is looked for.
 * scsi_debug removes the host added last first (add_host=-1): the one whose
 * probe failed.
 */
static void probe_fails_on_enomem(void)
{
	static char log[1 << 20];
	const char *marker = "# sd: fault armed";
	char got[NAME_LEN], want[NAME_LEN], id[256] = "", message[320];
	unsigned long start = 0, end = 0;
	struct stat st;
	int i, n, err;
	char *since;

	if (stat(FAILSLAB "/require-start", &st)) {
		expect(0, "no %s: needs CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS and %s",
		       FAILSLAB "/require-start", "CONFIG_FAULT_INJECTION_STACKTRACE_FILTER");
		end_case("probe_fails_on_enomem");
		return;
	}
	err = symbol_range("ida_alloc_range", &start, &end);
	if (err) {
		expect(0, "ida_alloc_range in /proc/kallsyms: %s", strerror(-err));
		end_case("probe_fails_on_enomem");
		return;
	}
	/*
	 * scsi_debug answers INQUIRY with the ptype of the moment: the scan,
	 * synchronous without SCSI_SCAN_ASYNC, is over when add_host returns.
	 */
	err = write_int(SDEBUG "/ptype", TYPE_ROM);
	for (i = 0; !err && i < VALUE_IDS + 1; i++)
		err = write_int(SDEBUG "/add_host", 1);
	expect(!err, "adding the CD-ROMs: %s", strerror(-err));
	n = scsi_devices(TYPE_ROM, false, NULL, 0);
	expect(n == VALUE_IDS + 1, "%d CD-ROMs, expected %d", n, VALUE_IDS + 1);
	err = write_int(SDEBUG "/ptype", TYPE_DISK);
	expect(!err, "setting ptype back: %s", strerror(-err));
	for (i = 0; !case_failed && i < VALUE_IDS; i++) {
		disk_name(i, want);
		err = add_disk(got);
		expect(!err && !strcmp(got, want), "held disk %d is '%s' (%s), expected %s", i + 1,
		       got, strerror(-err), want);
	}
	if (case_failed)
		goto out;
	out("    # sd: fault armed on ida_alloc_range (%#lx-%#lx)", start, end);
	err = arm(start, end);
	expect(!err, "arming failslab: %s", strerror(-err));
	if (!err) {
		/* The disk's host and device come, sd's probe of it fails. */
		err = write_int(SDEBUG "/add_host", 1);
		expect(!err, "adding a host with the fault armed: %s", strerror(-err));
		for (i = 0; i < WAIT_MS / 10; i++) {
			if (scsi_devices(TYPE_DISK, true, id, sizeof(id)) == 1)
				break;
			usleep(10000);
		}
		expect(i < WAIT_MS / 10, "no disk device without a driver after the failed probe");
		snprintf(message, sizeof(message), "sd %s: sd_probe: memory exhausted.", id);
		for (i = 0; !case_failed && i < WAIT_MS / 10; i++) {
			since = log_since(marker, log, sizeof(log));
			if (since && strstr(since, message))
				break;
			usleep(10000);
		}
		expect(case_failed || i < WAIT_MS / 10, "no \"%s\" in the kernel log", message);
	}
	err = disarm();
	expect(!err, "disarming failslab: %s", strerror(-err));
	expect(count_disks() == VALUE_IDS, "%d disks after the failed probe, expected %d",
	       count_disks(), VALUE_IDS);
	/*
	 * Its host goes (the last added); the next disk takes the name the
	 * failed one did not.
	 */
	err = write_int(SDEBUG "/add_host", -1);
	expect(!err, "removing the host of the failed probe: %s", strerror(-err));
	disk_name(VALUE_IDS, want);
	err = add_disk(got);
	expect(!err && !strcmp(got, want), "first disk after the fault is '%s' (%s), expected %s",
	       got, strerror(-err), want);
out:
	disarm();
	write_int(SDEBUG "/ptype", TYPE_DISK);
	err = remove_all();
	expect(!err, "removing every host: %s", strerror(-err));
	end_case("probe_fails_on_enomem");
}

int main(void)
{
	const char *missing = NULL;
	struct stat st;

	mount_sys_proc();
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (stat(SDEBUG "/add_host", &st))
		missing = "no " SDEBUG "/add_host: needs CONFIG_SCSI_DEBUG and CONFIG_BLK_DEV_SD";
	if (!start_suite(5, missing))
		return 0;
	sequential_names();
	lowest_free_name();
	restart_at_sda();
	add_remove_cycles();
	probe_fails_on_enomem();
	if (remove_all() || count_disks()) {
		out("    # sd: disks left after the last case");
		suite_failed = true;
	}
	end_suite();
	return 0;
}
