// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi: the session indexes of the iSCSI target (LIO), which come from an
 * IDA (sess_ida in drivers/target/iscsi/iscsi_target.c, allocated for every
 * leading login, discovery ones included, and freed when the session or the
 * failed login ends), driven as an administrator and an initiator drive
 * them: the target set up by configfs writes only (a RAM disk backstore, one
 * target name, TPG 1 with one LUN, a portal on 127.0.0.1:3260 and two
 * initiator ACLs), and logins from Debian's libiscsi tools (iscsi-perf for a
 * session that stays, iscsi-inq for a login and a logout, iscsi-ls for a
 * discovery session), which the leg copies into the initramfs
 * ("# users-bin:").  A session's index is read from the target's statistics
 * of its ACL (fabric_statistics/iscsi_sess_stats/indx).  Run by the
 * leak-scan init (kunit/leak-scan) before its kmemleak scan.
 *
 * When an index is free again is not visible from userspace, so the
 * program waits for what the target does after it frees one, before it
 * logs in again:
 * - a session ends (logout, or a discovery session) in the receive thread
 *   of its connection ("iscsi_trx"), which exits only after the session is
 *   closed and its index freed;
 * - a failed login frees its index before it releases its socket, which
 *   then leaves the states ESTABLISHED and CLOSE_WAIT in /proc/net/tcp.
 * Both hold for the clean ends the cases make (a logout, a refused login):
 * a connection that fails in the target's transmit thread first, or a
 * socket reset with data unread, could end in another order.
 */
#define USERS_SUITE	"iscsi"

#include <dirent.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ktap.h"

#define CONFIGFS	"/sys/kernel/config"
#define TARGET		CONFIGFS "/target"
#define RAMDISK		TARGET "/core/rd_mcp_0/ram0"
#define IQN		"iqn.2026-12.org.example.ida-kunit"
#define TARGET_IQN	IQN ":target"
#define TPG		TARGET "/iscsi/" TARGET_IQN "/tpgt_1"
#define PORTAL		"127.0.0.1:3260"
#define PORT		3260
#define URL		"iscsi://" PORTAL "/" TARGET_IQN "/0"
/* Two initiators with an ACL, and one without. */
#define INITIATOR_A	IQN ":initiator-a"
#define INITIATOR_B	IQN ":initiator-b"
#define STRANGER	IQN ":stranger"
#define INITIATORS	2
#define WAIT_MS		60000
/*
 * All the cases together, well within the leg's boot limit even when every
 * wait would run out (about 45 s when they pass).
 */
#define SUITE_MS	240000
/*
 * The logins and logouts of the leak check: each starts a program, whose
 * login and logout take about a second in the debug leg's kernel under
 * QEMU without KVM.
 */
#define CYCLES		30
/* No session: unlike -errno, never the result of a failed read. */
#define NO_INDEX	INT_MIN

static const char *const initiators[INITIATORS] = { INITIATOR_A, INITIATOR_B };

/* When the suite's time is up: every wait then ends at once. */
static long suite_end;

/* The end of a wait that starts now: WAIT_MS, or what is left of SUITE_MS. */
static long wait_end(void)
{
	long end = now_ms() + WAIT_MS;

	return end < suite_end ? end : suite_end;
}

/* The iscsi-perf of each initiator whose session stays, or 0. */
static pid_t session_pid[INITIATORS];
static int live;

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

/*
 * The index of the session of the ACL of initiator @i; NO_INDEX when it has
 * none; -errno when the file cannot be read.
 */
static int session_index(int i)
{
	char path[256], buf[32];
	int n;

	snprintf(path, sizeof(path), "%s/acls/%s/fabric_statistics/iscsi_sess_stats/indx",
		 TPG, initiators[i]);
	n = read_text(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return n ? atoi(buf) : NO_INDEX;
}

/* The kernel threads called @comm. */
static int count_threads(const char *comm)
{
	char path[64], buf[32];
	struct dirent *e;
	DIR *d = opendir("/proc");
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/comm", e->d_name);
		if (read_text(path, buf, sizeof(buf)) > 0 && !strcmp(buf, comm))
			n++;
	}
	closedir(d);
	return n;
}

/*
 * The target's TCP connections whose socket it still holds: local port
 * PORT, ESTABLISHED (01), SYN_RECV (03) or CLOSE_WAIT (08).
 */
static int held_sockets(void)
{
	char line[256];
	unsigned int port, state;
	FILE *f = fopen("/proc/net/tcp", "r");
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*u: %*x:%x %*x:%*x %x", &port, &state) == 2 &&
		    port == PORT && (state == 0x01 || state == 0x03 || state == 0x08))
			n++;
	fclose(f);
	return n;
}

