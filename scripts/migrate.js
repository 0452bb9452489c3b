#!/usr/bin/env node
// Applies prisma/migrations to DATABASE_URL with the project's runner (needs `npm run build`).
'use strict';
const { migrate } = require('../packages/db/dist');

if (!process.env.DATABASE_URL) {
  process.stderr.write('DATABASE_URL is not set\n');
  process.exit(1);
}
migrate(process.env.DATABASE_URL).then(
  ({ applied }) => process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n'),
  (err) => {
    process.stderr.write(`migration failed: ${err.message}\n`);
    process.exit(1);
  },
);
