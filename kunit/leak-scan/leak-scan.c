// SPDX-License-Identifier: GPL-2.0
/*
 * init of the leak-scan initramfs (scripts/run-kunit.sh, a leg whose
 * kunitconfig says "# leak-scan: kmemleak").  The kernel runs it once the
 * built-in KUnit suites are done: it has kmemleak scan memory, copies every
 * report to the console with a "leak-scan: " prefix, ends with one summary
 * line that kunit/results.py reads, and restarts the machine (which QEMU,
 * run by kunit.py with -no-reboot, turns into an exit: not every machine
 * can power off).
 *
 * Before the scan, in the boot whose command line gives it
 * ida_kunit_users=1 (which the kernel hands to init as an environment
 * variable), it runs every program in /users, in the order of their names:
 * the IDA's users driven from userspace (kunit/users), so that the scan
 * also sees what they left behind.
 *
 * kmemleak reports an object only once it is older than 5 seconds and
 * unreferenced in two scans, so it waits, then scans twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KMEMLEAK "/debug/kmemleak"

static int console = 2;

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(console, buf, n) < 0)
		return;
}

static int kmemleak_command(const char *cmd)
{
	int fd = open(KMEMLEAK, O_WRONLY);
	int ok;

	if (fd < 0)
		return -errno;
	ok = write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd);
	close(fd);
	return ok ? 0 : -EIO;
}

/* Copy kmemleak's report to the console; the number of objects it lists. */
static int report(void)
{
	static char text[1 << 20];
	size_t len = 0;
	int fd, objects = 0;
	ssize_t n;
	char *line, *next;

	fd = open(KMEMLEAK, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (len < sizeof(text) - 1 &&
	       (n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += n;
	close(fd);
	text[len] = '\0';
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (strstr(line, "unreferenced object"))
			objects++;
		say("leak-scan: %s", line);
	}
	return objects;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int program(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Run each program of /users; a line for any that did not exit 0. */
static void run_users(void)
{
	struct dirent **names;
	char path[300];
	int n, i, status;
	pid_t pid;

	n = scandir("/users", &names, program, by_name);
	if (n < 0) {
		say("leak-scan: error: cannot read /users: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/users/%s", names[i]->d_name);
		pid = fork();
		if (pid == 0) {
			execl(path, path, (char *)NULL);
			say("leak-scan: error: cannot run %s: %s", path, strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			say("leak-scan: error: cannot run %s: %s", path, strerror(errno));
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			say("leak-scan: error: %s ended with status %#x", path, status);
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	const char *users = getenv("ida_kunit_users");
	int err, objects;

	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) == 0) {
		int fd = open("/dev/console", O_WRONLY);

		if (fd >= 0)
			console = fd;
	}
	mkdir("/debug", 0755);
	if (mount("debugfs", "/debug", "debugfs", 0, NULL)) {
		say("leak-scan: error: cannot mount debugfs: %s", strerror(errno));
		goto out;
	}
	if (users && !strcmp(users, "1"))
		run_users();
	sleep(6);
	err = kmemleak_command("scan");
	if (!err) {
		sleep(1);
		err = kmemleak_command("scan");
	}
	if (err) {
		say("leak-scan: error: cannot scan with kmemleak: %s", strerror(-err));
		goto out;
	}
	objects = report();
	if (objects < 0)
		say("leak-scan: error: cannot read %s: %s", KMEMLEAK, strerror(-objects));
	else
		say("leak-scan: kmemleak done: %d unreferenced objects", objects);
out:
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