/*
 * Wait until the target holds nothing beyond the @live sessions: no other
 * receive thread, no other socket.  Whether it came to that.
 */
static bool settled(void)
{
	long end = wait_end();

	do {
		if (count_threads("iscsi_trx") == live && held_sockets() == live)
			return true;
		usleep(20000);
	} while (now_ms() < end);
	out("    # iscsi: %d receive threads and %d sockets, %d sessions",
	    count_threads("iscsi_trx"), held_sockets(), live);
	return false;
}

/*
 * Start @argv with stdout and stderr to @output (or /dev/null): its pid, or
 * -errno.
 */
static pid_t start(const char *const argv[], const char *output)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open(output ? output : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		execve(argv[0], (char *const *)argv, envp);
		_exit(127);
	}
	return pid;
}

/*
 * Wait for the child @pid until wait_end(), after which it is killed:
 * its wait status in @status, or -errno (-ETIMEDOUT).
 */
static int reap(pid_t pid, int *status)
{
	long end = wait_end();
	pid_t got;

	do {
		got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return 0;
		if (got < 0)
			return -errno;
		usleep(20000);
	} while (now_ms() < end);
	kill(pid, SIGCONT);
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -ETIMEDOUT;
}

/*
 * Run @argv to its end: its exit status (127 when it could not be
 * started), 128 + a signal, or -errno.
 */
