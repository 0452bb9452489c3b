#!/usr/bin/env node
// Prints the path of a Temporal CLI binary (it carries the Temporal dev server), building it
// into ~/.cache/svc/temporal-cli/ with `go install` when needed (once, ~5 minutes).
// Honours TEMPORAL_CLI_PATH. Progress goes to stderr, the path to stdout:
//   export TEMPORAL_CLI_PATH="$(node scripts/ensure-temporal-cli.js)"
// Needs the built packages (`npm run build`).
'use strict';
const path = require('node:path');

let devstack;
try {
  devstack = require(path.join(__dirname, '..', 'packages', 'devstack', 'dist'));
} catch (err) {
  console.error(`packages/devstack is not built (${err.message.split('\n')[0]}): run \`npm run build\` first.`);
  process.exit(1);
}

devstack
  .ensureTemporalCli((msg) => console.error(msg))
  .then((cliPath) => console.log(cliPath))
  .catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
