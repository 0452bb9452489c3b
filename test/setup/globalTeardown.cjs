// Jest globalTeardown for the `integration` project: stops what globalSetup.cjs started
// (Temporal first, then PostgreSQL) and deletes the temp data dir.
'use strict';

const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const state = globalThis.__SVC_TEST_STACK__;
  if (!state) return;
  globalThis.__SVC_TEST_STACK__ = undefined;
  const errors = [];
  for (const server of [state.temporal, state.postgres]) {
    if (!server) continue;
    try {
      await server.stop();
    } catch (err) {
      errors.push(err);
    }
  }
  fs.rmSync(state.dataDir, { recursive: true, force: true });
  if (errors.length) throw errors[0];
};