static int run(const char *const argv[], const char *output)
{
	int status, err;
	pid_t pid = start(argv, output);

	if (pid < 0)
		return pid;
	err = reap(pid, &status);
	if (err) {
		out("    # iscsi: %s did not end in time", argv[0]);
		return err;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Whether the process @pid catches SIGTERM (SigCgt of its status): iscsi-perf
 * sets its handler once logged in, after its first command.
 */
static bool catches_sigterm(pid_t pid)
{
	char path[64], line[128];
	unsigned long long mask;
	bool caught = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			caught = mask & (1ULL << (SIGTERM - 1));
	fclose(f);
	return caught;
}

/*
 * A session of initiator @i that stays: iscsi-perf logs in and reads LUN 0
 * until SIGTERM, when it logs out.  Once the target shows the session and
 * iscsi-perf catches SIGTERM, the program is stopped (SIGSTOP), so that its
 * reads do not take the CPUs; the target sends its ACL no NOP-In, which a
 * stopped initiator would not answer.  Its index, or -errno.
 */
static int log_in(int i)
{
	const char *const argv[] = { "/usr/bin/iscsi-perf", "-i", initiators[i],
				     "-m", "1", "-b", "1", URL, NULL };
	long end = wait_end();
	pid_t pid;
	int idx, status;

	pid = start(argv, NULL);
	if (pid < 0)
		return pid;
	session_pid[i] = pid;
	live++;
	do {
		idx = session_index(i);
		if (idx >= 0 && catches_sigterm(pid)) {
			kill(pid, SIGSTOP);
			return idx;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			session_pid[i] = 0;
			live--;
			out("    # iscsi: iscsi-perf -i %s ended without a session (status %#x)",
			    initiators[i], status);
			return -ECONNREFUSED;
		}
		usleep(20000);
	} while (now_ms() < end);
	return -ETIMEDOUT;
}

/*
 * Log the session of initiator @i out (SIGCONT, then SIGTERM: iscsi-perf
 * logs out), and wait until the target has ended it.  0, or -errno.
 */
static int log_out(int i)
{
	pid_t pid = session_pid[i];
	int status, err = 0;

	if (!pid)
		return 0;
	kill(pid, SIGCONT);
	kill(pid, SIGTERM);
	err = reap(pid, &status);
	if (err) {
		out("    # iscsi: iscsi-perf -i %s did not log out in time", initiators[i]);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		out("    # iscsi: iscsi-perf -i %s did not log out: wait status %#x",
		    initiators[i], status);
		err = -EPROTO;
	}
	session_pid[i] = 0;
	live--;
	if (!settled())
		return -ETIMEDOUT;
	return err;
}

static void log_out_all(void)
{
	int i;

	for (i = 0; i < INITIATORS; i++)
		log_out(i);
}

/*
 * Two initiators logged in at once have two sessions, with two indexes: the
 * lowest free, since the target allocates them from an IDA.
 */
static void distinct_indexes(void)
{
	int a, b;

	a = log_in(0);
	b = log_in(1);
	expect(a >= 0, "no session of %s: %s", INITIATOR_A, strerror(-a));
	expect(b >= 0, "no session of %s: %s", INITIATOR_B, strerror(-b));
	expect(a < 0 || b < 0 || a != b, "both sessions have the index %d", a);
	expect(a < 0 || b < 0 || (a == 0 && b == 1),
	       "the first two sessions have the indexes %d and %d, expected 0 and 1", a, b);
	log_out_all();
	end_case("two_sessions_distinct_indexes");
}

/*
 * A session logs out and a new one logs in: it takes the freed index, the
 * lowest free, while the other session keeps its own.
 */
static void logout_index_reused(void)
{
	int a, b, again, other, err, cycle;

	a = log_in(0);
	b = log_in(1);
	expect(a >= 0 && b >= 0, "sessions: %d and %d", a, b);
	for (cycle = 0; cycle < 3 && !case_failed; cycle++) {
		err = log_out(0);
		expect(!err, "logout of %s: %s", INITIATOR_A, strerror(-err));
		again = session_index(0);
		expect(again == NO_INDEX, "%s still has a session (%d) after its logout",
		       INITIATOR_A, again);
		again = log_in(0);
		expect(again == a, "after the logout of index %d, the new session has %d", a,
		       again);
		other = session_index(1);
		expect(other == b, "the other session's index is %d, was %d", other, b);
	}
	log_out_all();
	end_case("logout_index_reused");
}

/* A free index (the hole) below the index of a session that stays. */
struct hole {
	int free, held;
};

/*
 * A and B log in (B's index above A's, both the lowest free), then A logs
 * out: its index is the hole, B's the held one.  Only the first case pins
 * the indexes themselves, so that a case sees its own failure, not the
 * indexes an earlier case kept.
 */
static struct hole hole_below(void)
{
	struct hole h;
	int err;

	h.free = log_in(0);
	h.held = log_in(1);
	expect(h.free >= 0 && h.held > h.free,
	       "two sessions in turn have the indexes %d and %d, expected the second above the first",
	       h.free, h.held);
	err = log_out(0);
	expect(!err, "logout of %s: %s", INITIATOR_A, strerror(-err));
	return h;
}

/*
 * What a case did took the index of the hole and gave it back: the next
 * session takes it again, the lowest free, and the held one keeps its own.
 */
static void hole_free_again(const char *what, struct hole h)
{
	int next = log_in(0), held = session_index(1);

	expect(next == h.free, "after %s, a new session has the index %d, expected %d (%d is held)",
	       what, next, h.free, h.held);
	expect(held == h.held, "the held session's index is %d, was %d", held, h.held);
	log_out_all();
}

/*
 * A discovery session (iscsi-ls: SendTargets) takes an index like any
 * leading login, and gives it back when it ends.
 */
static void discovery_returns_index(void)
{
	static const char *const argv[] = { "/usr/bin/iscsi-ls", "-i", INITIATOR_A,
					    "iscsi://" PORTAL, NULL };
	struct hole h = hole_below();
	char listing[1024];
	int rc;

	rc = run(argv, "/tmp/iscsi-ls.out");
	read_text("/tmp/iscsi-ls.out", listing, sizeof(listing));
	expect(rc == 0, "iscsi-ls exited %d: %s", rc, listing);
	expect(strstr(listing, TARGET_IQN), "no %s in iscsi-ls's list: %s", TARGET_IQN, listing);
	expect(settled(), "the discovery session did not end");
	hole_free_again("a discovery session", h);
	end_case("discovery_returns_index");
}

/*
 * A login the target refuses (an initiator with no ACL) took an index when
 * it started, and gives it back.  The target counts the failure before it
 * releases the connection, so the count is read once it has.
 */
static void failed_login_returns_index(void)
{
	static const char *const argv[] = { "/usr/bin/iscsi-inq", "-i", STRANGER, URL, NULL };
	const char *stats = TARGET "/iscsi/" TARGET_IQN "/fabric_statistics/iscsi_tgt_attr";
	struct hole h = hole_below();
	char path[256], before[32], after[32];
	int rc, attempt;

	snprintf(path, sizeof(path), "%s/login_fails", stats);
	read_text(path, before, sizeof(before));
	for (attempt = 0; attempt < 3; attempt++) {
		rc = run(argv, NULL);
		expect(rc > 0 && rc != 127 && rc < 128,
		       "the login of %s, which has no ACL, ended with %d", STRANGER, rc);
		expect(settled(), "the failed login's connection did not end");
	}
	read_text(path, after, sizeof(after));
	expect(atoi(after) - atoi(before) >= 3,
	       "the target counted %d failed logins, expected at least 3 (%s, then %s)",
	       atoi(after) - atoi(before), before, after);
	hole_free_again("three failed logins", h);
	end_case("failed_login_returns_index");
}

/*
 * Many logins and logouts (iscsi-inq: log in, INQUIRY, log out), one after
 * the other's end, each taking the hole's index and giving it back; the
 * leak-scan init's kmemleak scan then finds nothing left of them.
 */
static void login_logout_cycles(void)
{
	static const char *const argv[] = { "/usr/bin/iscsi-inq", "-i", INITIATOR_A, URL, NULL };
	struct hole h = hole_below();
	char what[64];
	int i, rc;

	for (i = 0; i < CYCLES; i++) {
		rc = run(argv, NULL);
		if (rc || !settled()) {
			expect(false, "login %d of %s: iscsi-inq exited %d, or the session stayed",
			       i + 1, INITIATOR_A, rc);
			break;
		}
	}
	snprintf(what, sizeof(what), "%d logins and logouts", CYCLES);
	hole_free_again(what, h);
	end_case("login_logout_cycles");
}

/* The loopback device up (it gets 127.0.0.1 then). */
static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0), err = 0;

	if (s < 0)
		return -errno;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		err = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!err && ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		err = -errno;
	close(s);
	return err;
}

