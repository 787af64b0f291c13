#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reports of a run of scripts/test-all.sh, made from its results folder.

  report.py kcidb RESULTS [--out FILE]   KernelCI's kcidb submission (schema v5):
                                         RESULTS/kcidb.json by default
  report.py summary LEG_DIR|RESULTS      Markdown for $GITHUB_STEP_SUMMARY: one
                                         leg's counts, times, failed and
                                         skipped cases, the start of a failure;
                                         or, for RESULTS, the checks
  report.py html RESULTS                 RESULTS/index.html, after appending
                                         this run to RESULTS/history.jsonl
  report.py all RESULTS                  kcidb and html
  report.py arches RESULTS [LEG...]      Markdown table, one row per leg: word
                                         size, byte order, vCPUs and CPUs up,
                                         cases passed/skipped/failed, times
  report.py line LEG_DIR                 the same for one leg, on one line

A leg is a folder of RESULTS with a counts.json (written by results.py); the
other checks come from RESULTS/checks/checks.txt, the run from run.json and
times.json (written by scripts/test-all.sh).  Only the standard library is
used, and the HTML needs nothing but the file itself.
"""

import datetime
import glob
import html
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

ORIGIN = 'ida_kunit'
STATUS = {'passed': 'PASS', 'failed': 'FAIL', 'error': 'ERROR', 'skipped': 'SKIP'}


def load_json(path, default=None):
	try:
		with open(path, encoding='utf-8') as f:
			return json.load(f)
	except (OSError, ValueError):
		return default


def cases_of(leg_dir):
	"""The leaves of a leg's junit.xml: suite, name, status, time, message,
	log.  A parameterised case's parameters are "case.param"."""
	try:
		root = ET.parse(os.path.join(leg_dir, 'junit.xml')).getroot()
	except (OSError, ET.ParseError):
		return []
	out = []
	for ts in root.iter('testsuite'):
		for tc in ts.iter('testcase'):
			status, message, log = 'passed', '', ''
			for kind in ('failure', 'error', 'skipped'):
				el = tc.find(kind)
				if el is not None:
					status = {'failure': 'failed', 'error': 'error', 'skipped': 'skipped'}[kind]
					message = el.get('message', '')
					log = el.text or ''
			out.append({'suite': ts.get('name'), 'name': tc.get('name'), 'status': status,
				    'time': float(tc.get('time') or 0), 'message': message, 'log': log})
	return out


def load_leg(leg_dir):
	return {'name': os.path.basename(leg_dir.rstrip('/')),
		'dir': leg_dir,
		'leg': load_json(os.path.join(leg_dir, 'leg.json'), {}),
		'counts': load_json(os.path.join(leg_dir, 'counts.json'), {}),
		'times': load_json(os.path.join(leg_dir, 'times.json'), {}),
		'cases': cases_of(leg_dir)}


def load_run(results):
	run = load_json(os.path.join(results, 'run.json'), {})
	# The legs of this run: those run.json names (a results folder keeps
	# the legs of earlier runs too), or, without a run.json that names
	# them, every leg folder.
	if isinstance(run.get('legs'), list):
		legs = [load_leg(os.path.join(results, n)) for n in run['legs']
			if os.path.isfile(os.path.join(results, n, 'counts.json'))]
	else:
		legs = [load_leg(os.path.dirname(p))
			for p in sorted(glob.glob(os.path.join(results, '*', 'counts.json')))]
	checks = []
	try:
		with open(os.path.join(results, 'checks', 'checks.txt'), encoding='utf-8') as f:
			for line in f:
				name, status, secs = line.split()
				checks.append({'name': name, 'status': status, 'seconds': int(secs)})
	except (OSError, ValueError):
		pass
	times = load_json(os.path.join(results, 'times.json'), {})
	summary = ''
	try:
		with open(os.path.join(results, 'summary.txt'), encoding='utf-8') as f:
			summary = f.read().strip().splitlines()[-1]
	except (OSError, IndexError):
		pass
	return {'results': results, 'legs': legs, 'checks': checks, 'run': run,
		'times': times, 'summary': summary}


# --- kcidb -------------------------------------------------------------------

def path_part(text):
	"""A kcidb test path component: letters, digits, '_' and '-' only."""
	return re.sub(r'[^A-Za-z0-9_-]+', '_', text).strip('_') or '_'


def iso(ts):
	return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).isoformat()


