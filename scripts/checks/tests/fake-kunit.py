#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A stand-in for tools/testing/kunit/kunit.py, for scripts/checks/test-scripts.sh.
# Every call is recorded in the build folder's calls.log, and with all its
# arguments in calls.jsonl (for a boot from a folder whose .config links to
# a build's, in that build's); "config" writes a
# .config from the kunitconfigs, "build" makes a vmlinux (or fails if
# FAKE_KUNIT_BUILD_FAIL is set), "exec" prints the log in FAKE_KUNIT_LOG or,
# without it, a passing KTAP run of one case per suite the kunitconfigs name
# in their "# suites:" lines; with --qemu_args=-S (a QEMU whose CPUs never
# start) it prints nothing until --timeout has passed.  The boot of the slow
# cases (--filter "speed<=slow") prints FAKE_KUNIT_SLOW_LOG, or one slow case
# per suite.  A boot whose QEMU config runs the leak-scan init ends with
# that init's line for a scan that found nothing, after, in the boot given
# ida_kunit_users=1, a passing suite of one case for each program of the
# kunitconfigs' "# users:" lines, as kunit/users print theirs (none with
# FAKE_KUNIT_NO_USERS set, as when a program did not run).  A boot's output also goes
# to test.log in the folder it was given, as kunit.py's does.
# Like a kernel, a build's vmlinux holds a "Linux version" banner of that
# build (#N: the builds made in the folder), and a boot prints the banner
# of the vmlinux it boots first (FAKE_KUNIT_BOOT_BANNER: another one, as a
# stale boot image would); the logs it prints lose their own banner.
# FAKE_KUNIT_SLOW_LOG=none: the slow boot prints no test at all.  A build of
# a tree that holds checks/fresh-boot.sh's edit of lib/idr.c says so in its
# vmlinux, and a boot of it prints fail.log (beside this file).
import atexit
import datetime
import json
import os
import re
import sys
import time

def edited() -> bool:
	"""Whether the tree (the current folder, as kunit.py runs) holds
	checks/fresh-boot.sh's edit of lib/idr.c."""
	try:
		with open('lib/idr.c') as f:
			return '(int)max <= 0' in f.read()
	except OSError:
		return False


cmd = sys.argv[1]
args = sys.argv[2:]
build = args[args.index('--build_dir') + 1]
kunitconfigs = [args[i + 1] for i, a in enumerate(args) if a == '--kunitconfig']
slow = cmd == 'exec' and '--filter' in args and args[args.index('--filter') + 1] == 'speed<=slow'
os.makedirs(build, exist_ok=True)
record = os.path.dirname(os.path.realpath(os.path.join(build, '.config')))
with open(os.path.join(record, 'calls.log'), 'a') as f:
	f.write(('exec-slow' if slow else cmd) + '\n')
with open(os.path.join(record, 'calls.jsonl'), 'a') as f:
	f.write(json.dumps(sys.argv[1:]) + '\n')
if cmd == 'config':
	with open(os.path.join(build, '.config'), 'w') as out:
		for k in kunitconfigs:
			with open(k) as f:
				out.write(f.read())
elif cmd == 'build':
	if os.environ.get('FAKE_KUNIT_BUILD_FAIL'):
		print('lib/idr.c:1:1: error: fake build failure')
		sys.exit(1)
	counter = os.path.join(build, '.fake-build-number')
	try:
		with open(counter) as f:
			number = int(f.read()) + 1
	except (OSError, ValueError):
		number = 1
	with open(counter, 'w') as f:
		f.write(f'{number}\n')
	with open(os.path.join(build, 'vmlinux'), 'w') as f:
		f.write(f'Linux version 6.12-standin (fake@build) (fake-gcc) #{number} SMP '
			f'{datetime.datetime.now().ctime()}\n')
		if edited():
			f.write('idr: edited\n')
elif cmd == 'exec':
	test_log = open(os.path.join(build, 'test.log'), 'w')
	atexit.register(test_log.close)

	def emit(*line: object) -> None:	# the boot's output, on stdout and in test.log
		text = ' '.join(str(w) for w in line) + '\n'
		sys.stdout.write(text)
		test_log.write(text)

	def emit_log(path: str) -> None:	# a recorded log, without its banner
		with open(path) as f:
			emit(''.join(line for line in f if 'Linux version ' not in line).rstrip('\n'))

	banner = os.environ.get('FAKE_KUNIT_BOOT_BANNER')
	try:
		with open(os.path.join(build, 'vmlinux')) as f:
			image = f.read()
	except OSError:
		image = ''
	if not banner:
		m = re.search(r'Linux version [^\n]*', image)
		banner = m.group(0) if m else ''
	if 'idr: edited' in image:
		# A kernel built from the edit fails a case, as the suite must.
		os.environ['FAKE_KUNIT_LOG'] = os.path.join(os.path.dirname(os.path.realpath(__file__)), 'fail.log')
	if banner:
		emit(banner)
	# What a kernel with QEMU's two vCPUs says (run-kunit.sh checks it).
	emit('smp: Brought up 1 node, 2 CPUs')
	qemu_config = args[args.index('--qemu_config') + 1] if '--qemu_config' in args else ''
	if qemu_config and 'rdinit=/leak-scan' in open(qemu_config).read():
		atexit.register(emit, 'leak-scan: kmemleak done: 0 unreferenced objects')
		# The boot whose init runs the users' programs (kunit/users) prints
		# a passing suite of one case for each, as they print theirs.
		if 'ida_kunit_users=1' in args and not os.environ.get('FAKE_KUNIT_NO_USERS'):
			users: list[str] = []
			for k in kunitconfigs:
				with open(k) as f:
					users += [w for line in f if line.startswith('# users:') for w in line.split(':', 1)[1].split()]
			for user in reversed(users):
				for text in reversed(['KTAP version 1', '1..1', '    KTAP version 1', f'    # Subtest: {user}',
						      '    1..1', f'    ok 1 {user}_fake_case', f'ok 1 {user}']):
					atexit.register(emit, f'users-{user}: {text}')
	if '--qemu_args=-S' in args:
		time.sleep(float(args[args.index('--timeout') + 1]) + 1)
		emit('[fake] QEMU timed out after the limit')
		sys.exit(1)
	slow_log = os.environ.get('FAKE_KUNIT_SLOW_LOG')
	if slow and slow_log == 'none':
		emit('KTAP version 1')
		emit('1..0')
		sys.exit(0)
	if slow and slow_log:
		emit_log(slow_log)
		sys.exit(0)
	if not slow and os.environ.get('FAKE_KUNIT_LOG'):
		emit_log(os.environ['FAKE_KUNIT_LOG'])
		sys.exit(0)
	suites: list[str] = []
	for k in kunitconfigs:
		with open(k) as f:
			for line in f:
				if line.startswith('# suites:'):
					suites += line.split(':', 1)[1].split()
	emit('KTAP version 1')
	emit(f'1..{len(suites)}')
	for n, suite in enumerate(suites, 1):
		emit('    KTAP version 1')
		emit(f'    # Subtest: {suite}')
		emit('    1..1')
		emit(f'    ok 1 {suite}_fake_{"slow_" if slow else ""}case')
		emit(f'ok {n} {suite}')
