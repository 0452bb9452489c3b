#!/usr/bin/env node
// Bundles the workflow code once at build time (temporal/dist/workflow-bundle.js), so
// workers start without running webpack and every worker runs the same bytes.
'use strict';
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { bundleWorkflowCode } = require('@temporalio/worker');

const root = path.resolve(__dirname, '..');
const workflowsPath = path.join(root, 'temporal/dist/workflows/index.js');
const out = path.join(root, 'temporal/dist/workflow-bundle.js');

bundleWorkflowCode({
  workflowsPath,
  logger: { info() {}, debug() {}, trace() {}, warn: console.warn, error: console.error, log() {} },
}).then(
  ({ code }) => writeFileSync(out, code),
  (err) => {
    process.stderr.write(`workflow bundle failed: ${err.message}\n`);
    process.exit(1);
  },
);