def environment(info, name):
	"""Where a leg's cases ran, as leg.json says."""
	arch = info.get('arch', name)
	vcpus = info.get('vcpus')
	where = 'User Mode Linux' if info.get('linux_arch') == 'um' else 'QEMU'
	return f'{where}, {arch}' + (f', {vcpus} vCPU{"s" if vcpus != 1 else ""}' if vcpus else '')


def kcidb(run):
	r = run['run']
	run_id = path_part(r.get('run_id') or 'unknown')
	start = r.get('start') or 0
	checkout_id = f'{ORIGIN}:{run_id}'
	checkout = {'id': checkout_id, 'origin': ORIGIN,
		    'tree_name': f'debian-{r.get("package") or "linux-source"}',
		    'git_commit_name': f'Debian {r.get("package", "")} {r.get("version", "")}'.strip(),
		    'patchset_hash': r.get('patchset_hash', ''),
		    'start_time': iso(start),
		    # Valid: the series applied (scripts/test-all.sh's series-apply).
		    'valid': bool(r.get('series_applied')) and bool(r.get('branch_head')),
		    'comment': f'{len(r.get("patches", []))} patches of kernel-patches/ on the distro tree',
		    'misc': {'patches': r.get('patches', [])}}
	if re.fullmatch(r'[0-9a-f]{40}', r.get('pristine', '')):
		checkout['git_commit_hash'] = r['pristine']
	builds, tests = [], []
	for leg in run['legs']:
		c, t, info = leg['counts'], leg['times'], leg['leg']
		build_id = f'{checkout_id}-{path_part(leg["name"])}'
		phase = c.get('phase', 'run')
		build = {'id': build_id, 'checkout_id': checkout_id, 'origin': ORIGIN,
			 'architecture': path_part(info.get('arch', leg['name'])).lower(),
			 'config_name': '+'.join(k.replace('.kunitconfig', '') for k in info.get('kunitconfigs', [])) or 'kunit',
			 'status': 'FAIL' if phase in ('config', 'build') else ('ERROR' if phase == 'setup' else 'PASS'),
			 'comment': f'kunit.py leg {leg["name"]}',
			 'misc': {'leg': leg['name'], 'phase': phase}}
		if info.get('compiler'):
			build['compiler'] = info['compiler']
		if 'build' in t:
			build['duration'] = t.get('configure', 0) + t['build']
		if build['status'] != 'PASS':
			build['log_excerpt'] = '\n'.join(p['message'] for p in c.get('problems', []))[:16384]
		builds.append(build)
		for case in leg['cases']:
			path = '.'.join(path_part(x) for x in [case['suite']] + case['name'].split('.', 1))
			test = {'id': f'{build_id}-{path}', 'build_id': build_id, 'origin': ORIGIN,
				'path': path, 'status': STATUS[case['status']],
				'environment': {'comment': environment(info, leg['name'])}}
			if case['time']:
				test['duration'] = case['time']
			if case['status'] in ('failed', 'error'):
				test['log_excerpt'] = (case['message'] + '\n' + case['log'])[:16384]
			elif case['status'] == 'skipped':
				test['comment'] = case['message']
			tests.append(test)
	if run['checks']:
		build_id = f'{checkout_id}-checks'
		failed = [c['name'] for c in run['checks'] if c['status'] == 'FAIL']
		builds.append({'id': build_id, 'checkout_id': checkout_id, 'origin': ORIGIN,
			       'architecture': 'x86_64', 'config_name': 'checks',
			       'status': 'FAIL' if failed else 'PASS',
			       'comment': 'series, bisect, harness, lints, hang' +
					  (f'; failed: {", ".join(failed)}' if failed else '')})
		for chk in run['checks']:
			path = 'checks.' + path_part(chk['name'])
			test = {'id': f'{build_id}-{path}', 'build_id': build_id, 'origin': ORIGIN, 'path': path,
				'status': chk['status'], 'duration': chk['seconds']}
			if chk['status'] == 'FAIL':
				try:
					with open(os.path.join(run['results'], 'checks', chk['name'] + '.log'),
						  encoding='utf-8', errors='replace') as f:
						test['log_excerpt'] = f.read()[-4000:]
				except OSError:
					pass
			tests.append(test)
	return {'version': {'major': 5, 'minor': 0}, 'checkouts': [checkout],
		'builds': builds, 'tests': tests}


# --- GitHub summary ------------------------------------------------------------

