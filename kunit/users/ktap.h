/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every program of kunit/users shares: its KTAP output, each line
 * written to /dev/kmsg with a "users-<suite>: " prefix (scripts/run-kunit.sh
 * takes those lines out of the kernel log for kunit/results.py), the
 * expectations of its cases, and the small file helpers they use.
 *
 * A program defines USERS_SUITE, its suite's name, before including this.
 */
#ifndef USERS_KTAP_H
#define USERS_KTAP_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef USERS_SUITE
#error "define USERS_SUITE, the suite's name, before including ktap.h"
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int kmsg = -1;
static int case_nr;
static bool case_failed, suite_failed;

/*
 * One line of output, to the kernel log (or stderr, without /dev/kmsg).
 * Line breaks in what it prints (a program's output) become spaces: the
 * console would print what follows one without the "users-SUITE: " prefix
 * by which run-kunit.sh finds the program's lines.
 */
static inline void out(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int start, n, i;

	n = snprintf(buf, sizeof(buf), "users-%s: ", USERS_SUITE);
	start = n;
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	for (i = start; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = ' ';
	buf[n++] = '\n';
	if (write(kmsg < 0 ? 2 : kmsg, buf, n) < 0 && write(2, buf, n) < 0)
		return;
}

/* A failed expectation: a diagnostic line, and the case fails. */
#define expect(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		out("    # %s:%d: " fmt, __func__, __LINE__,		\
		    ##__VA_ARGS__);					\
		case_failed = true;					\
	}								\
} while (0)

static inline void end_case(const char *name)
{
	const char *result = "ok";

	if (case_failed)
		result = "not ok";
	out("    %s %d %s", result, ++case_nr, name);
	suite_failed |= case_failed;
	case_failed = false;
}

/*
 * sysfs and procfs, which the init of the initramfs leaves to the
 * programs (a program that runs after another finds them there).
 */
static inline void mount_sys_proc(void)
{
	mkdir("/sys", 0755);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
}

/*
 * The suite's header and plan; with @missing (what the kernel lacks that
 * the suite needs) a suite with no case that fails, since a leg runs a
 * program only when it asked for it: nothing skips.  Whether to go on.
 */
static inline bool start_suite(int cases, const char *missing)
{
	kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	out("KTAP version 1");
	out("1..1");
	out("    KTAP version 1");
	out("    # Subtest: %s", USERS_SUITE);
	if (missing) {
		out("    # %s: %s", USERS_SUITE, missing);
		out("    1..0");
		out("not ok 1 %s", USERS_SUITE);
		return false;
	}
	out("    1..%d", cases);
	return true;
}

static inline void end_suite(void)
{
	out("%sok 1 %s", suite_failed ? "not " : "", USERS_SUITE);
}

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write @text to the file @path: 0, or -errno. */
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static inline int write_int(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return write_file(path, buf);
}

/*
 * The text of the file @path, its trailing newline cut, in @buf: its
 * length, or -errno.
 */
static inline int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

#endif /* USERS_KTAP_H */
