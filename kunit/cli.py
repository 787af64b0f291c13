# SPDX-License-Identifier: GPL-2.0
"""What every command-line program of the repository shares: a bad command
line, and an input it cannot use, each as one "error:" line."""

import argparse
import json
import sys
from typing import Callable, NoReturn, Tuple, Type


class ArgumentParser(argparse.ArgumentParser):
	"""argparse with a bad command line as one "error:" line (exit 2)."""

	def error(self, message: str) -> NoReturn:
		self.exit(2, f'error: {message} (see {self.prog} --help)\n')


def os_error(e: OSError) -> str:
	"""The "error:" line of a file that cannot be read or written."""
	return f'error: {e.filename + ": " if e.filename else ""}{e.strerror or e}'


class InputError(Exception):
	"""An input that cannot be used; the message is the "error:" line."""


def load_json(path: str) -> object:
	"""What the JSON file PATH holds; InputError when it is not JSON."""
	try:
		with open(path, encoding='utf-8') as f:
			value: object = json.load(f)
	except ValueError as e:
		raise InputError(f'{path}: not JSON ({e})') from e
	return value


def run(work: Callable[[], int], known: Tuple[Type[Exception], ...] = ()) -> int:
	"""WORK's exit code; or, when it raises an OSError or an exception of
	KNOWN or an InputError (whose message is the error), that error on one
	line and 1."""
	try:
		return work()
	except OSError as e:
		print(os_error(e), file=sys.stderr)
	except InputError as e:
		print(f'error: {e}', file=sys.stderr)
	except known as e:
		print(f'error: {e}', file=sys.stderr)
	return 1