def summary(leg):
	c, t = leg['counts'], leg['times']
	out = [f'### KUnit leg `{leg["name"]}`: {c.get("verdict", "no result")}', '',
	       '| passed | failed | skipped | problems | configure | build | run |',
	       '|---|---|---|---|---|---|---|',
	       f'| {c.get("passed", 0)} | {c.get("failed", 0)} | {c.get("skipped", 0)} | '
	       f'{len(c.get("problems", []))} | {t.get("configure", "-")} s | {t.get("build", "-")} s | '
	       f'{t.get("run", "-")} s |', '']
	for p in c.get('problems', []):
		out.append(f'- **{p["kind"]}**: {p["message"]}')
	bad = [x for x in leg['cases'] if x['status'] in ('failed', 'error')]
	for x in bad:
		out.append(f'- **{x["status"]}** `{x["suite"]}.{x["name"]}`: {x["message"]}')
		first = [l for l in x['log'].splitlines() if l.strip()][:8]
		if first:
			out += ['', '  ```', *('  ' + l for l in first), '  ```']
	for x in leg['cases']:
		if x['status'] == 'skipped':
			out.append(f'- skipped `{x["suite"]}.{x["name"]}`: {x["message"]}')
	return '\n'.join(out) + '\n'


def cpus_up(leg):
	"""CPUs the kernel brought up, from its log (kernel/smp.c's line); 1 for
	a kernel that booted without it; None without a boot."""
	try:
		with open(os.path.join(leg['dir'], 'kernel.log'), encoding='utf-8', errors='replace') as f:
			text = f.read()
	except OSError:
		return None
	m = re.search(r'smp: Brought up \d+ nodes?, (\d+) CPUs?', text)
	if m:
		return int(m.group(1))
	return 1 if re.search(r'KTAP version|TAP version', text) else None


def arch_row(leg):
	l, c, t = leg['leg'], leg['counts'], leg['times']
	up = cpus_up(leg)
	return {'leg': leg['name'], 'arch': l.get('arch', '-'), 'linux_arch': l.get('linux_arch', '-'),
		'word': f'{l["word_size"]}-bit' if l.get('word_size') else '-',
		'endian': l.get('endianness') or '-', 'vcpus': l.get('vcpus', '-'),
		'cpus_up': '-' if up is None else up,
		'passed': c.get('passed', 0), 'skipped': c.get('skipped', 0),
		# Whatever went wrong besides failed cases (a panic, a stop
		# before the boot) is one failure more, as test-all.sh counts it.
		'failed': c.get('failed', 0) + (1 if c.get('problems') else 0),
		'problem': (c.get('problems') or [{}])[0].get('message', ''),
		'build': t.get('build', '-'), 'run': t.get('run', '-'),
		'verdict': c.get('verdict', 'no result')}


def arches_table(legs):
	out = ['| leg | Linux arch | word | byte order | vCPUs | CPUs up | passed | skipped | failed | build s | run s | verdict |',
	       '|---|---|---|---|---|---|---|---|---|---|---|---|']
	for leg in legs:
		r = arch_row(leg)
		out.append(f'| {r["leg"]} | {r["linux_arch"]} | {r["word"]} | {r["endian"]} | {r["vcpus"]} | '
			   f'{r["cpus_up"]} | {r["passed"]} | {r["skipped"]} | {r["failed"]} | {r["build"]} | '
			   f'{r["run"]} | {r["verdict"]} |')
	return '\n'.join(out) + '\n'


def arch_line(leg):
	r = arch_row(leg)
	return (f'{r["leg"]}: {r["verdict"]}: {r["passed"]} passed, {r["failed"]} failed, '
		f'{r["skipped"]} skipped; {r["word"]} {r["endian"]} endian, {r["cpus_up"]} of '
		f'{r["vcpus"]} vCPUs up; build {r["build"]} s, run {r["run"]} s' +
		(f'; {r["problem"]}' if r['problem'] else ''))


def checks_summary(run):
	"""Markdown for a job that ran the checks (RESULTS/checks/checks.txt)."""
	out = [f'### Checks: {run["summary"] or "no summary"}', '', '| check | status | seconds |',
	       '|---|---|---|']
	out += [f'| {c["name"]} | {c["status"]} | {c["seconds"]} |' for c in run['checks']]
	for c in run['checks']:
		if c['status'] == 'FAIL':
			try:
				with open(os.path.join(run['results'], 'checks', c['name'] + '.log'),
					  encoding='utf-8', errors='replace') as f:
					tail = f.read().strip().splitlines()[-8:]
			except OSError:
				tail = []
			out += ['', f'**{c["name"]}** failed:', '', '```', *tail, '```']
	return '\n'.join(out) + '\n'


