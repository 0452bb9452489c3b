#!/usr/bin/env node
// `npm run start:gateway` / `npm run start:worker`: the built app, started with its node flags
// and process defaults (packages/config APP_PROCESSES, beneath the environment's own settings).
// The app runs in a process group of its own (spawnManaged), so a Ctrl-C reaches it once, from
// here; this launcher ends as the app ends.
'use strict';
const path = require('node:path');
const { appLaunch } = require('../packages/config/dist');
const { spawnManaged } = require('../packages/devstack/dist');

const name = process.argv[2];
if (name !== 'gateway' && name !== 'worker') {
  process.stderr.write('usage: node scripts/start-app.js gateway|worker\n');
  process.exit(2);
}
const launch = appLaunch(name);
const app = spawnManaged(process.execPath, [...launch.nodeFlags, path.join(__dirname, '..', launch.entry)], {
  name,
  env: launch.env,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void app.stop(30_000));
void app.exited.then((e) => process.exit(e.code ?? 1));
