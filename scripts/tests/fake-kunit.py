#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A stand-in for tools/testing/kunit/kunit.py, for scripts/test-scripts.sh.
# Every call is recorded in the build folder's calls.log; "config" writes a
# .config from the kunitconfigs, "build" makes a vmlinux (or fails if
# FAKE_KUNIT_BUILD_FAIL is set), "exec" prints the log in FAKE_KUNIT_LOG.
import os
import sys

cmd = sys.argv[1]
args = sys.argv[2:]
build = args[args.index('--build_dir') + 1]
os.makedirs(build, exist_ok=True)
with open(os.path.join(build, 'calls.log'), 'a') as f:
	f.write(cmd + '\n')
if cmd == 'config':
	with open(os.path.join(build, '.config'), 'w') as out:
		for i, a in enumerate(args):
			if a == '--kunitconfig':
				with open(args[i + 1]) as k:
					out.write(k.read())
elif cmd == 'build':
	if os.environ.get('FAKE_KUNIT_BUILD_FAIL'):
		print('lib/idr.c:1:1: error: fake build failure')
		sys.exit(1)
	open(os.path.join(build, 'vmlinux'), 'w').close()
elif cmd == 'exec':
	with open(os.environ['FAKE_KUNIT_LOG']) as f:
		sys.stdout.write(f.read())