# --- HTML ----------------------------------------------------------------------

CSS = '''
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
.PASS { background: #d8f5d8; } .FAIL, .ERROR { background: #f8d0d0; } .SKIP { background: #f3efc8; }
details { margin: 0; } summary { cursor: pointer; }
.msg { font-family: monospace; white-space: pre-wrap; font-size: 12px; }
svg text { font: 11px sans-serif; }
'''


def e(x):
	return html.escape(str(x), quote=True)


def status_cell(status, text=None):
	return f'<td class="{status}" data-status="{status}">{e(text or status)}</td>'


def case_rows(leg):
	"""One row per case; the parameters of a parameterised case folded
	into one row that opens."""
	groups = {}
	for x in leg['cases']:
		base = x['name'].split('.', 1)[0]
		groups.setdefault((x['suite'], base), []).append(x)
	rows = []
	for (suite, base), xs in groups.items():
		worst = 'FAIL' if any(x['status'] in ('failed', 'error') for x in xs) else (
			'SKIP' if all(x['status'] == 'skipped' for x in xs) else 'PASS')
		if len(xs) == 1 and '.' not in xs[0]['name']:
			x = xs[0]
			msg = f'<div class="msg">{e(x["message"])}</div>' if x['message'] else ''
			rows.append(f'<tr data-leg="{e(leg["name"])}" data-case="{e(suite)}.{e(base)}">'
				    f'<td>{e(suite)}</td><td>{e(base)}{msg}</td>'
				    f'{status_cell(STATUS[x["status"]])}<td>{x["time"]:.3f}</td></tr>')
			continue
		inner = ''.join(f'<li>{e(x["name"].split(".", 1)[-1])}: {STATUS[x["status"]]}'
				f'{" - " + e(x["message"]) if x["message"] else ""}</li>' for x in xs)
		n = {s: sum(STATUS[x['status']] == s for x in xs) for s in ('PASS', 'FAIL', 'SKIP')}
		rows.append(f'<tr data-leg="{e(leg["name"])}" data-case="{e(suite)}.{e(base)}">'
			    f'<td>{e(suite)}</td><td><details><summary>{e(base)} ({len(xs)} parameters: '
			    f'{n["PASS"]} passed, {n["FAIL"]} failed, {n["SKIP"]} skipped)</summary>'
			    f'<ul>{inner}</ul></details></td>{status_cell(worst)}'
			    f'<td>{sum(x["time"] for x in xs):.3f}</td></tr>')
	return ''.join(rows)


def bar_chart(rows, revs):
	"""An SVG bar chart: instructions per operation for each workload, one
	bar per allocator (the IDA at each revision, the IDR, the bitmap)."""
	series = [f'IDA {r}' for r in revs] + ['IDR', 'bitmap']
	blues = ['#1f4e8c', '#4a7ab5', '#7aa6d6', '#a9c8ea']
	colours = [blues[i % len(blues)] for i in range(len(revs))] + ['#d98c3a', '#7f7f7f']
	vmax = max([v for row in rows for v in row[1] if v] or [1])
	bw, gap, left = 10, 14, 180
	height = 16 + len(rows) * (len(series) * bw + gap)
	width = left + 420
	out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 40}" role="img" '
	       f'aria-label="instructions per operation">']
	y = 10
	for name, values in rows:
		out.append(f'<text x="4" y="{y + len(series) * bw / 2 + 4}">{e(name)}</text>')
		for i, v in enumerate(values):
			if v is None:
				continue
			w = 400 * v / vmax
			out.append(f'<rect x="{left}" y="{y + i * bw}" width="{w:.1f}" height="{bw - 1}" '
				   f'fill="{colours[i % len(colours)]}"><title>{e(series[i])}: {v:.0f}</title></rect>')
		y += len(series) * bw + gap
	for i, s in enumerate(series):
		out.append(f'<rect x="{left + i * 90}" y="{y + 6}" width="10" height="10" '
			   f'fill="{colours[i % len(colours)]}"/><text x="{left + i * 90 + 14}" y="{y + 15}">{e(s)}</text>')
	out.append('</svg>')
	return ''.join(out)


