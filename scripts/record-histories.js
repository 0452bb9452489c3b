#!/usr/bin/env node
// Re-records the Temporal histories the replay tests check (test/replay/histories/*.json): runs
// test/replay/record.ts under Jest's integration project, so every shape runs for real on a
// fresh Temporal dev server and PostgreSQL. Read test/replay/README.md before using it.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const r = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', jest, '--runInBand', '--testMatch', '**/test/replay/record.ts', '--selectProjects', 'integration'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
