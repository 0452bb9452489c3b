#!/usr/bin/env node
// Bundles the workflow code once at build time (temporal/dist/workflow-bundle.js), so
// workers start without running webpack and every worker runs the same bytes; and a second
// bundle with OpenTelemetry's workflow interceptors (workflow-bundle.traced.js), which a worker
// runs only when traces are on, so one without them never loads that code.
'use strict';
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { bundleWorkflowCode } = require('@temporalio/worker');

const root = path.resolve(__dirname, '..');
const workflowsPath = path.join(root, 'temporal/dist/workflows/index.js');
const bundles = [
  { out: path.join(root, 'temporal/dist/workflow-bundle.js'), workflowInterceptorModules: [] },
  {
    out: path.join(root, 'temporal/dist/workflow-bundle.traced.js'),
    workflowInterceptorModules: [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors', { paths: [path.join(root, 'temporal')] }),
    ],
  },
];

/**
 * The SDK requires an inline source map and parses it in every workflow thread (file:line in
 * workflow stack traces). Its `sourcesContent`, a copy of every bundled source, is read only
 * for `showStackTraceSources`, which svc leaves off; dropping it keeps that copy out of every
 * workflow thread's memory.
 */
function withoutSourcesContent(code) {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const data = code.indexOf('base64,', at) + 'base64,'.length;
  if (at < 0 || data < at) throw new Error('the workflow bundle has no inline source map');
  const map = JSON.parse(Buffer.from(code.slice(data).trim(), 'base64').toString('utf8'));
  delete map.sourcesContent;
  return `${code.slice(0, data)}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}

const logger = { info() {}, debug() {}, trace() {}, warn: console.warn, error: console.error, log() {} };
Promise.all(
  bundles.map(({ out, workflowInterceptorModules }) =>
    bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger }).then(({ code }) =>
      writeFileSync(out, withoutSourcesContent(code)),
    ),
  ),
).catch((err) => {
  process.stderr.write(`workflow bundle failed: ${err.message}\n`);
  process.exit(1);
});