def bench_section(results):
	"""The benchmark's userspace JSON files (scripts/tools/bench.sh)."""
	files = sorted(glob.glob(os.path.join(results, 'bench', 'userspace-*.json')))
	if not files:
		return '<p>No benchmark in this results folder (<code>scripts/tools/bench.sh</code> writes one).</p>'
	runs = [load_json(f, {}) for f in files]
	revs = [r.get('label') or r.get('rev') or os.path.basename(f) for r, f in zip(runs, files)]
	workloads = []
	for r in runs:
		for w in r.get('instructions_per_op', {}):
			if w not in workloads:
				workloads.append(w)
	rows = []
	for w in workloads:
		per = [r.get('instructions_per_op', {}).get(w, {}) for r in runs]
		vals = [p.get('ida') for p in per] + [per[-1].get('idr'), per[-1].get('bitmap')]
		rows.append((w, vals))
	return bar_chart(rows, revs)


def history_chart(hist):
	"""Pass counts and run times of the last runs, as two SVG polylines."""
	hist = hist[-30:]
	if len(hist) < 2:
		return '<p>History: this is the first recorded run.</p>'
	w, h = 480, 120
	def line(values, colour):
		vmax = max(values) or 1
		pts = ' '.join(f'{10 + i * (w - 20) / (len(values) - 1):.1f},{h - 10 - (h - 20) * v / vmax:.1f}'
			       for i, v in enumerate(values))
		return f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{pts}"/>'
	return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h + 20}" role="img" '
		f'aria-label="history">{line([x["passed"] for x in hist], "#2a8a2a")}'
		f'{line([x["seconds"] for x in hist], "#4a7ab5")}'
		f'<text x="10" y="{h + 15}">passed (green) and seconds (blue), last {len(hist)} runs; '
		f'latest {hist[-1]["passed"]} passed in {hist[-1]["seconds"]} s</text></svg>')


def append_history(run):
	legs = run['legs']
	entry = {'run_id': run['run'].get('run_id', ''), 'start': run['run'].get('start', 0),
		 'seconds': run['times'].get('total', 0),
		 'passed': sum(l['counts'].get('passed', 0) for l in legs) +
			   sum(c['status'] == 'PASS' for c in run['checks']),
		 'failed': sum(l['counts'].get('failed', 0) + (1 if l['counts'].get('problems') else 0) for l in legs) +
			   sum(c['status'] == 'FAIL' for c in run['checks']),
		 'skipped': sum(l['counts'].get('skipped', 0) for l in legs)}
	# The run's own closing line, when it has one, is what it counted.
	m = re.search(r'(\d+) passed, (\d+) failed, (\d+) skipped', run['summary'])
	if m:
		entry.update(passed=int(m.group(1)), failed=int(m.group(2)), skipped=int(m.group(3)))
	path = os.path.join(run['results'], 'history.jsonl')
	hist = []
	try:
		with open(path, encoding='utf-8') as f:
			hist = [json.loads(l) for l in f if l.strip()]
	except (OSError, ValueError):
		hist = []
	# One line per run: a report written again for the same run replaces
	# its line.
	if hist and hist[-1].get('run_id') == entry['run_id']:
		hist[-1] = entry
	else:
		hist.append(entry)
	with open(path + '.tmp', 'w', encoding='utf-8') as f:
		f.writelines(json.dumps(h) + '\n' for h in hist)
	os.replace(path + '.tmp', path)
	return hist


