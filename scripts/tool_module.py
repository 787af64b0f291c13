# SPDX-License-Identifier: GPL-2.0
"""The programs of scripts/tools/ as modules, for their unit tests: their
file names (cover-letter.py, ci-job.py) are not module names."""

import importlib.util
import os
from types import ModuleType

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tools')


def load_tool(file_name: str, module_name: str) -> ModuleType:
	"""scripts/tools/FILE_NAME, loaded as the module MODULE_NAME."""
	spec = importlib.util.spec_from_file_location(module_name, os.path.join(TOOLS, file_name))
	assert spec and spec.loader
	module = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(module)
	return module
