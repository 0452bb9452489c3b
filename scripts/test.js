#!/usr/bin/env node
// `npm test` after the build: Jest over every project (unit, integration, faults), with its JSON
// results written to .test-results/jest.json, then one closing line counted from them:
//   <passed> passed, <failed> failed
// Extra arguments go to Jest (e.g. `npm test -- test/runs.test.ts`). Exits non-zero when
// anything failed, including a test file that could not run at all.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { summarize, RESULTS_FILE } = require('./test-summary');

const root = path.resolve(__dirname, '..');
const results = path.join(root, RESULTS_FILE);
fs.mkdirSync(path.dirname(results), { recursive: true });
fs.rmSync(results, { force: true });

const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const r = spawnSync(
  process.execPath,
  // --forceExit: the results are written first; a handle some test left open must not hold CI.
  ['--experimental-vm-modules', jest, '--runInBand', '--forceExit', '--json', `--outputFile=${results}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
const { line, failed } = summarize(results);
process.stdout.write(`${line}\n`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);