def html_report(run):
	results = run['results']
	hist = append_history(run)
	legs = run['legs']
	parts = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
		 '<title>ida-kunit: results</title>', f'<style>{CSS}</style></head><body>',
		 '<h1>ida-kunit: results</h1>']
	r = run['run']
	parts.append(f'<p id="run">Run <code>{e(r.get("run_id", "?"))}</code> on {e(r.get("package", ""))} '
		     f'{e(r.get("version", ""))}, {len(r.get("patches", []))} patches; '
		     f'<span id="summary">{e(run["summary"])}</span></p>')
	parts.append('<h2>Legs</h2><table id="legs"><tr><th>leg</th><th>verdict</th><th>passed</th>'
		     '<th>failed</th><th>skipped</th><th>problems</th><th>configure</th><th>build</th>'
		     '<th>run</th><th>logs</th></tr>')
	for leg in legs:
		c, t = leg['counts'], leg['times']
		links = ' '.join(f'<a href="{e(leg["name"])}/{f}">{f}</a>'
				 for f in ('kernel.log', 'ktap.log', 'junit.xml', 'results.json', 'build.log', 'config.log')
				 if os.path.isfile(os.path.join(leg['dir'], f)))
		parts.append(f'<tr data-leg="{e(leg["name"])}" data-passed="{c.get("passed", 0)}" '
			     f'data-failed="{c.get("failed", 0)}" data-skipped="{c.get("skipped", 0)}">'
			     f'<td>{e(leg["name"])}</td>{status_cell(c.get("verdict", "FAIL"))}'
			     f'<td>{c.get("passed", 0)}</td><td>{c.get("failed", 0)}</td><td>{c.get("skipped", 0)}</td>'
			     f'<td class="msg">{e("; ".join(p["message"] for p in c.get("problems", [])))}</td>'
			     f'<td>{t.get("configure", "-")} s</td><td>{t.get("build", "-")} s</td>'
			     f'<td>{t.get("run", "-")} s</td><td>{links}</td></tr>')
	parts.append('</table>')
	for leg in legs:
		parts.append(f'<h3>{e(leg["name"])}</h3><table class="cases"><tr><th>suite</th><th>case</th>'
			     f'<th>status</th><th>seconds</th></tr>{case_rows(leg)}</table>')
	if run['checks']:
		parts.append('<h2>Other checks</h2><table id="checks"><tr><th>check</th><th>status</th>'
			     '<th>seconds</th><th>log</th></tr>')
		for chk in run['checks']:
			log = f'checks/{chk["name"]}.log'
			link = f'<a href="{e(log)}">log</a>' if os.path.isfile(os.path.join(results, log)) else ''
			parts.append(f'<tr data-check="{e(chk["name"])}"><td>{e(chk["name"])}</td>'
				     f'{status_cell(chk["status"])}<td>{chk["seconds"]}</td><td>{link}</td></tr>')
		parts.append('</table>')
	cov = os.path.join(results, 'coverage', 'summary.txt')
	if os.path.isfile(cov):
		with open(cov, encoding='utf-8') as f:
			total = [l for l in f if l.startswith('coverage total')]
		parts.append(f'<h2>Coverage</h2><p id="coverage">{e(total[0].strip() if total else "")} '
			     f'(<a href="coverage/summary.txt">per function</a>)</p>')
	parts.append('<h2>Benchmark</h2>' + bench_section(results))
	parts.append('<h2>History</h2>' + history_chart(hist))
	parts.append('</body></html>\n')
	out = os.path.join(results, 'index.html')
	with open(out, 'w', encoding='utf-8') as f:
		f.write('\n'.join(parts))
	return out


def main():
	args = sys.argv[1:]
	if len(args) >= 2 and args[0] == 'kcidb':
		run = load_run(os.path.abspath(args[1]))
		if not run['legs'] and not run['checks']:
			print(f'error: no leg and no check in {args[1]}: nothing to submit', file=sys.stderr)
			return 1
		out = args[3] if len(args) == 4 and args[2] == '--out' else os.path.join(run['results'], 'kcidb.json')
		with open(out, 'w', encoding='utf-8') as f:
			json.dump(kcidb(run), f, indent=1)
		print(f'kcidb: {out}')
		return 0
	if len(args) == 2 and args[0] == 'summary':
		where = os.path.abspath(args[1])
		if os.path.isfile(os.path.join(where, 'counts.json')):
			sys.stdout.write(summary(load_leg(where)))
		else:
			sys.stdout.write(checks_summary(load_run(where)))
		return 0
	if len(args) == 2 and args[0] in ('html', 'all'):
		run = load_run(os.path.abspath(args[1]))
		if args[0] == 'all' and not run['legs'] and not run['checks']:
			print(f'error: no leg and no check in {args[1]}: nothing to report', file=sys.stderr)
			return 1
		if args[0] == 'all':
			with open(os.path.join(run['results'], 'kcidb.json'), 'w', encoding='utf-8') as f:
				json.dump(kcidb(run), f, indent=1)
		print(f'report: {html_report(run)}')
		return 0
	if len(args) >= 2 and args[0] == 'arches':
		results = os.path.abspath(args[1])
		if len(args) > 2:
			legs = [load_leg(os.path.join(results, n)) for n in args[2:]]
		else:
			legs = load_run(results)['legs']
		sys.stdout.write(arches_table(legs))
		return 0
	if len(args) == 2 and args[0] == 'line':
		print(arch_line(load_leg(os.path.abspath(args[1]))))
		return 0
	print('error: usage: report.py kcidb RESULTS [--out FILE] | summary LEG_DIR | html RESULTS | all RESULTS | arches RESULTS [LEG...] | line LEG_DIR',
	      file=sys.stderr)
	return 2


if __name__ == '__main__':
	sys.exit(main())
