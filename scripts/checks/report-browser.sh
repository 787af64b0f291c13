#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The HTML report in a real browser: headless Chromium loads
# RESULTS/index.html from the file system, and the rendered DOM must show
# every leg of the run (run.json) with the counts of its counts.json, the
# message of every failed case, and every check of checks/checks.txt; the
# console must show no error.  Saves a screenshot as
# RESULTS/report.png.
# Usage: report-browser.sh [RESULTS]   (default: $IDA_KUNIT_RESULTS)
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

results=$(abspath "${1:-$RESULTS}")
page=$results/index.html
[ -f "$page" ] || die "no report $page: run kunit/report.py html $results first"
"$REPO/scripts/install-deps.sh" browser || exit 1
browser=$(command -v chromium) || die "chromium is missing"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
flags=(--headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile"
       --enable-logging=stderr --v=0)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" >"$tmp/dom.html" 2>"$tmp/console.log" ||
	die "chromium could not load $page (see $tmp/console.log)"
timeout 120 "$browser" "${flags[@]}" --window-size=1280,1600 --screenshot="$results/report.png" \
	"file://$page" >/dev/null 2>>"$tmp/console.log" || die "chromium could not take a screenshot"
[ -s "$results/report.png" ] || die "no screenshot in $results/report.png"
python3 - "$tmp/dom.html" "$tmp/console.log" "$results" <<'PY'
import glob, html.parser, json, os, re, sys
dom, console, results = sys.argv[1:]

class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.legs, self.text = {}, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'tr' and 'data-leg' in a and 'data-passed' in a:
            self.legs[a['data-leg']] = (int(a['data-passed']), int(a['data-failed']), int(a['data-skipped']))
    def handle_data(self, data):
        self.text.append(data)

p = Rows()
p.feed(open(dom, encoding='utf-8').read())
text = ' '.join(p.text)
problems = []
# The legs of this run are those run.json names (a results folder keeps
# earlier runs' legs too); a run without KUnit legs (test-all.sh
# --no-kunit) still has its checks, and the page must show each of them.
try:
    run_legs = json.load(open(os.path.join(results, 'run.json'))).get('legs')
except (OSError, ValueError):
    run_legs = None
if isinstance(run_legs, list):
    legs = [os.path.join(results, n, 'counts.json') for n in run_legs]
else:
    legs = sorted(glob.glob(os.path.join(results, '*', 'counts.json')))
try:
    checks = [l.split()[0] for l in open(os.path.join(results, 'checks', 'checks.txt')) if l.strip()]
except OSError:
    checks = []
if not legs and not checks:
    problems.append('nothing in the results: no leg and no check')
for c in checks:
    if c not in text:
        problems.append(f'check {c} is not in the page')
for f in legs:
    if not os.path.isfile(f):
        problems.append(f'leg {os.path.basename(os.path.dirname(f))} of run.json has no counts.json')
        continue
    name = os.path.basename(os.path.dirname(f))
    c = json.load(open(f))
    want = (c['passed'], c['failed'], c['skipped'])
    if name not in p.legs:
        problems.append(f'leg {name} is not in the page')
    elif p.legs[name] != want:
        problems.append(f'leg {name}: the page shows {p.legs[name]}, counts.json says {want}')
    def failed_messages(group):
        for case in group.get('test_cases', []):
            if case.get('status') in ('FAIL', 'ERROR') and case.get('message'):
                yield case['message']
        for sub in group.get('sub_groups', []):
            yield from failed_messages(sub)
    try:
        tree = json.load(open(os.path.join(os.path.dirname(f), 'results.json'), encoding='utf-8'))
    except (OSError, ValueError):
        tree = {}
    for message in failed_messages(tree):
        msg = (message.strip().splitlines() or [""])[0][:60]
        if msg and msg not in text:
            problems.append(f'leg {name}: the failure "{msg}" is not shown')
errors = [l for l in open(console, encoding='utf-8', errors='replace')
          if re.search(r'CONSOLE|Uncaught|Failed to load resource', l)]
problems += [f'console: {l.strip()[:200]}' for l in errors]
for x in problems:
    print(f'error: {x}')
if problems:
    sys.exit(1)
print(f'report: {len(legs)} legs shown with their counts, {len(checks)} checks, no console error; '
      f'screenshot {results}/report.png')
PY