/* The first step of the set-up that failed, and its error. */
static const char *failed_step;
static int failed_err;

static void step(const char *what, int err)
{
	if (err && !failed_step) {
		failed_step = what;
		failed_err = err;
	}
}

static int link_to(const char *target, const char *path)
{
	return symlink(target, path) ? -errno : 0;
}

/*
 * The target, by configfs writes only, as targetcli would write them: a
 * step after one that failed fails too, and only the first is named.  What
 * went wrong, or NULL.
 */
static const char *set_up(void)
{
	static char why[256];
	char acl[192], path[256];
	int i;

	step("loopback up", loopback_up());
	step("mount configfs", mount("configfs", CONFIGFS, "configfs", 0, NULL) ? -errno : 0);
	step("mkdir target", make_dir(TARGET));
	step("mkdir rd_mcp_0", make_dir(TARGET "/core/rd_mcp_0"));
	step("mkdir ram0", make_dir(RAMDISK));
	step("ram0 control", write_file(RAMDISK "/control", "rd_pages=256"));
	step("ram0 enable", write_file(RAMDISK "/enable", "1"));
	step("mkdir iscsi", make_dir(TARGET "/iscsi"));
	step("mkdir target name", make_dir(TARGET "/iscsi/" TARGET_IQN));
	step("mkdir tpgt_1", make_dir(TPG));
	step("mkdir lun_0", make_dir(TPG "/lun/lun_0"));
	step("link lun_0", link_to(RAMDISK, TPG "/lun/lun_0/ram0"));
	step("mkdir portal", make_dir(TPG "/np/" PORTAL));
	step("no authentication", write_file(TPG "/attrib/authentication", "0"));
	for (i = 0; i < INITIATORS; i++) {
		snprintf(acl, sizeof(acl), "%s/acls/%s", TPG, initiators[i]);
		step("mkdir acl", make_dir(acl));
		snprintf(path, sizeof(path), "%s/lun_0", acl);
		step("mkdir mapped lun", make_dir(path));
		snprintf(path, sizeof(path), "%s/lun_0/lun", acl);
		step("link mapped lun", link_to(TPG "/lun/lun_0", path));
		snprintf(path, sizeof(path), "%s/attrib/nopin_timeout", acl);
		step("no NOP-In", write_file(path, "0"));
	}
	step("enable tpgt_1", write_file(TPG "/enable", "1"));
	if (!failed_step)
		return NULL;
	snprintf(why, sizeof(why), "setting the target up: %s: %s", failed_step,
		 strerror(-failed_err));
	return why;
}

int main(void)
{
	const char *missing = NULL;

	mount_sys_proc();
	mkdir("/tmp", 01777);
	if (!exists(CONFIGFS))
		missing = "no " CONFIGFS ": needs CONFIG_CONFIGFS_FS and CONFIG_ISCSI_TARGET";
	else if (!exists("/usr/bin/iscsi-perf"))
		missing = "no /usr/bin/iscsi-perf: '# users-bin:' copies libiscsi's tools";
	else
		missing = set_up();
	if (!start_suite(5, missing))
		return 0;
	suite_end = now_ms() + SUITE_MS;
	distinct_indexes();
	logout_index_reused();
	discovery_returns_index();
	failed_login_returns_index();
	login_logout_cycles();
	log_out_all();
	if (!settled()) {
		out("    # iscsi: sessions left after the last case");
		suite_failed = true;
	}
	end_suite();
	return 0;
}
