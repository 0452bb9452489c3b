#!/usr/bin/env node
// Prints the closing line CI counts, `<passed> passed, <failed> failed`, from Jest's JSON results
// (.test-results/jest.json, written by scripts/test.js). A test file that failed to run at all
// (a syntax error, a failed beforeAll with no test reached) counts as one failure, and missing
// results count as one failure, so a broken run can never read as green.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const RESULTS_FILE = path.join('.test-results', 'jest.json');

function summarize(file) {
  let json;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return { line: '0 passed, 1 failed', passed: 0, failed: 1 };
  }
  const passed = json.numPassedTests;
  const unrun = json.testResults.filter((f) => f.status === 'failed' && f.assertionResults.every((a) => a.status !== 'failed')).length;
  const failed = json.numFailedTests + unrun;
  return { line: `${passed} passed, ${failed} failed`, passed, failed };
}

module.exports = { summarize, RESULTS_FILE };

if (require.main === module) {
  const { line } = summarize(path.resolve(__dirname, '..', RESULTS_FILE));
  process.stdout.write(`${line}\n`);
}
